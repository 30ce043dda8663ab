"""Calendar and clock arithmetic: weekdays, days between dates, adding days and durations.

The task (one of five kinds, drawn per instance from the level's kinds):
    ``add_time``:      "What time is it 7 hours 45 minutes after 21:30?" -> ``05:15``
    ``add_days``:      "What date is 45 days after 2023-12-20?" -> ``2024-02-03``
    ``days_between``:  "How many days after 2021-03-04 is 2022-01-01?" -> ``303``
    ``weekday``:       "2031-05-17 is a Saturday. What day of the week is 2029-11-02?"
    ``add_datetime``:  "What is 3 days 5 hours 10 minutes after 2024-02-27 21:30?"
Dates are in the proleptic Gregorian calendar (leap years: divisible by 4, except
centuries not divisible by 400).

Observation:
    One user message: the question and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: a 24-hour time ``HH:MM``, a date
    ``YYYY-MM-DD``, a date and time ``YYYY-MM-DD HH:MM``, a whole number of days, or a
    weekday name (full or three-letter, any case), as the question asks. Leading zeros of
    hours, months and days are optional.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the answer is right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from adding a few hours to a clock time to spans of centuries between 1600
        and 2400 and durations of tens of thousands of minutes.
    kinds, first_year, last_year, max_days, max_minutes: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import datetime
import re

import numpy as np

from palaestra.envs.tasks.answers import parse_int, same_number
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.verdict import Verdict

KINDS = ("add_time", "add_days", "days_between", "weekday", "add_datetime")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TIME = re.compile(r"(\d{1,2}):(\d{2})")
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DATETIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:\s+|T)(\d{1,2}):(\d{2})")


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (era arithmetic, no tables)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """The inverse of `days_from_civil`."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def weekday_of(days: int) -> int:
    """Monday = 0 of a day number (1970-01-01 was a Thursday)."""
    return (days + 3) % 7


def date_text(days: int) -> str:
    """``YYYY-MM-DD`` of a day number."""
    y, m, d = civil_from_days(days)
    return f"{y:04d}-{m:02d}-{d:02d}"


def duration_text(minutes: int) -> str:
    """``3 days 5 hours 10 minutes`` (zero parts left out)."""
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (mins, "minute")]
    return " ".join(f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n) or "0 minutes"


@dataclasses.dataclass(frozen=True)
class CalendarArithmeticConfig:
    """Knobs.

    Attributes:
        kinds: The kinds of question drawn from (a tuple drawn from `KINDS`).
        first_year: Earliest year of a date (1583 at the least: the Gregorian calendar).
        last_year: Latest year of a date (9000 at the most).
        max_days: Longest span in days (added days, days between, distance to the weekday hint).
        max_minutes: Longest duration added to a time, in minutes.
    """

    kinds: tuple[str, ...] = ("add_time",)
    first_year: int = 2000
    last_year: int = 2030
    max_days: int = 30
    max_minutes: int = 300

    def __post_init__(self) -> None:
        kinds = tuple(self.kinds) if isinstance(self.kinds, (list, tuple)) else None
        if not kinds or any(k not in KINDS for k in kinds):
            raise ValueError(
                f"kinds must be a non-empty tuple drawn from {KINDS}, got {self.kinds!r}"
            )
        object.__setattr__(self, "kinds", kinds)
        if (
            not isinstance(self.first_year, int)
            or not isinstance(self.last_year, int)
            or not 1583 <= self.first_year < self.last_year <= 9000
        ):
            raise ValueError(
                f"need integers 1583 <= first_year < last_year <= 9000, got {self.first_year!r}, "
                f"{self.last_year!r}"
            )
        if not isinstance(self.max_days, int) or not 2 <= self.max_days <= 10**6:
            raise ValueError(
                f"max_days must be an integer from 2 to 1000000, got {self.max_days!r}"
            )
        if not isinstance(self.max_minutes, int) or not 2 <= self.max_minutes <= 10**7:
            raise ValueError(
                f"max_minutes must be an integer from 2 to 10000000, got {self.max_minutes!r}"
            )


def _parse_time(text: str) -> tuple[int, int] | None:
    match = _TIME.fullmatch(text)
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        return None
    return int(match[1]), int(match[2])


def _parse_date(text: str) -> datetime.date | None:
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return datetime.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


