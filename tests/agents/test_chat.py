"""Token in / token out: suffix tokenization, masks, re-added end tokens, and the drift check."""

from __future__ import annotations

import json

import pytest

from palaestra.agents.chat import ChatFormatter, TemplateError, _LRUCache
from palaestra.agents.policy import Completion
from palaestra.agents.tiny import TINY_CHAT_TEMPLATE
from palaestra.agents.tool_calls import action_message, text_to_action
from palaestra.parsers import parse_action

TOOLS = [{"type": "function", "function": {"name": "calculator", "parameters": {"type": "object"}}}]

# Qwen3's habit: assistant turns before the last user message lose their <think> block.
_LAST_USER = (
    "{%- set ns = namespace(last_user=-1) -%}"
    "{%- for m in messages -%}{%- if m['role'] == 'user' -%}{%- set ns.last_user = loop.index0 -%}"
    "{%- endif -%}{%- endfor -%}"
)
_DROP_THINK = (
    "{%- set content = message['content'] or '' -%}"
    "{%- if loop.index0 < ns.last_user and '</think>' in content -%}"
    "{%- set content = content.split('</think>')[-1].lstrip('\\n') -%}{%- endif -%}"
    "{{- content -}}"
)
THINK_DROPPING_TEMPLATE = _LAST_USER + TINY_CHAT_TEMPLATE.replace(
    "{{- message['content'] or '' -}}", _DROP_THINK
)

DEFAULT_SYSTEM_TEMPLATE = (
    "{%- if not (messages and messages[0]['role'] == 'system') and not tools -%}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' -}}{%- endif -%}"
    + TINY_CHAT_TEMPLATE
)


def _sampled(formatter, text, *, end=True, logprob=-0.5):
    ids = formatter.encode(text) + ([formatter.eot_id] if end else [])
    return Completion(ids, [logprob] * len(ids), "stop" if end else "length")


def _play(formatter, turns, opening, tools=None):
    """Builds a sequence: opening messages, then (sampled text, env messages) per turn."""
    sequence = formatter.sequence(opening, tools)
    for text, env_messages in turns:
        action = sequence.add_completion(_sampled(formatter, text))
        sequence.add_action(action_message(action))
        if env_messages:
            sequence.add_messages(env_messages)
    return sequence


def test_the_prompt_is_templated_once_with_the_generation_prompt(formatter, tokenizer):
    opening = [{"role": "user", "content": "Compute 2 + 2."}]
    expected = tokenizer.apply_chat_template(opening, tokenize=False, add_generation_prompt=True)
    assert formatter.prompt_ids(opening) == tokenizer.encode(expected, add_special_tokens=False)
    assert formatter.end_of_turn == "<|im_end|>"


def test_masks_cover_exactly_the_sampled_tokens(formatter):
    sequence = formatter.sequence([{"role": "user", "content": "Guess a number."}])
    first = _sampled(formatter, "<guess>8</guess>")
    sequence.add_completion(first)
    sequence.add_action({"role": "assistant", "content": "<guess>8</guess>"})
    sequence.add_messages([{"role": "user", "content": "Higher."}])
    second = _sampled(formatter, "<guess>12</guess>")
    sequence.add_completion(second)

    n1, n2 = len(first.token_ids), len(second.token_ids)
    assert sequence.turn_spans[0] == (0, n1)
    start, end = sequence.turn_spans[1]
    assert end - start == n2
    assert sequence.loss_mask[:n1] == [1] * n1  # the sampled end-of-turn token is trained on
    assert sequence.loss_mask[start:end] == [1] * n2
    assert sum(sequence.loss_mask) == n1 + n2
    env_part = sequence.completion_ids[n1:start]
    assert set(sequence.loss_mask[n1:start]) == {0}
    # The env side holds the newline after the end token, the message and the generation prompt.
    assert (
        formatter.decode(env_part)
        == "\n<|im_start|>user\nHigher.<|im_end|>\n<|im_start|>assistant\n"
    )
    assert sequence.logprobs[:n1] == first.logprobs
    assert set(sequence.logprobs[n1:start]) == {0.0}


def test_a_missing_end_token_is_re_added_with_mask_zero(formatter):
    sequence = formatter.sequence([{"role": "user", "content": "Say a long thing."}])
    cut = _sampled(formatter, "a long thing that was cut", end=False)
    text = sequence.add_completion(cut)
    assert text == "a long thing that was cut"
    assert sequence.completion_ids[-1] == formatter.eot_id
    assert sequence.loss_mask[-1] == 0 and sequence.logprobs[-1] == 0.0
    assert sequence.turn_spans == [(0, len(cut.token_ids))]
    sequence.add_action({"role": "assistant", "content": text})
    assert sequence.drift().ok


