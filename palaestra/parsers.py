"""Named tool-call parsers, shared by environments and agents.

A parser turns the model's turn (an assistant message) into a `ParsedAction`: the visible
text, the tool calls found, and structured `ParseError`s. Parsers never raise on model
output; a malformed call becomes an error the env can show to the model.

Parsers, by name:
    * ``"hermes"``: Hermes/Qwen ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.
    * ``"xml"``: tool tags such as ``<python>code</python>`` or ``<search>query</search>``,
      plus an optional answer tag (``<answer>...</answer>``).
    * ``"fenced"``: fenced code blocks (```` ```python ... ``` ````) as calls to a code tool.
    * ``"openai"``: native ``tool_calls`` on an assistant message.
    * ``"auto"``: native ``tool_calls`` when present, else Hermes tags.

Text before the last ``</think>`` is reasoning: calls inside it are ignored. Every scan is
linear in the length of the text (no backtracking regular expressions), so a megabyte of
junk costs milliseconds.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

THINK_CLOSE = "</think>"
THINK_OPEN = "<think>"


@dataclasses.dataclass(frozen=True)
class ToolCall:
    """One call of a tool.

    Attributes:
        name: The tool's name.
        arguments: The call's arguments, decoded.
        id: An id unique within the message, echoed by the tool message that answers it.
    """

    name: str
    arguments: dict[str, Any]
    id: str = "call_0"

    def to_openai(self) -> dict[str, Any]:
        """The call in OpenAI's ``tool_calls`` format (arguments as a JSON string)."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclasses.dataclass(frozen=True)
class ParseError:
    """A malformed tool call, described for the model.

    Attributes:
        parser: The parser that found it.
        message: What is wrong, in a sentence the model can act on.
        snippet: The offending text, shortened.
    """

    parser: str
    message: str
    snippet: str = ""


@dataclasses.dataclass(frozen=True)
class ParsedAction:
    """The model's turn, understood.

    Attributes:
        content: The visible text (after the last ``</think>``) without tool-call markup.
        tool_calls: The well-formed calls, in order.
        errors: The malformed ones.
        answer: The text of the last answer tag, when the parser looks for one.
        reasoning: The text before the last ``</think>`` (empty when there is none).
    """

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    errors: tuple[ParseError, ...] = ()
    answer: str | None = None
    reasoning: str = ""

    @property
    def ok(self) -> bool:
        """True when nothing was malformed."""
        return not self.errors

    def error_message(self) -> str:
        """The errors as one message for the model."""
        return "; ".join(
            f"{e.message}" + (f" (near: {e.snippet!r})" if e.snippet else "") for e in self.errors
        )


class ToolCallParser(Protocol):
    """Anything that parses an assistant message into a `ParsedAction`."""

    name: str

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses one assistant message; never raises on its content."""
        ...


def _snippet(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def split_reasoning(text: str) -> tuple[str, str, bool]:
    """Splits a completion into (reasoning, visible text, think_unclosed).

    Everything up to the last ``</think>`` is reasoning. A ``<think>`` that is never closed
    makes the whole text reasoning (the model ran out of tokens while thinking).
    """
    close = text.rfind(THINK_CLOSE)
    if close >= 0:
        return text[:close], text[close + len(THINK_CLOSE) :], False
    open_at = text.find(THINK_OPEN)
    if open_at >= 0:
        return text[open_at + len(THINK_OPEN) :], text[:open_at], True
    return "", text, False


class _Span(NamedTuple):
    start: int
    end: int
    body: str | None  # None when the tag is never closed


def find_tags(text: str, tag: str) -> list[_Span]:
    """Finds ``<tag>body</tag>`` spans left to right in linear time.

    An opening tag without a closing one yields a span with ``body=None`` reaching the end
    of the text, and stops the scan.
    """
    open_tag, close_tag = f"<{tag}>", f"</{tag}>"
    spans, position = [], 0
    while True:
        start = text.find(open_tag, position)
        if start < 0:
            return spans
        body_start = start + len(open_tag)
        end = text.find(close_tag, body_start)
        if end < 0:
            spans.append(_Span(start, len(text), None))
            return spans
        spans.append(_Span(start, end + len(close_tag), text[body_start:end]))
        position = end + len(close_tag)


def _remove_spans(text: str, spans: list[_Span]) -> str:
    pieces, position = [], 0
    for span in sorted(spans, key=lambda s: s.start):
        pieces.append(text[position : span.start])
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces).strip()


def _decode_arguments(raw: Any) -> dict[str, Any] | str:
    """Arguments as a dict, or an error message."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            decoded = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as e:
            return f"the arguments are not valid JSON ({e.__class__.__name__}: {e})"
        if isinstance(decoded, dict):
            return decoded
        return f"the arguments must be a JSON object, got {type(decoded).__name__}"
    return f"the arguments must be a JSON object, got {type(raw).__name__}"


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


