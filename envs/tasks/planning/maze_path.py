"""Maze, single turn: give a shortest walk from the start to the goal of a drawn maze.

The task:
    A map of walls (``#``) and open cells (``_``) with the start ``@`` and the goal ``G``.
    A move goes one cell up, down, left or right onto an open cell. The answer is a walk
    from ``@`` to ``G`` with the fewest moves. Mazes come from the interactive game
    `palaestra.envs.games.maze` (a seeded depth-first carving with some walls knocked out
    for loops, the goal in the room farthest from the start); an independent breadth-first
    search certifies the fewest moves.

Observation:
    One user message: the map and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the moves as letters ``U``,
    ``D``, ``L``, ``R`` (case-insensitive), run together or separated by spaces or commas.
    Checked by simulation: every move onto an open cell, the goal reached by the last move,
    and no more moves than the fewest possible. Any shortest walk scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a shortest walk, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; mazes of 4x4 to 15x15 rooms with fewer loops as the level rises (the game's
        level table, without its fog).
    size: Rooms per side, 2 to 20.
    loops: Share of inner walls knocked out after carving (0 to 1).

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque

import numpy as np

from palaestra.envs.games.maze import LOOPS, SIZES, MazeEnv
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import MAX_PLAN_CHARS, game_env, plan_tokens, run_plan
from palaestra.verdict import Verdict

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_TOKEN = re.compile(r"[udlr]+", re.IGNORECASE)
MAX_MOVES = 1_000


@dataclasses.dataclass(frozen=True)
class MazePathConfig:
    """Knobs.

    Attributes:
        size: Rooms per side, 2 to 20.
        loops: Share of inner walls knocked out after carving.
    """

    size: int = 6
    loops: float = 0.15

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or not 2 <= self.size <= 20:
            raise ValueError(f"size must be an integer from 2 to 20, got {self.size!r}")
        if not isinstance(self.loops, (int, float)) or not 0 <= self.loops <= 1:
            raise ValueError(f"loops must be a share from 0 to 1, got {self.loops!r}")


def find(rows: list[str], mark: str) -> tuple[int, int]:
    """The (row, column) of ``mark`` on the map."""
    r = next(i for i, row in enumerate(rows) if mark in row)
    return r, rows[r].index(mark)


def step(rows: list[str], at: tuple[int, int], move: str) -> tuple[tuple[int, int], str]:
    """One move on the map; an illegal move returns a reason."""
    dr, dc = STEPS[move]
    r, c = at[0] + dr, at[1] + dc
    if not (0 <= r < len(rows) and 0 <= c < len(rows[0])) or rows[r][c] == "#":
        return at, f"{move} from row {at[0] + 1}, column {at[1] + 1} runs into a wall"
    return (r, c), ""


def shortest(rows: list[str], order: str = "UDLR") -> list[str]:
    """A shortest walk from ``@`` to ``G`` by breadth-first search, trying moves in ``order``."""
    start, goal = find(rows, "@"), find(rows, "G")
    parent: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        if at == goal:
            break
        for move in order:
            nxt, why = step(rows, at, move)
            if not why and nxt not in parent:
                parent[nxt] = (at, move)
                queue.append(nxt)
    path = []
    at = goal
    while parent[at] is not None:
        at, move = parent[at]
        path.append(move)
    return path[::-1]


class MazePathTask(Task[MazePathConfig]):
    """Give a shortest walk through a maze."""

    name = "maze_path"
    Config = MazePathConfig
    unique = False

    @classmethod
    def level_config(cls, level: int) -> MazePathConfig:
        """The maze game's sizes and loop shares."""
        return MazePathConfig(size=SIZES[level - 1], loops=LOOPS[level - 1])

    def generate(self, rng: np.random.Generator) -> Problem:
        """A maze of the game, drawn in full."""
        env = game_env(
            MazeEnv, rng, size=self.config.size, loops=float(self.config.loops), view=None
        )
        rows = env.board().splitlines()
        # The game counts moves between rooms; a room move crosses the open wall cell between.
        fewest = 2 * env.distance[env.player]
        plan = shortest(rows)
        prompt = (
            "Find a shortest walk through this maze from @ to G. # is a wall and _ an open cell; a "
            "move goes "
            "one cell up (U), down (D), left (L) or right (R) onto a cell that is not a wall.\n\n"
            + "\n".join(rows)
            + "\n\nAnswer with the moves in order as the letters U, D, L, R "
            "(for example, RRDL means right, right, "
            f"down, left). {ANSWER_FORMAT}"
        )
        return Problem(prompt, "".join(plan), {"rows": rows, "fewest": fewest})

    def solve(self, problem: Problem) -> str:
        """A breadth-first shortest walk."""
        return problem.reference

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the walk: every move open, the goal reached at the end, in the fewest moves."""
        tokens, why = plan_tokens(answer, _TOKEN, MAX_MOVES)
        if tokens is None:
            return self.malformed(answer, problem, why)
        moves = [m.upper() for token in tokens for m in token]
        rows = problem.data["rows"]
        goal = find(rows, "G")
        why = run_plan(
            find(rows, "@"), moves, lambda at, m: step(rows, at, m), lambda at: at == goal
        )
        if why:
            return self.wrong(answer, problem, why)
        if len(moves) > problem.data["fewest"]:
            return self.wrong(
                answer, problem, f"{len(moves)} moves, but {problem.data['fewest']} suffice"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """An independent breadth-first search over cells.

        A breadth-first search over cells (independent of the game's room search) gives the
        fewest moves; the reference is replayed.
        """
        rows = problem.data["rows"]
        start, goal = find(rows, "@"), find(rows, "G")
        depth = {start: 0}
        queue = deque([start])
        while queue:
            r, c = queue.popleft()
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nxt = (r + dr, c + dc)
                if (
                    0 <= nxt[0] < len(rows)
                    and 0 <= nxt[1] < len(rows[0])
                    and rows[nxt[0]][nxt[1]] != "#"
                    and nxt not in depth
                ):
                    depth[nxt] = depth[(r, c)] + 1
                    queue.append(nxt)
        plan = list(problem.reference)
        valid = not run_plan(start, plan, lambda at, m: step(rows, at, m), lambda at: at == goal)
        return Certificate(
            1 if valid and depth.get(goal) == len(plan) == problem.data["fewest"] else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; a step back and forth added; the first move turned around."""
        plan = problem.reference
        back = {"U": "D", "D": "U", "L": "R", "R": "L"}
        return [
            plan[:-1] or back[plan[0]],
            plan[0] + back[plan[0]] + plan,
            back[plan[0]] + plan[1:],
        ]

    def alternatives(self, problem: Problem) -> list[str]:
        """Another shortest walk (moves tried in reverse order) and other spellings."""
        rows = problem.data["rows"]
        other = "".join(shortest(rows, "RLDU"))
        plan = problem.reference
        spaced = [" ".join(plan)] if 2 * len(plan) < MAX_PLAN_CHARS else []
        return [other, plan.lower(), *spaced]

    def work(self, problem: Problem) -> float:
        """Moves of a shortest walk."""
        return float(problem.data["fewest"])


class MazePathEnv(TaskEnv):
    """Give a shortest walk through a maze; see the module docstring."""

    task_class = MazePathTask
