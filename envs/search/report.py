"""Research report: find everything the encyclopedia states about one subject and report it.

The task:
    A person, organisation, city or event of the generated world; the model searches,
    reads, and writes a short report stating the facts asked for (a person's birth year,
    birthplace, occupation and organisation; an organisation's founding year, founder,
    headquarters and members; ...). The corpus may not state every one.

Observation, action:
    As `SearchEnv` with ``protocol="tools"`` (``search``, ``open``, ``find``), or ``"tags"``;
    the report goes in ``<answer>...</answer>``.

Reward (``info["reward_parts"]``):
    ``outcome``: the F1 of the facts the report states against the subject's facts in the
    world: the values it names (entity names, numbers, occupations) are compared with the
    gold values, so a wrong or invented value lowers precision and a missing one recall. A
    report whose subject's article never came back from the backend in this episode scores
    0: the facts must be found, not recalled or guessed.
    ``tool`` and ``invalid`` as in `SearchEnv`.

Episode end, arguments:
    As `SearchEnv` (without ``level``, ``kinds``, ``reward`` or the loaders).

Version history:
    v0: first version.
"""

from __future__ import annotations

import re
from typing import Any

from palaestra.core import user
from palaestra.envs.search.env import SearchEnv, _entity_names_in
from palaestra.envs.search.questions import Question
from palaestra.envs.search.world import OCCUPATIONS
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer
from palaestra.verifiers.text import normalize_answer

SUBJECT_KINDS = ("person", "organisation", "city", "event")
_FIELDS = {
    "person": ("born", "birthplace", "occupation", "member_of"),
    "organisation": ("org_founded", "founder", "headquarters"),
    "city": ("country", "founded", "population"),
    "event": ("year", "location", "organiser"),
}
_ASKED = {
    "person": "birth year, birthplace, occupation and the organisation they belonged to",
    "organisation": "founding year, founder, headquarters and members",
    "city": "country, founding year and population",
    "event": "year, location and organiser",
}
_EXTRACTION = ExtractionConfig(slots=("answer_tag",), max_answer_chars=4_000)
_NUMBER = re.compile(r"\b\d+\b")


class ResearchReportEnv(SearchEnv):
    """A report on one subject of the generated world; see the module docstring."""

    def __init__(self, protocol: str = "tools", max_tool_calls: int = 6, **kwargs: Any):
        for name in ("level", "kinds", "reward", "questions", "corpus", "provenance_bonus"):
            if name in kwargs:
                raise ValueError(f"ResearchReportEnv does not take {name}=")
        super().__init__(protocol=protocol, max_tool_calls=max_tool_calls, **kwargs)
        self.subject: str | None = None
        self.gold: frozenset[str] = frozenset()

    @classmethod
    def argument_names(cls) -> list[str]:
        """The arguments `palaestra.make` accepts."""
        import inspect

        dropped = {"self", "level", "kinds", "reward", "questions", "corpus", "provenance_bonus"}
        return [p for p in inspect.signature(SearchEnv.__init__).parameters if p not in dropped]

    def _reset_task(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"ResearchReportEnv.reset takes no options, got {sorted(options)}")
        self._reset_episode()
        world, rng = self.world, self.np_random
        kind = SUBJECT_KINDS[int(rng.integers(len(SUBJECT_KINDS)))]
        pool = world.by_kind[kind]
        self.subject = pool[int(rng.integers(len(pool)))]
        values = [world.fact(self.subject, r) for r in _FIELDS[kind]]
        if kind == "organisation":
            values += world.members(self.subject)
        shown = [
            world.name(v) if isinstance(v, str) and v in world.entities else str(v)
            for v in values
            if v is not None
        ]
        self.gold = frozenset(normalize_answer(v) for v in shown)
        name = world.name(self.subject)
        text = (
            f"Write a short report on {name}: its {_ASKED[kind]}, as the encyclopedia states "
            "them. State only facts you found; leave out what the encyclopedia does not say."
        )
        self.question = Question(text, (_report(name, shown),), "report", 1, (name,))
        prompt = f"{self._instructions()}\n\nTask: {text}"
        return [user(prompt)], {"kind": kind, "subject": name, "reference": sorted(self.gold)}

    def stated(self, report: str) -> set[str]:
        """The fact values a report names: entity names, numbers and occupations."""
        name = normalize_answer(self.world.name(self.subject))
        text = f" {normalize_answer(report)} ".replace(f" {name} ", " ")
        values = _entity_names_in(self.world, text)
        values |= set(_NUMBER.findall(text))
        values |= {word for word in text.split() if word in OCCUPATIONS}
        return values

    def score(self, completion: str) -> Verdict:
        """The F1 of the stated facts against the subject's facts; 0 when none were found."""
        reference = sorted(self.gold)
        extraction = extract_answer(completion, _EXTRACTION)
        if not extraction.ok:
            status = Status.INCORRECT if extraction.kind == "conflict" else Status.NO_ANSWER
            return Verdict(0.0, status, extraction.answer, reference, extraction.reason)
        report = extraction.answer
        if self.world.name(self.subject) not in self._returned_titles:
            reason = "the subject's article never came back from a search in this episode"
            return Verdict(0.0, Status.INCORRECT, report, reference, reason)
        stated = self.stated(report)
        right = len(stated & self.gold)
        if not right:
            return Verdict(0.0, Status.INCORRECT, report, reference, "no fact is right")
        precision, recall = right / len(stated), right / len(self.gold)
        f1 = 2 * precision * recall / (precision + recall)
        status = Status.CORRECT if f1 == 1.0 else Status.INCORRECT
        reason = f"{right} of {len(self.gold)} facts, {len(stated) - right} wrong or extra"
        return Verdict(f1, status, report, reference, reason, verifier="fact_f1")

    def best_return(self) -> float:
        """A report stating every fact and nothing else scores 1."""
        return 1.0

    def no_search_action(self) -> str:
        """A report written without searching (guessing a year)."""
        return f"<answer>{self.world.name(self.subject)} dates from 1700.</answer>"


def _report(name: str, values: list[str]) -> str:
    return f"{name}: " + "; ".join(values) + "."
