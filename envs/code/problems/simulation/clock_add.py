"""Add minutes to a clock time."""

LEVEL = 1
STYLE = "function"
ENTRY = "add_minutes"

STATEMENT = """
Write `add_minutes(time, minutes)` that returns the 24-hour clock time (`"HH:MM"`) that
is `minutes` minutes after `time` (also `"HH:MM"`); `minutes` may be negative or larger
than a day.
"""

REFERENCE = r"""
def add_minutes(time, minutes):
    h, m = map(int, time.split(":"))
    total = (h * 60 + m + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"
"""

WRONG = [
    r"""
def add_minutes(time, minutes):
    h, m = map(int, time.split(":"))
    total = h * 60 + m + minutes
    h, m = divmod(total, 60)
    return f"{h % 24:02d}:{abs(m):02d}" if total >= 0 else f"{24 + h:02d}:{m:02d}"
""",
]

PUBLIC = [
    ("add_minutes('10:30', 45)", "11:15"),
    ("add_minutes('23:50', 20)", "00:10"),
]

HIDDEN = [
    ("add_minutes('00:00', 0)", "00:00"),
    ("add_minutes('00:10', -20)", "23:50"),
    ("add_minutes('12:00', 1440)", "12:00"),
    ("add_minutes('01:00', -1500)", "00:00"),
    ("add_minutes('23:59', 1)", "00:00"),
]

PERFORMANCE = [
    ("sum(int(add_minutes('12:34', k)[:2]) for k in range(-150000, 150000, 3))", 1150088),
]
