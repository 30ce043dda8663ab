"""Blocksworld, single turn: give a whole plan that restacks lettered blocks into a goal.

The task:
    Blocks A, B, C, ... stand in stacks on a table. A move lifts a clear block (nothing on
    it) onto another clear block or onto the table. The answer is a plan from the start
    arrangement to the goal arrangement (every block on its goal support). Start and goal
    come from the interactive game `palaestra.envs.games.blocksworld`. With up to six
    blocks the plan must be a shortest one (breadth-first search; certified by a second,
    backward search); with more blocks it may use at most as many moves as the game's
    two-rule planner.

Observation:
    One user message: the stacks now and the goal stacks (bottom to top), the move limit,
    and the answer format.

Action:
    The last ``<answer>...</answer>`` after any ``</think>``: the moves in order, separated
    by spaces, commas or new lines; ``C->B`` puts block C onto block B and ``C->table``
    puts it on the table (case-insensitive). Checked by simulation: every move legal, the
    goal reached by the last move (not earlier), within the move limit. Any such plan
    scores.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` for a legal plan within the limit, else 0.

Episode end:
    After one step.

Arguments:
    level: 1-10; 3 to 12 blocks (the game's level table); a shortest plan is required up
        to 6 blocks (levels 1-4).
    blocks: Number of blocks, 2 to 15.
    optimal: Require a shortest plan (at most 7 blocks); else the planner's length is the limit.

Version history:
    v0: first version.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque

import numpy as np

from palaestra.envs.games.blocksworld import BLOCKS, TABLE, BlocksworldEnv, stacks
from palaestra.envs.tasks.base import ANSWER_FORMAT, Certificate, Problem, Task, TaskEnv
from palaestra.envs.tasks.planning._plans import game_env, oracle_moves, plan_tokens, run_plan
from palaestra.verdict import Verdict

OPTIMAL_UP_TO = 6
"""Levels with at most this many blocks ask for a shortest plan."""

_MOVE = re.compile(r"[a-o]->(?:[a-o]|table)", re.IGNORECASE)
State = tuple[str, ...]
"""Each block's support in block order (``""`` for the table)."""


@dataclasses.dataclass(frozen=True)
class BlocksworldPlanConfig:
    """Knobs.

    Attributes:
        blocks: Number of blocks, 2 to 15.
        optimal: Require a shortest plan (at most 7 blocks).
    """

    blocks: int = 5
    optimal: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.blocks, int) or not 2 <= self.blocks <= 15:
            raise ValueError(f"blocks must be an integer from 2 to 15, got {self.blocks!r}")
        if not isinstance(self.optimal, bool) or (self.optimal and self.blocks > 7):
            raise ValueError(
                "optimal must be True or False, and True needs at most 7 blocks; got "
                f"{self.optimal!r} with {self.blocks} blocks"
            )


def names(n: int) -> list[str]:
    """The block letters."""
    return [chr(65 + i) for i in range(n)]


def lift(state: State, move: tuple[int, int]) -> tuple[State, str]:
    """Puts block ``move[0]`` onto ``move[1]`` (-1: the table); illegal: returns why."""
    block, onto = move
    letters = names(len(state))
    covered = {s for s in state if s}
    name = letters[block]
    if name in covered:
        return state, f"{name} is not clear"
    if onto == block:
        return state, f"{name} cannot go onto itself"
    target = TABLE if onto < 0 else letters[onto]
    if target and target in covered:
        return state, f"{target} is not clear"
    if state[block] == target:
        return state, f"{name} is already on {target or 'the table'}"
    return state[:block] + (target,) + state[block + 1 :], ""


def successors(state: State) -> list[tuple[tuple[int, int], State]]:
    """Every legal move and its result: a clear block onto the table or another clear block."""
    letters = names(len(state))
    covered = set(state)
    clear = [i for i, name in enumerate(letters) if name not in covered]
    out = []
    for block in clear:
        if state[block]:
            out.append(((block, -1), state[:block] + (TABLE,) + state[block + 1 :]))
        for onto in clear:
            if onto != block and state[block] != letters[onto]:
                out.append(((block, onto), state[:block] + (letters[onto],) + state[block + 1 :]))
    return out


def bfs_plan(start: State, goal: State) -> list[tuple[int, int]]:
    """A shortest plan by breadth-first search from the start."""
    parent: dict[State, tuple[State, tuple[int, int]] | None] = {start: None}
    queue = deque([start])
    # The goal's parent is fixed when the goal is first reached, so stopping there gives the
    # same plan as stopping when it leaves the queue, without expanding the rest of its layer.
    while queue and goal not in parent:
        state = queue.popleft()
        for move, after in successors(state):
            if after not in parent:
                parent[after] = (state, move)
                if after == goal:
                    break
                queue.append(after)
    plan = []
    state = goal
    while parent[state] is not None:
        state, move = parent[state]
        plan.append(move)
    return plan[::-1]


def move_text(n: int, move: tuple[int, int]) -> str:
    """``C->B`` or ``C->table``."""
    letters = names(n)
    return f"{letters[move[0]]}->{'table' if move[1] < 0 else letters[move[1]]}"


def stacks_text(state: State) -> str:
    """The stacks, bottom to top, one per line."""
    on = dict(zip(names(len(state)), state, strict=False))
    return "\n".join(f"stack {i + 1}: {' '.join(s)}" for i, s in enumerate(stacks(on)))


