"""Affine cipher: encrypt with E(x) = (a·x + b) mod 26, or decrypt.

The task:
    "Encrypt 'green meadow' with the affine cipher a = 5, b = 8." Letters are numbered A = 0
    to Z = 25; encryption maps x to (a·x + b) mod 26, decryption applies the inverse map
    (which needs the inverse of a modulo 26). Spaces stay.

Observation:
    One user message: the mode, the text, the keys a and b, and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the resulting text. Only its
    letters count (case and spaces are ignored); any other character is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the letters are right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from encrypting three words with a small multiplier to decrypting fifteen
        words with any multiplier coprime to 26.
    words, max_a, modes: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, TaskEnv
from palaestra.envs.tasks.strings._cipher import ALPHABET, CipherTask, letters, plaintext

MODES = ("encrypt", "decrypt")
MULTIPLIERS = (1, 3, 5, 7, 9, 11, 15, 17, 19, 21, 23, 25)


@dataclasses.dataclass(frozen=True)
class AffineCipherConfig:
    """Knobs.

    Attributes:
        words: Words in the plaintext (1 to 60).
        max_a: Largest multiplier a (drawn from those coprime to 26, at least 3).
        modes: The modes drawn from (a tuple drawn from `MODES`).
    """

    words: int = 3
    max_a: int = 5
    modes: tuple[str, ...] = ("encrypt",)

    def __post_init__(self) -> None:
        if not isinstance(self.words, int) or not 1 <= self.words <= 60:
            raise ValueError(f"words must be an integer from 1 to 60, got {self.words!r}")
        if not isinstance(self.max_a, int) or not 3 <= self.max_a <= 25:
            raise ValueError(f"max_a must be an integer from 3 to 25, got {self.max_a!r}")
        modes = tuple(self.modes) if isinstance(self.modes, (list, tuple)) else None
        if not modes or any(m not in MODES for m in modes):
            raise ValueError(
                f"modes must be a non-empty tuple drawn from {MODES}, got {self.modes!r}"
            )
        object.__setattr__(self, "modes", modes)


def affine(text: str, a: int, b: int, decrypt: bool = False) -> str:
    """Encrypts or decrypts upper-cased ``text`` (decryption uses a's inverse modulo 26)."""
    inverse = pow(a, -1, 26)
    out = []
    for c in text.upper():
        if c in ALPHABET:
            x = ALPHABET.index(c)
            out.append(ALPHABET[inverse * (x - b) % 26 if decrypt else (a * x + b) % 26])
        else:
            out.append(c)
    return "".join(out)


class AffineCipherTask(CipherTask):
    """Affine cipher."""

    name = "affine_cipher"
    Config = AffineCipherConfig

    @classmethod
    def level_config(cls, level: int) -> AffineCipherConfig:
        """Longer texts and multipliers, then decryption."""
        n, max_a, modes = {
            1: (3, 5, ("encrypt",)),
            2: (4, 9, ("encrypt",)),
            3: (4, 11, MODES),
            4: (5, 15, MODES),
            5: (6, 25, MODES),
            6: (7, 25, ("decrypt",)),
            7: (8, 25, MODES),
            8: (10, 25, ("decrypt",)),
            9: (12, 25, MODES),
            10: (15, 25, ("decrypt",)),
        }[level]
        return AffineCipherConfig(words=n, max_a=max_a, modes=modes)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A generated sentence, keys a (coprime to 26) and b, a mode."""
        cfg = self.config
        mode = cfg.modes[int(rng.integers(len(cfg.modes)))]
        choices = [m for m in MULTIPLIERS if 3 <= m <= cfg.max_a]
        a, b = choices[int(rng.integers(len(choices)))], int(rng.integers(0, 26))
        plain = plaintext(rng, cfg.words)
        cipher = affine(plain, a, b)
        given, reference = (plain, cipher) if mode == "encrypt" else (cipher, plain)
        verb = (
            "Encrypt this message"
            if mode == "encrypt"
            else "This message was encrypted; decrypt it"
        )
        prompt = (
            f"{verb} with the affine cipher with a = {a} and b = {b}:\n\n"
            f"{given}\n\n"
            "Letters are numbered A = 0, B = 1, ..., Z = 25; encryption maps letter x to (a·x + b) "
            "mod 26 and decryption reverses that map. Spaces stay. Answer with the resulting text "
            f"(letters and spaces only, for example HELLO WORLD). {ANSWER_FORMAT}"
        )
        return Problem(prompt, reference, {"mode": mode, "text": given, "a": a, "b": b})

    def solve(self, problem: Problem) -> str:
        """Map each letter (with the inverse of a modulo 26 to decrypt)."""
        return problem.reference

    def certify(self, problem: Problem) -> Certificate:
        """A substitution table built from all 26 letters (inverted by lookup to decrypt)."""
        d = problem.data
        table = {ALPHABET[x]: ALPHABET[(d["a"] * x + d["b"]) % 26] for x in range(26)}
        if len(set(table.values())) != 26:
            return Certificate(0)
        if d["mode"] == "decrypt":
            table = {v: k for k, v in table.items()}
        return Certificate(
            1 if "".join(table[c] for c in letters(d["text"])) == letters(problem.reference) else 0
        )

    def work(self, problem: Problem) -> float:
        """Letter maps, plus the inverse of a when decrypting."""
        n = len(letters(problem.reference))
        return float(2 * n + (13 if problem.data["mode"] == "decrypt" else 0))


class AffineCipherEnv(TaskEnv):
    """Affine cipher; see the module docstring."""

    task_class = AffineCipherTask
