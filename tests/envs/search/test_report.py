"""ResearchReport: a report scores the F1 of the facts it states, found by searching."""

from __future__ import annotations

import pytest

from palaestra.envs.search.report import ResearchReportEnv


def play(env, seed, policy):
    env.reset(seed=seed)
    total, done, info = 0.0, False, {}
    while not done:
        _, reward, terminated, truncated, info = env.step(policy(env))
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("protocol", ["tools", "tags"])
def test_the_oracle_reports_every_fact(protocol):
    env = ResearchReportEnv(protocol=protocol)
    kinds = set()
    for seed in range(30):
        total, info = play(env, seed, ResearchReportEnv.oracle_action)
        assert total == 1.0, (seed, info["verdict"])
        kinds.add(env.world.entities[env.subject].kind)
    assert kinds == {"person", "organisation", "city", "event"}


def test_reports_without_searching_wrong_facts_and_padding_score_little():
    env = ResearchReportEnv()
    assert play(env, 0, ResearchReportEnv.no_search_action)[0] == 0.0
    env.reset(seed=4)
    report = env.question.answers[0]
    # Before any search even the perfect report scores 0: its facts were not found.
    assert env.score(f"<answer>{report}</answer>").score == 0.0
    env.step(env.oracle_action())
    env.step(env.oracle_action())
    assert env.score(f"<answer>{report}</answer>").score == 1.0
    assert 0 < env.score(f"<answer>{report} Also 1234.</answer>").score < 1.0
    padded = " ".join(sorted(env.world.names)) + " " + report
    assert env.score(f"<answer>{padded}</answer>").score < 0.01


def test_report_arguments_are_checked():
    with pytest.raises(ValueError, match="does not take level="):
        ResearchReportEnv(level=2)
