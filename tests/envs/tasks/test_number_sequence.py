"""Number sequences: rules the generic quality bar cannot know."""

from __future__ import annotations

from fractions import Fraction

from palaestra.envs.tasks.induction.number_sequence import (
    AMBIGUOUS,
    NumberSequenceTask,
    _refit,
    continuations,
)


def test_too_few_terms_are_ambiguous():
    # 1, 2, 4 could double or add 1, 2, 3, ...
    assert len(continuations([1, 2, 4], 1)) > 1
    assert len(continuations([1, 2, 4, 8, 16, 32], 1)) == 1


def test_families_predict_what_they_should():
    assert continuations([1, 1, 2, 3, 5, 8, 13], 2) == {(Fraction(21), Fraction(34))}
    assert continuations([1, 4, 9, 16, 25, 36], 1) == {(Fraction(49),)}
    assert continuations([3, 10, 4, 20, 5, 30, 6], 1) == {(Fraction(40),)}
    assert AMBIGUOUS not in continuations([2, 3, 6, 7, 14, 15, 30], 1)


def test_the_certificate_refits_the_family_on_its_own():
    assert [41] in _refit([1, 2, 5, 14], 1)  # affine: t' = 3t - 1
    assert [49] in _refit([1, 4, 9, 16, 25, 36], 1)


def test_generated_rules_are_identifiable_and_answers_strict():
    task = NumberSequenceTask.from_level(8)
    problem = task.problem(5)
    assert continuations(problem.data["shown"], problem.data["asked"]) == {
        tuple(Fraction(x) for x in problem.reference)
    }
    reference = ", ".join(str(x) for x in problem.reference)
    assert task.verify(f"<answer>[{reference}]</answer>", problem).score == 1
    assert task.verify(f"<answer>{reference}, 0</answer>", problem).score == 0
