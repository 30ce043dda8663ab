"""Blocksworld: restack lettered blocks from a start arrangement into a goal arrangement.

The task:
    Blocks A, B, C, ... stand in stacks on a table. A move lifts a clear block (nothing on
    it) onto another clear block or onto the table. The puzzle is solved when every
    block stands on what it stands on in the goal. Start and goal are random
    arrangements drawn from the seed.

Observation:
    The rules with the goal, then the stacks after every move, bottom to top, e.g.
    ``stack 1: A C`` (C on A, A on the table).

Action:
    The last ``<move>...</move>`` after any ``</think>``: the block and where it goes,
    ``<move>C B</move>`` (C onto B) or ``<move>C table</move>`` (also ``move C onto B``,
    ``C on table``). Moving a covered block, onto a covered block, onto itself, or a
    table block onto the table is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the rise in the number of blocks in their final
        place (on the right support, with everything below also final), as a share of
        the blocks not final at the start (clipped at 0; a solved episode sums to
        exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when the goal is reached; 0 otherwise.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated when solved (success) or when the turn budget (three moves per block plus
    `EXTRA_TURNS`; every turn counts) is spent.

Oracle:
    The classic two-rule planner (at most two moves per block): put a clear block onto
    its final place when that place is final and clear; otherwise move a clear block
    that is not final onto the table.

Arguments:
    level: 1-10; 3 to 12 blocks.
    blocks: Overrides the number of blocks (2-20).

Version history:
    v0: first version.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import GameEnv, check_int, check_level, level_value, no_options, parse_move

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5
EXTRA_TURNS = 10
TABLE = ""

BLOCKS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12)

_MOVE = re.compile(
    r"^(?:move\s+)?(?:block\s+)?([a-t])\s*(?:onto|on|to|->|,|\s)\s*(?:the\s+)?(?:block\s+)?([a-t]|table)$"
)

Arrangement = dict[str, str]
"""Each block's support: another block, or `TABLE`."""


def well_placed(on: Arrangement, goal: Arrangement) -> set[str]:
    """Blocks on their goal support with everything below them also well placed."""
    placed: set[str] = set()
    changed = True
    while changed:
        changed = False
        for block, support in on.items():
            if (
                block not in placed
                and support == goal[block]
                and (support == TABLE or support in placed)
            ):
                placed.add(block)
                changed = True
    return placed


def stacks(on: Arrangement) -> list[list[str]]:
    """The stacks, bottom to top, ordered by their bottom block."""
    above = {support: block for block, support in on.items() if support != TABLE}
    result = []
    for bottom in sorted(b for b, s in on.items() if s == TABLE):
        stack = [bottom]
        while stack[-1] in above:
            stack.append(above[stack[-1]])
        result.append(stack)
    return result


