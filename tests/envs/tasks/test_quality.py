"""The quality bar, for every procedural task family at levels 1, 5 and 10 over many seeds.

The reference scores 1 after a JSON round trip; an independent solver certifies solvability
(and uniqueness where claimed); other correct answers are accepted; one-step mutations,
other instances' answers, hedged and padded answers score below 1; garbage never crashes
the checker; the same seed gives the same instance across processes; levels change the
config and the oracle's work grows with the level; duplicates stay rare.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys

import numpy as np
import pytest

import palaestra
from palaestra.envs.tasks.base import TaskEnv
from palaestra.registration import load_entry_point
from palaestra.verdict import Status

SEEDS = range(8)
DUPLICATE_SAMPLE = 150


def _task_specs():
    specs = []
    for spec in palaestra.list_envs():
        factory = load_entry_point(spec.entry_point)
        if isinstance(factory, type) and issubclass(factory, TaskEnv):
            specs.append(spec)
    return specs


SPECS = _task_specs()
FAMILIES = {spec.id: load_entry_point(spec.entry_point).task_class for spec in SPECS}


def _levels(task_class):
    low, high = task_class.levels
    return sorted({low, min(max(5, low), high), high})


CASES = [
    (env_id, level) for env_id, task_class in FAMILIES.items() for level in _levels(task_class)
]
IDS = [f"{env_id}-L{level}" for env_id, level in CASES]


@pytest.fixture(scope="module")
def problems():
    cache = {}

    def get(env_id, level):
        if (env_id, level) not in cache:
            task = FAMILIES[env_id].from_level(level)
            cache[env_id, level] = (task, [task.problem(seed, 0) for seed in SEEDS])
        return cache[env_id, level]

    return get


def score(task, completion, problem) -> float:
    return task.verify(completion, problem).score


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_reference_scores_one_after_a_json_round_trip(problems, env_id, level):
    task, items = problems(env_id, level)
    for problem in items:
        back = problem.round_trip()
        assert back == problem or json.dumps(back.to_json(), sort_keys=True) == json.dumps(
            problem.to_json(), sort_keys=True
        )
        verdict = task.verify(task.slot(task.solve(back)), back)
        assert verdict.score == 1.0 and verdict.status is Status.CORRECT, verdict.reason


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_independent_solver_certifies(problems, env_id, level):
    task, items = problems(env_id, level)
    for problem in items:
        certificate = task.certify(problem)
        assert certificate.solvable, f"unsolvable instance: {problem.prompt[:200]}"
        if task.unique:
            assert certificate.unique, (
                f"{certificate.solutions} solutions where one is claimed: {problem.prompt[:200]}"
            )


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_other_correct_answers_are_accepted(problems, env_id, level):
    task, items = problems(env_id, level)
    for problem in items:
        for alternative in task.alternatives(problem):
            verdict = task.verify(task.slot(alternative), problem)
            assert verdict.score == 1.0, f"{alternative!r} rejected: {verdict.reason}"


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_every_family_submits_answers_other_than_its_reference(problems, env_id, level):
    """Without them the bar above proves nothing: a family must offer other correct answers
    (other solutions where several exist, other spellings where the answer is unique)."""
    task, items = problems(env_id, level)
    offered = [a for p in items for a in task.alternatives(p) if a != task.solve(p)]
    assert offered, f"{env_id} offers no correct answer other than its reference"


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_one_step_mutations_score_below_one(problems, env_id, level):
    task, items = problems(env_id, level)
    for problem in items:
        mutants = task.mutations(problem)
        assert mutants, "a family must offer one-step mutations of its reference"
        for mutant in mutants:
            verdict = task.verify(task.slot(mutant), problem)
            assert verdict.score < 1.0, f"mutation {mutant!r} accepted: {verdict.reason}"


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_answers_of_other_instances_score_below_one(problems, env_id, level):
    task, items = problems(env_id, level)
    answers = [task.solve(p) for p in items]
    for i, problem in enumerate(items):
        for j, other in enumerate(answers):
            if j != i and other != answers[i] and problem.prompt != items[j].prompt:
                assert score(task, task.slot(other), problem) < 1.0, (
                    f"instance {j}'s answer solves instance {i}"
                )


def _hedges(reference: str, mutant: str) -> dict[str, str]:
    return {
        "or": f"<answer>{reference} or {mutant}</answer>",
        "two_tags": f"<answer>{reference}</answer> or maybe <answer>{mutant}</answer>",
        "two_tags_reversed": (
            f"<answer>{mutant}</answer> hmm, <answer>{reference}</answer> or "
            f"<answer>{mutant}</answer>"
        ),
        "candidates": f"<answer>{reference}; {mutant}</answer>",
        "empty": "<answer></answer>",
        "no_tags": reference,
        "only_in_think": f"<think><answer>{reference}</answer></think>",
        "padded": f"<answer>{reference} (or possibly something else entirely)</answer>",
        "yes_no": "<answer>Yes No True False Unknown</answer>",
        "restated_wrong": f"<answer>{reference}</answer>\nFinal answer: {mutant}",
    }


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_hedged_and_padded_answers_earn_nothing(problems, env_id, level):
    task, items = problems(env_id, level)
    for problem in items[:4]:
        reference = task.solve(problem)
        mutant = task.mutations(problem)[0]
        for name, completion in _hedges(reference, mutant).items():
            verdict = task.verify(completion, problem)
            assert verdict.score == 0.0, (
                f"{name}: {completion[:200]!r} earned {verdict.score} ({verdict.reason})"
            )


GARBAGE = [
    "",
    "<answer>",
    "<answer>" + "9" * 5000 + "</answer>",
    "<answer>" + "x" * 300_000 + "</answer>",
    "<answer>𝕏∑√∞ 中文 ＡＢＣ \u202e\x00\x1b[31m</answer>",
    "<answer>None</answer>",
    "<answer>[[[[[[</answer>",
    '<answer>{"a": </answer>',
    None,
    12,
    "</think>" * 1000,
    "<answer>-1e999999</answer>",
]


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_garbage_returns_a_verdict_never_an_exception(problems, env_id, level):
    task, items = problems(env_id, level)
    for completion in GARBAGE:
        verdict = task.verify(completion, items[0])
        assert verdict.status is not Status.ERROR, (
            f"the checker crashed on {str(completion)[:60]!r}: {verdict.reason}"
        )
        assert verdict.score == 0.0


@pytest.mark.parametrize("env_id", sorted(FAMILIES))
def test_levels_change_the_config_and_the_work_grows(env_id):
    task_class = FAMILIES[env_id]
    levels = _levels(task_class)
    configs = [task_class.level_config(level) for level in levels]
    assert len({repr(c) for c in configs}) == len(configs), "some levels share a config"
    work = []
    for level in levels:
        task = task_class.from_level(level)
        work.append(statistics.mean(task.work(task.problem(seed, 1)) for seed in range(6)))
    assert all(a <= b for a, b in zip(work, work[1:], strict=False)) and work[0] < work[-1], (
        f"work by level {dict(zip(levels, work, strict=True))}"
    )


@pytest.mark.parametrize("env_id", sorted(FAMILIES))
def test_knobs_override_the_level_and_unknown_knobs_are_rejected(env_id):
    task_class = FAMILIES[env_id]
    with pytest.raises(TypeError, match="does not accept"):
        task_class.from_level(1, no_such_knob=1)
    with pytest.raises(ValueError, match="level"):
        task_class.from_level(0)
    with pytest.raises(TypeError, match="does not accept"):
        palaestra.make(env_id, no_such_knob=1)


@pytest.mark.parametrize("env_id, level", CASES, ids=IDS)
def test_duplicates_are_rare(env_id, level):
    task = FAMILIES[env_id].from_level(level)
    allowed = task.duplicate_allowance.get(level, 0.01)
    prompts = [task.problem(0, index).prompt for index in range(DUPLICATE_SAMPLE)]
    rate = 1 - len(set(prompts)) / len(prompts)
    assert rate <= allowed, f"duplicate rate {rate:.1%} at level {level}"


@pytest.mark.parametrize("env_id", sorted(FAMILIES))
def test_items_use_independent_streams_and_leave_global_rng_alone(env_id):
    random.seed(3)
    np.random.seed(3)
    before = (random.getstate(), np.random.get_state()[1].copy())
    task_class = FAMILIES[env_id]
    task = task_class.from_level(task_class.levels[0])
    assert task.problem(100, 1) != task.problem(101, 0) or task.problem(100, 1) == task.problem(
        7, 7
    )
    assert random.getstate() == before[0] and (np.random.get_state()[1] == before[1]).all()


DIGEST = """
import hashlib, json, sys
from palaestra.registration import load_entry_point
import palaestra
out = {}
task_class = load_entry_point(palaestra.spec(sys.argv[1]).entry_point).task_class
for level in sorted({task_class.levels[0], task_class.levels[1]}):
    task = task_class.from_level(level)
    rows = [task.problem(seed, 3).to_json() for seed in range(3)]
    out[level] = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
print(json.dumps(out))
"""


@pytest.mark.parametrize("env_id", sorted(FAMILIES))
def test_same_seed_same_instance_across_processes(subprocess_env, env_id):
    digests = []
    for hash_seed in ("0", "4242"):
        run = subprocess.run(
            [sys.executable, "-c", DIGEST, env_id],
            capture_output=True,
            text=True,
            env=subprocess_env(PYTHONHASHSEED=hash_seed),
        )
        assert run.returncode == 0, run.stderr
        digests.append(json.loads(run.stdout))
    assert digests[0] == digests[1]
