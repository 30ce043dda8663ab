"""Chat formatting, token in / token out.

An episode is one growing token sequence. The opening messages are templated once (with
the generation prompt); after that nothing is ever re-tokenized:

* what the policy sampled is appended as is (loss mask 1, its log-probs kept), and when
  the policy stopped without the template's end-of-turn token (the token limit, a stop
  string) that token is re-added with mask 0;
* each batch of env messages is tokenized as a *suffix*: the template renders a fixed base
  conversation and the same conversation plus the new messages (and the generation
  prompt); the text after the base's last end-of-turn token is the suffix. It carries the
  newline the template writes after the end token, the new messages and the next
  generation prompt, all with mask 0.

Re-tokenizing the transcript instead drifts from what was sampled (decode then encode is
not the identity), and templates that rewrite history (Qwen3 drops the ``<think>`` blocks
of earlier assistant turns; some inject a default system prompt) move every later token.
`ChatFormatter.drift` compares an episode's ids with a full re-template and says where and
why they part; the rollout engine records the report with each episode.

Tools are rendered by the template's own function-calling block (``tools=env.tools``).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from palaestra.agents.policy import Completion

if TYPE_CHECKING:
    from palaestra.core import Action, Message

END_OF_TURN_CANDIDATES = (
    "<|im_end|>",
    "<|eot_id|>",
    "<end_of_turn>",
    "<|end|>",
    "<|endoftext|>",
    "</s>",
)
"""End-of-turn tokens of common templates, tried in order when none is given."""

_BASE_USER = "Hi."
_BASE_ASSISTANT = "Hello."


class TemplateError(ValueError):
    """A chat template cannot be used token in / token out.

    Either it has no end-of-turn token, or appending messages rewrites what came before.
    """


@dataclasses.dataclass(frozen=True)
class DriftReport:
    """How an episode's token ids compare with a full re-template of its transcript.

    Attributes:
        ok: True when the ids equal the re-template.
        index: The first position where they differ (None when ok).
        ours: Our text around that position.
        theirs: The re-template's text around that position.
        reason: A sentence saying what differs.
    """

    ok: bool
    index: int | None = None
    ours: str = ""
    theirs: str = ""
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data."""
        return dataclasses.asdict(self)


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _LRUCache(Generic[K, V]):
    """Remembers at most ``maxsize`` entries; a new one past that drops the least recently used.

    The formatter's caches hold pure results (texts and token ids of templates, messages and
    tool lists), so a dropped entry costs only its recomputation. Values are never None.

    Args:
        maxsize: How many entries to keep (at least 1).
    """

    __slots__ = ("maxsize", "_entries")

    def __init__(self, maxsize: int) -> None:
        if not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive integer, got {maxsize!r}")
        self.maxsize = maxsize
        self._entries: collections.OrderedDict[K, V] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        """Keeps ``value`` for ``key`` and returns it."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)
        return value


def _plain(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if v is not None or k == "content"}


class ChatFormatter:
    """Templates and tokenizes conversations for one tokenizer, token in / token out.

    Args:
        tokenizer: A Hugging Face tokenizer with a chat template (anything with
            ``apply_chat_template``, ``encode``, ``decode`` and ``convert_tokens_to_ids``).
        chat_template: A template to use instead of the tokenizer's.
        end_of_turn: The token that ends an assistant turn (default: found by rendering a
            conversation and looking for a known end token after the assistant's text).
        template_kwargs: Extra variables for the template (e.g. ``enable_thinking``).

    Raises:
        TemplateError: No end-of-turn token can be found, or the template is not
            prefix-stable (appending a message changes earlier text).
    """

    def __init__(
        self,
        tokenizer: Any,
        *,
        chat_template: str | None = None,
        end_of_turn: str | None = None,
        template_kwargs: Mapping[str, Any] | None = None,
    ):
        self.tokenizer = tokenizer
        self._backend = self._fast_backend(tokenizer)
        self.chat_template = chat_template
        self.template_kwargs = dict(template_kwargs or {})
        self.end_of_turn = end_of_turn if end_of_turn is not None else self._find_end_of_turn()
        self.eot_id = self._single_token(self.end_of_turn)
        eos = getattr(tokenizer, "eos_token_id", None)
        stop = [self.eot_id] + ([eos] if isinstance(eos, int) and eos != self.eot_id else [])
        self.stop_ids: tuple[int, ...] = tuple(stop)
        # Templating and tokenizing repeat across episodes (a group's shared prompt, an env's
        # recurring messages): each result is remembered, the recent ones only.
        self._bases: _LRUCache[tuple[str, tuple[Any, ...]], str] = _LRUCache(256)
        self._heads: _LRUCache[str, str] = _LRUCache(256)
        self._context_ids: _LRUCache[str, list[int]] = _LRUCache(1024)
        self._prompts: _LRUCache[tuple[str, str], tuple[str, list[int]]] = _LRUCache(512)
        self._actions: _LRUCache[tuple[str, str], list[int]] = _LRUCache(4096)
        self._suffixes: _LRUCache[tuple[str, str], list[int]] = _LRUCache(4096)
        self._tool_keys: _LRUCache[int, tuple[Any, str]] = _LRUCache(1024)
        self._segments: _LRUCache[str, list[int]] = _LRUCache(4096)
        self._tools_in_suffix: bool | None = None
        specials = set(getattr(tokenizer, "all_special_tokens", []) or [])
        added = getattr(tokenizer, "added_tokens_decoder", None) or {}
        specials |= {t.content for t in added.values() if getattr(t, "special", False)}
        specials.add(self.end_of_turn)
        self._specials = tuple(sorted(t for t in specials if t))
        self._splitter = self._segment_splitter(added)

    # --- rendering ------------------------------------------------------------------

    def render(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        add_generation_prompt: bool = False,
    ) -> str:
        """The template's text for a conversation."""
        kwargs = dict(self.template_kwargs)
        if self.chat_template is not None:
            kwargs["chat_template"] = self.chat_template
        return self.tokenizer.apply_chat_template(
            [_plain(m) for m in messages],
            tools=list(tools) if tools else None,
            add_generation_prompt=add_generation_prompt,
            tokenize=False,
            **kwargs,
        )

    @staticmethod
    def _fast_backend(tokenizer: Any) -> Any:
        """The Rust tokenizer behind a fast HF tokenizer, if it encodes exactly as the wrapper.

        Calling it directly skips a Python layer that costs more than the encoding of the
        short suffixes an episode adds each turn.
        """
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is None:
            return None
        probe = "Hi there,  123 -7\n\n<think> x </think> \u00e9\u4e2d " + " ".join(
            getattr(tokenizer, "all_special_tokens", []) or []
        )
        try:
            slow_ids = list(tokenizer.encode(probe, add_special_tokens=False))
            fast_ids = backend.encode(probe, add_special_tokens=False).ids
            slow_text = tokenizer.decode(
                slow_ids, skip_special_tokens=False, clean_up_tokenization_spaces=False
            )
            fast_text = backend.decode(slow_ids, skip_special_tokens=False)
        except Exception:  # noqa: BLE001 - any doubt: use the wrapper
            return None
        return backend if (slow_ids == fast_ids and slow_text == fast_text) else None

    def encode(self, text: str) -> list[int]:
        """Token ids of text that already holds every special token (none are added)."""
        if self._backend is not None:
            return self._backend.encode(text, add_special_tokens=False).ids
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def decode(self, ids: Sequence[int]) -> str:
        """Text of token ids, special tokens kept, no clean-up of spaces."""
        if self._backend is not None:
            return self._backend.decode(list(ids), skip_special_tokens=False)
        return self.tokenizer.decode(
            list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False
        )

    def _segment_splitter(
        self, added: Mapping[int, Any]
    ) -> tuple[re.Pattern[str], dict[str, int]] | None:
        """How to cut text at special tokens, if the tokenizer tokenizes between them independently.

        Fast tokenizers split text at added tokens before anything else, so the pieces
        between special tokens are tokenized on their own: a piece seen before (a system
        prompt, a tool list) need not be tokenized again. Tokens that swallow neighbouring
        spaces (``lstrip``/``rstrip``) break that, and so does anything a probe disagrees with.
        """
        special_ids: dict[str, int] = {}
        for token in self._specials:
            ids = self.encode(token)
            if len(ids) != 1:
                return None
            special_ids[token] = ids[0]
        for entry in added.values():
            if getattr(entry, "content", None) in special_ids and (
                getattr(entry, "lstrip", False)
                or getattr(entry, "rstrip", False)
                or getattr(entry, "single_word", False)
            ):
                return None
        pattern = re.compile(
            "(" + "|".join(re.escape(t) for t in sorted(special_ids, key=len, reverse=True)) + ")"
        )
        splitter = (pattern, special_ids)
        probe = " x\n".join(special_ids) + " \n tail " + "".join(special_ids) + "end \n"
        if self._encode_pieces(probe, splitter) != self.encode(probe):
            return None
        return splitter

    def _encode_pieces(
        self, text: str, splitter: tuple[re.Pattern[str], dict[str, int]]
    ) -> list[int]:
        pattern, special_ids = splitter
        ids: list[int] = []
        for piece in pattern.split(text):
            if not piece:
                continue
            special = special_ids.get(piece)
            if special is not None:
                ids.append(special)
                continue
            cached = self._segments.get(piece)
            if cached is None:
                cached = self._segments.put(piece, self.encode(piece))
            ids.extend(cached)
        return ids

    def encode_cached(self, text: str) -> list[int]:
        """`encode`, remembering the pieces between special tokens (system prompts, tool lists)."""
        if self._splitter is None:
            return self.encode(text)
        return self._encode_pieces(text, self._splitter)

    def _single_token(self, text: str) -> int:
        ids = self.encode(text)
        if len(ids) != 1:
            raise TemplateError(
                f"the end-of-turn marker {text!r} is {len(ids)} tokens, not one; pass "
                "end_of_turn= naming a single special token of this tokenizer"
            )
        return ids[0]

    def _find_end_of_turn(self) -> str:
        text = self.render(
            [
                {"role": "user", "content": _BASE_USER},
                {"role": "assistant", "content": _BASE_ASSISTANT},
            ]
        )
        after = text[text.rfind(_BASE_ASSISTANT) + len(_BASE_ASSISTANT) :].lstrip()
        vocab_specials = list(getattr(self.tokenizer, "all_special_tokens", []) or [])
        candidates = [*END_OF_TURN_CANDIDATES, *vocab_specials]
        for token in candidates:
            if token and after.startswith(token) and len(self.encode(token)) == 1:
                return token
        eos = getattr(self.tokenizer, "eos_token", None)
        if eos and eos in after:
            return eos
        raise TemplateError(
            "cannot find the token that ends an assistant turn in this chat template "
            f"(after the assistant's text it writes {after[:40]!r}); pass end_of_turn="
        )

    # --- the pieces of an episode ------------------------------------------------------------

    def prompt_ids(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[int]:
        """Token ids of the opening messages, ending with the generation prompt."""
        return self.prompt(messages, tools)[1]

    def prompt(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> tuple[str, list[int]]:
        """Text and token ids of the opening messages, ending with the generation prompt.

        The samples of a GRPO group share their opening messages: the last few prompts
        are remembered so that a group templates and tokenizes its prompt once.
        """
        key = (json.dumps(list(messages), sort_keys=True, default=str), self._tools_key(tools))
        cached = self._prompts.get(key)
        if cached is None:
            text = self.render(messages, tools, add_generation_prompt=True)
            cached = self._prompts.put(key, (text, self.encode_cached(text)))
        return cached[0], list(cached[1])

    def _tools_key(self, tools: Sequence[Mapping[str, Any]] | None) -> str:
        """A cache key for a tool list (memoised per list object: an episode reuses its own)."""
        if not tools:
            return ""
        entry = self._tool_keys.get(id(tools))
        if entry is not None and entry[0] is tools:
            return entry[1]
        key = json.dumps(list(tools), sort_keys=True, default=str)
        self._tool_keys.put(id(tools), (tools, key))  # holding the list keeps its id unique
        return key

    def _encode_after(self, prefix: str, text: str) -> list[int]:
        """Ids of ``text`` as the tokenizer splits it right after ``prefix``.

        Tokenizers split text at special tokens before anything else, so only the text
        after the prefix's last special token can change how ``text`` is tokenized; that
        short context is tokenized with it and its own ids are cut off. (Tokenizing
        ``text`` alone can differ: a SentencePiece prefix space, a merge across the seam.)
        """
        cut = max((prefix.rfind(token) for token in self._specials), default=-1)
        context = prefix[max(cut, 0) :]
        context_ids = self._context_ids.get(context)
        if context_ids is None:
            context_ids = self._context_ids.put(context, self.encode(context))
        ids = self.encode(context + text)
        if ids[: len(context_ids)] != context_ids:
            raise TemplateError(
                f"tokenizing {context!r} followed by new text changes its tokens; pass "
                "end_of_turn= naming a special token the tokenizer never merges"
            )
        return ids[len(context_ids) :]

    def _base(
        self, tools: Sequence[Mapping[str, Any]] | None, tool_messages: Sequence[Mapping[str, Any]]
    ) -> tuple[list[dict[str, Any]], str]:
        """The fixed base conversation and its text up to its last end-of-turn token."""
        assistant: dict[str, Any] = {"role": "assistant", "content": _BASE_ASSISTANT}
        if tool_messages:
            # Templates may look up the call a tool message answers: give the base
            # assistant turn calls with the same ids and names.
            assistant["tool_calls"] = [
                {
                    "id": m.get("tool_call_id", f"call_{i}"),
                    "type": "function",
                    "function": {"name": m.get("name") or "tool", "arguments": "{}"},
                }
                for i, m in enumerate(tool_messages)
            ]
        base = [{"role": "user", "content": _BASE_USER}, assistant]
        calls = tuple((m.get("tool_call_id"), m.get("name")) for m in tool_messages)
        key = (self._tools_key(tools), calls)
        prefix = self._bases.get(key)
        if prefix is None:
            text = self.render(base, tools)
            cut = text.rfind(self.end_of_turn)
            if cut < 0:
                raise TemplateError(
                    f"the template does not end an assistant turn with {self.end_of_turn!r}; "
                    "pass the right end_of_turn="
                )
            prefix = self._bases.put(key, text[: cut + len(self.end_of_turn)])
        return base, prefix

    def suffix_text(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> str:
        """The text the template writes after an assistant turn's end token for ``messages``.

        It starts right after the end-of-turn token (so it carries the newline many
        templates put there) and ends with the generation prompt.

        Raises:
            TemplateError: Appending the messages changes the base conversation's text.
        """
        if not messages:
            raise ValueError("suffix_text() needs at least one message")
        return self._suffix(messages, tools)[0]

    def _suffix(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None
    ) -> tuple[str, str]:
        if tools and not self._suffix_needs_tools():
            tools = None  # this template writes tools only at the top: skip rendering them
        tool_messages = [m for m in messages if m.get("role") == "tool"]
        base, prefix = self._base(tools, tool_messages)
        full = self.render([*base, *messages], tools, add_generation_prompt=True)
        if not full.startswith(prefix):
            raise TemplateError(
                "the chat template is not prefix-stable: appending messages after an assistant "
                "turn changes the text before them, so env messages cannot be tokenized as a "
                "suffix. Use a template that renders history the same whatever follows."
            )
        return full[len(prefix) :], prefix

    def _suffix_needs_tools(self) -> bool:
        """Whether tool schemas change what the template writes after an assistant turn.

        Most templates write tools once, in the opening system block; some (Mistral's)
        write them before the last user message. A probe tells them apart, so that a
        template of the first kind does not re-render every schema for every env message.
        """
        if self._tools_in_suffix is None:
            probe_tools = [{"type": "function", "function": {"name": "probe", "parameters": {}}}]
            probes = (
                [{"role": "user", "content": "Next."}],
                [{"role": "tool", "content": "42", "tool_call_id": "call_0", "name": "probe"}],
            )
            needs = False
            for messages in probes:
                try:
                    needs |= self._suffix_raw(messages, probe_tools) != self._suffix_raw(
                        messages, None
                    )
                except Exception:  # noqa: BLE001 - in doubt, render the tools every time
                    needs = True
            self._tools_in_suffix = needs
        return self._tools_in_suffix

    def _suffix_raw(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None
    ) -> str:
        tool_messages = [m for m in messages if m.get("role") == "tool"]
        base, prefix = self._base(tools, tool_messages)
        full = self.render([*base, *messages], tools, add_generation_prompt=True)
        return full[len(prefix) :] if full.startswith(prefix) else full

    def suffix_ids(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[int]:
        """Token ids of `suffix_text` (env messages plus the next generation prompt).

        Envs repeat themselves (a game's hints, a tool's errors): recent suffixes are
        remembered by their messages and tools.
        """
        if not messages:
            raise ValueError("suffix_ids() needs at least one message")
        key = (self._tools_key(tools), json.dumps(list(messages), sort_keys=True, default=str))
        ids = self._suffixes.get(key)
        if ids is None:
            text, prefix = self._suffix(messages, tools)
            ids = self._suffixes.put(key, self._encode_after(prefix, text))
        return list(ids)

    def action_ids(
        self, action: Action, tools: Sequence[Mapping[str, Any]] | None = None
    ) -> list[int]:
        """The tokens a policy would sample to take ``action``, ending with the end token.

        A string is tokenized as is. An assistant message (native ``tool_calls``) is
        rendered by the template, so a scripted policy writes tool calls exactly the way
        the template shows them in history.
        """
        prompt = self._head(tools)
        if isinstance(action, str):
            key = (self._tools_key(tools), action)
            ids = self._actions.get(key)
            if ids is None:
                ids = self._actions.put(key, self._encode_after(prompt, action) + [self.eot_id])
            return list(ids)
        if not isinstance(action, Mapping):
            raise TypeError(
                f"an action is a string or an assistant message, got {type(action).__name__}"
            )
        message = {"role": "assistant", **_plain(action)}
        full = self.render([{"role": "user", "content": _BASE_USER}, message], tools)
        if not full.startswith(prompt):
            raise TemplateError(
                "the template renders an assistant turn differently from its generation prompt; "
                "cannot turn the message into sampled tokens"
            )
        body = full[len(prompt) :]
        end = body.find(self.end_of_turn)
        if end < 0:
            raise TemplateError(f"the rendered assistant turn has no {self.end_of_turn!r}")
        return self._encode_after(prompt, body[:end]) + [self.eot_id]

    def _head(self, tools: Sequence[Mapping[str, Any]] | None) -> str:
        """A one-message conversation with the generation prompt."""
        key = self._tools_key(tools)
        text = self._heads.get(key)
        if text is None:
            text = self.render(
                [{"role": "user", "content": _BASE_USER}], tools, add_generation_prompt=True
            )
            self._heads.put(key, text)
        return text

    def completion_text(self, token_ids: Sequence[int]) -> str:
        """The action text of sampled ids (a final end/stop token is not part of it)."""
        ids = list(token_ids)
        if ids and ids[-1] in self.stop_ids:
            ids = ids[:-1]
        return self.decode(ids)

    def sequence(
        self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None
    ) -> ChatSequence:
        """Starts an episode's token sequence from its opening messages."""
        return ChatSequence(self, messages, tools)

    # --- the sanity check ------------------------------------------------------------

    def drift(
        self,
        messages: Sequence[Mapping[str, Any]],
        ids: Sequence[int],
        tools: Sequence[Mapping[str, Any]] | None = None,
        level: str = "tokens",
        prompt: tuple[str, Sequence[int]] | None = None,
    ) -> DriftReport:
        """Compares an episode's token ids with a full re-template of its transcript.

        Args:
            messages: The transcript that was tokenized (opening messages, actions as sent
                to the env, env messages).
            ids: The episode's ids (prompt and completion).
            tools: The env's tool schemas.
            level: ``"tokens"`` compares ids with the re-template's ids; ``"text"`` compares
                the decoded ids with the re-template's text (cheaper: it sees templates that
                rewrite history, not sampled tokens that re-tokenize differently).
            prompt: The text and ids the episode's prompt was templated to; when the
                re-template starts with that text, only the rest is tokenized again.

        Returns:
            A `DriftReport`; ``ok`` is False when they differ (``index`` is a token index).
        """
        if level not in ("tokens", "text"):
            raise ValueError(f"level must be 'tokens' or 'text', got {level!r}")
        ends_with_assistant = bool(messages) and messages[-1].get("role") == "assistant"
        reference_text = self.render(messages, tools, add_generation_prompt=not ends_with_assistant)
        ours = list(ids)
        if level == "text":
            text = self.decode(ours)
            if reference_text.startswith(text) and not reference_text[len(text) :].strip():
                return DriftReport(ok=True)
            char = next(
                (i for i, (a, b) in enumerate(zip(text, reference_text, strict=False)) if a != b),
                min(len(text), len(reference_text)),
            )
            index = self._token_at(ours, char)
            return DriftReport(
                ok=False,
                index=index,
                ours=text[max(0, char - 40) : char + 80],
                theirs=reference_text[max(0, char - 40) : char + 80],
                reason=(
                    "the episode's text parts from a re-template of its transcript at character "
                    f"{char} "
                    f"(token {index}): the template rewrites history (e.g. drops earlier <think> "
                    "blocks or re-renders tool calls)"
                ),
            )
        reference = self._reference_ids(reference_text, prompt)
        tail = reference[len(ours) :] if reference[: len(ours)] == ours else None
        if tail is not None and (not tail or not self.decode(tail).strip()):
            return DriftReport(ok=True)
        index = next(
            (i for i, (a, b) in enumerate(zip(ours, reference, strict=False)) if a != b),
            min(len(ours), len(reference)),
        )
        return DriftReport(
            ok=False,
            index=index,
            ours=self.decode(ours[max(0, index - 8) : index + 24]),
            theirs=self.decode(reference[max(0, index - 8) : index + 24]),
            reason=(
                f"the episode's ids part from a re-template of its transcript at token {index} "
                f"(of {len(ours)} ours, {len(reference)} re-templated): the template rewrites "
                "history (e.g. drops earlier <think> blocks or re-renders tool calls) or the "
                "sampled tokens do not re-tokenize to themselves"
            ),
        )

    def _reference_ids(self, text: str, prompt: tuple[str, Sequence[int]] | None) -> list[int]:
        """The ids of a re-templated transcript (its prompt part reused when it is a prefix)."""
        if prompt is not None and text.startswith(prompt[0]):
            try:
                return list(prompt[1]) + self._encode_after(prompt[0], text[len(prompt[0]) :])
            except TemplateError:
                pass  # the seam merges tokens: tokenize the whole text
        return self.encode_cached(text)

    def _token_at(self, ids: list[int], char: int) -> int:
        """The index of the token whose text covers character ``char`` of ``decode(ids)``."""
        low, high = 0, len(ids)
        while low < high:
            middle = (low + high) // 2
            if len(self.decode(ids[: middle + 1])) <= char:
                low = middle + 1
            else:
                high = middle
        return low


class ChatSequence:
    """One episode's token sequence, grown turn by turn.

    Attributes:
        prompt_ids: The opening messages with the generation prompt (never trained on).
        completion_ids: Everything after the prompt: sampled turns, re-added end tokens,
            env suffixes.
        loss_mask: 1 on sampled tokens, 0 elsewhere (same length as ``completion_ids``).
        logprobs: Sampled log-probs (0.0 where the mask is 0).
        turn_spans: ``(start, end)`` of each turn's sampled tokens in ``completion_ids``.
        messages: The transcript tokenized so far.
        tools: The tool schemas rendered in the prompt.
    """

    def __init__(
        self,
        formatter: ChatFormatter,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
    ):
        self.formatter = formatter
        self.tools = list(tools or [])
        self.messages: list[dict[str, Any]] = [dict(m) for m in messages]
        self.prompt_text, self.prompt_ids = formatter.prompt(self.messages, self.tools)
        self.completion_ids: list[int] = []
        self.loss_mask: list[int] = []
        self.logprobs: list[float] = []
        self.turn_spans: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self.prompt_ids) + len(self.completion_ids)

    @property
    def ids(self) -> list[int]:
        """Prompt and completion ids: the next request's prompt."""
        return self.prompt_ids + self.completion_ids

    def add_completion(self, completion: Completion) -> str:
        """Appends a sampled turn (mask 1) and returns its text.

        If the turn did not end with the end-of-turn token, that token is re-added with
        mask 0, so the env's next messages follow the same text a re-template would show.
        """
        start = len(self.completion_ids)
        ids = list(completion.token_ids)
        self.completion_ids += ids
        self.loss_mask += [1] * len(ids)
        self.logprobs += [float(x) for x in completion.logprobs]
        self.turn_spans.append((start, len(self.completion_ids)))
        if not ids or ids[-1] != self.formatter.eot_id:
            self.completion_ids.append(self.formatter.eot_id)
            self.loss_mask.append(0)
            self.logprobs.append(0.0)
        return self.formatter.completion_text(ids)

    def add_action(self, message: Mapping[str, Any]) -> None:
        """Records the assistant message the turn became (as sent to the env)."""
        self.messages.append(dict(message))

    def add_messages(self, messages: Sequence[Message]) -> None:
        """Appends env messages and the next generation prompt (mask 0)."""
        if not messages:
            raise ValueError(
                "an env step returned no messages but the episode goes on; the next turn "
                "needs something new to answer"
            )
        ids = self.formatter.suffix_ids(messages, self.tools)
        self.completion_ids += ids
        self.loss_mask += [0] * len(ids)
        self.logprobs += [0.0] * len(ids)
        self.messages += [dict(m) for m in messages]

    def drift(self, level: str = "tokens") -> DriftReport:
        """`ChatFormatter.drift` of this sequence."""
        return self.formatter.drift(
            self.messages, self.ids, self.tools, level, prompt=(self.prompt_text, self.prompt_ids)
        )
