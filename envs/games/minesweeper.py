"""Minesweeper: reveal every safe cell of a seeded minefield without touching a mine.

The task:
    A ``rows`` x ``columns`` field hides ``mines`` mines. The game opens with one cell
    revealed whose neighbours are all safe (so the first view is an opened region).
    Revealing a safe cell shows how many of its eight neighbours are mines; revealing a
    cell with no mine around opens its neighbours too. Revealing a mine loses.

Observation:
    The rules, then the board after each move: rows numbered from 1, columns lettered
    from ``a``; ``#`` hidden, ``F`` flagged, ``.`` revealed with no mine around, ``1``-``8``
    revealed with that many mines around; mines are shown as ``*`` when the game ends.

Action:
    The last ``<move>...</move>`` after any ``</think>``: ``reveal b3`` or ``flag b3``
    (flag toggles a marker that only helps you remember; it is not needed to win).
    Revealing an already revealed cell is an illegal move.

Reward (``info["reward_parts"]``):
    ``progress``: `PROGRESS_REWARD` times the share of the still-hidden safe cells that
        this move revealed (a won game's progress sums to exactly `PROGRESS_REWARD`).
    ``outcome``: `WIN_REWARD` when the last safe cell is revealed; 0 on a mine.
    ``invalid``: `INVALID_ACTION_PENALTY` for an unparsable or illegal move.
    The best return is 1.0.

Episode end:
    Terminated when every safe cell is revealed (success), a mine is revealed, or the
    turn budget (safe cells + 10) is spent.

Oracle:
    Deduces safe cells from the numbers (single-cell and subset rules). Where logic alone
    cannot decide, it is privileged: it reveals a hidden cell it knows is safe, next to
    the revealed region when it can.

Arguments:
    level: 1-10; from 5x5 with 3 mines to 16x16 with 40 mines.
    rows, columns, mines: Override the board (rows and columns 4-30; at least 10 cells
        more than mines).

Version history:
    v1: a board whose opening already reveals every safe cell is dealt again (v0 dealt
        about 5% of level-1 boards that way: nothing was left to win, and the oracle had
        no move).
    v0: first version.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from palaestra.core import INVALID_ACTION_PENALTY, InvalidAction, Message, Step, user

from ._common import (
    GameEnv,
    check_int,
    check_level,
    column_label,
    framed,
    level_value,
    no_options,
    parse_cell,
    parse_move,
    sample,
)

PROGRESS_REWARD = 0.5
WIN_REWARD = 0.5

BOARDS = (
    (5, 5, 3),
    (5, 5, 5),
    (6, 6, 6),
    (7, 7, 8),
    (8, 8, 10),
    (8, 8, 12),
    (9, 9, 14),
    (10, 10, 18),
    (12, 12, 26),
    (16, 16, 40),
)
EXTRA_TURNS = 10
_DIGITS = ".12345678"
"""Turns allowed beyond one per safe cell."""


class MinesweeperEnv(GameEnv):
    """Minesweeper with a safe opening; see the module docstring."""

    game_name = "minesweeper"
    invalid_action_penalty = INVALID_ACTION_PENALTY
    state_attrs = ("mines", "counts", "revealed", "flags", "hidden_safe", "start_hidden")

    def __init__(
        self,
        level: int = 3,
        rows: int | None = None,
        columns: int | None = None,
        mines: int | None = None,
    ):
        self.level = check_level(level)
        default_rows, default_columns, default_mines = level_value(level, BOARDS)
        self.rows = check_int("rows", rows, 4, 30) if rows is not None else default_rows
        self.columns = (
            check_int("columns", columns, 4, 30) if columns is not None else default_columns
        )
        self.mine_count = check_int("mines", mines, 1) if mines is not None else default_mines
        if self.mine_count > self.rows * self.columns - 10:
            raise ValueError(
                f"{self.mine_count} mines do not fit a {self.rows}x{self.columns} board "
                "with a safe opening; "
                f"use at most {self.rows * self.columns - 10}"
            )
        self.cells = self.rows * self.columns
        self.max_moves = self.cells - self.mine_count + EXTRA_TURNS
        self.neighbours = [self._neighbours(i) for i in range(self.cells)]
        self.rules = (
            f"Minesweeper. The {self.rows}x{self.columns} board hides {self.mine_count} mines. "
            "Reveal every cell without a mine. "
            "A revealed number says how many of the 8 neighbouring cells hold mines. "
            f"You have {self.max_moves} turns.\n"
            "Board: # hidden, F flagged, . no mine around, 1-8 mines around. "
            "Columns are letters, rows numbers.\n"
            "Reply with one move per turn: <move>reveal b3</move>, "
            "or <move>flag b3</move> to mark a suspected mine.\n\n"
        )
        self.mines: frozenset[int] = frozenset()
        self.counts: list[int] = []
        self.revealed: set[int] = set()
        self.flags: set[int] = set()
        self.hidden_safe = 0
        self.start_hidden = 1
        # What `deduce` proved last: the board's mines and revealed cells then, the cells
        # proved safe and mines, and the revealed numbers with unknown cells around them.
        self._proven: tuple[
            frozenset[int], frozenset[int], frozenset[int], frozenset[int], list[int]
        ] = (frozenset(), frozenset(), frozenset(), frozenset(), [])

    def _neighbours(self, cell: int) -> tuple[int, ...]:
        r, c = divmod(cell, self.columns)
        return tuple(
            rr * self.columns + cc
            for rr in (r - 1, r, r + 1)
            for cc in (c - 1, c, c + 1)
            if (rr, cc) != (r, c) and 0 <= rr < self.rows and 0 <= cc < self.columns
        )

    redeal_solved: ClassVar[bool] = True
    """Deal again when the opening alone reveals every safe cell (nothing left to win)."""

    def _reset(self, options: dict[str, Any]):
        no_options(self, options)
        self._deal()
        while self.redeal_solved and self.hidden_safe == 0:
            self._deal()  # the same seed's stream goes on, so the episode stays seeded
        return [user(self.rules + self.board())], {"level": self.level}

    def _deal(self) -> None:
        """Lays the mines around a random opening and reveals the opening."""
        draws = self.np_random.random(self.mine_count + 1).tolist()
        start = int(draws[0] * self.cells)
        keep_clear = {start, *self.neighbours[start]}  # the opening has no mine around it
        allowed = [i for i in range(self.cells) if i not in keep_clear]
        self.mines = frozenset(sample(allowed, self.mine_count, draws[1:]))
        counts = [0] * self.cells
        for mine in self.mines:
            for n in self.neighbours[mine]:
                counts[n] += 1
        self.counts = counts
        self.revealed, self.flags = set(), set()
        self._open(start)
        self.hidden_safe = self.cells - self.mine_count - len(self.revealed)
        self.start_hidden = max(self.hidden_safe, 1)

    def _open(self, cell: int) -> None:
        """Reveals ``cell`` and, through cells with no mine around, their neighbours."""
        stack = [cell]
        while stack:
            current = stack.pop()
            if current in self.revealed:
                continue
            self.revealed.add(current)
            self.flags.discard(current)
            if self.counts[current] == 0:
                stack.extend(n for n in self.neighbours[current] if n not in self.revealed)

    def _parse(self, content: str | None) -> tuple[str, int]:
        move = parse_move(content, example="reveal b3")
        verb, _, where = move.partition(" ")
        if verb not in ("reveal", "flag"):
            raise InvalidAction(f"{move[:40]!r} is not a move; write reveal b3 or flag b3")
        row, column = parse_cell(where, self.rows, self.columns)
        cell = row * self.columns + column
        if cell in self.revealed:
            raise InvalidAction(f"{where} is already revealed; choose a hidden cell")
        return verb, cell

    def _step(self, action: Message) -> Step:
        try:
            verb, cell = self._parse(action.get("content"))
        except InvalidAction as error:
            return self.budgeted(self.invalid(str(error)))
        name = self._name(cell)
        if verb == "flag":
            if cell in self.flags:
                self.flags.discard(cell)
                note = f"Removed the flag on {name}."
            else:
                self.flags.add(cell)
                note = f"Flagged {name}."
            return self.budgeted(Step([user(f"{note}\n{self.board()}")], {"progress": 0.0}))
        if cell in self.mines:
            return self.lost(
                f"Boom! {name} was a mine. You lose.\n{self.board(show_mines=True)}",
                reason=f"revealed a mine at {name}",
                answer=name,
                progress=0.0,
            )
        before = self.hidden_safe
        self._open(cell)
        self.hidden_safe = self.cells - self.mine_count - len(self.revealed)
        progress = PROGRESS_REWARD * (before - self.hidden_safe) / self.start_hidden
        if self.hidden_safe == 0:
            return self.won(
                f"You cleared the field!\n{self.board(show_mines=True)}",
                reason=f"cleared in {self.turn} turns",
                outcome=WIN_REWARD,
                progress=progress,
            )
        text = (
            f"Revealed {name}. Safe cells still hidden: {self.hidden_safe}. "
            f"Turns left: {self.max_moves - self.turn}.\n{self.board()}"
        )
        return self.budgeted(Step([user(text)], {"progress": progress}))

    def _name(self, cell: int) -> str:
        row, column = divmod(cell, self.columns)
        return f"{column_label(column)}{row + 1}"

    # --- the oracle -------------------------------------------------------------------------

    def deduce(self) -> tuple[set[int], set[int]]:
        """Cells proven safe and proven mines by the single-cell and subset rules.

        The rules only add facts, and what they prove in the end does not depend on the
        order they are applied in; revealing cells only adds numbers to reason from. So
        the search starts from what it proved at an earlier turn on this board, and reads
        only the numbers that still had unknown cells around them then, and the newly
        revealed ones. (Starting afresh at every turn was most of the oracle's time on
        large boards.)
        """
        safe, mines, live = self._proven_before()
        changed = True
        while changed:
            changed = False
            constraints = []
            unsettled = []
            for cell in live:
                unknown = [
                    n
                    for n in self.neighbours[cell]
                    if n not in self.revealed and n not in safe and n not in mines
                ]
                if not unknown:
                    continue  # and for good: facts are never taken back
                unsettled.append(cell)
                left = self.counts[cell] - sum(n in mines for n in self.neighbours[cell])
                if left == 0:
                    safe.update(unknown)
                    changed = True
                elif left == len(unknown):
                    mines.update(unknown)
                    changed = True
                else:
                    constraints.append((frozenset(unknown), left))
            live = unsettled
            if changed:
                continue
            for small, small_left in constraints:
                for big, big_left in constraints:
                    if small is big or not small < big:
                        continue
                    rest, rest_left = big - small, big_left - small_left
                    if rest_left == 0:
                        safe.update(rest)
                        changed = True
                    elif rest_left == len(rest):
                        mines.update(rest)
                        changed = True
        self._proven = (
            self.mines,
            frozenset(self.revealed),
            frozenset(safe),
            frozenset(mines),
            live,
        )
        return safe, mines

    def _proven_before(self) -> tuple[set[int], set[int], list[int]]:
        """Where `deduce` starts: safe cells, mines, and the revealed numbers to read.

        What it last proved (less the cells revealed since) when that was on this board
        with fewer cells revealed; else no facts, and every revealed number.
        """
        board, revealed, safe, mines, live = self._proven
        if board != self.mines or not revealed <= self.revealed:
            return set(), set(), [cell for cell in self.revealed if self.counts[cell]]
        new = [cell for cell in self.revealed - revealed if self.counts[cell]]
        return set(safe - self.revealed), set(mines), live + new

    def random_action(self, rng: np.random.Generator) -> str:
        """Reveals a random hidden cell."""
        hidden = [i for i in range(self.cells) if i not in self.revealed]
        return f"<move>reveal {self._name(hidden[int(rng.integers(len(hidden)))])}</move>"

    def oracle_action(self) -> str:
        """Reveals a provably safe cell, else (privileged) a safe cell by the frontier."""
        safe, _ = self.deduce()
        if safe:
            cell = min(safe)
        else:
            hidden_safe = [
                i for i in range(self.cells) if i not in self.revealed and i not in self.mines
            ]
            frontier = [
                i for i in hidden_safe if any(n in self.revealed for n in self.neighbours[i])
            ]
            cell = min(frontier or hidden_safe)
        return f"<move>reveal {self._name(cell)}</move>"

    # --- views --------------------------------------------------------------------------------

    def board(self, show_mines: bool = False) -> str:
        """The board with column letters and row numbers."""
        # Marks in rising precedence: hidden, flagged, a shown mine, revealed.
        chars = ["#"] * self.cells
        for cell in self.flags:
            chars[cell] = "F"
        if show_mines:
            for cell in self.mines:
                chars[cell] = "*"
        for cell in self.revealed:
            chars[cell] = _DIGITS[self.counts[cell]]
        width = self.columns
        return framed([chars[r * width : (r + 1) * width] for r in range(self.rows)])

    def state_key(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The revealed and the flagged cells."""
        return (tuple(sorted(self.revealed)), tuple(sorted(self.flags)))

    def render_text(self) -> str:
        """The board and how many safe cells are still hidden."""
        return (
            f"{self.board(show_mines=self._over)}\nsafe cells hidden {self.hidden_safe}, "
            f"turn {self.turn}/{self.max_moves}"
        )


class MinesweeperV0Env(MinesweeperEnv):
    """``Minesweeper-v0``: keeps boards the opening already solves (see the version history)."""

    redeal_solved = False