class BlocksworldEnv(GameEnv):
    """Blocksworld; see the module docstring."""

    game_name = "blocksworld"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("goal", "start_missing", "on", "placed")

    def __init__(self, level: int = 3, blocks: int | None = None):
        self.level = check_level(level)
        self.count = (
            check_int("blocks", blocks, 2, 20) if blocks is not None else level_value(level, BLOCKS)
        )
        self.names = [chr(65 + i) for i in range(self.count)]
        self.max_moves = 3 * self.count + EXTRA_TURNS
        self.on: Arrangement = dict.fromkeys(self.names, TABLE)
        self.goal: Arrangement = dict(self.on)
        self.placed = 0
        self.start_missing = 1

    def _arrangement(self) -> Arrangement:
        rng = self.np_random
        order = [self.names[i] for i in rng.permutation(self.count).tolist()]
        cuts = rng.random(self.count).tolist()
        on: Arrangement = {}
        for index, block in enumerate(order):
            on[block] = TABLE if index == 0 or cuts[index] < 0.35 else order[index - 1]
        return on

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self.goal = self._arrangement()
        while True:
            self.on = self._arrangement()
            if len(well_placed(self.on, self.goal)) < self.count:
                break
        self.placed = len(well_placed(self.on, self.goal))
        self.start_missing = self.count - self.placed
        goal = "\n".join(f"stack {i + 1}: {' '.join(s)}" for i, s in enumerate(stacks(self.goal)))
        rules = (
            f"Blocksworld. Rearrange the blocks {', '.join(self.names)} into the goal stacks. "
            "A move lifts a clear block (nothing on it) onto another clear block or onto the "
            "table. Stacks are listed bottom to top. "
            f"You have {self.max_moves} turns.\n"
            f"Goal:\n{goal}\n"
            "Reply with one move per turn as <move>C B</move> (C onto B) "
            "or <move>C table</move>.\n\n"
            f"Now:\n{self.board()}"
        )
        return [user(rules)], {"level": self.level}

    def _parse(self, content: str | None) -> tuple[str, str]:
        text = parse_move(content, example="C B")
        match = _MOVE.match(text)
        if match is None:
            raise InvalidAction(
                f"{text[:40]!r} is not a move; "
                "write the block and where it goes, e.g. C B or C table"
            )
        block = match[1].upper()
        target = TABLE if match[2] == "table" else match[2].upper()
        if block not in self.on or (target and target not in self.on):
            raise InvalidAction(f"the blocks are {', '.join(self.names)}")
        covered = {support for support in self.on.values() if support}
        if block in covered:
            raise InvalidAction(f"{block} is not clear: another block is on it")
        if target == block:
            raise InvalidAction("a block cannot go onto itself")
        if target and target in covered:
            raise InvalidAction(f"{target} is not clear: another block is on it")
        if not target and self.on[block] == TABLE:
            raise InvalidAction(f"{block} is already on the table")
        if target and self.on[block] == target:
            raise InvalidAction(f"{block} is already on {target}")
        return block, target

    def _step(self, action: Message) -> Step:
        try:
            block, target = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        self.on[block] = target
        placed = len(well_placed(self.on, self.goal))
        progress = PROGRESS_REWARD * (self._phi(placed) - self._phi(self.placed))
        self.placed = placed
        note = f"Moved {block} onto {target or 'the table'}."
        if placed == self.count:
            return self.won(
                f"{note} The goal is reached!\n{self.board()}",
                reason=f"solved in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        text = f"{note} Turns left: {self.max_moves - self.turn}.\n{self.board()}"
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def random_action(self, rng: np.random.Generator) -> str:
        """A random block onto a random other block or the table."""
        block = self.names[int(rng.integers(self.count))]
        targets = [b for b in self.names if b != block] + ["table"]
        return f"<move>{block} {targets[int(rng.integers(len(targets)))]}</move>"

    def _phi(self, placed: int) -> float:
        """Share of the blocks not final at the start that are final now (at least 0)."""
        return max(placed - (self.count - self.start_missing), 0) / self.start_missing

    def oracle_action(self) -> str:
        """The two-rule planner (see the module docstring)."""
        placed = well_placed(self.on, self.goal)
        covered = {support for support in self.on.values() if support}
        clear = [b for b in self.names if b not in covered and b not in placed]
        for block in clear:
            support = self.goal[block]
            if support == TABLE or (support in placed and support not in covered):
                return f"<move>{block} {support or 'table'}</move>"
        for block in clear:
            if self.on[block] != TABLE:
                return f"<move>{block} table</move>"
        return f"<move>{self.names[0]} table</move>"

    def board(self) -> str:
        """The stacks, bottom to top."""
        return "\n".join(f"stack {i + 1}: {' '.join(s)}" for i, s in enumerate(stacks(self.on)))

    def state_key(self) -> tuple[str, ...]:
        """Each block's support, in block order."""
        return tuple(self.on[b] for b in self.names)

    def render_text(self) -> str:
        """The stacks now and the goal."""
        goal = "; ".join(" ".join(s) for s in stacks(self.goal))
        return (
            f"{self.board()}\ngoal: {goal}\n{self.placed}/{self.count} blocks final, "
            f"turn {self.turn}/{self.max_moves}"
        )
