"""The verifier protocol: frozen versioned configs, the `Verifier` base class and deferred work.

A verifier turns `(completion, reference, **context)` into a `Verdict` and never raises because
of what the completion or the reference contain. Misuse of the API itself (an unknown context
keyword, a bad config value) is a programming error and raises at once with a message saying how
to fix it, because a silently masked verdict would hide the bug for a whole training run.

Work is split in two stages so that time limits hold without signals:

* `_verify` runs in the calling process and must be cheap and bounded (extraction, caps, fast
  paths). It returns a final `Verdict`, or a `Deferred` naming a module-level function.
* A `Deferred` runs in a killable worker process (`palaestra.verifiers.pool`) under a hard
  wall-clock limit; a worker that overruns is killed and replaced.

This module depends on `palaestra.verifiers.pool` (workers, `Deferred`) and
`palaestra.verifiers.batch` (running many deferred jobs); neither imports it back. `Deferred`
is re-exported here because every verifier that defers work names it.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import difflib
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from palaestra.errors import UnknownArgumentError
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.batch import Job, normalize_items, run_jobs
from palaestra.verifiers.pool import Deferred, default_pool, resolve_deferred

C = TypeVar("C", bound="VerifierConfig")

UNIVERSAL_CONTEXT = frozenset({"question", "timeout_s"})
"""Context keywords every verifier accepts (`question` is ignored where unused)."""


def _suggest(name: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


@dataclasses.dataclass(frozen=True)
class VerifierConfig:
    """Base of every verifier config: frozen, hashable, versioned and checked on construction.

    Subclasses add fields (use tuples, not lists, so configs stay hashable) and bump `VERSION`
    whenever a change could alter a verdict, so that recorded rewards name what produced them.

    Attributes:
        timeout_s: Hard wall-clock limit of one check, in seconds.
    """

    VERSION: ClassVar[int] = 1

    timeout_s: float = 5.0

    def __post_init__(self) -> None:
        if not isinstance(self.timeout_s, (int, float)) or not self.timeout_s > 0:
            raise ValueError(
                f"timeout_s must be a positive number of seconds, got {self.timeout_s!r}; "
                "pass e.g. timeout_s=5.0"
            )

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of the config's fields."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def check_names(cls, names: Iterable[str]) -> None:
        """Raises `UnknownArgumentError` for any name that is not a field of this config."""
        known = cls.field_names()
        for name in names:
            if name not in known:
                raise UnknownArgumentError(
                    f"{cls.__name__} has no field {name!r}.{_suggest(name, known)} "
                    f"Known fields: {', '.join(known)}."
                )

    def replace(self: C, **changes: Any) -> C:
        """A copy with some fields changed; unknown names are rejected."""
        self.check_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict, plus the config version under `"version"`."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["version"] = self.VERSION
        return out

    @classmethod
    def from_dict(cls: type[C], data: Mapping[str, Any]) -> C:
        """Builds a config from `to_dict` output; a different recorded version is rejected."""
        data = dict(data)
        version = data.pop("version", cls.VERSION)
        if version != cls.VERSION:
            raise ValueError(
                f"{cls.__name__} is version {cls.VERSION} but the data is version {version}; "
                "verdicts of different versions are not comparable, so re-create the config"
            )
        cls.check_names(data)
        return cls(**data)


def as_text(completion: Any) -> str | None:
    """The text of a completion: a string, a chat message, or the last assistant message.

    Returns None when there is no text to check (None, an empty message list, a message with
    no string content).
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        content = completion.get("content")
        return content if isinstance(content, str) else None
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                return as_text(message)
        return None
    return None


