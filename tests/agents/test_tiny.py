"""The tiny tokenizer and model: built locally, cached, small, with a working chat template."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from palaestra.agents import tiny


def test_tokenizer_has_the_chat_tokens_as_single_tokens(tokenizer):
    for token in (*tiny.SPECIAL_TOKENS, *tiny.TAG_TOKENS):
        assert len(tokenizer.encode(token, add_special_tokens=False)) == 1, token
    assert tokenizer.eos_token == tiny.IM_END
    assert tokenizer.pad_token == tiny.END_OF_TEXT


def test_tokenizer_splits_digits_and_round_trips_any_text(tokenizer):
    ids = tokenizer.encode("12345", add_special_tokens=False)
    assert len(ids) == 5
    text = "Résumé: 3 × 4 = 12 ✓ 中文 <think>x</think>\n\n\ttabs  spaces\x00"
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert (
        tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False) == text
    )


def test_chat_template_renders_tools_calls_and_responses(tokenizer):
    tools = [
        {"type": "function", "function": {"name": "calculator", "parameters": {"type": "object"}}}
    ]
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2 + 3?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c0",
                    "type": "function",
                    "function": {"name": "calculator", "arguments": '{"expression": "2+3"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c0", "content": "5"},
        {"role": "assistant", "content": "<think>done</think><answer>5</answer>"},
    ]
    text = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=False, add_generation_prompt=False
    )
    assert text.startswith("<|im_start|>system\nBe brief.\n\n# Tools")
    assert '"name": "calculator"' in text
    assert (
        "<tool_call>\n"
        '{"name": "calculator", "arguments": {"expression": "2+3"}}\n</tool_call><|im_end|>' in text
    )
    assert "<|im_start|>user\n<tool_response>\n5\n</tool_response><|im_end|>\n" in text
    # Assistant turns are rendered verbatim, think blocks included.
    assert text.endswith("<|im_start|>assistant\n<think>done</think><answer>5</answer><|im_end|>\n")


def test_generation_prompt_and_thinking_switch(tokenizer):
    messages = [{"role": "user", "content": "hi"}]
    assert tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True
    ).endswith("<|im_start|>assistant\n")
    off = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, enable_thinking=False
    )
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_model_is_small_and_matches_the_tokenizer(model, tokenizer):
    assert 500_000 <= tiny.parameter_count(model) <= 5_000_000
    assert model.config.vocab_size == len(tokenizer)
    assert model.config.model_type == "qwen2"
    assert not model.training


def test_build_is_cached_and_deterministic(tiny_cache, tmp_path, tokenizer):
    again = tiny.tiny_tokenizer(cache_dir=tiny_cache)
    assert again.get_vocab() == tokenizer.get_vocab()
    folders = _tokenizer_folders(tiny_cache)
    fresh = tiny.tiny_tokenizer(cache_dir=tmp_path)
    assert fresh.get_vocab() == tokenizer.get_vocab()
    assert _tokenizer_folders(tiny_cache) == folders
    assert [p.name for p in (tmp_path / "tiny").iterdir()] == folders


def _tokenizer_folders(cache) -> list[str]:
    # Only tokenizers: other tests build models with overrides in the same cache meanwhile.
    return sorted(p.name for p in (cache / "tiny").iterdir() if p.name.startswith("tokenizer-"))


def test_model_overrides_build_a_different_model(tiny_cache, tokenizer):
    import torch

    state = torch.random.get_rng_state()
    small = tiny.tiny_model(tokenizer, cache_dir=tiny_cache, num_hidden_layers=1, hidden_size=64)
    assert small.config.num_hidden_layers == 1 and small.config.hidden_size == 64
    assert torch.equal(torch.random.get_rng_state(), state), (
        "building the model touched torch's global RNG"
    )
    with pytest.raises(TypeError, match="unknown option"):
        tiny.tiny_model(tokenizer, cache_dir=tiny_cache, layers=2)
    with pytest.raises(ValueError, match="divisible"):
        tiny.TinyModelConfig(hidden_size=100, num_attention_heads=3)


def test_the_corpus_covers_the_registered_envs():
    texts = tiny.sample_env_text(
        ["Arithmetic-v0", "GuessNumber-v0", "No-Such-v0"], episodes_per_env=1, max_turns=3
    )
    joined = "\n".join(texts)
    assert "Compute the value of this expression" in joined
    assert "<guess>" in joined
    assert "<|im_start|>user" in joined


def test_cache_root_follows_the_environment_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("PALAESTRA_CACHE", str(tmp_path))
    assert tiny.cache_root() == tmp_path


def test_importing_agents_imports_nothing_heavy(subprocess_env):
    code = (
        "import json, sys, palaestra, palaestra.agents; "
        "from palaestra.agents import RolloutEngine, ChatFormatter, OraclePolicy, HFPolicy; "
        "from palaestra.agents import OpenAIPolicy, VLLMPolicy; "
        "heavy = ('torch', 'transformers', 'tokenizers', 'httpx', 'vllm'); "
        "print(json.dumps(sorted(m for m in heavy "
        "if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        check=True,
    )
    assert json.loads(out.stdout) == []