def test_a_multi_turn_tool_episode_equals_a_full_re_template(formatter):
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "calculator", "arguments": '{"expression": "6*7"}'},
            }
        ],
    }
    sequence = formatter.sequence(
        [{"role": "system", "content": "Use tools."}, {"role": "user", "content": "6*7?"}], TOOLS
    )
    ids = formatter.action_ids(call, TOOLS)
    text = sequence.add_completion(Completion(ids, [0.0] * len(ids)))
    action = text_to_action(text, "hermes")
    assert action["tool_calls"][0]["function"]["name"] == "calculator"
    sequence.add_action(action)
    sequence.add_messages(
        [{"role": "tool", "content": "42", "tool_call_id": "call_0", "name": "calculator"}]
    )
    answer = sequence.add_completion(
        _sampled(formatter, "<think>the tool says 42</think><answer>42</answer>")
    )
    sequence.add_action({"role": "assistant", "content": answer})
    report = sequence.drift()
    assert report.ok, report


def test_drift_check_flags_a_template_that_drops_earlier_think_blocks(tokenizer):
    formatter = ChatFormatter(tokenizer, chat_template=THINK_DROPPING_TEMPLATE)
    turns = [
        (
            "<think>halve the range</think><guess>32</guess>",
            [{"role": "user", "content": "Higher."}],
        ),
        ("<think>halve again</think><guess>48</guess>", []),
    ]
    sequence = _play(formatter, turns, [{"role": "user", "content": "Guess 1-64."}])
    report = sequence.drift()
    assert not report.ok
    assert "<think>" in report.ours and "<think>halve the range" not in report.theirs
    assert report.index == len(sequence.prompt_ids)  # the first sampled token is where they part
    text_report = sequence.drift("text")
    assert not text_report.ok and text_report.index == report.index
    assert "halve the range" in text_report.ours and "halve the range" not in text_report.theirs
    # The same episode through the verbatim template has no drift.
    plain = _play(ChatFormatter(tokenizer), turns, [{"role": "user", "content": "Guess 1-64."}])
    assert plain.drift().ok
    assert plain.ids == sequence.ids  # token in / token out never re-tokenizes history


def test_a_default_system_prompt_lands_in_the_prompt_only(tokenizer):
    formatter = ChatFormatter(tokenizer, chat_template=DEFAULT_SYSTEM_TEMPLATE)
    sequence = _play(
        formatter,
        [("<guess>4</guess>", [{"role": "user", "content": "Lower."}]), ("<guess>2</guess>", [])],
        [{"role": "user", "content": "Guess 1-8."}],
    )
    assert "You are a helpful assistant." in formatter.decode(sequence.prompt_ids)
    assert "helpful" not in formatter.decode(sequence.completion_ids)
    assert sequence.drift().ok


def test_sampled_tokens_that_do_not_re_tokenize_are_reported(formatter):
    sequence = formatter.sequence([{"role": "user", "content": "Think."}])
    # "<think>" spelled with byte-level pieces instead of its single added token.
    pieces = (
        [t for ch in "<think>" for t in formatter.encode(ch)]
        + formatter.encode("ok")
        + [formatter.eot_id]
    )
    text = sequence.add_completion(Completion(pieces, [0.0] * len(pieces)))
    assert text == "<think>ok"
    sequence.add_action({"role": "assistant", "content": text})
    report = sequence.drift()
    assert not report.ok and "re-tokenize" in report.reason
    assert sequence.drift("text").ok  # the text is the same: only the tokens differ


def test_a_template_that_rewrites_history_cannot_be_suffix_tokenized(tokenizer):
    counting = "{{- 'Messages: ' + (messages | length | string) + '\\n' -}}" + TINY_CHAT_TEMPLATE
    formatter = ChatFormatter(tokenizer, chat_template=counting)
    with pytest.raises(TemplateError, match="prefix-stable"):
        formatter.suffix_ids([{"role": "user", "content": "next"}])


def test_end_of_turn_must_be_found_or_named(tokenizer):
    bare = (
        "{%- for m in messages -%}{{- m['role'] + ': ' + (m['content'] or '') + '\\n' -}}"
        "{%- endfor -%}"
    )
    with pytest.raises(TemplateError, match="end_of_turn"):
        ChatFormatter(tokenizer, chat_template=bare)
    with pytest.raises(TemplateError, match="not one"):
        ChatFormatter(tokenizer, chat_template=bare, end_of_turn="END OF TURN")


def test_action_ids_render_native_tool_calls_as_the_template_shows_them(formatter):
    message = {
        "role": "assistant",
        "content": "Let me compute.",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "calculator", "arguments": {"expression": "1+1"}},
            }
        ],
    }
    ids = formatter.action_ids(message, TOOLS)
    assert ids[-1] == formatter.eot_id
    text = formatter.completion_text(ids)
    assert (
        text == "Let me compute.\n<tool_call>\n"
        '{"name": "calculator", "arguments": {"expression": "1+1"}}\n</tool_call>'
    )
    parsed = parse_action(text, "hermes")
    assert parsed.tool_calls[0].arguments == {"expression": "1+1"}
    assert formatter.action_ids("plain text") == formatter.encode("plain text") + [formatter.eot_id]