class Verifier(abc.ABC):
    """Base class of every verifier.

    Subclasses set `name`, `config_class` and `context_keys`, and implement `_verify`.
    Instances are cheap, stateless apart from their config, and safe to share across threads.

    Args:
        config: The config; defaults to `config_class()`.
        **overrides: Fields to change in the config (unknown names raise).
    """

    name: ClassVar[str] = ""
    config_class: ClassVar[type[VerifierConfig]] = VerifierConfig
    context_keys: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config: VerifierConfig | None = None, **overrides: Any) -> None:
        if config is None:
            self.config_class.check_names(overrides)
            config = self.config_class(**overrides)
        elif not isinstance(config, self.config_class):
            raise TypeError(
                f"verifier {self.name!r} needs a {self.config_class.__name__}, "
                f"got {type(config).__name__}"
            )
        elif overrides:
            config = config.replace(**overrides)
        self.config = config

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"

    @property
    def version(self) -> int:
        """The version of this verifier's config class."""
        return self.config.VERSION

    def check_context(self, context: Mapping[str, Any]) -> None:
        """Raises `UnknownArgumentError` for a context keyword this verifier does not accept."""
        allowed = self.context_keys | UNIVERSAL_CONTEXT
        for key in context:
            if key not in allowed:
                raise UnknownArgumentError(
                    f"verifier {self.name!r} does not accept the context keyword {key!r}."
                    f"{_suggest(key, allowed)} Accepted: {', '.join(sorted(allowed))}."
                )

    def __call__(self, completion: Any, reference: Any = None, **context: Any) -> Verdict:
        """Same as `verify`."""
        return self.verify(completion, reference, **context)

    def verify(self, completion: Any, reference: Any = None, **context: Any) -> Verdict:
        """Checks one completion against one reference; never raises on their content.

        Args:
            completion: The model's output: a string, a chat message or a list of messages.
            reference: What the answer must match (its form depends on the verifier).
            **context: Verifier-specific keywords (see `context_keys`), plus `question` and
                `timeout_s` (a per-call time limit overriding the config's).

        Returns:
            The verdict, with `elapsed_s` and `verifier` filled in.
        """
        self.check_context(context)
        timeout_s = self._timeout(context)
        start = time.perf_counter()
        out = self._stage(completion, reference, context)
        if isinstance(out, Deferred):
            remaining = max(timeout_s - (time.perf_counter() - start), 0.05)
            try:
                outcome = default_pool().call(out.target, out.args, remaining)
                out = resolve_deferred(out, outcome, timeout_s)
            except Exception as e:  # noqa: BLE001 - the contract is: never raise on content
                out = Verdict.error(f"verifier crashed: {type(e).__name__}: {e}")
        return self.finish(out, start)

    async def averify(self, completion: Any, reference: Any = None, **context: Any) -> Verdict:
        """The async twin of `verify`; runs it in a thread so the event loop never blocks."""
        return await asyncio.to_thread(self.verify, completion, reference, **context)

    def verify_batch(
        self,
        items: Iterable[Any],
        *,
        timeout_s: float | None = None,
        workers: int | None = None,
    ) -> list[Verdict]:
        """Checks many items; each gets a hard wall-clock limit. Order is kept.

        Args:
            items: Each a mapping with ``completion``, ``reference`` and context keywords, or
                a tuple ``(completion, reference)`` or ``(completion, reference, context)``.
            timeout_s: The per-item limit (default: the config's).
            workers: Worker processes to use (default: the shared pool's size).

        Returns:
            One verdict per item, in the order given.
        """
        triples = normalize_items(items)
        for _, _, context in triples:
            self.check_context(context)
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        results: list[Verdict | None] = []
        jobs: list[Job] = []
        for completion, reference, context in triples:
            start = time.perf_counter()
            limit = self._timeout(context) if timeout_s is None else float(timeout_s)
            out = self._stage(completion, reference, context)
            if isinstance(out, Deferred):
                jobs.append(Job(out, limit, time.perf_counter() - start))
                results.append(None)  # filled below, in order, from the jobs' verdicts
            else:
                results.append(self.finish(out, start))
        # An item's elapsed time is its service time, not its wait behind other items.
        done = iter([self.finish(v, time.perf_counter() - s) for v, s in run_jobs(jobs, workers)])
        return [r if r is not None else next(done) for r in results]

    def _stage(
        self, completion: Any, reference: Any, context: dict[str, Any]
    ) -> Verdict | Deferred:
        """The in-process stage, with a crash turned into an error verdict."""
        try:
            return self._verify(completion, reference, context)
        except Exception as e:  # noqa: BLE001 - the contract is: never raise on content
            return Verdict.error(f"verifier crashed: {type(e).__name__}: {e}")

    def finish(self, verdict: Verdict, start: float) -> Verdict:
        """Stamps elapsed time, verifier name and version on a verdict."""
        details = dict(verdict.details)
        details.setdefault("version", self.version)
        return verdict.replace(
            elapsed_s=time.perf_counter() - start,
            verifier=verdict.verifier or self.name,
            details=details,
        )

    def _timeout(self, context: dict[str, Any]) -> float:
        value = context.get("timeout_s")
        if value is None:
            return float(self.config.timeout_s)
        if not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"timeout_s must be a positive number of seconds, got {value!r}")
        return float(value)

    @abc.abstractmethod
    def _verify(
        self, completion: Any, reference: Any, context: dict[str, Any]
    ) -> Verdict | Deferred:
        """The check itself. Must be cheap in-process; heavy work goes into a `Deferred`."""


def verdict(
    status: Status,
    reason: str,
    *,
    answer: Any = None,
    reference: Any = None,
    score: float | None = None,
    **details: Any,
) -> Verdict:
    """A verdict whose score follows its status (1.0 for correct, 0.0 otherwise)."""
    if score is None:
        score = 1.0 if status is Status.CORRECT else 0.0
    return Verdict(
        score,
        status,
        answer=answer,
        reference=reference,
        reason=reason,
        mask=status is Status.ERROR,
        details=details,
    )
