"""The `Task` API's shared answer extraction, as a family's checker sees it."""

from __future__ import annotations

import dataclasses

from palaestra.envs.tasks.base import Certificate, Problem, Task
from palaestra.verdict import Status


@dataclasses.dataclass(frozen=True)
class _EchoConfig:
    pass


class _EchoTask(Task[_EchoConfig]):
    """Records the text `check` is given."""

    name = "echo"
    Config = _EchoConfig

    @classmethod
    def level_config(cls, level):
        return _EchoConfig()

    def generate(self, rng):
        return Problem("Say 12-3.", "12-3")

    def solve(self, problem):
        return problem.reference

    def check(self, answer, problem):
        self.seen = answer
        if answer == problem.reference:
            return self.correct(answer, problem)
        return self.wrong(answer, problem, "different")

    def certify(self, problem):
        return Certificate(1)

    def mutations(self, problem):
        return ["12-4"]

    def work(self, problem):
        return 1.0


def test_the_checker_gets_the_slot_text_with_unicode_look_alikes_folded_to_ascii():
    task = _EchoTask(_EchoConfig())
    problem = task.problem(0)
    # Full-width digits, a minus sign and a zero-width space around the slot's text.
    verdict = task.verify("<think>x</think><answer> \uff11\uff12\u2212\u200b3 </answer>", problem)
    assert task.seen == "12-3"
    assert verdict.status is Status.CORRECT and verdict.score == 1.0
