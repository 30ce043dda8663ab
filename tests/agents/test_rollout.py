"""The rollout engine: every registered env through the tokenizer, masks, failures, records."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest
from tests_support.envs import BrokenCrashEnv, BrokenHangEnv, InfraFailureEnv

import palaestra
from palaestra.agents.policy import Completion, PolicyError, SamplingParams
from palaestra.agents.rollout import (
    Episode,
    RolloutConfig,
    RolloutEngine,
    Task,
    pad_episodes,
    read_jsonl,
    write_jsonl,
)
from palaestra.agents.scripted import LatencyPolicy, OraclePolicy, RandomPolicy, ReplayPolicy
from palaestra.agents.tool_calls import action_message
from palaestra.core import Env, Step, user
from palaestra.errors import InfrastructureError
from palaestra.parsers import parse_action
from palaestra.verdict import Status, Verdict

ALL_IDS = [spec.id for spec in palaestra.list_envs()]


# --- envs for the failure tests ------------------------------------------------------------


class SayWord(Env):
    """Say the word shown (single turn)."""

    def __init__(self, word: str = "alpha"):
        self.word = word

    def _reset(self, options):
        return [user(f"Say {self.word}.")], {}

    def _step(self, action) -> Step:
        ok = (action.get("content") or "").strip() == self.word
        return self.finish(
            Verdict(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier="word")
        )

    def oracle_action(self) -> str:
        return self.word


class RaisingEnv(SayWord):
    def _step(self, action) -> Step:
        raise RuntimeError("the env broke")


class HangingEnv(SayWord):
    def _step(self, action) -> Step:
        time.sleep(20)
        return super()._step(action)


class AsyncHangingEnv(SayWord):
    async def _astep(self, action) -> Step:
        await asyncio.sleep(20)
        return self._step(action)


class FlakyResetEnv(SayWord):
    def _reset(self, options):
        raise InfrastructureError("the dataset server is down")


class SandboxEnv(SayWord):
    """Echoes each action through a child process; a dead child is an infrastructure failure."""

    def _reset(self, options):
        self.sandbox = subprocess.Popen(
            [sys.executable, "-u", "-c", "import sys\nfor line in sys.stdin: print(line.strip())"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return [user("Say anything twice.")], {}

    def _step(self, action) -> Step:
        try:
            self.sandbox.stdin.write((action.get("content") or "") + "\n")
            self.sandbox.stdin.flush()
            echoed = self.sandbox.stdout.readline()
        except (BrokenPipeError, OSError) as e:
            raise InfrastructureError(f"the sandbox died: {e}") from e
        if not echoed:
            raise InfrastructureError(f"the sandbox died (exit code {self.sandbox.wait()})")
        if self.turn >= 2:
            return self.finish(Verdict(1.0, Status.CORRECT, verifier="echo"))
        return Step([user(f"echo: {echoed.strip()}")], {"progress": 0.0})

    def oracle_action(self) -> str:
        return "again"

    def close(self) -> None:
        sandbox = getattr(self, "sandbox", None)
        if sandbox is not None and sandbox.poll() is None:
            sandbox.kill()
            sandbox.wait()
        super().close()


class GateEnv(SayWord):
    """Its sync step waits for a gate that only a coroutine on the event loop opens."""

    gate = threading.Event()

    def _step(self, action) -> Step:
        opened = self.gate.wait(10)
        verdict = Verdict(
            1.0 if opened else 0.0, Status.CORRECT if opened else Status.INCORRECT, verifier="gate"
        )
        return self.finish(verdict)


class CountingEnv(SayWord):
    made = 0
    closed = 0

    def __init__(self, word: str = "alpha"):
        super().__init__(word)
        CountingEnv.made += 1

    def close(self) -> None:
        CountingEnv.closed += 1
        super().close()


class DetailedVerdictEnv(SayWord):
    """A verdict whose details hold a tuple and a numpy number, as verifiers' details may."""

    def _step(self, action) -> Step:
        details = {"tried": ("alpha", "beta"), "count": np.int64(2)}
        verdict = Verdict(1.0, Status.CORRECT, answer="alpha", reason="said it", details=details)
        return self.finish(verdict)


class EndlessEnv(SayWord):
    def _step(self, action) -> Step:
        return Step([user("Go on.")], {"progress": 0.01})


