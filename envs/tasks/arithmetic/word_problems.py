"""Word problems in the style of grade-school maths: templated stories, numbers from the seed.

The task:
    "Maya has 24 stickers. She buys 3 packs of 6 stickers each. She gives a third of her
    stickers to Leo. How many stickers does Maya have now?" Stories chain steps drawn from a
    pool of step templates (buying packs, giving away a fraction, sharing, percentages, daily
    use, ...), each with several phrasings; higher levels chain more steps, add a second
    person and end with questions about money or full boxes. Stand-alone rate templates
    (distance, filling tanks, change from a purchase) appear at the lower levels.

Observation:
    One user message: the story, the question and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: one whole number (a leading
    ``$`` and thousands separators are accepted), checked exactly by the ``numeric`` verifier.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the number is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from one step with numbers below 30 to nine steps with numbers in the
        hundreds, a second person and money or packing questions.
    steps, max_start, two_people, advanced: Override what the level sets (``advanced``:
        percentages, leftovers and packing questions).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import numpy as np

from palaestra.envs.tasks.answers import parse_int, same_number
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

NAMES = (
    "Maya",
    "Leo",
    "Amira",
    "Tomas",
    "Priya",
    "Jonas",
    "Lena",
    "Omar",
    "Sofia",
    "Kenji",
    "Nora",
    "Diego",
    "Ines",
    "Felix",
    "Zara",
    "Hugo",
    "Mei",
    "Arjun",
    "Clara",
    "Tariq",
    "Elif",
    "Marco",
    "Ada",
    "Kofi",
    "Rosa",
    "Ivan",
    "Yara",
    "Samir",
    "Lucia",
    "Theo",
    "Hana",
    "Pablo",
    "Freya",
    "Emeka",
    "Iris",
    "Malik",
)
ITEMS = (
    ("stickers", "pack"),
    ("marbles", "bag"),
    ("pencils", "box"),
    ("cookies", "tin"),
    ("shells", "jar"),
    ("stamps", "sheet"),
    ("cards", "deck"),
    ("beads", "string"),
    ("eggs", "carton"),
    ("apples", "crate"),
    ("books", "set"),
    ("balloons", "bundle"),
)
FRACTIONS = {2: "half", 3: "a third", 4: "a quarter", 5: "a fifth"}
TIMES = {2: "twice", 3: "three times"}
_MONEY = re.compile(r"\$?\s*(\d{1,3}(?:,\d{3})+|\d+)")


@dataclasses.dataclass(frozen=True)
class WordProblemsConfig:
    """Knobs.

    Attributes:
        steps: Steps in the story after the opening (1 to 12).
        max_start: Largest starting amount.
        two_people: Whether a second person's amount is derived and asked about.
        advanced: Whether percentages, leftovers, and money or packing questions appear.
    """

    steps: int = 1
    max_start: int = 30
    two_people: bool = False
    advanced: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.steps, int) or not 1 <= self.steps <= 12:
            raise ValueError(f"steps must be an integer from 1 to 12, got {self.steps!r}")
        if not isinstance(self.max_start, int) or not 10 <= self.max_start <= 10**6:
            raise ValueError(
                f"max_start must be an integer from 10 to 1000000, got {self.max_start!r}"
            )
        for name in ("two_people", "advanced"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")


class _Story:
    """The amount, its symbolic expression and the sentences told so far."""

    def __init__(
        self, rng: np.random.Generator, name: str, items: str, container: str, amount: int
    ):
        self.rng, self.name, self.items, self.container = rng, name, items, container
        self.amount = Fraction(amount)
        self.expression = str(amount)
        self.sentences: list[str] = []
        self.operations = 0

    def pick(self, options: list[str]) -> str:
        return options[int(self.rng.integers(len(options)))]

    def apply(self, value: Fraction, template: str, operations: int, sentence: str) -> None:
        """Records a step: the new amount, its expression (``{E}`` is the old one), the text."""
        self.amount = value
        self.expression = template.replace("{E}", self.expression)
        self.operations += operations
        self.sentences.append(sentence)


def _friend(story: _Story) -> str:
    return story.pick([n for n in NAMES if n != story.name])


def _step(story: _Story, scale: int, advanced: bool) -> None:
    """Appends one story step that keeps the amount a positive whole number."""
    rng, x, name, items = story.rng, story.amount, story.name, story.items
    whole = int(x)
    kinds = ["packs", "gift", "win"]
    if whole > 6:
        kinds += ["give", "daily"]
    divisors = [d for d in FRACTIONS if whole % d == 0 and whole >= 2 * d]
    if divisors:
        kinds += ["fraction", "share"]
    if whole <= 200 * scale:
        kinds.append("times")
    percents = [p for p in (10, 20, 25, 50, 75) if whole * p % 100 == 0]
    if advanced and percents and whole > 4:
        kinds.append("percent")
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "packs":
        k, m = int(rng.integers(2, 6)), int(rng.integers(2, 4 + 2 * scale))
        sentence = story.pick(
            [
                f"{name} buys {k} {story.container}s of {m} {items} each.",
                f"{name} gets {k} more {story.container}s, each holding {m} {items}.",
                f"Then {k} {story.container}s with {m} {items} in every one are added to {name}'s "
                "collection.",
            ]
        )
        story.apply(x + k * m, f"({{E}} + {k} * {m})", 2, sentence)
    elif kind in ("gift", "win"):
        k = int(rng.integers(2, 5 * scale + 3))
        options = [f"{_friend(story)} gives {name} {k} {items}.", f"{name} finds {k} more {items}."]
        sentence = story.pick(options) if kind == "gift" else f"{name} wins {k} {items} in a game."
        story.apply(x + k, f"({{E}} + {k})", 1, sentence)
    elif kind == "give":
        k = int(rng.integers(1, whole // 2))
        sentence = story.pick(
            [f"{name} gives {k} {items} to {_friend(story)}.", f"{name} loses {k} of the {items}."]
        )
        story.apply(x - k, f"({{E}} - {k})", 1, sentence)
    elif kind == "daily":
        days = int(rng.integers(2, 6))
        per_day = int(rng.integers(1, max(1, whole // (2 * days)) + 1))
        story.apply(
            x - per_day * days,
            f"({{E}} - {per_day} * {days})",
            2,
            f"{name} uses {per_day} {items} a day for {days} days.",
        )
    elif kind == "fraction":
        d = divisors[int(rng.integers(len(divisors)))]
        sentence = story.pick(
            [
                f"{name} gives away {FRACTIONS[d]} of the {items}.",
                f"{FRACTIONS[d].capitalize()} of {name}'s {items} get lost.",
            ]
        )
        story.apply(x - x / d, f"({{E}} * {d - 1} / {d})", 2, sentence)
    elif kind == "share":
        d = divisors[int(rng.integers(len(divisors)))]
        friends = f"{d - 1} friend{'s' if d > 2 else ''}"
        story.apply(
            x / d,
            f"({{E}} / {d})",
            1,
            f"{name} shares the {items} equally with {friends} and keeps one share.",
        )
    elif kind == "times":
        t = int(rng.choice([2, 3]))
        sentence = story.pick(
            [
                f"By the end of the month {name} has {TIMES[t]} as many {items} as before.",
                f"{name}'s collection grows to {TIMES[t]} its size.",
            ]
        )
        story.apply(x * t, f"({{E}} * {t})", 1, sentence)
    else:
        p = percents[int(rng.integers(len(percents)))]
        story.apply(
            x - x * p / 100, f"({{E}} * {100 - p} / 100)", 2, f"{name} sells {p}% of the {items}."
        )


def _rate_problem(rng: np.random.Generator, scale: int) -> tuple[str, str, int, int]:
    """A stand-alone rate template: (text, expression, value, operations)."""
    kind = int(rng.integers(3))
    if kind == 0:
        s1, h1, s2, h2 = (
            int(v)
            for v in (
                rng.integers(30, 90),
                rng.integers(1, 4),
                rng.integers(30, 90),
                rng.integers(1, 4 + scale),
            )
        )
        text = (
            f"A bus travels at {s1} km per hour for {h1} hours, then at {s2} km per hour for {h2} "
            "hours. How many kilometres does it travel in total?"
        )
        return text, f"{s1} * {h1} + {s2} * {h2}", s1 * h1 + s2 * h2, 3
    if kind == 1:
        rate, minutes, start = (
            int(rng.integers(2, 9 + scale)),
            int(rng.integers(5, 30 + 5 * scale)),
            int(rng.integers(10, 100)),
        )
        total = start + rate * minutes
        text = (
            f"A tank holds {total} litres when full and already contains {start} litres. A tap "
            f"adds {rate} litres per minute. How many minutes does it take to fill the tank?"
        )
        return text, f"({total} - {start}) / {rate}", minutes, 2
    price, count = int(rng.integers(15, 95)), int(rng.integers(2, 6 + scale))
    note = 100 * ((price * count) // 100 + int(rng.integers(1, 3)))
    text = (
        f"A pen costs {price} cents. Ana buys {count} pens and pays with {note // 100} one-dollar "
        "coins. How many cents of change does she get?"
    )
    return text, f"{note} - {price} * {count}", note - price * count, 3


class WordProblemsTask(Task[WordProblemsConfig]):
    """Templated multi-step word problems."""

    name = "word_problems"
    Config = WordProblemsConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> WordProblemsConfig:
        """More steps and larger numbers; a second person from level 5, advanced steps from 6."""
        steps = (1, 2, 3, 4, 4, 5, 6, 7, 8, 9)[level - 1]
        start = (30, 40, 60, 80, 100, 150, 200, 300, 400, 500)[level - 1]
        return WordProblemsConfig(
            steps=steps, max_start=start, two_people=level >= 5, advanced=level >= 6
        )

    def generate(self, rng: np.random.Generator) -> Problem:
        """A story of steps on one amount (or a rate template), with its expression."""
        cfg = self.config
        scale = 1 + cfg.max_start // 100
        if not cfg.two_people and cfg.steps <= 3 and rng.random() < 0.25:
            text, expression, value, operations = _rate_problem(rng, scale)
            prompt = f"{text}\n\nAnswer with one whole number (for example 42). {ANSWER_FORMAT}"
            return Problem(prompt, str(value), {"expression": expression, "operations": operations})
        name = NAMES[int(rng.integers(len(NAMES)))]
        items, container = ITEMS[int(rng.integers(len(ITEMS)))]
        start = int(rng.integers(max(5, cfg.max_start // 4), cfg.max_start + 1))
        story = _Story(rng, name, items, container, start)
        opening = f"{name} has {start} {items}."
        if cfg.two_people:
            other = _friend(story)
            k, t = int(rng.integers(1, 10)), int(rng.choice([2, 3]))
            opening = (
                f"{other} has {start} {items}. {name} has {k} more than {TIMES[t]} as many {items} "
                f"as {other}."
            )
            story.amount = Fraction(t * start + k)
            story.expression = f"({t} * {start} + {k})"
            story.operations = 2
        for _ in range(cfg.steps):
            _step(story, scale, cfg.advanced)
        value = int(story.amount)
        question = f"How many {items} does {name} have now?"
        if cfg.advanced and rng.random() < 0.5:
            if rng.random() < 0.5:
                size = int(rng.integers(3, 13))
                question = (
                    f"{name} packs the {items} into {story.container}s of {size}. How many full "
                    f"{story.container}s can {name} fill?"
                )
                story.expression = f"floor({story.expression} / {size})"
                value //= size
            else:
                price = int(rng.integers(2, 10))
                question = (
                    f"{name} sells every one of the {items} for ${price}. How many dollars does "
                    f"{name} receive?"
                )
                story.expression = f"{story.expression} * {price}"
                value *= price
            story.operations += 1
        text = " ".join([opening, *story.sentences, question])
        prompt = f"{text}\n\nAnswer with one whole number (for example 42). {ANSWER_FORMAT}"
        return Problem(
            prompt, str(value), {"expression": story.expression, "operations": story.operations}
        )

    def solve(self, problem: Problem) -> str:
        """The amount carried through the story with exact fractions."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """One whole number (optional ``$``, thousands separators), compared exactly."""
        text = answer.strip().rstrip(".").strip()
        match = _MONEY.fullmatch(text)
        value = parse_int(match[1].replace(",", "")) if match else None
        if value is None:
            return self.malformed(answer, problem, f"{answer[:40]!r} is not one whole number")
        if not same_number(str(value), int(problem.reference)):
            return self.wrong(answer, problem, f"{value} is not the answer")
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """Sympy evaluates the symbolic expression recorded with the story."""
        import sympy

        value = sympy.sympify(problem.data["expression"], rational=True)
        return Certificate(1 if value.is_Integer and int(value) == int(problem.reference) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """Off by one and doubled."""
        value = int(problem.reference)
        return [str(value + 1), str(value - 1), str(2 * value + 1)]

    def alternatives(self, problem: Problem) -> list[str]:
        """With a dollar sign and with thousands separators."""
        value = int(problem.reference)
        return [f"${value}", f"{value:,}"]

    def work(self, problem: Problem) -> float:
        """Arithmetic operations times the digits of the answer."""
        return float(problem.data["operations"] * max(1, len(problem.reference)))


class WordProblemsEnv(TaskEnv):
    """Templated multi-step word problems; see the module docstring."""

    task_class = WordProblemsTask
