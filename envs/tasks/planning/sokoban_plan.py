"""Sokoban, single turn: give a whole sequence of moves that pushes every box onto a target.

The task:
    A warehouse in XSB notation: ``#`` wall, ``_`` floor, ``.`` target, ``$`` box, ``*`` box
    on a target, ``@`` the player, ``+`` the player on a target. The player walks up, down,
    left or right and pushes (never pulls) one box at a time into a free cell. The answer
    is every move from the start until the last box stands on a target. Rooms are carved by
    a seeded random walk; boxes start on their targets and are pulled away by a random
    reverse walk, so replaying the pulls as pushes solves the puzzle (the same construction
    as the interactive game `palaestra.envs.games.sokoban`, whose generator keeps its plan
    private, so this family builds its own).

Observation:
    One user message: the board and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the moves as letters ``U``,
    ``D``, ``L``, ``R`` (case-insensitive), run together or separated by spaces or commas.
    Checked by simulation: no move into a wall, no push into a wall or another box, every
    box on a target after the last move and not before. Any such plan scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a plan that solves the puzzle, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; rooms of 5x5 to 10x10 inside the walls, 1 to 5 boxes, 4 to 20 rounds of
        reverse pulls.
    size: Room side inside the walls, 4 to 12.
    boxes: Number of boxes, 1 to 6.
    pull_rounds: Rounds of the reverse walk (each walks to a box and pulls it one to three
        cells), which sets how far the boxes travel.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque

import numpy as np

from palaestra.envs.games.sokoban import reach_bits
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import plan_tokens, run_plan
from palaestra.verdict import Verdict

LEVELS = {
    1: (5, 1, 4),
    2: (6, 1, 6),
    3: (6, 2, 6),
    4: (7, 2, 8),
    5: (7, 3, 10),
    6: (8, 3, 12),
    7: (8, 4, 14),
    8: (9, 4, 16),
    9: (10, 4, 18),
    10: (10, 5, 20),
}
"""(size, boxes, pull rounds) by level."""

FLOOR_SHARE = 0.6
MAX_PLAN = 600
"""Plans longer than this are redrawn (the answer must fit the 1,000-character slot)."""
_TOKEN = re.compile(r"[udlr]+", re.IGNORECASE)
NAMES = "UDLR"


@dataclasses.dataclass(frozen=True)
class SokobanPlanConfig:
    """Knobs.

    Attributes:
        size: Room side inside the walls, 4 to 12.
        boxes: Number of boxes, 1 to 6.
        pull_rounds: Rounds of the reverse walk, 1 to 60.
    """

    size: int = 7
    boxes: int = 2
    pull_rounds: int = 8

    def __post_init__(self) -> None:
        for name, low, high in (("size", 4, 12), ("boxes", 1, 6), ("pull_rounds", 1, 60)):
            value = getattr(self, name)
            if not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


@dataclasses.dataclass
class Warehouse:
    """A board: open cells, targets, boxes and the player as indices into a ``width``-wide grid."""

    width: int
    floor: frozenset[int]
    targets: frozenset[int]
    boxes: frozenset[int]
    player: int

    def offsets(self) -> dict[str, int]:
        """The index step of each move."""
        return {"U": -self.width, "D": self.width, "L": -1, "R": 1}

    def rows(self) -> list[str]:
        """The board in XSB notation (a square room inside its walls)."""
        out = []
        for r in range(self.width):
            row = ""
            for c in range(self.width):
                i = r * self.width + c
                if i not in self.floor:
                    row += "#"
                elif i == self.player:
                    row += "+" if i in self.targets else "@"
                elif i in self.boxes:
                    row += "*" if i in self.targets else "$"
                else:
                    row += "." if i in self.targets else "_"
            out.append(row)
        return out


def parse_board(rows: list[str]) -> Warehouse:
    """The warehouse of an XSB board."""
    width = len(rows[0])
    cells = {(r * width + c): ch for r, row in enumerate(rows) for c, ch in enumerate(row)}
    return Warehouse(
        width=width,
        floor=frozenset(i for i, ch in cells.items() if ch != "#"),
        targets=frozenset(i for i, ch in cells.items() if ch in ".*+"),
        boxes=frozenset(i for i, ch in cells.items() if ch in "$*"),
        player=next(i for i, ch in cells.items() if ch in "@+"),
    )


def move(
    board: Warehouse, state: tuple[int, frozenset[int]], name: str
) -> tuple[tuple[int, frozenset[int]], str]:
    """One move from (player, boxes); an illegal move returns a reason."""
    player, boxes = state
    d = board.offsets()[name]
    ahead = player + d
    if ahead not in board.floor:
        return state, f"{name} walks into a wall"
    if ahead in boxes:
        beyond = ahead + d
        if beyond not in board.floor or beyond in boxes:
            return state, f"{name} pushes a box into a wall or another box"
        return (ahead, (boxes - {ahead}) | {beyond}), ""
    return (ahead, boxes), ""


def _carve(rng: np.random.Generator, side: int, width: int) -> set[int]:
    """Floor cells of a room carved by a random walk that stamps small blocks."""
    floor: set[int] = set()
    wanted = int(FLOOR_SHARE * side * side)
    r, c = int(rng.integers(1, side + 1)), int(rng.integers(1, side + 1))
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    dr, dc = steps[int(rng.integers(4))]
    for _ in range(12 * side * side):
        if rng.random() < 0.35:
            dr, dc = steps[int(rng.integers(4))]
        for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))[: 1 + int(rng.integers(4))]:
            if 1 <= r + a <= side and 1 <= c + b <= side:
                floor.add((r + a) * width + c + b)
        if len(floor) >= wanted:
            break
        r, c = min(side, max(1, r + dr)), min(side, max(1, c + dc))
    return floor


def _reach(
    floor: set[int] | frozenset[int],
    blocked: set[int],
    start: int,
    width: int,
    goal: int | None = None,
) -> dict[int, tuple[int, str] | None]:
    """Cells the player can walk to without pushing, with the step that reached each.

    With a ``goal``, the search stops once it reaches it (the cells and steps found up to
    then are the same).
    """
    seen: dict[int, tuple[int, str] | None] = {start: None}
    queue = deque([start])
    while queue and goal not in seen:
        cell = queue.popleft()
        for name, d in zip(NAMES, (-width, width, -1, 1), strict=False):
            nxt = cell + d
            if nxt in floor and nxt not in blocked and nxt not in seen:
                seen[nxt] = (cell, name)
                queue.append(nxt)
    return seen


def _walk(reach: dict[int, tuple[int, str] | None], goal: int) -> list[str]:
    path = []
    while reach[goal] is not None:
        goal, name = reach[goal]
        path.append(name)
    return path[::-1]


def build(config: SokobanPlanConfig, rng: np.random.Generator) -> tuple[Warehouse, list[str]]:
    """A warehouse whose boxes were pulled off their targets, and the pulls replayed as a plan."""
    side, k = config.size, config.boxes
    width = side + 2
    for _ in range(1000):
        floor = _carve(rng, side, width)
        cells = sorted(floor)
        if len(cells) < k + 3:
            continue
        picks = [cells[int(i)] for i in rng.permutation(len(cells))[: k + 1]]
        targets, player = picks[:k], picks[k]
        boxes = list(targets)
        pulls: list[tuple[int, int]] = []  # (box cell before the pull, pull step)
        best, best_score, last, switches = None, 0, -1, 0
        floor_bits = sum(1 << cell for cell in floor)
        for _ in range(config.pull_rounds):
            reach = reach_bits(floor_bits & ~sum(1 << b for b in boxes), player, width)
            options = [
                (i, d)
                for i, b in enumerate(boxes)
                for d in (-width, width, -1, 1)
                if reach >> (b + d) & 1 and b + 2 * d in floor and b + 2 * d not in boxes
            ]
            if not options:
                break
            others = [o for o in options if o[0] != last]
            if others and rng.random() < 0.7:
                options = others
            index, d = options[int(rng.integers(len(options)))]
            for _ in range(1 + int(rng.integers(3))):
                b = boxes[index]
                if b + 2 * d not in floor or b + 2 * d in boxes:
                    break
                pulls.append((b, d))
                boxes[index] = b + d
                player = b + 2 * d
            switches += index != last
            last = index
            if all(b not in targets for b in boxes):
                score = switches + sum(
                    abs(b // width - t // width) + abs(b % width - t % width)
                    for b, t in zip(boxes, targets, strict=False)
                )
                if score > best_score:
                    best_score, best = score, (player, tuple(boxes), len(pulls))
        if best is None:
            continue
        player, final_boxes, count = best
        board = Warehouse(
            width, frozenset(floor), frozenset(targets), frozenset(final_boxes), player
        )
        # Replay: undo the pulls last first; each becomes a walk to the far side and a push.
        names = dict(zip((-width, width, -1, 1), NAMES, strict=False))
        plan: list[str] = []
        at, occupied = player, set(final_boxes)
        for b, d in reversed(pulls[:count]):
            stand = b + 2 * d
            reach = _reach(floor, occupied, at, width, stand)
            if stand not in reach:
                plan = []
                break
            plan += _walk(reach, stand)
            plan.append(names[-d])
            occupied.discard(b + d)
            occupied.add(b)
            at = b + d
        plan = _without_loops(board, plan)
        if plan and len(plan) <= MAX_PLAN:
            return board, plan
    raise RuntimeError(
        "sokoban_plan: no warehouse in 1000 tries; enlarge the room or use fewer boxes"
    )


def _without_loops(board: Warehouse, plan: list[str]) -> list[str]:
    """The plan with its loops cut out.

    The plan with every stretch that comes back to an earlier state cut out, stopped at
    the first state with every box on a target.
    """
    state = (board.player, board.boxes)
    seen = {state: 0}
    out: list[str] = []
    for name in plan:
        state, _ = move(board, state, name)
        out.append(name)
        if state[1] <= board.targets:
            break
        if state in seen:
            del out[seen[state] :]
            seen = {k: v for k, v in seen.items() if v <= len(out)}
        else:
            seen[state] = len(out)
    return out


class SokobanPlanTask(Task[SokobanPlanConfig]):
    """Give a plan that solves a Sokoban warehouse."""

    name = "sokoban_plan"
    Config = SokobanPlanConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> SokobanPlanConfig:
        """Larger rooms, more boxes, longer reverse walks."""
        size, boxes, rounds = LEVELS[level]
        return SokobanPlanConfig(size=size, boxes=boxes, pull_rounds=rounds)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A warehouse by reverse play; its replayed pulls are the reference plan."""
        board, plan = build(self.config, rng)
        rows = board.rows()
        prompt = (
            "Sokoban: push every box onto a target. Board: # wall, _ floor, . target, $ box, * box "
            "on a target, "
            "@ you, + you on a target. You move up (U), down (D), left (L) or right (R); walking "
            "into a box pushes "
            "it one cell if the cell beyond is floor without a box. You cannot pull boxes.\n\n"
            + "\n".join(rows)
            + "\n\nAnswer with all your moves in order as the letters U, D, L, R "
            "(for example, LLURD), ending with the "
            f"move that puts the last box on a target. {ANSWER_FORMAT}"
        )
        return Problem(prompt, "".join(plan), {"rows": rows})

    def solve(self, problem: Problem) -> str:
        """The reverse walk replayed as pushes."""
        return problem.reference

    def _replay(self, rows: list[str], moves: list[str]) -> str:
        board = parse_board(rows)
        return run_plan(
            (board.player, board.boxes),
            moves,
            lambda s, m: move(board, s, m),
            lambda s: s[1] <= board.targets,
        )

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the moves: all legal, every box on a target after the last one, not before."""
        tokens, why = plan_tokens(answer, _TOKEN, MAX_PLAN * 2)
        if tokens is None:
            return self.malformed(answer, problem, why)
        moves = [m.upper() for token in tokens for m in token]
        why = self._replay(problem.data["rows"], moves)
        if why:
            return self.wrong(answer, problem, why)
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """The reference plan replayed on the board as drawn (not the generator's cells)."""
        return Certificate(0 if self._replay(problem.data["rows"], list(problem.reference)) else 1)

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; a move added after the solution; the last move turned."""
        plan = problem.reference
        turned = next(m for m in NAMES if m != plan[-1])
        return [m for m in (plan[:-1], plan + plan[-1], plan[:-1] + turned) if m]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: lower case, spaces between moves (when it fits the slot)."""
        plan = problem.reference
        return [plan.lower()] + ([" ".join(plan)] if 2 * len(plan) < 1_000 else [])

    def work(self, problem: Problem) -> float:
        """Moves of the reference plan."""
        return float(len(problem.reference))


class SokobanPlanEnv(TaskEnv):
    """Solve a Sokoban warehouse in one answer; see the module docstring."""

    task_class = SokobanPlanTask
