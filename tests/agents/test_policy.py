"""The policy protocol's types reject bad values with messages that say how to fix them."""

from __future__ import annotations

import asyncio
import math

import pytest

from palaestra.agents.policy import Completion, Policy, Request, SamplingParams, check_requests
from palaestra.agents.scripted import OraclePolicy, RandomPolicy


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"temperature": -1}, "temperature"),
        ({"temperature": math.inf}, "temperature"),
        ({"top_p": 0}, "top_p"),
        ({"top_k": -1}, "top_k"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"n": 0}, "n must"),
        ({"stop": ("",)}, "stop"),
        ({"seed": -3}, "seed"),
    ],
)
def test_sampling_params_are_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SamplingParams(**kwargs)


def test_sampling_params_normalise_stop_and_replace():
    params = SamplingParams(stop="</answer>", stop_token_ids=[3])
    assert params.stop == ("</answer>",) and params.stop_token_ids == (3,)
    assert params.replace(temperature=0).greedy and not params.greedy
    assert hash(params) == hash(SamplingParams(stop=("</answer>",), stop_token_ids=(3,)))


def test_completions_and_requests_are_checked():
    with pytest.raises(ValueError, match="one log-prob per token"):
        Completion([1, 2], [0.0])
    with pytest.raises(ValueError, match="finish_reason"):
        Completion([1], [0.0], "eos")
    with pytest.raises(TypeError, match="sequence of Requests"):
        check_requests(Request([1]))
    with pytest.raises(ValueError, match="empty"):
        check_requests([Request([])])


def test_scripted_policies_are_policies(formatter):
    assert isinstance(OraclePolicy(formatter), Policy)
    assert isinstance(RandomPolicy(formatter), Policy)
    with pytest.raises(TypeError, match="Requests"):
        asyncio.run(RandomPolicy(formatter).generate([[1, 2]]))
