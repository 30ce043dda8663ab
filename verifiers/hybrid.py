"""Rules first, a judge only where the rules cannot decide.

The math verifier runs first. Its verdict stands when it is `correct`, when it is any status
other than `incorrect` (no answer, bad format, timeout, suspect, error: a judge must not
overrule a format failure or a hedge), and when it is a *decisive* `incorrect` (both sides
parsed and proved different, or conflicting answers). Only an undecided `incorrect` (an
unparsable answer, a worded reference, symbolic forms sympy could not match) goes to the judge,
whose verdict then stands, errors included (masked). ``details["decided_by"]`` says which.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig
from palaestra.verifiers.judge import JudgeConfig, JudgeVerifier
from palaestra.verifiers.math import MathConfig, MathVerifier


@dataclasses.dataclass(frozen=True)
class HybridConfig(VerifierConfig):
    """Config of the `hybrid` verifier.

    Attributes:
        rules: The math verifier's config.
        judge: The judge's config.
    """

    VERSION: ClassVar[int] = 2

    timeout_s: float = 220.0
    rules: MathConfig = dataclasses.field(default_factory=MathConfig)
    judge: JudgeConfig = dataclasses.field(default_factory=JudgeConfig)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.rules, MathConfig) or not isinstance(self.judge, JudgeConfig):
            raise TypeError("rules must be a MathConfig and judge a JudgeConfig")


def needs_judge(rules: Verdict) -> bool:
    """True when the rules' verdict is an undecided `incorrect`."""
    return rules.status is Status.INCORRECT and not rules.details.get("decisive", False)


def _combine(rules: Verdict, judged: Verdict | None) -> Verdict:
    if judged is None:
        return rules.replace(details={**rules.details, "decided_by": "rules"})
    return judged.replace(
        details={
            **judged.details,
            "decided_by": "judge",
            "rules": {"status": rules.status.value, "reason": rules.reason},
        }
    )


class HybridVerifier(Verifier):
    """Math rules, then an LLM judge for what they could not decide.

    Context:
        question: Passed to the judge.
    """

    name: ClassVar[str] = "hybrid"
    config_class = HybridConfig
    config: HybridConfig

    def __init__(self, config: HybridConfig | None = None, **overrides: Any) -> None:
        super().__init__(config, **overrides)
        self.rules = MathVerifier(self.config.rules)
        self.judge = JudgeVerifier(self.config.judge)

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        rules = self.rules.verify(completion, reference)
        judged = self.judge.verify(completion, reference, **context) if needs_judge(rules) else None
        return _combine(rules, judged)

    async def averify(self, completion: Any, reference: Any = None, **context: Any) -> Verdict:
        """Rules in a thread, then the judge natively async."""
        import time

        self.check_context(context)
        start = time.perf_counter()
        rules = await self.rules.averify(completion, reference)
        judged = (
            await self.judge.averify(completion, reference, **context)
            if needs_judge(rules)
            else None
        )
        return self.finish(_combine(rules, judged), start)

    def verify_batch(
        self, items: Any, *, timeout_s: float | None = None, workers: int | None = None
    ) -> list[Verdict]:
        """Rules over the whole batch in the worker pool, then one concurrent judge batch."""
        from palaestra.verifiers.batch import normalize_items

        triples = normalize_items(items)
        for _, _, context in triples:
            self.check_context(context)
        rules = self.rules.verify_batch(
            [(c, r) for c, r, _ in triples], timeout_s=timeout_s, workers=workers
        )
        ask = [i for i, v in enumerate(rules) if needs_judge(v)]
        judged: dict[int, Verdict] = {}
        if ask:
            answers = self.judge.verify_batch([triples[i] for i in ask], timeout_s=timeout_s)
            judged = dict(zip(ask, answers, strict=False))
        out = []
        for i, v in enumerate(rules):
            combined = _combine(v, judged.get(i))
            out.append(combined.replace(verifier=self.name))
        return out
