"""Execution scoring: the rows a query returns against the gold rows.

Two results match when they have the same number of columns and the same rows as a
multiset (as a sequence when the question asks for an order). Values are compared after
normalising what the backends return differently: decimals and integers compare as numbers
within `REL_TOL`/`ABS_TOL` (``math.isclose``), dates as ISO strings, NULL only equals NULL,
text exactly (case and spaces count). Column names do not count.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Sequence
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-6


def normalise(value: Any) -> Any:
    """A value as scoring compares it: numbers as int or float, dates as ISO text."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return value


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    # Numbers sort by a rounded value so that rows equal within the tolerance line up.
    key = []
    for value in row:
        if value is None:
            key.append((0, 0))
        elif isinstance(value, (int, float)):
            key.append((1, round(float(value), 4)))
        else:
            key.append((2, str(value)))
    return tuple(key)


def _values_equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return type(a) is type(b) and a == b


def compare_rows(
    got: Sequence[Sequence[Any]], want: Sequence[Sequence[Any]], *, ordered: bool
) -> str | None:
    """None when ``got`` matches ``want``; otherwise why not, in words."""
    got = [tuple(normalise(v) for v in row) for row in got]
    want = [tuple(normalise(v) for v in row) for row in want]
    if len(got) != len(want):
        return f"the query returned {len(got)} rows; the answer has {len(want)}"
    widths = {len(row) for row in got} | {len(row) for row in want}
    if got and len(widths) > 1:
        return (
            f"the query returned {len(got[0])} columns; the answer has {len(want[0])}"
        )
    if not ordered:
        got, want = sorted(got, key=_sort_key), sorted(want, key=_sort_key)
    for index, (a, b) in enumerate(zip(got, want, strict=True)):
        if not all(_values_equal(x, y) for x, y in zip(a, b, strict=True)):
            return f"row {index + 1} differs" if ordered else "some rows differ"
    return None
