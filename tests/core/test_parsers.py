"""The shared tool-call parsers: every format parsed, every malformation reported, never raised."""

from __future__ import annotations

import json

import pytest

from palaestra.parsers import (
    FencedCodeParser,
    HermesParser,
    OpenAIParser,
    XMLTagParser,
    get_parser,
    parse_action,
    split_reasoning,
)


def msg(content, **extra):
    return {"role": "assistant", "content": content, **extra}


def test_hermes_parses_calls_and_keeps_the_text():
    text = (
        'Let me compute.<tool_call>{"name": "calc", "arguments": {"x": 1}}</tool_call> and '
        '<tool_call>{"name": "f", "arguments": "{\\"y\\": 2}"}</tool_call>'
    )
    parsed = HermesParser().parse(msg(text))
    assert [(c.name, c.arguments, c.id) for c in parsed.tool_calls] == [
        ("calc", {"x": 1}, "call_0"),
        ("f", {"y": 2}, "call_1"),
    ]
    assert parsed.content == "Let me compute. and"
    assert parsed.ok


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('<tool_call>{"name": "calc", "arguments": </tool_call>', "not valid JSON"),
        ('<tool_call>{"name": "calc"', "never closed"),
        ("<tool_call>[1, 2]</tool_call>", 'string "name"'),
        ('<tool_call>{"arguments": {}}</tool_call>', 'string "name"'),
        ('<tool_call>{"name": "f", "arguments": [1]}</tool_call>', "JSON object"),
        ('<tool_call>{"name": "f", "arguments": "not json"}</tool_call>', "not valid JSON"),
        ("<tool_call>" + "[" * 100_000 + "</tool_call>", "not valid JSON"),
    ],
)
def test_hermes_reports_malformed_calls(text, fragment):
    parsed = HermesParser().parse(msg(text))
    assert not parsed.tool_calls
    assert fragment in parsed.error_message()


def test_calls_inside_reasoning_are_ignored():
    text = (
        '<think>maybe <tool_call>{"name": "a", "arguments": {}}</tool_call></think>'
        'real <tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    parsed = HermesParser().parse(msg(text))
    assert [c.name for c in parsed.tool_calls] == ["b"]
    assert "maybe" in parsed.reasoning


def test_unclosed_think_hides_everything_and_is_reported():
    reasoning, visible, unclosed = split_reasoning("<think>still thinking <tool_call>")
    assert unclosed and visible == "" and "still thinking" in reasoning
    assert "never closed" in HermesParser().parse(msg("<think>x")).error_message()


def test_xml_tags_and_answer():
    parser = XMLTagParser()
    parsed = parser.parse(msg("<search>capital of France</search> then <python>print(1)</python>"))
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        ("search", {"query": "capital of France"}),
        ("python", {"code": "print(1)"}),
    ]
    final = parser.parse(msg("<answer>first</answer> no, <answer>Paris</answer>"))
    assert final.answer == "Paris" and not final.tool_calls
    broken = parser.parse(msg("<python>print(1)"))
    assert not broken.tool_calls and "never closed" in broken.error_message()


def test_xml_custom_tags():
    parser = get_parser("xml", tools={"sql": ("query_db", "sql")}, answer_tag=None)
    parsed = parser.parse(msg("<sql>SELECT 1</sql><answer>x</answer>"))
    assert parsed.tool_calls[0].name == "query_db" and parsed.answer is None
    with pytest.raises(ValueError, match="identifier"):
        XMLTagParser(tools={"not a tag": ("x", "y")})


def test_fenced_blocks():
    text = "Try:\n```python\nx = 2\nprint(x)\n```\nand\n```bash\nls\n```\nand ```text\nignored\n```"
    parsed = FencedCodeParser().parse(msg(text))
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        ("python", {"code": "x = 2\nprint(x)\n"}),
        ("shell", {"command": "ls\n"}),
    ]
    assert "ignored" in parsed.content
    assert "never closed" in FencedCodeParser().parse(msg("```python\nx=1")).error_message()


def test_openai_native_calls():
    calls = [
        {
            "id": "abc",
            "type": "function",
            "function": {"name": "calc", "arguments": json.dumps({"x": 1})},
        },
        {"id": "def", "type": "function", "function": {"name": "calc", "arguments": "{"}},
        {"type": "function"},
        "junk",
    ]
    parsed = OpenAIParser().parse(msg(None, tool_calls=calls))
    assert [(c.id, c.arguments) for c in parsed.tool_calls] == [("abc", {"x": 1})]
    assert len(parsed.errors) == 3
    assert OpenAIParser().parse(msg("hi", tool_calls="nope")).errors


def test_auto_prefers_native_calls():
    native = msg(
        "text",
        tool_calls=[{"id": "n", "type": "function", "function": {"name": "a", "arguments": "{}"}}],
    )
    assert parse_action(native).tool_calls[0].id == "n"
    assert (
        parse_action('<tool_call>{"name": "b", "arguments": {}}</tool_call>').tool_calls[0].name
        == "b"
    )


def test_round_trip_to_openai_format():
    call = parse_action(
        '<tool_call>{"name": "b", "arguments": {"k": [1, 2]}}</tool_call>'
    ).tool_calls[0]
    back = OpenAIParser().parse(msg(None, tool_calls=[call.to_openai()])).tool_calls[0]
    assert back == call


def test_unknown_parser_name_suggests():
    with pytest.raises(ValueError, match="Did you mean 'hermes'"):
        get_parser("hermez")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ["hermes", "xml", "fenced", "openai", "auto"])
def test_parsers_are_linear_on_hostile_input(name):
    # Thousands of unclosed openers: a backtracking regex would take minutes here.
    junk = ("<tool_call><python><answer>```python\n" * 40_000) + "x"
    parsed = get_parser(name).parse(msg(junk))
    assert isinstance(parsed.content, str)
    assert get_parser(name).parse(msg(None)).tool_calls == ()