def test_text_to_action_uses_the_named_parsers():
    text = (
        "<think>use the tool</think>\n"
        '<tool_call>{"name": "calculator", "arguments": {"expression": "2*3"}}</tool_call>'
    )
    action = text_to_action(text, "hermes")
    assert action["content"] == "<think>use the tool</think>\n"
    assert json.loads(action["tool_calls"][0]["function"]["arguments"]) == {"expression": "2*3"}
    assert text_to_action(text, None) == text
    assert text_to_action("<answer>6</answer>", "hermes") == "<answer>6</answer>"
    broken = '<tool_call>{"name": "calculator", "arguments": </tool_call>'
    assert text_to_action(broken, "hermes") == broken  # the env explains what is wrong
    xml = text_to_action("<python>print(1)</python>", "xml")
    assert xml["tool_calls"][0]["function"]["name"] == "python"
    with pytest.raises(ValueError, match="unknown tool-call parser"):
        text_to_action("x", "hermez")


def test_an_env_turn_without_messages_is_an_error(formatter):
    sequence = formatter.sequence([{"role": "user", "content": "hi"}])
    sequence.add_completion(_sampled(formatter, "hello"))
    with pytest.raises(ValueError, match="no messages"):
        sequence.add_messages([])


def test_tools_written_before_the_last_user_message_stay_in_the_suffix(tokenizer):
    # Mistral's habit: the tool list goes right before the last user message.
    template = (
        "{%- for m in messages -%}"
        "{%- if m['role'] == 'user' and loop.last and tools -%}[TOOLS]{{- tools | tojson -}}"
        "[/TOOLS]{%- endif -%}"
        "{{- '<|im_start|>' + m['role'] + '\\n' + (m['content'] or '') + '<|im_end|>\\n' -}}"
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
    )
    formatter = ChatFormatter(tokenizer, chat_template=template)
    suffix = formatter.suffix_text([{"role": "user", "content": "Next."}], TOOLS)
    assert suffix.startswith("\n[TOOLS]") and '"calculator"' in suffix
    plain = ChatFormatter(tokenizer)
    assert "calculator" not in plain.suffix_text([{"role": "user", "content": "Next."}], TOOLS)


def test_piecewise_cached_encoding_equals_plain_encoding(formatter, tokenizer):
    texts = [
        tokenizer.apply_chat_template(
            [{"role": "system", "content": "S"}, {"role": "user", "content": f"Question {i}?  \n"}],
            tools=TOOLS,
            tokenize=False,
            add_generation_prompt=True,
        )
        for i in range(3)
    ] + ["<|im_end|><|im_end|> x <|im_start|>\n\n <think>", "no specials at all", ""]
    for text in texts * 2:  # the second pass reads the cache
        assert formatter.encode_cached(text) == formatter.encode(text)


def test_the_bounded_cache_drops_the_least_recently_used_entry():
    cache = _LRUCache(2)
    assert cache.put("a", [1]) == [1]
    cache.put("b", [2])
    assert cache.get("a") == [1]  # "a" is now the most recently used
    cache.put("c", [3])
    assert len(cache) == 2
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == ([1], [3])
    cache.put("a", [4])  # a new value for a kept key refreshes it
    cache.put("d", [5])
    assert cache.get("c") is None and cache.get("a") == [4]
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="maxsize"):
            _LRUCache(bad)


def test_every_formatter_cache_is_bounded_and_eviction_changes_no_token(tokenizer, formatter):
    small = ChatFormatter(tokenizer)
    caches = [name for name, value in vars(small).items() if isinstance(value, _LRUCache)]
    assert len(caches) == 8, caches
    for name in caches:
        setattr(small, name, _LRUCache(1))
    opening = [{"role": "system", "content": "Use tools."}, {"role": "user", "content": "6*7?"}]
    turns = [
        ("<guess>8</guess>", [{"role": "user", "content": "Higher."}]),
        ("<guess>12</guess>", [{"role": "tool", "content": "42", "tool_call_id": "c0"}]),
        ("<guess>8</guess>", [{"role": "user", "content": "Higher."}]),
        ("<answer>42</answer>", None),
    ]
    for _ in range(2):  # the second pass meets whatever each cache kept
        expected = _play(formatter, turns, opening, TOOLS)
        got = _play(small, turns, opening, TOOLS)
        assert got.ids == expected.ids and got.loss_mask == expected.loss_mask
        assert small.action_ids("<answer>42</answer>", TOOLS) == formatter.action_ids(
            "<answer>42</answer>", TOOLS
        )
    assert all(len(getattr(small, name)) <= 1 for name in caches)
    assert got.drift().ok
