"""From sampled text to the action an env receives, through the shared named parsers.

A model writes its tool calls as text (Hermes ``<tool_call>`` tags, XML tool tags,
fenced code). Envs that read text parse it themselves; envs that expect native OpenAI
``tool_calls`` get an assistant message built here by a parser from `palaestra.parsers`:

    text_to_action('<tool_call>{"name": "calculator", ...}</tool_call>', "hermes")
    -> {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", ...}]}

Text without well-formed calls stays a string, so a malformed call reaches the env as
written and the env explains what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palaestra.core import Action
from palaestra.parsers import THINK_CLOSE, ToolCallParser, get_parser


def text_to_action(text: str, parser: str | ToolCallParser | None) -> Action:
    """The action for sampled ``text``.

    Args:
        text: The decoded completion.
        parser: A named parser (``"hermes"``, ``"xml"``, ``"fenced"``, ``"auto"``) or a
            parser object; None sends the text unchanged.

    Returns:
        ``text`` itself, or an assistant message with native ``tool_calls`` when the
        parser found well-formed calls. Reasoning before ``</think>`` is kept at the head
        of the message's content, so the transcript shows what the model wrote.
    """
    if parser is None:
        return text
    parsed = get_parser(parser).parse({"role": "assistant", "content": text})
    if not parsed.tool_calls:
        return text
    close = text.rfind(THINK_CLOSE)
    head = ""
    if close >= 0:
        end = close + len(THINK_CLOSE)
        rest = text[end:]
        head = text[:end] + rest[: len(rest) - len(rest.lstrip())]
    content = head + parsed.content
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [call.to_openai() for call in parsed.tool_calls],
    }


def action_message(action: Action | Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message an action stands for in a transcript."""
    if isinstance(action, str):
        return {"role": "assistant", "content": action}
    return {"role": "assistant", **{k: v for k, v in dict(action).items() if k != "role"}}