@pytest.fixture
def ids(registered):
    """Registers the failure envs for one test."""

    def add(name, cls, **fields):
        return registered(
            name, cls, tags=("single-turn",), max_turns=fields.pop("max_turns", 5), **fields
        )

    return {
        "word": add("TestSayWord-v0", SayWord),
        "raise": add("TestRaising-v0", RaisingEnv),
        "hang": add("TestHanging-v0", HangingEnv),
        "ahang": add("TestAsyncHanging-v0", AsyncHangingEnv),
        "reset": add("TestFlakyReset-v0", FlakyResetEnv),
        "sandbox": add("TestSandbox-v0", SandboxEnv),
        "gate": add("TestGate-v0", GateEnv),
        "endless": add("TestEndless-v0", EndlessEnv, max_turns=None),
        "infra": add("TestInfra-v0", InfraFailureEnv),
        "count": add("TestCounting-v0", CountingEnv),
    }


def _skip_unavailable(env_id: str) -> None:
    if "needs-docker" in palaestra.spec(env_id).tags:
        try:
            from palaestra.sandbox import docker_available
        except ImportError:
            pytest.skip("no Docker backend is installed here")
        if not docker_available():
            pytest.skip("no Docker engine can be started on this machine")


def _direct_oracle_play(env_id: str, seed: int) -> tuple[list[dict[str, Any]], list[Any]]:
    env = palaestra.make(env_id)
    observation, _ = env.reset(seed=seed)
    messages, actions = list(observation), []
    for _ in range(200):
        action = env.oracle_action()
        actions.append(action)
        messages.append(action_message(action))
        observation, _, terminated, truncated, _ = env.step(action)
        messages.extend(observation)
        if terminated or truncated:
            break
    env.close()
    return messages, actions


