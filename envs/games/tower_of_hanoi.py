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
from palaestra.verdict import Status, Verdict

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


_PAIRS = {f"{a} {b}": (i, j) for i, a in enumerate("abc") for j, b in enumerate("abc") if i != j}
"""The normalised ``a c`` spelling of every move, to its (source, target)."""

_DISK_NAMES = tuple(str(d) for d in range(11))
_EMPTY = tuple(f"peg {peg} is empty" for peg in PEGS)
_ONTO = tuple(
    tuple(f"disk {disk} cannot go onto the smaller disk {top}" for top in range(11))
    for disk in range(11)
)
"""``_ONTO[disk][top]``: why disk cannot go onto the smaller disk top."""
_MOVED = tuple(
    tuple(tuple(f"Moved disk {disk} from {a} to {b}." for b in PEGS) for a in PEGS)
    for disk in range(11)
)
"""``_MOVED[disk][source][target]``: the note on a move."""
_WEIGHTS = tuple(3 ** (d - 1) if d else 0 for d in range(11))
"""Disk d's weight in a position's code (``sum(where[d] * 3 ** (d - 1))``)."""


def position_code(where: list[int]) -> int:
    """A position as one integer: each disk's peg a base-3 digit (disk 1 the lowest)."""
    return sum(where[d] * _WEIGHTS[d] for d in range(1, len(where)))


def _parse_pegs(text: str) -> tuple[int, int]:
    """The (source, target) pegs of a move in any accepted spelling, or `InvalidAction`."""
    match = _MOVE.match(text)
    if match is None:
        raise InvalidAction(
            f"{text[:40]!r} is not a move; write the source and target pegs, e.g. A C"
        )
    return PEGS.lower().index(match[1]), PEGS.lower().index(match[2])


def _peg_text(peg: list[int]) -> str:
    return " ".join([_DISK_NAMES[d] for d in peg]) if peg else "-"


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

    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("where", "code", "pegs", "texts", "target", "potential")

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
        self.texts = [_peg_text(peg) for peg in self.pegs]  # each peg as the board shows it
        self.tower_text = _peg_text(self.pegs[0])
        self.rules = [  # per target peg; only the board is added at reset
            f"Tower of Hanoi with {self.disks} disks (1 is the smallest) on pegs A, B and C. "
            "Move every disk onto peg "
            f"{PEGS[target]}. Each move takes the top disk of one peg onto another peg that is "
            f"empty or whose top disk is larger. You have {self.max_moves} turns.\n"
            "Pegs are listed bottom to top. "
            "Reply with one move per turn as <move>A C</move> (from A to C).\n\n"
            for target in range(3)
        ]
        self.target = 2
        self.code = 0  # `position_code(where)`, kept up to date move by move
        self.fewest: dict[int, int] = {}  # code * 3 + target -> moves_needed (a cache)
        self.potential = Potential(PROGRESS_REWARD, 1)

    def _reset(self, options: dict[str, Any]):
        if options:
            no_options(self, options)
        disks = self.disks
        if self.start == "classic":
            self.target = 2
            self.where = [0] * (disks + 1)
            self.pegs = [list(range(disks, 0, -1)), [], []]
            self.texts = [self.tower_text, "-", "-"]
            needed = (1 << disks) - 1
        elif self.start == "stacked":
            # The first two of disks + 2 numbers: the stream moves on as a random start's does.
            first, second = self.uniforms(2, skip=disks)
            source = int(first * 3)
            self.target = (source + 1 + int(second * 2)) % 3
            self.where = [source] * (disks + 1)
            self.pegs = [[], [], []]
            self.pegs[source] = list(range(disks, 0, -1))
            self.texts = ["-", "-", "-"]
            self.texts[source] = self.tower_text
            needed = (1 << disks) - 1  # every disk is off the target peg
        else:
            while True:
                draws = self.uniforms(disks + 2)
                self.where = [0] + [int(d * 3) for d in draws[2:]]
                self.target = int(draws[0] * 3)
                needed = moves_needed(self.where, disks, self.target)
                if needed > 0:
                    break
            where = self.where
            self.pegs = [[d for d in range(disks, 0, -1) if where[d] == p] for p in range(3)]
            self.texts = [_peg_text(peg) for peg in self.pegs]
        self.code = position_code(self.where)
        self.potential = Potential(PROGRESS_REWARD, needed)
        return [{"role": "user", "content": self.rules[self.target] + self.board()}], {
            "level": self.level,
            "fewest_moves": needed,
        }

    def _step(self, action: Message) -> Step:
        try:
            text = parse_move(action.get("content"), example="A C")
            # The usual spelling ("a c") without the regular expression.
            move = _PAIRS.get(text) or _parse_pegs(text)
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        # Illegal moves are answered here, not raised: random play makes many, and raising
        # costs more than the rest of the step.
        source, target = move
        pegs = self.pegs
        if source == target:
            reason = "the source and target pegs must differ"
        elif not pegs[source]:
            reason = _EMPTY[source]
        elif pegs[target] and pegs[target][-1] < pegs[source][-1]:
            reason = _ONTO[pegs[source][-1]][pegs[target][-1]]
        else:
            reason = None
        if reason is not None:
            step = self.invalid(reason)
            return step if self._turn < self.max_moves else self.budgeted(step)
        texts = self.texts
        disk = pegs[source].pop()
        pegs[target].append(disk)
        self.where[disk] = target
        self.code = code = self.code + (target - source) * _WEIGHTS[disk]
        # The two pegs' texts change by one disk (cheaper than redrawing the board).
        text = texts[source]
        cut = text.rfind(" ")
        texts[source] = text[:cut] if cut > 0 else "-"
        name = _DISK_NAMES[disk]
        texts[target] = f"{texts[target]} {name}" if len(pegs[target]) > 1 else name
        key = code * 3 + self.target
        needed = self.fewest.get(key)
        if needed is None:
            needed = self.fewest[key] = moves_needed(self.where, self.disks, self.target)
        progress = self.potential.update(needed)
        if needed == 0:  # every disk is on the target peg
            note = _MOVED[disk][source][target]
            verdict = Verdict(
                1.0,
                Status.CORRECT,
                reason=f"solved in {self.turn} turns",
                verifier="tower_of_hanoi",
            )
            return self.finish(
                verdict,
                [user(f"{note} Solved!\n{self.board()}")],
                outcome=WIN_REWARD,
                progress=progress,
            )
        a, b, c = texts
        text = (
            f"{_MOVED[disk][source][target]} Turns left: {self.max_moves - self._turn}."
            f"\nA: {a}\nB: {b}\nC: {c}"
        )
        step = Step([{"role": "user", "content": text}], {"progress": progress})
        return step if self._turn < self.max_moves else self.budgeted(step)

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
        a, b, c = self.texts
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
