"""A multi-turn rollout through the Search-R1 tag protocol: the <information> text is never
trained on."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from palaestra.envs.search.backends import Document, LocalIndex
from palaestra.errors import MissingDependencyError


@pytest.fixture(scope="module")
def formatter(tmp_path_factory):
    pytest.importorskip("transformers", reason="the torch extra (transformers) is not installed")
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.tiny import TinyTokenizerConfig, tiny_tokenizer

    config = TinyTokenizerConfig(
        vocab_size=512, episodes_per_env=2, env_ids=("SearchQA-v0", "MultiHopQATags-v0")
    )
    return ChatFormatter(tiny_tokenizer(config, cache_dir=tmp_path_factory.mktemp("tiny")))


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "MultiHopQATags-v0"])
def test_information_tokens_are_masked_in_the_rollout_record(env_id, formatter):
    from palaestra.agents.rollout import RolloutEngine, Task
    from palaestra.agents.scripted import OraclePolicy

    engine = RolloutEngine(OraclePolicy(formatter), formatter)
    (episode,) = engine.run([Task(env_id, seed=5)])

    assert episode.status == "ok" and episode.terminated and episode.success, episode.error
    information = [m for m in episode.messages if m["role"] == "tool"]
    assert information and all(m["content"].startswith("<information>") for m in information)
    assert len(episode.turn_spans) == len(information) + 1
    mask = np.array(episode.loss_mask)
    sampled = np.zeros(len(mask), dtype=bool)
    for start, end in episode.turn_spans:
        sampled[start:end] = True
    assert np.array_equal(mask == 1, sampled)
    spans = episode.turn_spans
    for message, (_, end), (start, _) in zip(information, spans[:-1], spans[1:], strict=True):
        assert mask[end:start].sum() == 0
        assert message["content"] in formatter.tokenizer.decode(episode.completion_ids[end:start])


class _SearchThenModel:
    """The oracle's first turn (a real search), then the tiny model samples every later turn."""

    def __init__(self, oracle, model):
        self.oracle, self.model = oracle, model

    async def generate(self, requests):
        out = []
        for request in requests:
            policy = self.oracle if request.context.turn == 0 else self.model
            out += await policy.generate([request])
        return out


def test_the_tiny_model_samples_after_information_that_stays_masked(formatter, tmp_path):
    import torch

    from palaestra.agents.backends.hf import HFPolicy
    from palaestra.agents.policy import SamplingParams
    from palaestra.agents.rollout import RolloutConfig, RolloutEngine, Task
    from palaestra.agents.scripted import OraclePolicy
    from palaestra.agents.tiny import tiny_model

    torch.set_num_threads(1)
    model = tiny_model(formatter.tokenizer, cache_dir=tmp_path, num_hidden_layers=1, hidden_size=64)
    policy = _SearchThenModel(OraclePolicy(formatter), HFPolicy(model, formatter.tokenizer, seed=0))
    config = RolloutConfig(sampling=SamplingParams(max_tokens=64))
    (episode,) = RolloutEngine(policy, formatter, config).run([Task("SearchQA-v0", seed=5)])

    assert episode.status == "ok", episode.error
    assert len(episode.turn_spans) >= 2, episode.messages  # a search, then sampled turns
    information = next(m for m in episode.messages if m["role"] == "tool")
    assert information["content"].startswith("<information>")
    mask = np.array(episode.loss_mask)
    (_, search_end), (model_start, model_end) = episode.turn_spans[:2]
    assert mask[search_end:model_start].sum() == 0
    assert information["content"] in formatter.tokenizer.decode(
        episode.completion_ids[search_end:model_start]
    )
    assert mask[model_start:model_end].all() and model_end > model_start
    assert any(lp != 0.0 for lp in episode.logprobs[model_start:model_end])  # sampled


def test_a_missing_tantivy_names_the_search_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tantivy", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "palaestra\[search\]"'):
        LocalIndex([Document("a", "A", "text")])
