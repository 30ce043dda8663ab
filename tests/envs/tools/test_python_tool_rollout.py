"""A scripted policy plays the interpreter env through the rollout engine: tool output is never
trained on."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def formatter(tmp_path_factory):
    pytest.importorskip("transformers", reason="the torch extra (transformers) is not installed")
    from palaestra.agents.chat import ChatFormatter
    from palaestra.agents.tiny import TinyTokenizerConfig, tiny_tokenizer

    # A byte-level tokenizer trained on these two envs only: any text round-trips, and it
    # trains in seconds rather than sampling every registered env.
    config = TinyTokenizerConfig(
        vocab_size=512, episodes_per_env=2, env_ids=("PythonTool-v0", "PythonTags-v0")
    )
    return ChatFormatter(tiny_tokenizer(config, cache_dir=tmp_path_factory.mktemp("tiny")))


@pytest.mark.parametrize("env_id", ["PythonTool-v0", "PythonTags-v0"])
def test_tool_messages_are_masked_in_the_rollout_record(env_id, formatter):
    from palaestra.agents.rollout import RolloutEngine, Task
    from palaestra.agents.scripted import OraclePolicy

    engine = RolloutEngine(OraclePolicy(formatter), formatter)
    (episode,) = engine.run([Task(env_id, seed=3)])

    assert episode.status == "ok" and episode.terminated and episode.success, episode.error
    # Three interpreter calls, each building on the state the previous one left.
    tool_messages = [m for m in episode.messages if m["role"] == "tool"]
    assert len(tool_messages) == 3 and all(m["name"] == "python" for m in tool_messages)
    assert tool_messages[0]["content"] == tool_messages[1]["content"] == "(no output)"
    assert tool_messages[2]["content"] and "Error" not in tool_messages[2]["content"]
    assert episode.turn_rewards[-1] == 1.0 and len(episode.turn_spans) == 4
    # The loss mask is 1 exactly on the sampled turns: everything between them (tool output
    # included) is 0.
    mask = np.array(episode.loss_mask)
    sampled = np.zeros(len(mask), dtype=bool)
    for start, end in episode.turn_spans:
        sampled[start:end] = True
    assert np.array_equal(mask == 1, sampled)
    spans = episode.turn_spans
    for message, (_, end), (start, _) in zip(tool_messages, spans[:-1], spans[1:], strict=True):
        assert mask[end:start].sum() == 0
        assert message["content"] in formatter.tokenizer.decode(episode.completion_ids[end:start])