class BlocksworldPlanTask(Task[BlocksworldPlanConfig]):
    """Give a Blocksworld plan."""

    name = "blocksworld_plan"
    Config = BlocksworldPlanConfig
    unique = False
    # Three blocks have 13 arrangements, so 156 start-goal pairs.
    duplicate_allowance = {1: 0.5}

    @classmethod
    def level_config(cls, level: int) -> BlocksworldPlanConfig:
        """The game's block counts; shortest plans while the search space is small."""
        blocks = BLOCKS[level - 1]
        return BlocksworldPlanConfig(blocks=blocks, optimal=blocks <= OPTIMAL_UP_TO)

    def generate(self, rng: np.random.Generator) -> Problem:
        """Start and goal of the game; breadth-first search or the game's planner gives the plan."""
        n = self.config.blocks
        env = game_env(BlocksworldEnv, rng, blocks=n)
        letters = names(n)
        start: State = tuple(env.on[b] for b in letters)
        goal: State = tuple(env.goal[b] for b in letters)
        if self.config.optimal:
            plan = [move_text(n, m) for m in bfs_plan(start, goal)]
        else:
            plan = [self._canonical(m) for m in oracle_moves(env) or []]
        limit = len(plan)
        rule = (
            "Find a shortest plan: it must use the fewest moves possible"
            if self.config.optimal
            else f"Find a plan with at most {limit} moves"
        )
        prompt = (
            f"Blocksworld with blocks {', '.join(letters)}. Stacks are listed bottom to "
            f"top.\n\nNow:\n{stacks_text(start)}"
            f"\n\nGoal:\n{stacks_text(goal)}\n\n"
            "A move lifts a clear block (one with nothing on it) onto another clear block or onto "
            "the table. "
            f"{rule}.\n\n"
            "Answer with the moves in order, separated by spaces; write C->B to put block C onto "
            "block B and "
            f"C->table to put C on the table (for example, C->table A->C). {ANSWER_FORMAT}"
        )
        return Problem(
            prompt,
            plan,
            {
                "start": list(start),
                "goal": list(goal),
                "limit": limit,
                "optimal": self.config.optimal,
            },
        )

    @staticmethod
    def _canonical(move: str) -> str:
        """A move of the game's oracle (``C B``, ``C table``) in this family's spelling."""
        block, target = move.split()
        return f"{block.upper()}->{'table' if target.lower() == 'table' else target.upper()}"

    def solve(self, problem: Problem) -> str:
        """The reference plan."""
        return " ".join(problem.reference)

    def _moves(self, answer: str, n: int) -> tuple[list[tuple[int, int]] | None, str]:
        tokens, why = plan_tokens(answer, _MOVE, 4 * n + 10)
        if tokens is None:
            return None, why
        moves = []
        for token in tokens:
            block, target = token.upper().split("->")
            index = ord(block) - 65
            onto = -1 if target == "TABLE" else ord(target) - 65
            if index >= n or onto >= n:
                return (
                    None,
                    f"{token} names a block that is not on the table; the blocks are "
                    f"{', '.join(names(n))}",
                )
            moves.append((index, onto))
        return moves, ""

    def check(self, answer: str, problem: Problem) -> Verdict:
        """Replays the plan: all moves legal, the goal reached at the end, within the limit."""
        n = len(problem.data["start"])
        moves, why = self._moves(answer, n)
        if moves is None:
            return self.malformed(answer, problem, why)
        goal = tuple(problem.data["goal"])
        why = run_plan(tuple(problem.data["start"]), moves, lift, lambda s: s == goal)
        if why:
            return self.wrong(answer, problem, why)
        if len(moves) > problem.data["limit"]:
            return self.wrong(
                answer,
                problem,
                f"{len(moves)} moves, more than the {problem.data['limit']} allowed",
            )
        return self.correct(answer, problem)

    def certify(self, problem: Problem) -> Certificate:
        """An independent check of the reference and its length.

        The reference replayed; for a shortest-plan puzzle, a breadth-first search backwards
        from the goal (moves undo each other) confirms the fewest moves.
        """
        n = len(problem.data["start"])
        start, goal = tuple(problem.data["start"]), tuple(problem.data["goal"])
        moves, _ = self._moves(" ".join(problem.reference), n)
        if (
            moves is None
            or run_plan(start, moves, lift, lambda s: s == goal)
            or len(moves) > problem.data["limit"]
        ):
            return Certificate(0)
        if not problem.data["optimal"]:
            return Certificate(1)
        depth = {goal: 0}
        layer = [goal]
        while layer and start not in depth:
            nxt = []
            for state in layer:
                for _, before in successors(state):
                    if before not in depth:
                        depth[before] = depth[state] + 1
                        nxt.append(before)
            layer = nxt
        return Certificate(1 if depth.get(start) == len(moves) else 0)

    def mutations(self, problem: Problem) -> list[str]:
        """The last move dropped; the last move sent elsewhere; a wasted move added."""
        plan = problem.reference
        block, target = plan[-1].split("->")
        if target != "table":
            elsewhere = f"{block}->table"
        else:
            other = next(b for b in names(len(problem.data["start"])) if b != block)
            elsewhere = f"{block}->{other}"
        first_block = plan[0].split("->")[0]
        start = tuple(problem.data["start"])
        index = ord(first_block) - 65
        where = start[index] or "table"
        detour = []
        if start[index]:
            detour = [f"{first_block}->table", f"{first_block}->{where}"]
        out = [plan[:-1], [*plan[:-1], elsewhere], detour + plan if detour else [*plan, plan[-1]]]
        return [" ".join(m) for m in out if m]

    def alternatives(self, problem: Problem) -> list[str]:
        """Other spellings: commas, lower case, one move per line."""
        plan = problem.reference
        return [", ".join(plan), " ".join(plan).lower(), "\n".join(plan)]

    def work(self, problem: Problem) -> float:
        """Moves of the reference plan."""
        return float(len(problem.reference))


class BlocksworldPlanEnv(TaskEnv):
    """Give a Blocksworld plan; see the module docstring."""

    task_class = BlocksworldPlanTask
