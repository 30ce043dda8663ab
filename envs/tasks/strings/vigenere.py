"""Vigenère cipher: encrypt or decrypt a message with a keyword.

The task:
    "Encrypt 'quiet river' with the Vigenère key LEMON." Each letter is shifted by the
    alphabet position of the key letter under it (A = 0, B = 1, ...); the key repeats and
    advances on letters only, so spaces stay and do not use up key letters.

Observation:
    One user message: the mode, the text, the key and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the resulting text. Only its
    letters count (case and spaces are ignored); any other character is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the letters are right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from encrypting three words with a three-letter key to decrypting fifteen
        words with an eight-letter key.
    words, key_length, modes: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks._words import words_of_length
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, TaskEnv
from palaestra.envs.tasks.strings._cipher import (
    ALPHABET,
    CipherTask,
    letters,
    plaintext,
    shift_letter,
)

MODES = ("encrypt", "decrypt")


@dataclasses.dataclass(frozen=True)
class VigenereConfig:
    """Knobs.

    Attributes:
        words: Words in the plaintext (1 to 60).
        key_length: Letters in the key word (3 to 8).
        modes: The modes drawn from (a tuple drawn from `MODES`).
    """

    words: int = 3
    key_length: int = 3
    modes: tuple[str, ...] = ("encrypt",)

    def __post_init__(self) -> None:
        if not isinstance(self.words, int) or not 1 <= self.words <= 60:
            raise ValueError(f"words must be an integer from 1 to 60, got {self.words!r}")
        if not isinstance(self.key_length, int) or not 3 <= self.key_length <= 8:
            raise ValueError(f"key_length must be an integer from 3 to 8, got {self.key_length!r}")
        modes = tuple(self.modes) if isinstance(self.modes, (list, tuple)) else None
        if not modes or any(m not in MODES for m in modes):
            raise ValueError(
                f"modes must be a non-empty tuple drawn from {MODES}, got {self.modes!r}"
            )
        object.__setattr__(self, "modes", modes)


def vigenere(text: str, key: str, sign: int = 1) -> str:
    """Encrypts (``sign=1``) or decrypts (``sign=-1``) upper-cased ``text`` with ``key``."""
    out, k = [], 0
    for c in text.upper():
        if c in ALPHABET:
            out.append(shift_letter(c, sign * ALPHABET.index(key[k % len(key)])))
            k += 1
        else:
            out.append(c)
    return "".join(out)


def _tabula_recta(text: str, key: str, decrypt: bool) -> str:
    """The same cipher read off a 26 x 26 table (independent of `vigenere`)."""
    table = {
        (r, c): ALPHABET[(i + j) % 26]
        for i, r in enumerate(ALPHABET)
        for j, c in enumerate(ALPHABET)
    }
    inverse = {(r, table[r, c]): c for r in ALPHABET for c in ALPHABET}
    stream = letters(text)
    return "".join(
        inverse[key[i % len(key)], ch] if decrypt else table[key[i % len(key)], ch]
        for i, ch in enumerate(stream)
    )


class VigenereTask(CipherTask):
    """Vigenère cipher."""

    name = "vigenere"
    Config = VigenereConfig

    @classmethod
    def level_config(cls, level: int) -> VigenereConfig:
        """Longer texts and keys, then decryption."""
        n, key, modes = {
            1: (3, 3, ("encrypt",)),
            2: (4, 3, ("encrypt",)),
            3: (4, 4, ("decrypt",)),
            4: (5, 4, MODES),
            5: (6, 5, MODES),
            6: (8, 5, MODES),
            7: (9, 6, MODES),
            8: (10, 6, ("decrypt",)),
            9: (12, 7, MODES),
            10: (15, 8, ("decrypt",)),
        }[level]
        return VigenereConfig(words=n, key_length=key, modes=modes)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A generated sentence, a key word from the word list, a mode."""
        cfg = self.config
        mode = cfg.modes[int(rng.integers(len(cfg.modes)))]
        keys = words_of_length(cfg.key_length)
        key = keys[int(rng.integers(len(keys)))].upper()
        plain = plaintext(rng, cfg.words)
        cipher = vigenere(plain, key)
        given, reference = (plain, cipher) if mode == "encrypt" else (cipher, plain)
        verb = (
            "Encrypt this message"
            if mode == "encrypt"
            else "This message was encrypted; decrypt it"
        )
        prompt = (
            f"{verb} with the Vigenère cipher and the key {key}:\n\n"
            f"{given}\n\n"
            "Each letter is shifted forward (to encrypt) or backward (to decrypt) by the alphabet "
            "position of the key letter under it (A = 0, B = 1, ..., Z = 25), wrapping around the "
            "alphabet. The key repeats and advances on letters only; spaces stay. Answer with the "
            f"resulting text (letters and spaces only, for example HELLO WORLD). {ANSWER_FORMAT}"
        )
        return Problem(prompt, reference, {"mode": mode, "text": given, "key": key})

    def solve(self, problem: Problem) -> str:
        """Shift each letter by its key letter."""
        return problem.reference

    def certify(self, problem: Problem) -> Certificate:
        """The tabula recta, read as a lookup table, reproduces the reference's letters."""
        d = problem.data
        return Certificate(
            1
            if _tabula_recta(d["text"], d["key"], d["mode"] == "decrypt")
            == letters(problem.reference)
            else 0
        )

    def work(self, problem: Problem) -> float:
        """Letter shifts, plus one key alignment per letter."""
        return float(2 * len(letters(problem.reference)) + len(problem.data["key"]))


class VigenereEnv(TaskEnv):
    """Vigenère cipher; see the module docstring."""

    task_class = VigenereTask
