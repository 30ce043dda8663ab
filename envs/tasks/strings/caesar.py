"""Caesar cipher: encrypt or decrypt a message by shifting letters, or crack an unknown shift.

The task (one of three modes, drawn per instance from the level's modes):
    ``encrypt``: "Encrypt 'the brave fox' with a Caesar shift of 3." -> ``WKH EUDYH IRA``
    ``decrypt``: "Decrypt 'WKH EUDYH IRA', encrypted with a shift of 3."
    ``crack``:   "Decrypt 'WKH EUDYH IRA'; the shift is unknown and the plaintext is English."
Letters shift forward along the alphabet, wrapping from Z to A; spaces stay. For ``crack``
the instance is posed only when exactly one shift turns every word into an English word of
the shipped word list (certified by trying all 26).

Observation:
    One user message: the mode, the text, the shift when known, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the resulting text. Only its
    letters count (case and spaces are ignored); any other character is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the letters are right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from encrypting three words with a shift of at most 3, through encrypting and
        decrypting longer texts, to cracking messages of six to fifteen words (levels 7-10).
    words, max_shift, modes: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks._words import words
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, TaskEnv
from palaestra.envs.tasks.strings._cipher import (
    ALPHABET,
    CipherTask,
    letters,
    plaintext,
    shift_letter,
)

MODES = ("encrypt", "decrypt", "crack")


@dataclasses.dataclass(frozen=True)
class CaesarConfig:
    """Knobs.

    Attributes:
        words: Words in the plaintext (1 to 60).
        max_shift: Largest shift (1 to 25).
        modes: The modes drawn from (a tuple drawn from `MODES`).
    """

    words: int = 2
    max_shift: int = 3
    modes: tuple[str, ...] = ("encrypt",)

    def __post_init__(self) -> None:
        if not isinstance(self.words, int) or not 1 <= self.words <= 60:
            raise ValueError(f"words must be an integer from 1 to 60, got {self.words!r}")
        if not isinstance(self.max_shift, int) or not 1 <= self.max_shift <= 25:
            raise ValueError(f"max_shift must be an integer from 1 to 25, got {self.max_shift!r}")
        modes = tuple(self.modes) if isinstance(self.modes, (list, tuple)) else None
        if not modes or any(m not in MODES for m in modes):
            raise ValueError(
                f"modes must be a non-empty tuple drawn from {MODES}, got {self.modes!r}"
            )
        object.__setattr__(self, "modes", modes)


def caesar(text: str, shift: int) -> str:
    """``text`` (upper-cased) with every letter moved ``shift`` places."""
    return "".join(shift_letter(c, shift) for c in text.upper())


def english_shifts(ciphertext: str) -> list[int]:
    """Every shift whose decryption makes each word a word of the shipped list."""
    table = str.maketrans
    dictionary = words()
    found = []
    for shift in range(26):
        back = ciphertext.upper().translate(
            table(ALPHABET, ALPHABET[-shift:] + ALPHABET[:-shift] if shift else ALPHABET)
        )
        if all(w.lower() in dictionary for w in back.split()):
            found.append(shift)
    return found


class CaesarTask(CipherTask):
    """Caesar cipher."""

    name = "caesar"
    Config = CaesarConfig

    @classmethod
    def level_config(cls, level: int) -> CaesarConfig:
        """Longer texts, any shift, then decryption and cracking."""
        n, shift, modes = {
            1: (3, 3, ("encrypt",)),
            2: (4, 25, ("encrypt",)),
            3: (4, 25, ("decrypt",)),
            4: (5, 25, ("encrypt", "decrypt")),
            5: (7, 25, ("encrypt", "decrypt")),
            6: (9, 25, ("encrypt", "decrypt")),
            7: (6, 25, ("crack",)),
            8: (8, 25, ("crack",)),
            9: (11, 25, ("crack",)),
            10: (15, 25, ("crack",)),
        }[level]
        return CaesarConfig(words=n, max_shift=shift, modes=modes)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A generated sentence, a shift and a mode."""
        cfg = self.config
        mode = cfg.modes[int(rng.integers(len(cfg.modes)))]
        shift = int(rng.integers(1, cfg.max_shift + 1))
        for _ in range(100):
            plain = plaintext(rng, cfg.words)
            cipher = caesar(plain, shift)
            if mode != "crack" or len(english_shifts(cipher)) == 1:
                break
        rule = (
            "Each letter moves forward along the alphabet by the shift, wrapping from Z to A; "
            "spaces stay."
        )
        if mode == "encrypt":
            task, given, reference = (
                f"Encrypt this message with a Caesar cipher of shift {shift}:",
                plain,
                cipher,
            )
        elif mode == "decrypt":
            task, given, reference = (
                f"This message was encrypted with a Caesar cipher of shift {shift}. Decrypt it:",
                cipher,
                plain,
            )
        else:
            task = (
                "This message was encrypted with a Caesar cipher whose shift is unknown. The "
                "plaintext is English words. Decrypt it:"
            )
            given, reference = cipher, plain
        prompt = (
            f"{task}\n\n{given}\n\n{rule} Answer with the resulting text (letters and spaces only, "
            f"for example HELLO WORLD). {ANSWER_FORMAT}"
        )
        return Problem(prompt, reference, {"mode": mode, "text": given, "shift": shift})

    def solve(self, problem: Problem) -> str:
        """Shift back or forward by the known shift."""
        return problem.reference

    def certify(self, problem: Problem) -> Certificate:
        """A translation table per shift; for ``crack``, every shift whose output is English."""
        d = problem.data
        if d["mode"] == "crack":
            shifts = english_shifts(d["text"])
            ok = d["shift"] in shifts
            return Certificate(len(shifts) if ok else 0)
        k = d["shift"] if d["mode"] == "encrypt" else -d["shift"]
        table = str.maketrans(ALPHABET + ALPHABET.lower(), (ALPHABET[k:] + ALPHABET[:k]) * 2)
        return Certificate(
            1 if letters(d["text"].translate(table)) == letters(problem.reference) else 0
        )

    def work(self, problem: Problem) -> float:
        """Letters shifted, times the shifts tried when cracking."""
        return float(
            len(letters(problem.reference)) * (13 if problem.data["mode"] == "crack" else 1)
        )


class CaesarEnv(TaskEnv):
    """Caesar cipher; see the module docstring."""

    task_class = CaesarTask
