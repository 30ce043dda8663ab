"""Deterministic inputs for the shipped problems' large tests.

The expected outputs of the shipped performance tests are stored literally, so the inputs
must never change: they come from SplitMix64 (a fixed, documented sequence), not from a
library generator whose stream may change between versions.
"""

from __future__ import annotations

from collections.abc import Iterable

_MASK = (1 << 64) - 1


def ints(n: int, low: int, high: int, seed: int) -> list[int]:
    """``n`` integers drawn from ``[low, high]`` (inclusive) by SplitMix64 from ``seed``."""
    if n < 0 or high < low:
        raise ValueError(f"ints needs n >= 0 and low <= high, got n={n}, low={low}, high={high}")
    span = high - low + 1
    state = seed & _MASK
    out = [0] * n
    for k in range(n):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        out[k] = low + (z ^ (z >> 31)) % span
    return out


def text(n: int, alphabet: str, seed: int) -> str:
    """A string of ``n`` characters of ``alphabet``."""
    return "".join(alphabet[i] for i in ints(n, 0, len(alphabet) - 1, seed))


def join(values: Iterable[object], sep: str = " ") -> str:
    """The values as text, separated by ``sep``, with a final newline."""
    return sep.join(str(v) for v in values) + "\n"
