"""Classical ciphers: round trips, the textbook rail-fence example, Caesar cracking."""

from __future__ import annotations

import numpy as np

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.strings._cipher import plaintext
from palaestra.envs.tasks.strings.affine_cipher import AffineCipherTask, affine
from palaestra.envs.tasks.strings.caesar import CaesarTask, caesar, english_shifts
from palaestra.envs.tasks.strings.rail_fence import decrypt, encrypt
from palaestra.envs.tasks.strings.vigenere import vigenere


def test_rail_fence_matches_the_textbook_example_and_round_trips():
    assert encrypt("WEAREDISCOVERED", 3) == "WECRERDSOEEAIVD"
    rng = np.random.default_rng(0)
    for rails in range(2, 8):
        text = "".join(c for c in plaintext(rng, 6).upper() if c.isalpha())
        assert decrypt(encrypt(text, rails), rails) == text


def test_vigenere_and_affine_round_trip_and_keep_spaces():
    assert vigenere("ATTACK AT DAWN", "LEMON") == "LXFOPV EF RNHR"
    assert vigenere(vigenere("quiet river", "KEY"), "KEY", -1) == "QUIET RIVER"
    for a in (3, 5, 25):
        assert affine(affine("green meadow", a, 8), a, 8, decrypt=True) == "GREEN MEADOW"


def test_crack_instances_have_exactly_one_english_shift():
    task = CaesarTask.from_level(7)
    for seed in range(20):
        problem = task.problem(seed)
        assert english_shifts(problem.data["text"]) == [problem.data["shift"]]


def test_case_and_spaces_are_ignored_but_other_characters_are_malformed():
    task = AffineCipherTask.from_level(1)
    problem = Problem("", "HELLO WORLD", {"mode": "encrypt", "text": "x", "a": 1, "b": 0})
    for answer in ("hello world", "HELLOWORLD", "Hello  World"):
        assert task.verify(f"<answer>{answer}</answer>", problem).score == 1.0
    assert task.verify("<answer>HELLO, WORLD</answer>", problem).status.value == "bad_format"
    assert caesar("xyz", 3) == "ABC"