def _same_action(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if not theirs.get("tool_calls"):
        return ours.get("content") == theirs.get("content") and not ours.get("tool_calls")
    mine = parse_action(ours, "openai").tool_calls
    reference = parse_action(theirs, "openai").tool_calls
    return [(c.name, c.arguments) for c in mine] == [(c.name, c.arguments) for c in reference]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_registered_env_plays_its_oracle_transcript_through_the_tokenizer(env_id, formatter):
    _skip_unavailable(env_id)
    seed = 11
    reference, actions = _direct_oracle_play(env_id, seed)
    native = any(isinstance(a, dict) for a in actions)
    engine = RolloutEngine(
        OraclePolicy(formatter),
        formatter,
        tool_parser="hermes" if native else None,
        sampling=SamplingParams(max_tokens=100_000),
    )
    (episode,) = engine.run([Task(env_id, seed=seed)])

    assert episode.status == "ok", episode.error
    assert episode.terminated and episode.success
    # The env transcript is reproduced exactly: same env messages, same actions.
    assert len(episode.messages) == len(reference)
    for ours, theirs in zip(episode.messages, reference, strict=True):
        if theirs["role"] == "assistant":
            assert _same_action(ours, theirs), (ours, theirs)
        else:
            assert ours == theirs
    # The loss mask is 1 on exactly the sampled tokens.
    mask = np.array(episode.loss_mask)
    in_spans = np.zeros(len(mask), dtype=bool)
    for (start, end), action in zip(episode.turn_spans, actions, strict=True):
        in_spans[start:end] = True
        sampled = episode.completion_ids[start:end]
        assert sampled[-1] == formatter.eot_id  # the oracle's turn ends with a sampled end token
        text = formatter.completion_text(sampled)
        expected = (
            action
            if isinstance(action, str)
            else formatter.completion_text(formatter.action_ids(action))
        )
        assert text == expected
    assert np.array_equal(mask == 1, in_spans)
    assert len(episode.completion_ids) == len(mask) == len(episode.logprobs)
    # Generation prompts and env text (everything outside the spans) carry mask 0, and the
    # ids equal a full re-template of the transcript.
    assert episode.drift is not None and episode.drift["ok"], episode.drift
    assert (
        len(episode.turn_rewards)
        == len(episode.state_keys)
        == len(episode.turn_spans)
        == len(actions)
    )


def test_a_thousand_concurrent_episodes_complete(formatter):
    engine = RolloutEngine(
        OraclePolicy(formatter), formatter, max_concurrency=1000, check_drift=False
    )
    tasks = [Task("GuessNumber-v0" if i % 2 else "Arithmetic-v0", seed=i) for i in range(1000)]
    episodes = engine.run(tasks)
    assert len(episodes) == 1000 == engine.stats.episodes
    assert all(e.status == "ok" and e.success for e in episodes)
    assert engine.stats.masked == 0 and engine.stats.turns == sum(e.num_turns for e in episodes)


def test_failures_mask_their_episode_and_the_run_goes_on(ids, formatter):
    engine = RolloutEngine(OraclePolicy(formatter), formatter, env_timeout_s=0.5)
    tasks = [
        Task(ids["word"], seed=0),
        Task(ids["raise"], seed=0),
        Task(ids["hang"], seed=0),
        Task(ids["ahang"], seed=0),
        Task(ids["reset"], seed=0),
        Task(ids["word"], kwargs={"colour": "red"}),
        Task(ids["infra"], seed=0),
    ]
    episodes = engine.run(tasks)
    by_env = {(e.env_id, e.seed, tuple(e.env_kwargs)): e for e in episodes}
    ok = by_env[(ids["word"], 0, ())]
    assert ok.status == "ok" and ok.success and not ok.mask
    raised = by_env[(ids["raise"], 0, ())]
    assert (raised.status, raised.mask) == ("error", True) and "the env broke" in raised.error
    for key in ("hang", "ahang"):
        hung = by_env[(ids[key], 0, ())]
        assert (hung.status, hung.mask, hung.truncated) == ("timeout", True, True), hung.error
        assert "env_timeout_s" in hung.error
    reset = by_env[(ids["reset"], 0, ())]
    assert (reset.status, reset.mask) == ("error", True) and "dataset server" in reset.error
    bad_kwargs = by_env[(ids["word"], None, ("colour",))]
    assert bad_kwargs.mask and "colour" in bad_kwargs.error
    infra = by_env[(ids["infra"], 0, ())]
    assert (infra.status, infra.mask) == (
        "error",
        True,
    ) and "judge server is unreachable" in infra.error
    assert infra.turn_rewards == [0.0] and infra.success is None
    assert engine.stats.masked == 6 and engine.stats.abandoned_env_calls >= 1


def test_the_shared_broken_envs_mask_their_episodes(registered, formatter):
    crash = registered("TestBrokenCrash-v0", BrokenCrashEnv, tags=("single-turn",), max_turns=1)
    hang = registered("TestBrokenHang-v0", BrokenHangEnv, tags=("single-turn",), max_turns=1)
    # An empty reply: the crashing env raises on it, the hanging env sleeps 30 s.
    engine = RolloutEngine(ReplayPolicy([""], formatter), formatter, env_timeout_s=0.5)
    crashed, hung = engine.run([Task(crash, seed=0), Task(hang, seed=0)])
    assert (crashed.status, crashed.mask) == ("error", True)
    assert "unexpected answer" in crashed.error and crashed.num_turns == 1
    assert (hung.status, hung.mask, hung.truncated) == ("timeout", True, True)
    assert "env_timeout_s=0.5" in hung.error and engine.stats.abandoned_env_calls == 1


def test_a_dead_sandbox_masks_the_episode(ids, formatter):
    class Killer(OraclePolicy):
        async def generate(self, requests):
            for request in requests:
                if request.context.turn == 1:
                    request.context.env.unwrapped.sandbox.kill()
                    request.context.env.unwrapped.sandbox.wait()
            return await super().generate(requests)

    healthy, killed = (
        RolloutEngine(OraclePolicy(formatter), formatter).run([Task(ids["sandbox"], seed=0)]),
        RolloutEngine(Killer(formatter), formatter).run([Task(ids["sandbox"], seed=0)]),
    )
    assert healthy[0].status == "ok" and healthy[0].success and healthy[0].num_turns == 2
    (episode,) = killed
    assert (episode.status, episode.mask, episode.truncated) == ("error", True, True)
    assert "sandbox died" in episode.error
    assert (
        episode.num_turns == 2
        and episode.turn_rewards[-1] == 0.0
        and episode.reward_parts[-1] == {}
    )


def test_a_dead_python_tool_sandbox_masks_the_episode(formatter):
    """The real thing: PythonTool-v0's default sandbox session is killed between turns."""

    class Killer(OraclePolicy):
        async def generate(self, requests):
            for request in requests:
                sessions = request.context.env.unwrapped._sessions
                if request.context.turn == 1:
                    assert sessions, "the first tool call should have opened a sandbox session"
                    for session in sessions.values():
                        session._channel.kill()
            return await super().generate(requests)

    engine = RolloutEngine(Killer(formatter), formatter, tool_parser="hermes")
    (killed,) = engine.run([Task("PythonTool-v0", seed=0)])
    assert (killed.status, killed.mask, killed.truncated) == ("error", True, True)
    assert "sandbox" in killed.error and killed.num_turns == 2 and killed.success is None
    (healthy,) = RolloutEngine(OraclePolicy(formatter), formatter, tool_parser="hermes").run(
        [Task("PythonTool-v0", seed=0)]
    )
    assert healthy.status == "ok" and healthy.success and healthy.num_turns > 2


def test_policy_failures_and_timeouts_are_masked(formatter, ids):
    class Broken:
        async def generate(self, requests):
            raise PolicyError("the server is gone")

    class Slow:
        async def generate(self, requests):
            await asyncio.sleep(20)

    (gone,) = RolloutEngine(Broken(), formatter).run([Task(ids["word"])])
    assert (gone.status, gone.mask) == ("error", True) and "server is gone" in gone.error
    (slow,) = RolloutEngine(Slow(), formatter, policy_timeout_s=0.2).run([Task(ids["word"])])
    assert (slow.status, slow.mask) == ("timeout", True)
    (whole,) = RolloutEngine(
        LatencyPolicy(OraclePolicy(formatter), 0.2), formatter, episode_timeout_s=0.5
    ).run([Task(ids["endless"])])
    assert (whole.status, whole.mask) == ("timeout", True) and whole.num_turns >= 1
    with pytest.raises(PolicyError):
        RolloutEngine(Broken(), formatter, fail_fast=True).run([Task(ids["word"])])


def test_sync_envs_never_block_the_event_loop(ids, formatter):
    GateEnv.gate.clear()
    engine = RolloutEngine(OraclePolicy(formatter), formatter)

    async def main():
        async def open_gate():
            await asyncio.sleep(0.2)
            GateEnv.gate.set()

        episodes, _ = await asyncio.gather(
            engine.arun([Task(ids["gate"], seed=s) for s in range(4)]), open_gate()
        )
        return episodes

    episodes = asyncio.run(main())
    assert all(e.success for e in episodes), "a sync env step ran on the event loop and blocked it"


def test_envs_are_reused_across_tasks_and_closed_at_the_end(ids, formatter):
    CountingEnv.made = CountingEnv.closed = 0
    tasks = [Task(ids["count"], seed=s) for s in range(10)] + [
        Task(ids["count"], kwargs={"word": "beta"})
    ]
    engine = RolloutEngine(OraclePolicy(formatter), formatter, max_concurrency=2, prefetch=0)
    assert all(e.success for e in engine.run(tasks))
    # One env per slot, plus one for the other kwargs; all closed at the end.
    assert CountingEnv.made <= 3 and CountingEnv.closed == CountingEnv.made
    CountingEnv.made = CountingEnv.closed = 0
    RolloutEngine(OraclePolicy(formatter), formatter, max_concurrency=2, prefetch=2).run(tasks)
    assert CountingEnv.made <= 5 and CountingEnv.closed == CountingEnv.made  # and prefetched ones
    CountingEnv.made = CountingEnv.closed = 0
    RolloutEngine(OraclePolicy(formatter), formatter, max_concurrency=2, reuse_envs=False).run(
        tasks
    )
    assert CountingEnv.made == CountingEnv.closed == 11


def test_turn_and_token_budgets_truncate(ids, formatter):
    turns = RolloutEngine(OraclePolicy(formatter), formatter, max_turns=3).run(
        [Task(ids["endless"])]
    )[0]
    assert (turns.truncated, turns.truncation, turns.num_turns, turns.mask) == (
        True,
        "max_turns",
        3,
        False,
    )
    tokens = RolloutEngine(OraclePolicy(formatter), formatter, max_episode_tokens=40).run(
        [Task(ids["endless"])]
    )[0]
    assert tokens.truncated and tokens.truncation == "token_budget" and not tokens.mask
    assert (
        len(tokens.ids)
        >= 40
        > len(tokens.ids) - (tokens.turn_spans[-1][1] - tokens.turn_spans[-1][0]) - 20
    )
    cut = RolloutEngine(
        OraclePolicy(formatter), formatter, sampling=SamplingParams(max_tokens=2)
    ).run([Task("Arithmetic-v0", seed=0)])[0]
    assert cut.finish_reasons == ["length"] and not cut.success
    start, end = cut.turn_spans[0]
    assert end - start == 2 and cut.loss_mask[start:end] == [1, 1]
    assert (
        cut.completion_ids[end] == formatter.eot_id and cut.loss_mask[end] == 0
    )  # re-added end token


def test_groups_share_env_and_seed(formatter):
    engine = RolloutEngine(RandomPolicy(formatter, seed=0), formatter, samples_per_task=4)
    episodes = engine.run(
        [Task("GuessNumber-v0", seed=5), Task("Arithmetic-v0", seed=6, kwargs={"level": 2})]
    )
    groups: dict[str, list[Episode]] = {}
    for episode in episodes:
        groups.setdefault(episode.group_id, []).append(episode)
    assert len(groups) == 2 and all(len(g) == 4 for g in groups.values())
    for group in groups.values():
        assert len({tuple(e.prompt_ids) for e in group}) == 1
        assert [e.sample_index for e in group] == [0, 1, 2, 3]
        assert len({(e.env_id, e.seed, json.dumps(e.env_kwargs)) for e in group}) == 1
    assert {e.env_kwargs.get("level") for e in episodes} == {None, 2}


def test_episodes_round_trip_through_jsonl_and_replay_exactly(tmp_path, formatter):
    engine = RolloutEngine(
        RandomPolicy(formatter, seed=1), formatter, samples_per_task=2, max_turns=4
    )
    episodes = engine.run([Task("GuessNumber-v0", seed=3), Task("Calculator-v0", seed=4)])
    path = tmp_path / "episodes.jsonl"
    assert write_jsonl(episodes, path) == 4
    loaded = read_jsonl(path)
    assert [e.to_dict() for e in loaded] == [e.to_dict() for e in episodes]
    assert loaded[0].state_keys == episodes[0].state_keys and isinstance(
        loaded[0].state_keys[0], tuple
    )
    replayed = RolloutEngine(
        ReplayPolicy.from_episodes(loaded), formatter, samples_per_task=2, max_turns=4
    ).run([Task("GuessNumber-v0", seed=3), Task("Calculator-v0", seed=4)])
    for a, b in zip(replayed, episodes, strict=True):
        assert (a.ids, a.loss_mask, a.logprobs, a.turn_rewards, a.messages) == (
            b.ids,
            b.loss_mask,
            b.logprobs,
            b.turn_rewards,
            b.messages,
        )
    (tmp_path / "bad.jsonl").write_text('{"env_id": "x", "surprise": 1}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        read_jsonl(tmp_path / "bad.jsonl")


def test_the_final_verdict_is_recorded_as_plain_data(tmp_path, formatter, ids, registered):
    detailed = registered("TestDetailedVerdict-v0", DetailedVerdictEnv, max_turns=1)
    found, said, endless = RolloutEngine(OraclePolicy(formatter), formatter, max_turns=20).run(
        [Task("GuessNumber-v0", seed=0), Task(detailed), Task(ids["endless"])]
    )
    secret = int(found.messages[-2]["content"].removeprefix("<guess>").removesuffix("</guess>"))
    assert found.verdict == {
        "score": 1.0,
        "status": "correct",
        "answer": secret,
        "reference": secret,
        "reason": f"found in {found.num_turns} guesses",
        "elapsed_s": 0.0,
        "mask": False,
        "verifier": "guess_number",
        "details": {},
    }
    # What the record holds is what a reader gets back from the file.
    assert said.verdict["details"] == {"tried": ["alpha", "beta"], "count": 2}
    assert said.verdict["reason"] == "said it" and said.step is None
    assert endless.truncation == "max_turns" and endless.verdict is None  # no verdict given
    write_jsonl([found, said, endless], tmp_path / "episodes.jsonl")
    loaded = read_jsonl(tmp_path / "episodes.jsonl")
    assert [e.to_dict() for e in loaded] == [e.to_dict() for e in (found, said, endless)]
    # A file written before episodes kept a verdict and a step still reads.
    (tmp_path / "old.jsonl").write_text(json.dumps({"env_id": "GuessNumber-v0"}) + "\n")
    (old,) = read_jsonl(tmp_path / "old.jsonl")
    assert old.verdict is None and old.step is None


def test_padding_is_masked(formatter):
    episodes = RolloutEngine(OraclePolicy(formatter), formatter).run(
        [Task("Arithmetic-v0", seed=0), Task("GuessNumber-v0", seed=0)]
    )
    batch = pad_episodes(episodes, pad_id=0)
    assert batch["input_ids"].shape == batch["loss_mask"].shape
    for row, episode in enumerate(episodes):
        length, start = len(episode.ids), len(episode.prompt_ids)
        assert batch["loss_mask"][row, :start].sum() == 0
        assert (
            batch["loss_mask"][row, length:].sum() == 0
            and batch["attention_mask"][row, length:].sum() == 0
        )
        assert batch["loss_mask"][row].sum() == episode.sampled_tokens


def test_progress_bar_and_stats(formatter, capsys):
    engine = RolloutEngine(OraclePolicy(formatter), formatter, progress=True, samples_per_task=3)
    episodes = engine.run([Task("GuessNumber-v0", seed=s) for s in range(3)])
    stats = engine.stats
    assert stats.episodes == 9 and stats.turns == sum(e.num_turns for e in episodes)
    assert stats.sampled_tokens == sum(e.sampled_tokens for e in episodes)
    assert stats.mean_reward == pytest.approx(np.mean([e.total_reward for e in episodes]))
    assert "episodes" in capsys.readouterr().err


def test_config_is_validated(formatter):
    with pytest.raises(ValueError, match="samples_per_task"):
        RolloutConfig(samples_per_task=0)
    with pytest.raises(ValueError, match="n must be 1"):
        RolloutConfig(sampling=SamplingParams(n=2))
    with pytest.raises(ValueError, match="unknown tool-call parser"):
        RolloutConfig(tool_parser="hermez")
    with pytest.raises(ValueError, match="check_drift"):
        RolloutConfig(check_drift="ids")
    with pytest.raises(TypeError, match="unknown RolloutConfig"):
        RolloutEngine(OraclePolicy(formatter), formatter, sample_per_task=2)
    with pytest.raises(TypeError, match="Task"):
        RolloutEngine(OraclePolicy(formatter), formatter).run([3])
    with pytest.raises(TypeError, match=r"env_pool must have an id\(env_id\) method"):
        RolloutEngine(OraclePolicy(formatter), formatter, env_pool="ray://envs")


def test_run_inside_a_loop_points_to_arun(formatter):
    async def main():
        RolloutEngine(OraclePolicy(formatter), formatter).run(["Arithmetic-v0"])

    with pytest.raises(RuntimeError, match="arun"):
        asyncio.run(main())


def test_scripted_policies_speak_the_protocol(formatter):
    from palaestra.agents.policy import Request, TurnContext

    random_policy = RandomPolicy(formatter, max_length=5, seed=0)
    (group,) = asyncio.run(random_policy.generate([Request([1, 2], SamplingParams(n=3, seed=4))]))
    again = asyncio.run(random_policy.generate([Request([1, 2], SamplingParams(n=3, seed=4))]))[0]
    assert [c.token_ids for c in group] == [c.token_ids for c in again]
    assert all(c.token_ids[-1] == formatter.eot_id and len(c.token_ids) <= 6 for c in group)
    with pytest.raises(ValueError, match="context"):
        asyncio.run(OraclePolicy(formatter).generate([Request([1], SamplingParams())]))
    replay = ReplayPolicy(
        ["<guess>3</guess>", Completion([5, formatter.eot_id], [-1.0, -2.0])], formatter
    )
    first = asyncio.run(replay.generate([Request([1], SamplingParams(), TurnContext(turn=0))]))[0][
        0
    ]
    second = asyncio.run(replay.generate([Request([1], SamplingParams(), TurnContext(turn=1))]))[0][
        0
    ]
    assert formatter.completion_text(first.token_ids) == "<guess>3</guess>"
    assert (second.token_ids, second.logprobs) == ([5, formatter.eot_id], [-1.0, -2.0])
    with pytest.raises(PolicyError, match="turn 2"):
        asyncio.run(replay.generate([Request([1], SamplingParams(), TurnContext(turn=2))]))
    with pytest.raises(ValueError, match="formatter"):
        ReplayPolicy(["text"])


def test_env_code_can_run_on_the_event_loop(formatter):
    engine = RolloutEngine(
        OraclePolicy(formatter), formatter, env_threads=False, samples_per_task=2
    )
    episodes = engine.run([Task("GuessNumber-v0", seed=1), Task("Calculator-v0", seed=2)])
    assert all(e.success and e.drift["ok"] for e in episodes)


def test_one_run_at_a_time_per_engine(formatter):
    engine = RolloutEngine(LatencyPolicy(OraclePolicy(formatter), 0.05), formatter)

    async def main():
        first = asyncio.ensure_future(engine.arun(["Arithmetic-v0"]))
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="one run at a time"):
            await engine.arun(["Arithmetic-v0"])
        return await first

    assert asyncio.run(main())[0].success
