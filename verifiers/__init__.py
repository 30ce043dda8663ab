"""Verifiers: answer and outcome checkers that score completions, never raising, never stalling.

The API, in full::

    from palaestra import verifiers

    verdict = verifiers.verify("math", completion, reference)            # one check
    verdict = await verifiers.averify("judge", completion, reference, question=q)
    check = verifiers.get("math", timeout_s=2.0)                         # a configured instance
    verdict = check(completion, reference)
    verdicts = verifiers.verify_batch("math", [(c, r), ...], timeout_s=2.0)
    verifiers.available()                                                 # registered names
    verifiers.register("mine", "my_pkg.module:MyVerifier")               # add one

Every check returns a `Verdict` (score, status, parsed answer and reference, a reason,
elapsed time, `mask` for results a trainer must drop, details). A check never raises because of
what the completion or the reference contain; misusing the API (an unknown verifier name, config
field or context keyword) raises at once with a close-match suggestion.

Time limits are enforced by killable worker processes (`palaestra.verifiers.pool`), never by
SIGALRM, so checks are safe in threads and async code. Verifiers are configured by frozen,
versioned config dataclasses (`get(name).config`), registered by name with string entry points
imported only when first used: importing this package imports neither sympy nor math-verify.

Built-in names: math, numeric, choice, exact_match, f1, format, json, judge, hybrid, composite,
lean, z3, code.

Context keywords: every verifier accepts ``question`` (used by judge and hybrid, ignored by the
rest) and ``timeout_s`` (a per-call limit); ``choice`` takes ``choices``, ``json`` takes
``schema``. Anything else raises `palaestra.errors.UnknownArgumentError`.

Statuses (`Status`): correct, incorrect, no_answer, bad_format, timeout (the answer was too
costly to check; score 0), error (infrastructure or a broken reference; ``mask=True``) and
suspect (an attempt to game the check; score 0).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterable
from typing import Any

from palaestra.errors import PalaestraError
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Deferred, Verifier, VerifierConfig, as_text

__all__ = [
    "Deferred",
    "Status",
    "UnknownVerifierError",
    "Verdict",
    "Verifier",
    "VerifierConfig",
    "as_text",
    "available",
    "averify",
    "get",
    "register",
    "verify",
    "verify_batch",
]


class UnknownVerifierError(PalaestraError, LookupError):
    """A verifier name is not registered."""


_REGISTRY: dict[str, str | type[Verifier]] = {
    "math": "palaestra.verifiers.math:MathVerifier",
    "numeric": "palaestra.verifiers.numeric:NumericVerifier",
    "choice": "palaestra.verifiers.choice:ChoiceVerifier",
    "exact_match": "palaestra.verifiers.text:ExactMatchVerifier",
    "f1": "palaestra.verifiers.text:F1Verifier",
    "format": "palaestra.verifiers.format:FormatVerifier",
    "json": "palaestra.verifiers.json_schema:JsonVerifier",
    "judge": "palaestra.verifiers.judge:JudgeVerifier",
    "hybrid": "palaestra.verifiers.hybrid:HybridVerifier",
    "composite": "palaestra.verifiers.composite:CompositeVerifier",
    "lean": "palaestra.verifiers.lean:LeanVerifier",
    "z3": "palaestra.verifiers.constraints:Z3Verifier",
    "code": "palaestra.verifiers.code:CodeVerifier",
}
_DEFAULTS: dict[str, Verifier] = {}
_lock = threading.Lock()


def register(name: str, entry_point: str | type[Verifier], *, overwrite: bool = False) -> None:
    """Registers a verifier class under a name.

    Args:
        name: The name used with `get`, `verify` and `verify_batch`.
        entry_point: The class, or ``"module:Class"`` imported on first use.
        overwrite: Replace an existing registration instead of raising.

    Raises:
        ValueError: The name is taken (and `overwrite` is False) or the entry point is malformed.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a verifier name must be a non-empty string, got {name!r}")
    if isinstance(entry_point, str):
        if ":" not in entry_point:
            raise ValueError(f"entry point must look like 'module:Class', got {entry_point!r}")
    elif not (isinstance(entry_point, type) and issubclass(entry_point, Verifier)):
        raise ValueError(
            f"entry point must be a Verifier subclass or a string, got {entry_point!r}"
        )
    with _lock:
        if name in _REGISTRY and not overwrite:
            raise ValueError(f"verifier {name!r} is already registered; pass overwrite=True")
        _REGISTRY[name] = entry_point
        _DEFAULTS.pop(name, None)


def available() -> list[str]:
    """The registered verifier names, sorted."""
    return sorted(_REGISTRY)


def verifier_class(name: str) -> type[Verifier]:
    """The class registered under a name (imported on first use)."""
    try:
        entry = _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownVerifierError(
            f"no verifier named {name!r}.{hint} Registered: {', '.join(available())}."
        ) from None
    if isinstance(entry, str):
        from palaestra.verifiers.pool import resolve

        entry = resolve(entry)
        with _lock:
            _REGISTRY[name] = entry
    return entry


def get(name: str, config: VerifierConfig | None = None, **overrides: Any) -> Verifier:
    """A verifier instance by name.

    Args:
        name: A registered name (see `available`).
        config: A config of the verifier's config class (default: its defaults).
        **overrides: Config fields to change.

    Returns:
        The verifier; with no config and no overrides, one shared default instance per name.
    """
    if config is None and not overrides:
        with _lock:
            cached = _DEFAULTS.get(name)
        if cached is not None:
            return cached
        instance = verifier_class(name)()
        with _lock:
            _DEFAULTS.setdefault(name, instance)
        return instance
    return verifier_class(name)(config, **overrides)


def _resolve(verifier: str | Verifier, config: VerifierConfig | None) -> Verifier:
    if isinstance(verifier, Verifier):
        if config is not None:
            raise TypeError("pass either a Verifier instance or a name with a config, not both")
        return verifier
    return get(verifier, config)


def verify(
    verifier: str | Verifier,
    completion: Any,
    reference: Any = None,
    *,
    config: VerifierConfig | None = None,
    **context: Any,
) -> Verdict:
    """Checks one completion with a named (or given) verifier; see `Verifier.verify`."""
    return _resolve(verifier, config).verify(completion, reference, **context)


async def averify(
    verifier: str | Verifier,
    completion: Any,
    reference: Any = None,
    *,
    config: VerifierConfig | None = None,
    **context: Any,
) -> Verdict:
    """The async twin of `verify`."""
    return await _resolve(verifier, config).averify(completion, reference, **context)


def verify_batch(
    verifier: str | Verifier,
    items: Iterable[Any],
    *,
    config: VerifierConfig | None = None,
    timeout_s: float | None = None,
    workers: int | None = None,
) -> list[Verdict]:
    """Checks many items with a hard wall-clock limit per item; see `Verifier.verify_batch`."""
    return _resolve(verifier, config).verify_batch(items, timeout_s=timeout_s, workers=workers)