class CalendarArithmeticTask(Task[CalendarArithmeticConfig]):
    """Weekdays, date differences and clock arithmetic."""

    name = "calendar_arithmetic"
    Config = CalendarArithmeticConfig
    unique = True

    @classmethod
    def level_config(cls, level: int) -> CalendarArithmeticConfig:
        """More kinds, wider year ranges, longer spans and durations."""
        kinds = KINDS[: (1, 2, 3, 4, 5, 5, 5, 5, 5, 5)[level - 1]]
        first, last, days, minutes = {
            1: (2000, 2030, 30, 300),
            2: (2000, 2030, 60, 1000),
            3: (1990, 2040, 120, 1500),
            4: (1990, 2040, 365, 2000),
            5: (1950, 2050, 1000, 3000),
            6: (1900, 2100, 3000, 5000),
            7: (1800, 2200, 10**4, 10**4),
            8: (1700, 2300, 3 * 10**4, 2 * 10**4),
            9: (1600, 2400, 10**5, 5 * 10**4),
            10: (1600, 2400, 2 * 10**5, 10**5),
        }[level]
        return CalendarArithmeticConfig(
            kinds=kinds, first_year=first, last_year=last, max_days=days, max_minutes=minutes
        )

    def _day(self, rng: np.random.Generator, margin: int = 0) -> int:
        low = days_from_civil(self.config.first_year, 1, 1)
        high = days_from_civil(self.config.last_year, 12, 31) - margin
        return int(rng.integers(low, max(low + 1, high)))

    def generate(self, rng: np.random.Generator) -> Problem:
        """A question of a random kind, answered with day-number arithmetic."""
        cfg = self.config
        kind = cfg.kinds[int(rng.integers(len(cfg.kinds)))]
        span = int(rng.integers(max(1, cfg.max_days // 10), cfg.max_days + 1))
        minutes = int(rng.integers(max(1, cfg.max_minutes // 10), cfg.max_minutes + 1))
        if kind == "add_time":
            start = int(rng.integers(0, 1440))
            reference = f"{(start + minutes) % 1440 // 60:02d}:{(start + minutes) % 60:02d}"
            question = (
                f"What time is it {duration_text(minutes)} after "
                f"{start // 60:02d}:{start % 60:02d}?"
            )
            form = "a 24-hour time HH:MM (for example 07:05)"
            data = {"start": start, "minutes": minutes}
        elif kind == "add_days":
            day = self._day(rng, span)
            reference = date_text(day + span)
            question = f"What date is {span} days after {date_text(day)}?"
            form = "a date YYYY-MM-DD (for example 1999-12-31)"
            data = {"start": date_text(day), "days": span}
        elif kind == "days_between":
            day = self._day(rng, span)
            reference = str(span)
            question = f"How many days after {date_text(day)} is {date_text(day + span)}?"
            form = "a whole number of days (for example 10)"
            data = {"start": date_text(day), "end": date_text(day + span)}
        elif kind == "weekday":
            day = self._day(rng, span)
            hint = day + span * int(rng.choice([-1, 1]))
            hint = min(max(hint, days_from_civil(1583, 1, 1)), days_from_civil(9000, 12, 31))
            reference = WEEKDAYS[weekday_of(day)]
            question = (
                f"{date_text(hint)} is a {WEEKDAYS[weekday_of(hint)]}. What day of the week is "
                f"{date_text(day)}?"
            )
            form = "the weekday's name (for example Monday)"
            data = {
                "date": date_text(day),
                "hint": date_text(hint),
                "hint_weekday": WEEKDAYS[weekday_of(hint)],
            }
        else:
            day = self._day(rng, minutes // 1440 + 1)
            start = int(rng.integers(0, 1440))
            total = day * 1440 + start + minutes
            reference = f"{date_text(total // 1440)} {total % 1440 // 60:02d}:{total % 60:02d}"
            question = (
                f"What date and time is {duration_text(minutes)} after {date_text(day)} "
                f"{start // 60:02d}:{start % 60:02d}?"
            )
            form = "a date and 24-hour time YYYY-MM-DD HH:MM (for example 1999-12-31 07:05)"
            data = {
                "start": f"{date_text(day)} {start // 60:02d}:{start % 60:02d}",
                "minutes": minutes,
            }
        calendar = "" if kind == "add_time" else " Dates are in the Gregorian calendar."
        prompt = f"{question}{calendar} Answer with {form}, nothing else. {ANSWER_FORMAT}"
        return Problem(prompt, reference, {"kind": kind, **data})

    def solve(self, problem: Problem) -> str:
        """Day-number arithmetic (era-based conversion between dates and day counts)."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Parses the answer in the form the kind asks for and compares values."""
        kind = problem.data["kind"]
        text = answer.strip().rstrip(".").strip()
        reference = problem.reference
        if kind == "add_time":
            got = _parse_time(text)
            ok = got == _parse_time(reference)
        elif kind == "add_days":
            got = _parse_date(text)
            ok = got == _parse_date(reference)
        elif kind == "add_datetime":
            match = _DATETIME.fullmatch(text)
            got = None
            if match is not None:
                date = _parse_date(f"{match[1]}-{match[2]}-{match[3]}")
                clock = _parse_time(f"{match[4]}:{match[5]}")
                got = (date, clock) if date is not None and clock is not None else None
            date_part, clock_part = reference.split()
            ok = got == (_parse_date(date_part), _parse_time(clock_part))
        elif kind == "days_between":
            got = parse_int(text)
            ok = got is not None and same_number(str(got), int(reference))
        else:
            word = text.lower()
            got = next((w for w in WEEKDAYS if word in (w.lower(), w[:3].lower())), None)
            ok = got == reference
        if got is None:
            return self.malformed(
                answer, problem, f"{answer[:40]!r} is not of the form the question asks for"
            )
        return (
            self.correct(answer, problem)
            if ok
            else self.wrong(answer, problem, f"{answer[:40]} is wrong")
        )

    def certify(self, problem: Problem) -> Certificate:
        """Python's datetime recomputes the answer."""
        d = problem.data
        kind = d["kind"]
        if kind == "add_time":
            moment = datetime.datetime(2000, 1, 1) + datetime.timedelta(
                minutes=d["start"] + d["minutes"]
            )
            value = moment.strftime("%H:%M")
        elif kind == "add_days":
            value = (
                datetime.date.fromisoformat(d["start"]) + datetime.timedelta(days=d["days"])
            ).isoformat()
        elif kind == "days_between":
            value = str(
                (
                    datetime.date.fromisoformat(d["end"]) - datetime.date.fromisoformat(d["start"])
                ).days
            )
        elif kind == "weekday":
            hint = datetime.date.fromisoformat(d["hint"])
            if WEEKDAYS[hint.weekday()] != d["hint_weekday"]:
                return Certificate(0)
            value = WEEKDAYS[datetime.date.fromisoformat(d["date"]).weekday()]
        else:
            start = datetime.datetime.strptime(d["start"], "%Y-%m-%d %H:%M")
            value = (start + datetime.timedelta(minutes=d["minutes"])).strftime("%Y-%m-%d %H:%M")
        return Certificate(1 if value == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """One minute, hour, day or weekday off, and the 12-hour slip."""
        kind = problem.data["kind"]
        reference = problem.reference
        if kind == "add_time":
            h, m = _parse_time(reference)
            return [
                f"{h:02d}:{(m + 1) % 60:02d}",
                f"{(h + 1) % 24:02d}:{m:02d}",
                f"{(h + 12) % 24:02d}:{m:02d}",
            ]
        if kind == "add_days":
            day = days_from_civil(*map(int, reference.split("-")))
            return [date_text(day + 1), date_text(day - 1), date_text(day + 365)]
        if kind == "days_between":
            return [str(int(reference) + 1), str(int(reference) - 1)]
        if kind == "weekday":
            index = WEEKDAYS.index(reference)
            return [WEEKDAYS[(index + 1) % 7], WEEKDAYS[(index + 6) % 7]]
        date_part, clock = reference.split()
        day = days_from_civil(*map(int, date_part.split("-")))
        h, m = _parse_time(clock)
        return [
            f"{date_text(day + 1)} {clock}",
            f"{date_part} {h:02d}:{(m + 1) % 60:02d}",
            f"{date_part} {(h + 12) % 24:02d}:{m:02d}",
        ]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: no leading zeros, lower case, three-letter weekdays."""
        kind = problem.data["kind"]
        reference = problem.reference
        if kind == "add_time":
            h, m = _parse_time(reference)
            return [f"{h}:{m:02d}"]
        if kind == "add_days":
            y, m, d = map(int, reference.split("-"))
            return [f"{y}-{m}-{d}"]
        if kind == "weekday":
            return [reference.lower(), reference[:3], reference.upper()]
        if kind == "add_datetime":
            return [reference.replace(" ", "T")]
        return []

    def work(self, problem: Problem) -> float:
        """Calendar steps: months crossed plus hours crossed, plus one."""
        d = problem.data
        kind = d["kind"]
        if kind == "add_time":
            return 1.0 + (d["start"] % 60 + d["minutes"]) // 60
        if kind in ("add_days", "days_between"):
            start = days_from_civil(*map(int, d["start"].split("-")))
            end = (
                start + d["days"]
                if kind == "add_days"
                else days_from_civil(*map(int, d["end"].split("-")))
            )
        elif kind == "weekday":
            start = days_from_civil(*map(int, d["hint"].split("-")))
            end = days_from_civil(*map(int, d["date"].split("-")))
        else:
            start = days_from_civil(*map(int, d["start"].split()[0].split("-")))
            end = start + d["minutes"] // 1440 + 1
        (y0, m0, _), (y1, m1, _) = (
            civil_from_days(min(start, end)),
            civil_from_days(max(start, end)),
        )
        months = (y1 - y0) * 12 + (m1 - m0)
        return 1.0 + months + (d.get("minutes", 0) // 60)


class CalendarArithmeticEnv(TaskEnv):
    """Weekdays, date differences and clock arithmetic; see the module docstring."""

    task_class = CalendarArithmeticTask
