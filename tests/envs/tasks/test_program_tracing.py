"""Program tracing: the interpreters agree with Python / each other; caps hold."""

from __future__ import annotations

import pytest

from palaestra.envs.tasks.base import Problem
from palaestra.envs.tasks.tracing.brainfuck import BrainfuckTask, StepLimit, run, run_scanning
from palaestra.envs.tasks.tracing.python_trace import PythonTraceTask


def test_the_tree_interpreter_agrees_with_python_on_generated_programs():
    for level in (3, 7, 10):
        task = PythonTraceTask.from_level(level)
        for seed in range(15):
            assert task.certify(task.problem(seed)).unique


def test_output_lines_must_match_exactly_up_to_spacing():
    task = PythonTraceTask.from_level(4)
    problem = Problem("", "3 7\n[1, 2]", {"source": "", "steps": 1})
    assert task.verify("<answer>\n3  7 \n[1, 2]\n</answer>", problem).score == 1.0
    assert task.verify("<answer>3 7\n[1,2]</answer>", problem).score == 0.0
    assert task.verify("<answer>print(3, 7)</answer>", problem).score == 0.0


def test_brainfuck_interpreters_agree_and_stop_at_the_step_cap():
    hello = "++++++++[>+++++++++++++<-]>.+++++."
    assert run(hello)[0] == run_scanning(hello) == "hm"
    assert run("-.")[0] == chr(255)
    with pytest.raises(StepLimit):
        run("+[]", max_steps=1000)
    with pytest.raises(StepLimit):
        run_scanning("+[]", max_steps=1000)


def test_brainfuck_answers_are_case_sensitive():
    task = BrainfuckTask.from_level(5)
    problem = Problem("", "Sunny", {"program": "", "steps": 1})
    assert task.verify("<answer> Sunny </answer>", problem).score == 1.0
    assert task.verify("<answer>sunny</answer>", problem).score == 0.0
