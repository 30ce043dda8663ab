"""Tower of Hanoi: gather every disk on the target peg, never a larger disk on a smaller one.

The task:
    ``disks`` disks of sizes 1 (smallest) to ``disks`` sit on three pegs A, B and C,
    each peg holding a stack with larger disks below smaller ones. A move takes the top
    disk of one peg onto another whose top disk is larger (or which is empty). The
    puzzle is solved when all disks are on the target peg. By default the start is a
    random legal position and the target a random peg; ``start="stacked"`` stacks every
    disk on one random peg with another as the target, and ``start="classic"`` is the
    textbook puzzle itself (every disk on A, target C; nothing is drawn, so every seed
    gives the same episode).

Observation:
    The rules, then the pegs after every move, bottom to top, e.g. ``A: 4 3 1``.

Action:
    The last ``<move>...</move>`` after any ``</think>``: the source and target pegs, e.g.
    ``<move>A C</move>`` (also ``A->C``). Moving from an empty peg or onto a smaller disk
    is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the drop in the fewest moves still needed, as a
        share of the fewest at the start: every optimal move earns the same, every wasted
        move costs what it will take to undo (a solved episode sums to `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when every disk is on the target peg; 0 otherwise.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated when solved (success) or when the turn budget, twice the most moves any
    position needs (``2 * (2**disks - 1)``) plus `EXTRA_TURNS`, is spent (every turn counts).

Oracle:
    The optimal recursive strategy from any position: to bring disks 1..k onto a peg,
    if disk k is elsewhere first move disks 1..k-1 to the third peg.

Arguments:
    level: 1-10; 3 to 7 disks, from a random position (odd levels) or stacked (even).
    disks: Overrides the number of disks (1-10).
    start: Overrides the start: ``"random"``, ``"stacked"`` or ``"classic"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import GameEnv, Potential, check_int, check_level, level_value, no_options, parse_move

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 10
PEGS = "ABC"

LEVELS = (
    (3, "random"),
    (3, "stacked"),
    (4, "random"),
    (4, "stacked"),
    (5, "random"),
    (5, "stacked"),
    (6, "random"),
    (6, "stacked"),
    (7, "random"),
    (7, "stacked"),
)
"""Per level: disks, start."""

_MOVE = re.compile(
    r"^\s*(?:from\s+)?(?:peg\s+)?([abc])\s*(?:->|to|,|-|\s)\s*(?:peg\s+)?([abc])\s*$"
)


def _parse_pegs(text: str) -> tuple[int, int]:
    """The (source, target) pegs of a move in any accepted spelling, or `InvalidAction`."""
    match = _MOVE.match(text)
    if match is None:
        raise InvalidAction(
            f"{text[:40]!r} is not a move; write the source and target pegs, e.g. A C"
        )
    return PEGS.lower().index(match[1]), PEGS.lower().index(match[2])


def _peg_text(peg: list[int]) -> str:
    return " ".join(str(disk) for disk in peg) if peg else "-"


def moves_needed(where: list[int], k: int, target: int) -> int:
    """Fewest moves to bring disks 1..k (``where[d]`` is disk d's peg) onto ``target``."""
    total = 0
    while k >= 1:
        if where[k] != target:
            total += 1 << (k - 1)  # disk k moves once; the k-1 above it form a tower later
            target = 3 - where[k] - target
        k -= 1
    return total


def next_move(where: list[int], k: int, target: int) -> tuple[int, int] | None:
    """The first move (from peg, to peg) of an optimal solution, or None when solved."""
    move = None
    while k >= 1:
        if where[k] != target:
            move = (where[k], target)  # the smallest disk out of place moves first
            target = 3 - where[k] - target
        k -= 1
    return move


class TowerOfHanoiEnv(GameEnv):
    """Tower of Hanoi from any position; see the module docstring."""

    game_name = "tower_of_hanoi"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("where", "pegs", "target", "potential")

    def __init__(self, level: int = 3, disks: int | None = None, start: str | None = None):
        self.level = check_level(level)
        default_disks, default_start = level_value(level, LEVELS)
        self.disks = check_int("disks", disks, 1, 10) if disks is not None else default_disks
        if start not in (None, "random", "stacked", "classic"):
            raise ValueError(f"start must be 'random', 'stacked' or 'classic', got {start!r}")
        self.start = start or default_start
        self.max_moves = 2 * ((1 << self.disks) - 1) + EXTRA_TURNS
        self.where = [0] * (self.disks + 1)  # where[d]: the peg of disk d (index 0 unused)
        self.pegs: list[list[int]] = [list(range(self.disks, 0, -1)), [], []]  # bottom to top
        self.target = 2
        self.potential = Potential(PROGRESS_REWARD, 1)

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        disks = self.disks
        if self.start == "classic":
            self.where, self.target = [0] * (disks + 1), 2
        elif self.start == "stacked":
            # Draws as many numbers as a random start, so that the stream moves on alike.
            draws = self.np_random.random(disks + 2).tolist()
            source = int(draws[0] * 3)
            self.where = [source] * (disks + 1)
            self.target = (source + 1 + int(draws[1] * 2)) % 3
        else:
            while True:  # until some disk is off the target peg
                draws = self.np_random.random(disks + 2).tolist()
                self.where = [0] + [int(d * 3) for d in draws[2:]]
                self.target = int(draws[0] * 3)
                if moves_needed(self.where, disks, self.target) > 0:
                    break
        self.pegs = [[d for d in range(disks, 0, -1) if self.where[d] == peg] for peg in range(3)]
        needed = moves_needed(self.where, disks, self.target)
        self.potential = Potential(PROGRESS_REWARD, needed)
        rules = (
            f"Tower of Hanoi with {disks} disks (1 is the smallest) on pegs A, B and C. "
            f"Move every disk onto peg {PEGS[self.target]}. Each move takes the top disk of "
            "one peg onto another peg that is empty or whose top disk is larger. "
            f"You have {self.max_moves} turns.\n"
            "Pegs are listed bottom to top. "
            "Reply with one move per turn as <move>A C</move> (from A to C).\n\n"
        )
        return [user(rules + self.board())], {"level": self.level, "fewest_moves": needed}

    def _illegal(self, source: int, target: int) -> str | None:
        """Why moving the top disk of ``source`` onto ``target`` breaks the rules, or None."""
        if source == target:
            return "the source and target pegs must differ"
        if not self.pegs[source]:
            return f"peg {PEGS[source]} is empty"
        disk, onto = self.pegs[source][-1], self.pegs[target]
        if onto and onto[-1] < disk:
            return f"disk {disk} cannot go onto the smaller disk {onto[-1]}"
        return None

    def _step(self, action: Message) -> Step:
        try:
            source, target = _parse_pegs(parse_move(action.get("content"), example="A C"))
            reason = self._illegal(source, target)
            if reason is not None:
                raise InvalidAction(reason)
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        disk = self.pegs[source].pop()
        self.pegs[target].append(disk)
        self.where[disk] = target
        needed = moves_needed(self.where, self.disks, self.target)
        progress = self.potential.update(needed)
        note = f"Moved disk {disk} from {PEGS[source]} to {PEGS[target]}."
        if needed == 0:  # every disk is on the target peg
            return self.won(
                f"{note} Solved!\n{self.board()}",
                reason=f"solved in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        left = self.max_moves - self.turn
        return self.budgeted(
            Step([user(f"{note} Turns left: {left}.\n{self.board()}")], {"progress": progress})
        )

    def random_action(self, rng: np.random.Generator) -> str:
        """A random pair of different pegs."""
        source = int(rng.integers(3))
        target = (source + 1 + int(rng.integers(2))) % 3
        return f"<move>{PEGS[source]} {PEGS[target]}</move>"

    def oracle_action(self) -> str:
        """The first move of an optimal solution from the current position."""
        move = next_move(self.where, self.disks, self.target) or (0, 1)
        return f"<move>{PEGS[move[0]]} {PEGS[move[1]]}</move>"

    def board(self) -> str:
        """Each peg's disks, bottom to top."""
        a, b, c = (_peg_text(peg) for peg in self.pegs)
        return f"A: {a}\nB: {b}\nC: {c}"

    def state_key(self) -> tuple[int, ...]:
        """Each disk's peg."""
        return tuple(self.where[1:])

    def render_text(self) -> str:
        """The pegs and the moves still needed."""
        needed = moves_needed(self.where, self.disks, self.target)
        return (
            f"{self.board()}\ntarget {PEGS[self.target]}, {needed} moves needed, "
            f"turn {self.turn}/{self.max_moves}"
        )