class HermesParser:
    """``<tool_call>{"name": "f", "arguments": {...}}</tool_call>`` (Hermes, Qwen2.5, Qwen3)."""

    name = "hermes"
    tag = "tool_call"

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses the Hermes tool calls in the visible text."""
        reasoning, visible, unclosed_think = split_reasoning(_message_text(message))
        calls, errors = [], []
        if unclosed_think:
            errors.append(ParseError(self.name, "the <think> block is never closed"))
        spans = find_tags(visible, self.tag)
        for index, span in enumerate(spans):
            if span.body is None:
                errors.append(
                    ParseError(
                        self.name,
                        "a <tool_call> is never closed with </tool_call>",
                        _snippet(visible[span.start :]),
                    )
                )
                continue
            try:
                payload = json.loads(span.body)
            except (json.JSONDecodeError, RecursionError) as e:
                errors.append(
                    ParseError(
                        self.name, f"the tool call is not valid JSON ({e})", _snippet(span.body)
                    )
                )
                continue
            if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
                errors.append(
                    ParseError(
                        self.name,
                        'a tool call must be a JSON object with a string "name"',
                        _snippet(span.body),
                    )
                )
                continue
            arguments = _decode_arguments(payload.get("arguments", payload.get("parameters")))
            if isinstance(arguments, str):
                errors.append(ParseError(self.name, arguments, _snippet(span.body)))
                continue
            calls.append(ToolCall(payload["name"], arguments, id=f"call_{index}"))
        return ParsedAction(
            content=_remove_spans(visible, spans),
            tool_calls=tuple(calls),
            errors=tuple(errors),
            reasoning=reasoning,
        )


class XMLTagParser:
    """Tool tags like ``<python>code</python>`` and ``<search>query</search>``.

    Args:
        tools: Maps a tag to ``(tool name, argument name)``; the tag's body becomes that
            argument, e.g. ``{"python": ("python", "code")}``.
        answer_tag: The tag holding a final answer (its last occurrence), or None.
    """

    name = "xml"

    def __init__(
        self,
        tools: Mapping[str, tuple[str, str]] | None = None,
        answer_tag: str | None = "answer",
    ):
        self.tools = dict(
            tools
            if tools is not None
            else {"python": ("python", "code"), "search": ("search", "query")}
        )
        for tag in self.tools:
            if not tag.isidentifier():
                raise ValueError(f"tool tag {tag!r} must be an identifier, e.g. 'python'")
        self.answer_tag = answer_tag

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses tool tags and the answer tag in the visible text."""
        reasoning, visible, unclosed_think = split_reasoning(_message_text(message))
        errors: list[ParseError] = []
        if unclosed_think:
            errors.append(ParseError(self.name, "the <think> block is never closed"))
        found: list[tuple[_Span, str]] = []
        for tag in self.tools:
            found += [(span, tag) for span in find_tags(visible, tag)]
        answer_spans = find_tags(visible, self.answer_tag) if self.answer_tag else []
        calls = []
        for span, tag in sorted(found, key=lambda item: item[0].start):
            if span.body is None:
                errors.append(
                    ParseError(
                        self.name,
                        f"a <{tag}> is never closed with </{tag}>",
                        _snippet(visible[span.start :]),
                    )
                )
                continue
            tool, argument = self.tools[tag]
            calls.append(ToolCall(tool, {argument: span.body.strip()}, id=f"call_{len(calls)}"))
        answer = None
        for span in answer_spans:
            if span.body is None:
                errors.append(
                    ParseError(
                        self.name,
                        f"an <{self.answer_tag}> is never closed with </{self.answer_tag}>",
                        _snippet(visible[span.start :]),
                    )
                )
            else:
                answer = span.body.strip()
        spans = [span for span, _ in found] + answer_spans
        return ParsedAction(
            content=_remove_spans(visible, spans),
            tool_calls=tuple(calls),
            errors=tuple(errors),
            answer=answer,
            reasoning=reasoning,
        )


