"""Day of the week."""

LEVEL = 2
STYLE = "function"
ENTRY = "weekday"

STATEMENT = """
Write `weekday(year, month, day)` that returns the English name of the weekday
(`"Monday"` ... `"Sunday"`) of a valid date of the proleptic Gregorian calendar
(1 <= year <= 9999), without using the `datetime` or `calendar` modules. Leap years are
the years divisible by 4, except those divisible by 100 but not by 400.
"""

REFERENCE = r"""
def weekday(year, month, day):
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    if month < 3:
        month += 12
        year -= 1
    k, j = year % 100, year // 100
    h = (day + 13 * (month + 1) // 5 + k + k // 4 + j // 4 + 5 * j) % 7
    return names[(h + 5) % 7]
"""

WRONG = [
    r"""
def weekday(year, month, day):
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    days = (year - 1) * 365 + (year - 1) // 4
    days += sum(lengths[:month - 1]) + (month > 2 and year % 4 == 0) + day - 1
    return names[days % 7]
""",
]

PUBLIC = [
    ("weekday(2024, 1, 1)", "Monday"),
    ("weekday(1969, 7, 20)", "Sunday"),
]

HIDDEN = [
    ("weekday(1, 1, 1)", "Monday"),
    ("weekday(2000, 2, 29)", "Tuesday"),
    ("weekday(1900, 3, 1)", "Thursday"),
    ("weekday(2100, 12, 31)", "Friday"),
    ("weekday(9999, 12, 31)", "Friday"),
]

PERFORMANCE = [
    (
        "sum(weekday(1900 + k % 500, k % 12 + 1, k % 28 + 1) == 'Friday' for k in range(150000))",
        21426,
    ),
]
