"""Regex membership: the tree matcher agrees with Python's re.fullmatch on random patterns."""

from __future__ import annotations

import re

import numpy as np

from palaestra.envs.tasks.strings.regex_membership import FEATURES, _build, full_match, render


def test_matcher_agrees_with_re_on_random_patterns_and_strings():
    rng = np.random.default_rng(1)
    for _ in range(600):
        node = _build(rng, int(rng.integers(2, 10)), "abc", FEATURES)
        pattern = render(node)
        for _ in range(4):
            text = "".join("abc"[int(i)] for i in rng.integers(3, size=int(rng.integers(0, 9))))
            assert full_match(node, text) == (re.fullmatch(pattern, text) is not None), (
                pattern,
                text,
            )


def test_fullmatch_semantics_not_search():
    node = ("cat", (("lit", "a"), ("lit", "b")))
    assert full_match(node, "ab") and not full_match(node, "abab") and not full_match(node, "cab")
