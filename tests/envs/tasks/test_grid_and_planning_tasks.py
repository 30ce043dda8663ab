"""Grid-puzzle and planning families: correctness checks beyond the generic quality bar.

For each family: the oracle scores 1, one-step mutations and hedged or padded answers score
0, generated instances are certified solvable (and unique where claimed), the same seed gives
the same instance, explicit knobs override the level and bad knob values are refused.
Family-specific rules (longer plans where a shortest one is asked, changed givens) follow.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import palaestra
from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.grids.binairo import BinairoTask
from palaestra.envs.tasks.grids.futoshiki import FutoshikiTask
from palaestra.envs.tasks.grids.kenken import KenKenTask
from palaestra.envs.tasks.grids.light_up import LightUpTask
from palaestra.envs.tasks.grids.magic_square import MagicSquareTask
from palaestra.envs.tasks.grids.n_queens import NQueensTask
from palaestra.envs.tasks.grids.nonogram import NonogramTask
from palaestra.envs.tasks.grids.skyscrapers import SkyscrapersTask
from palaestra.envs.tasks.grids.star_battle import StarBattleTask
from palaestra.envs.tasks.grids.sudoku import SudokuTask
from palaestra.envs.tasks.planning import rush_hour
from palaestra.envs.tasks.planning.blocksworld_plan import BlocksworldPlanTask
from palaestra.envs.tasks.planning.hanoi_plan import HanoiPlanTask
from palaestra.envs.tasks.planning.maze_path import MazePathTask
from palaestra.envs.tasks.planning.rush_hour import RushHourTask
from palaestra.envs.tasks.planning.sliding_puzzle_plan import SlidingPuzzlePlanTask
from palaestra.envs.tasks.planning.sokoban_plan import SokobanPlanTask
from palaestra.verdict import Status

TASKS = [
    SudokuTask,
    FutoshikiTask,
    KenKenTask,
    SkyscrapersTask,
    NonogramTask,
    BinairoTask,
    LightUpTask,
    StarBattleTask,
    NQueensTask,
    MagicSquareTask,
    HanoiPlanTask,
    BlocksworldPlanTask,
    SokobanPlanTask,
    RushHourTask,
    SlidingPuzzlePlanTask,
    MazePathTask,
]
# Test ids name the registry id, so that `pytest -k Sudoku` selects a family's cases.
ENV_IDS = {spec.entry_point.partition(":")[0]: spec.id for spec in palaestra.list_envs()}
CASES = [(t, level) for t in TASKS for level in (2, 6)]
IDS = [f"{ENV_IDS[t.__module__]}-L{level}" for t, level in CASES]


@pytest.mark.parametrize("task_class, level", CASES, ids=IDS)
def test_oracle_scores_one_and_the_instance_is_certified(task_class, level):
    task = task_class.from_level(level)
    for seed in range(3):
        problem = task.problem(seed, 5)
        verdict = task.verify(task.slot(task.solve(problem)), problem)
        assert verdict.score == 1.0 and verdict.status is Status.CORRECT, verdict.reason
        certificate = task.certify(problem)
        assert certificate.solvable
        assert certificate.unique or not task.unique


@pytest.mark.parametrize("task_class, level", CASES, ids=IDS)
def test_wrong_hedged_and_padded_answers_score_zero(task_class, level):
    task = task_class.from_level(level)
    problem = task.problem(11, 0)
    reference = task.solve(problem)
    mutants = task.mutations(problem)
    assert mutants
    for mutant in mutants:
        assert task.verify(task.slot(mutant), problem).score == 0.0, mutant
    mutant = mutants[0]
    for completion in (
        f"<answer>{reference} or {mutant}</answer>",
        f"<answer>{reference}</answer> or <answer>{mutant}</answer>",
        f"<answer>{reference}\n{reference}</answer>",
        f"<answer>{reference} (I am not sure)</answer>",
        f"<answer>The answer is {reference}</answer>",
        "<answer></answer>",
    ):
        assert task.verify(completion, problem).score == 0.0, completion


@pytest.mark.parametrize("task_class", TASKS, ids=[ENV_IDS[t.__module__] for t in TASKS])
def test_same_seed_same_instance_and_items_differ(task_class):
    task = task_class.from_level(4)
    assert task.problem(5, 2) == task_class.from_level(4).problem(5, 2)
    prompts = {task.problem(5, index).prompt for index in range(6)}
    assert len(prompts) > 1


@pytest.mark.parametrize("task_class", TASKS, ids=[ENV_IDS[t.__module__] for t in TASKS])
def test_explicit_knobs_override_the_level_and_bad_values_are_refused(task_class):
    high = task_class.level_config(2)
    changed = next(
        f.name
        for f in dataclasses.fields(high)
        if getattr(high, f.name) != getattr(task_class.level_config(1), f.name)
    )
    task = task_class.from_level(1, **{changed: getattr(high, changed)})
    assert getattr(task.config, changed) == getattr(high, changed)
    with pytest.raises(ValueError, match=changed):
        task_class.from_level(1, **{changed: "many"})


def _round_trip_detour(task, problem, forward: str, back: str) -> str:
    """The reference plan with a move and its undoing put in front of it."""
    return f"{forward} {back} {task.solve(problem)}"


def test_hanoi_a_legal_longer_plan_scores_zero():
    task = HanoiPlanTask.from_level(3)
    problem = task.problem(1)
    first = task.solve(problem).split()[0]
    detour = _round_trip_detour(task, problem, first, first[::-1])
    verdict = task.verify(task.slot(detour), problem)
    assert verdict.score == 0.0 and verdict.status is Status.INCORRECT


def test_maze_a_longer_walk_scores_zero_and_a_wall_move_is_illegal():
    task = MazePathTask.from_level(3)
    problem = task.problem(2)
    plan = task.solve(problem)
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}
    longer = plan[0] + back[plan[0]] + plan
    assert task.verify(task.slot(longer), problem).score == 0.0
    assert task.verify(task.slot(plan[:-1]), problem).score == 0.0


def test_sliding_puzzle_a_longer_plan_scores_zero_where_the_shortest_is_asked():
    task = SlidingPuzzlePlanTask.from_level(4)
    problem = task.problem(3)
    assert problem.data["optimal"]
    first = task.solve(problem).split()[0]
    detour = _round_trip_detour(task, problem, first, first)
    assert task.verify(task.slot(detour), problem).score == 0.0


def test_sudoku_changing_a_given_scores_zero():
    task = SudokuTask.from_level(1)
    problem = task.problem(4)
    n = problem.data["size"]
    rows = [list(map(int, line.split())) for line in task.solve(problem).splitlines()]
    r, c = next((r, c) for r in range(n) for c in range(n) if problem.data["givens"][r][c])
    # Swapping two columns keeps the rows and columns Latin but moves the givens.
    other = (c + 1) % n
    for row in rows:
        row[c], row[other] = row[other], row[c]
    answer = "\n".join(" ".join(map(str, row)) for row in rows)
    assert task.verify(task.slot(answer), problem).score == 0.0


def test_n_queens_any_valid_completion_scores_and_a_clash_does_not():
    task = NQueensTask.from_level(1)
    problem = Problem("", "Q....\n..Q..\n....Q\n.Q...\n...Q.", {"size": 5, "given": [[0, 0]]})
    other = "Q....\n...Q.\n.Q...\n....Q\n..Q.."
    assert task.verify(task.slot(other), problem).score == 1.0
    clash = "Q....\n.Q...\n...Q.\n....Q\n..Q.."
    assert task.verify(task.slot(clash), problem).status is Status.INCORRECT
    moved = ".Q...\n...Q.\nQ....\n..Q..\n....Q"
    assert task.verify(task.slot(moved), problem).score == 0.0


@pytest.mark.parametrize("level", [1, 3, 5])
def test_rush_hour_starts_need_exactly_the_levels_moves(level):
    task = RushHourTask.from_level(level)
    for index in range(4):
        problem = task.problem(11, index)
        assert problem.data["fewest"] == len(problem.reference) == task.config.min_moves
        assert task.certify(problem).solvable


def test_rush_hour_lots_told_jammed_can_never_free_x():
    """Every lot the filter rejects is confirmed jammed by a search over grids."""
    rng = np.random.default_rng(7)
    rejected = 0
    for _ in range(300):
        kinds, positions = [0], [int(rng.integers(0, 4))]
        taken = int(rush_hour.KIND_MASKS[0, positions[0] + rush_hour.PAD])
        for _ in range(14):
            fits = np.flatnonzero((rush_hour.PLACE_MASK & taken) == 0)
            if not len(fits):
                break
            pick = int(fits[rng.integers(len(fits))])
            kinds.append(int(rush_hour.PLACE_KIND[pick]))
            positions.append(int(rush_hour.PLACE_AT[pick]))
            taken |= int(rush_hour.PLACE_MASK[pick])
        if not rush_hour.jammed(np.array([kinds]), np.array([positions]))[0]:
            continue
        rejected += 1
        names = "XABCDEFGHIJKLMN"[: len(kinds)]
        named = [
            dataclasses.replace(rush_hour.KINDS[k], name=n)
            for k, n in zip(kinds, names, strict=True)
        ]
        start = "".join(rush_hour.draw(named, tuple(positions)))
        seen, frontier = {start}, {start}
        while frontier:
            frontier = {g for f in frontier for g in rush_hour._grid_moves(f)} - seen
            seen |= frontier
        exit_cell = rush_hour.EXIT_ROW * rush_hour.SIZE + rush_hour.SIZE - 1
        assert all(grid[exit_cell] != "X" for grid in seen)
    assert rejected > 20
