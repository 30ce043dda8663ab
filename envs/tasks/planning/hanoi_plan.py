"""Tower of Hanoi, single turn: give a shortest plan.

Tower of Hanoi, single turn: give a shortest sequence of moves that gathers every disk on
the target peg.

The task:
    Disks 1 (smallest) to n sit on pegs A, B and C, larger below smaller. A move takes the
    top disk of one peg onto another peg that is empty or whose top disk is larger. From
    the position shown, every disk must end on the target peg in the fewest moves.
    Positions come from the interactive game `palaestra.envs.games.tower_of_hanoi` (a random
    legal position, or the classic stack on one peg), and the fewest moves from its
    `moves_needed`; an independent breadth-first search certifies that number.

Observation:
    One user message: the pegs (bottom to top), the target peg and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the moves in order, separated
    by spaces, commas or new lines; each move is the source and destination peg, ``AC`` or
    ``A->C`` (case-insensitive). Checked by simulation: every move legal, the target reached
    by the last move (not earlier), and no more moves than the fewest possible. Any
    shortest sequence scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a legal shortest plan, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3 to 8 disks from a random position whose shortest plan has at least a
        level-dependent number of moves (3 at level 1, 150 at level 10).
    disks: Number of disks, 1 to 8 (a shortest plan has at most 2^8 - 1 = 255 moves).
    start: ``"random"`` (a random legal position) or ``"stacked"`` (all disks on one peg).
    min_moves: Redraw random positions until the shortest plan has at least this many moves.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque

import numpy as np

from palaestra.envs.games.tower_of_hanoi import TowerOfHanoiEnv, moves_needed, next_move
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import game_env, plan_tokens, run_plan
from palaestra.verdict import Verdict

PEGS = "ABC"
LEVELS = {
    1: (3, 3),
    2: (4, 5),
    3: (4, 9),
    4: (5, 12),
    5: (5, 20),
    6: (6, 30),
    7: (6, 45),
    8: (7, 70),
    9: (7, 100),
    10: (8, 150),
}
"""(disks, fewest moves at least) by level."""

DRAWS = 200
"""Random positions drawn before the longest one seen is taken."""

_MOVE = re.compile(r"[abc](?:->|-|>)?[abc]", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class HanoiPlanConfig:
    """Knobs.

    Attributes:
        disks: Number of disks, 1 to 8.
        start: ``"random"`` or ``"stacked"``.
        min_moves: Fewest moves a random position must need.
    """

    disks: int = 5
    start: str = "random"
    min_moves: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.disks, int) or not 1 <= self.disks <= 8:
            raise ValueError(f"disks must be an integer from 1 to 8, got {self.disks!r}")
        if self.start not in ("random", "stacked"):
            raise ValueError(f"start must be 'random' or 'stacked', got {self.start!r}")
        if not isinstance(self.min_moves, int) or not 1 <= self.min_moves <= 2**self.disks - 1:
            raise ValueError(
                f"min_moves must be an integer from 1 to {2**self.disks - 1}, got "
                f"{self.min_moves!r}"
            )


def apply(where: tuple[int, ...], move: tuple[int, int]) -> tuple[tuple[int, ...], str]:
    """Moves the top disk of peg ``move[0]`` onto peg ``move[1]`` (``where[d]``: disk d+1's peg)."""
    source, target = move
    if source == target:
        return where, f"{PEGS[source]}{PEGS[target]} does not change peg"
    on_source = [d for d, peg in enumerate(where) if peg == source]
    if not on_source:
        return where, f"peg {PEGS[source]} is empty"
    disk = min(on_source)
    on_target = [d for d, peg in enumerate(where) if peg == target]
    if on_target and min(on_target) < disk:
        return where, f"disk {disk + 1} cannot go onto the smaller disk {min(on_target) + 1}"
    return where[:disk] + (target,) + where[disk + 1 :], ""


def pegs_text(where: list[int] | tuple[int, ...]) -> str:
    """Each peg's disks, bottom to top (``-`` for an empty peg)."""
    lines = []
    for peg in range(3):
        disks = [str(d + 1) for d in reversed(range(len(where))) if where[d] == peg]
        lines.append(f"{PEGS[peg]}: {' '.join(disks) or '-'}")
    return "\n".join(lines)


class HanoiPlanTask(Task[HanoiPlanConfig]):
    """Give a shortest Tower of Hanoi plan."""

    name = "hanoi_plan"
    Config = HanoiPlanConfig
    unique = False
    # Few disks hold few positions: n disks have 3^n positions times 3 targets (27 x 3 for
    # 3 disks, 6561 x 3 for 8), fewer still that are far enough from the goal.
    duplicate_allowance = {
        1: 0.75,
        2: 0.5,
        3: 0.5,
        4: 0.3,
        5: 0.2,
        6: 0.06,
        7: 0.1,
        8: 0.03,
        9: 0.05,
        10: 0.02,
    }

    @classmethod
    def level_config(cls, level: int) -> HanoiPlanConfig:
        """More disks, and positions further from the goal."""
        disks, min_moves = LEVELS[level]
        return HanoiPlanConfig(disks=disks, start="random", min_moves=min_moves)

    def generate(self, rng: np.random.Generator) -> Problem:
        """A position of the game (the longest of a few draws if none is far enough)."""
        n = self.config.disks
        best = None
        for _ in range(DRAWS if self.config.start == "random" else 1):
            env = game_env(TowerOfHanoiEnv, rng, disks=n, start=self.config.start)
            where, target = list(env.where), env.target
            needed = moves_needed(where, n, target)
            if best is None or needed > best[2]:
                best = (where, target, needed)
            if needed >= self.config.min_moves:
                break
        where, target, needed = best
        plan = []
        position = list(where)
        while (move := next_move(position, n, target)) is not None:
            disk = min(d for d in range(1, n + 1) if position[d] == move[0])
            position[disk] = move[1]
            plan.append(f"{PEGS[move[0]]}{PEGS[move[1]]}")
        state = [where[d] for d in range(1, n + 1)]
        prompt = (
            f"Tower of Hanoi with {n} disks, numbered 1 (smallest) to {n}, on pegs A, B and C. The "
            "pegs now hold "
            f"(bottom to top):\n{pegs_text(state)}\n\n"
            f"Move every disk onto peg {PEGS[target]}. A move takes the top disk of one peg onto "
            "another peg that is "
            f"empty or whose top disk is larger. Find a shortest sequence of moves.\n\n"
            "Answer with the moves in order, separated by spaces; write each move as the source "
            "peg then the "
            "destination peg (for example, AB BC means: top disk of A onto B, then top disk of B "
            f"onto C). {ANSWER_FORMAT}"
        )
        return Problem(prompt, plan, {"where": state, "target": target, "fewest": needed})

    def solve(self, problem: Problem) -> str:
        """The game's optimal plan."""
        return " ".join(problem.reference)

    def _moves(self, answer: str, problem: Problem) -> tuple[list[tuple[int, int]] | None, str]:
        tokens, why = plan_tokens(answer, _MOVE, 2**8)
        if tokens is None:
            return None, why
        return [(PEGS.index(t[0].upper()), PEGS.index(t[-1].upper())) for t in tokens], ""

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the plan; it must be legal, end on the goal, and be as short as possible."""
        moves, why = self._moves(answer, problem)
        if moves is None:
            return self.malformed(answer, problem, why)
        target = problem.data["target"]
        why = run_plan(
            tuple(problem.data["where"]), moves, apply, lambda w: all(p == target for p in w)
        )
        if why:
            return self.wrong(answer, problem, why)
        if len(moves) > problem.data["fewest"]:
            return self.wrong(
                answer, problem, f"{len(moves)} moves, but {problem.data['fewest']} suffice"
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """A breadth-first search confirms the fewest moves; the reference is replayed."""
        start = tuple(problem.data["where"])
        target = problem.data["target"]
        goal = (target,) * len(start)
        depth = {start: 0}
        queue = deque([start])
        while queue and goal not in depth:
            where = queue.popleft()
            for source in range(3):
                for dest in range(3):
                    after, why = apply(where, (source, dest))
                    if not why and after not in depth:
                        depth[after] = depth[where] + 1
                        queue.append(after)
        moves = [(PEGS.index(m[0]), PEGS.index(m[1])) for m in problem.reference]
        valid = not run_plan(start, moves, apply, lambda w: w == goal)
        return Certificate(
            1 if valid and depth.get(goal) == len(moves) == problem.data["fewest"] else 0
        )

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; a wasted move and its undoing added; the first move reversed."""
        plan = problem.reference
        first = plan[0]
        out = [
            " ".join(plan[:-1]),
            " ".join([first, first[::-1], *plan]),
            " ".join([first[::-1], *plan[1:]]),
        ]
        return [m for m in out if m]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: arrows, commas, lower case, one move per line."""
        plan = problem.reference
        out = [" ".join(plan).lower(), "\n".join(plan), ",".join(plan)]
        arrows = ", ".join(f"{m[0]}->{m[1]}" for m in plan)
        return out + ([arrows] if len(arrows) <= 1_000 else [])

    def work(self, problem: Problem) -> float:
        """Moves of the shortest plan."""
        return float(problem.data["fewest"])


class HanoiPlanEnv(TaskEnv):
    """Give a shortest Tower of Hanoi plan; see the module docstring."""

    task_class = HanoiPlanTask
