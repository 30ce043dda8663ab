"""Weighted sums of verifiers, each part kept as its own reward term.

``score = sum(weight_i * score_i)``. The status is that of the part named by `status_from`
(the outcome, usually), so a well-formatted wrong answer stays `incorrect` while still earning
its format term. Any masked part masks the whole verdict (status `error`). ``details`` carry
``reward_parts`` (each part's weighted contribution, ready for ``info["reward_parts"]``) and
``parts`` (each part's verdict as a dict).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig


@dataclasses.dataclass(frozen=True)
class Part:
    """One term of a composite reward.

    Attributes:
        key: The term's name in ``reward_parts`` (e.g. ``outcome``, ``format``).
        verifier: A registered verifier name.
        weight: The term's weight.
        config: The part's config (None: the verifier's defaults).
    """

    key: str
    verifier: str
    weight: float = 1.0
    config: VerifierConfig | None = None


@dataclasses.dataclass(frozen=True)
class CompositeConfig(VerifierConfig):
    """Config of the `composite` verifier.

    Attributes:
        parts: The terms.
        status_from: The key of the part whose status the verdict reports.
    """

    VERSION: ClassVar[int] = 1

    timeout_s: float = 120.0
    parts: tuple[Part, ...] = (Part("outcome", "math", 1.0), Part("format", "format", 0.1))
    status_from: str = "outcome"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "parts", tuple(self.parts))
        keys = [p.key for p in self.parts]
        if not keys or len(set(keys)) != len(keys):
            raise ValueError(f"parts need distinct keys, got {keys}")
        if any(p.verifier == "composite" for p in self.parts):
            raise ValueError("a composite can not contain a composite")
        if self.status_from not in keys:
            raise ValueError(f"status_from {self.status_from!r} is not a part key; keys: {keys}")


class CompositeVerifier(Verifier):
    """A weighted sum of parts; context keywords go to the parts that accept them."""

    name: ClassVar[str] = "composite"
    config_class = CompositeConfig
    config: CompositeConfig

    def __init__(self, config: CompositeConfig | None = None, **overrides: Any) -> None:
        from palaestra.verifiers import get

        super().__init__(config, **overrides)
        self.parts = [(p, get(p.verifier, p.config)) for p in self.config.parts]
        self._keys = frozenset().union(*(v.context_keys for _, v in self.parts))

    def check_context(self, context: Any) -> None:
        """Accepts any keyword some part accepts."""
        from palaestra.errors import UnknownArgumentError
        from palaestra.verifiers.base import UNIVERSAL_CONTEXT, _suggest

        for key in context:
            if key not in self._keys | UNIVERSAL_CONTEXT:
                raise UnknownArgumentError(
                    f"no part of this composite accepts the context keyword {key!r}."
                    f"{_suggest(key, self._keys | UNIVERSAL_CONTEXT)}"
                )

    def _context_for(self, verifier: Verifier, context: dict[str, Any]) -> dict[str, Any]:
        allowed = verifier.context_keys | {"question"}
        return {k: v for k, v in context.items() if k in allowed}

    def _combine(self, verdicts: list[Verdict]) -> Verdict:
        parts = {p.key: v for (p, _), v in zip(self.parts, verdicts, strict=False)}
        pairs = zip(self.parts, verdicts, strict=True)
        reward_parts = {p.key: p.weight * v.score for (p, _), v in pairs}
        main = parts[self.config.status_from]
        details = {
            "reward_parts": reward_parts,
            "parts": {k: v.to_dict() for k, v in parts.items()},
        }
        masked = [k for k, v in parts.items() if v.mask]
        if masked:
            return Verdict(
                0.0,
                Status.ERROR,
                answer=main.answer,
                reference=main.reference,
                reason=f"part {masked[0]!r} failed: {parts[masked[0]].reason}",
                mask=True,
                details=details,
            )
        return Verdict(
            sum(reward_parts.values()),
            main.status,
            answer=main.answer,
            reference=main.reference,
            reason="; ".join(f"{k}: {v.reason}" for k, v in parts.items()),
            details=details,
        )

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        verdicts = [
            v.verify(completion, reference, **self._context_for(v, context)) for _, v in self.parts
        ]
        return self._combine(verdicts)

    def verify_batch(
        self, items: Any, *, timeout_s: float | None = None, workers: int | None = None
    ) -> list[Verdict]:
        """Each part's own batch path over all items, then combined per item."""
        from palaestra.verifiers.batch import normalize_items

        triples = normalize_items(items)
        for _, _, context in triples:
            self.check_context(context)
        columns = [
            v.verify_batch(
                [(c, r, self._context_for(v, ctx)) for c, r, ctx in triples],
                timeout_s=timeout_s,
                workers=workers,
            )
            for _, v in self.parts
        ]
        out = []
        for row in zip(*columns, strict=False):
            combined = self._combine(list(row))
            out.append(
                combined.replace(verifier=self.name, elapsed_s=sum(v.elapsed_s for v in row))
            )
        return out
