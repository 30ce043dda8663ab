"""Calendar arithmetic: the day-number algorithms agree with datetime across centuries."""

from __future__ import annotations

import datetime

from palaestra.envs.tasks.arithmetic.calendar_arithmetic import (
    CalendarArithmeticTask,
    civil_from_days,
    days_from_civil,
    weekday_of,
)
from palaestra.envs.tasks.base import Problem


def test_day_numbers_match_datetime_from_1583_to_2600():
    epoch = datetime.date(1970, 1, 1)
    day = datetime.date(1583, 1, 1)
    while day.year < 2600:
        n = days_from_civil(day.year, day.month, day.day)
        assert n == (day - epoch).days
        assert civil_from_days(n) == (day.year, day.month, day.day)
        assert weekday_of(n) == day.weekday()
        day += datetime.timedelta(days=13)


def test_spellings_of_times_dates_and_weekdays():
    task = CalendarArithmeticTask.from_level(5)
    weekday = Problem(
        "",
        "Saturday",
        {"kind": "weekday", "date": "2000-01-01", "hint": "2000-01-03", "hint_weekday": "Monday"},
    )
    for answer in ("Saturday", "sat", "SATURDAY."):
        assert task.verify(f"<answer>{answer}</answer>", weekday).score == 1.0
    assert task.verify("<answer>Sunday</answer>", weekday).score == 0.0
    clock = Problem("", "05:07", {"kind": "add_time", "start": 0, "minutes": 307})
    assert task.verify("<answer>5:07</answer>", clock).score == 1.0
    assert task.verify("<answer>17:07</answer>", clock).score == 0.0
    assert task.verify("<answer>25:07</answer>", clock).status.value == "bad_format"
    date = Problem("", "2024-03-01", {"kind": "add_days", "start": "2024-02-28", "days": 2})
    assert task.verify("<answer>2024-3-1</answer>", date).score == 1.0
    assert task.verify("<answer>2024-02-30</answer>", date).status.value == "bad_format"