class FencedCodeParser:
    """Fenced code blocks as calls to a code tool.

    Args:
        languages: Maps a fence language to ``(tool name, argument name)``; by default
            ``python``/``py`` run the ``python`` tool and ``bash``/``sh`` the ``shell`` tool.
            Blocks in other languages are ordinary text.
    """

    name = "fenced"
    fence = "```"

    def __init__(self, languages: Mapping[str, tuple[str, str]] | None = None):
        self.languages = dict(
            languages
            if languages is not None
            else {
                "python": ("python", "code"),
                "py": ("python", "code"),
                "bash": ("shell", "command"),
                "sh": ("shell", "command"),
            }
        )

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses fenced blocks in the visible text."""
        reasoning, visible, unclosed_think = split_reasoning(_message_text(message))
        errors: list[ParseError] = []
        if unclosed_think:
            errors.append(ParseError(self.name, "the <think> block is never closed"))
        calls, spans, position = [], [], 0
        while True:
            start = visible.find(self.fence, position)
            if start < 0:
                break
            line_end = visible.find("\n", start)
            if line_end < 0:
                errors.append(
                    ParseError(self.name, "a code fence is never closed", _snippet(visible[start:]))
                )
                break
            language = visible[start + len(self.fence) : line_end].strip().lower()
            end = visible.find(self.fence, line_end + 1)
            if end < 0:
                if language in self.languages:
                    errors.append(
                        ParseError(
                            self.name,
                            f"a ```{language} block is never closed with ```",
                            _snippet(visible[start:]),
                        )
                    )
                break
            position = end + len(self.fence)
            if language in self.languages:
                tool, argument = self.languages[language]
                body = visible[line_end + 1 : end]
                calls.append(ToolCall(tool, {argument: body}, id=f"call_{len(calls)}"))
                spans.append(_Span(start, position, body))
        return ParsedAction(
            content=_remove_spans(visible, spans),
            tool_calls=tuple(calls),
            errors=tuple(errors),
            reasoning=reasoning,
        )


class OpenAIParser:
    """Native ``tool_calls`` on an assistant message (OpenAI function calling)."""

    name = "openai"

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses ``message["tool_calls"]``; the text is kept as content."""
        reasoning, visible, _ = split_reasoning(_message_text(message))
        raw_calls = message.get("tool_calls") or []
        calls, errors = [], []
        if not isinstance(raw_calls, list):
            raw_calls = []
            errors.append(ParseError(self.name, "tool_calls must be a list"))
        for index, raw in enumerate(raw_calls):
            function = raw.get("function") if isinstance(raw, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                errors.append(
                    ParseError(
                        self.name,
                        'each tool call needs a "function" with a string "name"',
                        _snippet(repr(raw)),
                    )
                )
                continue
            arguments = _decode_arguments(function.get("arguments"))
            if isinstance(arguments, str):
                errors.append(
                    ParseError(self.name, arguments, _snippet(repr(function.get("arguments"))))
                )
                continue
            call_id = raw.get("id") if isinstance(raw.get("id"), str) else f"call_{index}"
            calls.append(ToolCall(function["name"], arguments, id=call_id))
        return ParsedAction(
            content=visible.strip(),
            tool_calls=tuple(calls),
            errors=tuple(errors),
            reasoning=reasoning,
        )


class AutoParser:
    """Native ``tool_calls`` when the message has them, else Hermes tags."""

    name = "auto"

    def __init__(self) -> None:
        self._native, self._text = OpenAIParser(), HermesParser()

    def parse(self, message: Mapping[str, Any]) -> ParsedAction:
        """Parses with the OpenAI parser or the Hermes parser."""
        if message.get("tool_calls"):
            return self._native.parse(message)
        return self._text.parse(message)


PARSERS: dict[str, Callable[..., ToolCallParser]] = {
    "hermes": HermesParser,
    "xml": XMLTagParser,
    "fenced": FencedCodeParser,
    "openai": OpenAIParser,
    "auto": AutoParser,
}


def get_parser(parser: str | ToolCallParser, **kwargs: Any) -> ToolCallParser:
    """Returns a parser by name (configured with ``kwargs``), or the given parser object.

    Raises:
        ValueError: The name is unknown (with a close match), or kwargs are given with
            a parser object.
    """
    if not isinstance(parser, str):
        if kwargs:
            raise ValueError("keyword arguments configure a parser by name, not a parser object")
        return parser
    if parser not in PARSERS:
        close = difflib.get_close_matches(parser, PARSERS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown tool-call parser {parser!r}; known: {sorted(PARSERS)}.{hint}")
    return PARSERS[parser](**kwargs)


def parse_action(
    action: str | Mapping[str, Any], parser: str | ToolCallParser = "auto"
) -> ParsedAction:
    """Parses a string or assistant message with the named parser."""
    message = {"role": "assistant", "content": action} if isinstance(action, str) else action
    return get_parser(parser).parse(message)
