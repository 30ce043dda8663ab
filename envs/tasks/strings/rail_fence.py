"""Rail-fence cipher: write letters in a zigzag over several rails, read rail by rail.

The task:
    "Encrypt WEAREDISCOVERED with 3 rails." The letters are written down and up across the
    rails (rail 1, 2, 3, 2, 1, 2, ...) and read off rail 1 first, then rail 2, and so on:
    ``WECRERDSOEEAIVD``. Decryption reverses it. Texts are letters only, without spaces.

Observation:
    One user message: the mode, the text, the number of rails and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the resulting letters. Case and
    spaces are ignored; any other character is malformed.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the letters are right, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; from encrypting about twenty letters on 2 rails to decrypting about seventy
        letters on 6 rails.
    words, rails, modes: Override what the level sets.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, TaskEnv
from palaestra.envs.tasks.strings._cipher import CipherTask, letters, plaintext

MODES = ("encrypt", "decrypt")


@dataclasses.dataclass(frozen=True)
class RailFenceConfig:
    """Knobs.

    Attributes:
        words: Words of plaintext, joined without spaces (1 to 60).
        rails: Number of rails (2 to 10).
        modes: The modes drawn from (a tuple drawn from `MODES`).
    """

    words: int = 3
    rails: int = 2
    modes: tuple[str, ...] = ("encrypt",)

    def __post_init__(self) -> None:
        if not isinstance(self.words, int) or not 1 <= self.words <= 60:
            raise ValueError(f"words must be an integer from 1 to 60, got {self.words!r}")
        if not isinstance(self.rails, int) or not 2 <= self.rails <= 10:
            raise ValueError(f"rails must be an integer from 2 to 10, got {self.rails!r}")
        modes = tuple(self.modes) if isinstance(self.modes, (list, tuple)) else None
        if not modes or any(m not in MODES for m in modes):
            raise ValueError(
                f"modes must be a non-empty tuple drawn from {MODES}, got {self.modes!r}"
            )
        object.__setattr__(self, "modes", modes)


def encrypt(text: str, rails: int) -> str:
    """Writes the zigzag rail by rail into lists and joins them."""
    rows: list[list[str]] = [[] for _ in range(rails)]
    row, step = 0, 1
    for c in text:
        rows[row].append(c)
        if rails > 1:
            if row == 0:
                step = 1
            elif row == rails - 1:
                step = -1
            row += step
    return "".join("".join(r) for r in rows)


def _rail_of(index: int, rails: int) -> int:
    period = 2 * (rails - 1)
    k = index % period
    return k if k < rails else period - k


def _permutation(n: int, rails: int) -> list[int]:
    """Plaintext positions in ciphertext order: a stable sort by rail (no simulation)."""
    return sorted(range(n), key=lambda i: (_rail_of(i, rails), i))


def decrypt(text: str, rails: int) -> str:
    """Puts each ciphertext letter back at its plaintext position."""
    out = [""] * len(text)
    for position, c in zip(_permutation(len(text), rails), text, strict=True):
        out[position] = c
    return "".join(out)


class RailFenceTask(CipherTask):
    """Rail-fence cipher."""

    name = "rail_fence"
    Config = RailFenceConfig

    @classmethod
    def level_config(cls, level: int) -> RailFenceConfig:
        """Longer texts, more rails, then decryption."""
        n, rails, modes = {
            1: (4, 2, ("encrypt",)),
            2: (4, 3, ("encrypt",)),
            3: (5, 3, MODES),
            4: (6, 3, MODES),
            5: (6, 4, MODES),
            6: (7, 4, ("decrypt",)),
            7: (8, 5, MODES),
            8: (9, 5, ("decrypt",)),
            9: (10, 6, MODES),
            10: (12, 6, ("decrypt",)),
        }[level]
        return RailFenceConfig(words=n, rails=rails, modes=modes)

    def generate(self, rng: np.random.Generator) -> Problem:
        """Generated words joined into one letter string, a mode."""
        cfg = self.config
        mode = cfg.modes[int(rng.integers(len(cfg.modes)))]
        plain = letters(plaintext(rng, cfg.words))
        cipher = encrypt(plain, cfg.rails)
        given, reference = (plain, cipher) if mode == "encrypt" else (cipher, plain)
        verb = "Encrypt" if mode == "encrypt" else "Decrypt"
        prompt = (
            f"{verb} this text with the rail-fence cipher on {cfg.rails} rails:\n\n"
            f"{given}\n\n"
            "To encrypt, write the letters one per column in a zigzag: down from rail 1 to rail "
            f"{cfg.rails}, back up to rail 1, down again, and so on; then read rail 1 left to "
            "right, then rail 2, and so on. Decryption reverses this. Answer with the resulting "
            f"letters (for example WECRERDSOEEAIVD). {ANSWER_FORMAT}"
        )
        return Problem(prompt, reference, {"mode": mode, "text": given, "rails": cfg.rails})

    def solve(self, problem: Problem) -> str:
        """Simulate the zigzag (or place letters back by rail order)."""
        return problem.reference

    def certify(self, problem: Problem) -> Certificate:
        """The rail permutation, computed by sorting positions by rail, reproduces the reference."""
        d = problem.data
        order = _permutation(len(d["text"]), d["rails"])
        if d["mode"] == "encrypt":
            value = "".join(d["text"][i] for i in order)
        else:
            value = decrypt(d["text"], d["rails"])
        return Certificate(1 if value == problem.reference else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The cipher's near misses, plus the text read with one rail fewer."""
        out = super().mutations(problem)
        d = problem.data
        if d["rails"] > 2:
            fewer = (
                encrypt(d["text"], d["rails"] - 1)
                if d["mode"] == "encrypt"
                else decrypt(d["text"], d["rails"] - 1)
            )
            if fewer != problem.reference:
                out.append(fewer)
        return out

    def work(self, problem: Problem) -> float:
        """Letters placed, times the rails scanned."""
        return float(len(problem.reference) * problem.data["rails"])


class RailFenceEnv(TaskEnv):
    """Rail-fence cipher; see the module docstring."""

    task_class = RailFenceTask
