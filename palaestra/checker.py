"""`check_env`: the public conformance checker every registered id passes.

    report = palaestra.check_env(palaestra.make("GuessNumber-v0"))
    print(report)

It checks, and raises `ConformanceError` listing every failure:

* **api**: the env is a `palaestra.Env` (so a `gymnasium.Env`) with conversation spaces,
  valid tool schemas, and reset/step returning the documented types, with reward parts
  that sum to the reward and never both ``terminated`` and ``truncated``.
* **oracle**: on several seeds the oracle's episode ends ``terminated`` with
  ``info["success"]`` and reaches ``env.best_return()``.
* **determinism**: the same seed gives the same episode twice in this process, in the
  async twins, and in two fresh processes with different ``PYTHONHASHSEED``s; the
  global `random` and `numpy.random` states are left untouched.
* **garbage**: empty text, 1 MB of text, unicode and control characters, malformed tool
  calls and wrong types each give a valid observation, no success and no positive
  reward, flagged as invalid or judged not correct, within a time limit; an endless
  stream of garbage ends the episode when the env has limits.
* **close**: ``close()`` may be called twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.core import Env, Wrapper
from palaestra.errors import ConformanceError
from palaestra.spaces import ChatAction, Conversation
from palaestra.verdict import Status, Verdict

MAX_ORACLE_TURNS = 10_000
"""An oracle episode longer than this is reported as not ending."""


def garbage_actions() -> list[tuple[str, Any]]:
    """The garbage-action cases: (name, action)."""
    deep = "[" * 100_000
    return [
        ("empty", ""),
        ("whitespace", " \n\t "),
        ("megabyte", "a" * (1 << 20)),
        ("megabyte_of_tags", "<answer><tool_call><guess><think>" * 30_000),
        ("tag_soup", "<answer><tool_call><guess></think><python>```python\n" * 3_000),
        ("unicode", "𝕏∑√∞ 中文 解: ١٢٣ ＡＢＣ \u202e\u200b" * 50),
        ("control_chars", "\x00\x01\x02\x1b[31m\x7f\r\x0b\x0c" * 20),
        ("invalid_surrogate", "\udcff\ud800 broken"),
        ("malformed_tool_call", '<tool_call>{"name": "calculator", "arguments": </tool_call>'),
        ("unclosed_tool_call", '<tool_call>{"name": "calculator"'),
        ("deep_json_tool_call", f"<tool_call>{deep}</tool_call>"),
        ("tool_call_not_object", "<tool_call>[1, 2, 3]</tool_call>"),
        ("unknown_tool", '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'),
        ("only_think", "<think>I will answer later"),
        ("many_think_closes", "</think>" * 10_000),
        ("none", None),
        ("integer", 42),
        ("float", math.nan),
        ("bytes", b"<answer>1</answer>"),
        ("list", ["<answer>1</answer>"]),
        ("user_role", {"role": "user", "content": "<answer>1</answer>"}),
        ("content_not_string", {"role": "assistant", "content": 5}),
        ("tool_calls_not_list", {"role": "assistant", "content": "", "tool_calls": "call it"}),
        (
            "native_malformed_call",
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "calculator", "arguments": "{"},
                    }
                ],
            },
        ),
        (
            "native_unknown_tool",
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "nope", "arguments": "{}"},
                    }
                ],
            },
        ),
    ]


@dataclasses.dataclass
class CheckReport:
    """What `check_env` checked.

    Attributes:
        env: A description of the env.
        passed: Names of the checks that passed.
        failures: ``(check, message)`` for each failure.
        notes: Checks that could not run, and why.
    """

    env: str
    passed: list[str] = dataclasses.field(default_factory=list)
    failures: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.failures

    def __str__(self) -> str:
        lines = [f"check_env({self.env}): {'OK' if self.ok else 'FAILED'}"]
        lines += [f"  ok    {name}" for name in self.passed]
        lines += [f"  FAIL  {name}: {message}" for name, message in self.failures]
        lines += [f"  note  {note}" for note in self.notes]
        return "\n".join(lines)


class _Failed(Exception):
    pass


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise _Failed(message)


# --- transcripts ------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A JSON-ready, deterministic picture of a value (verdict timings dropped)."""
    if isinstance(value, Verdict):
        data = value.to_dict()
        data.pop("elapsed_s")
        return _plain(data)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    return f"<{type(value).__name__}>"


def _strip_timing(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k not in ("episode", "elapsed_s")}


def _oracle_episode(env: Env | Wrapper, seed: int) -> list[Any]:
    observation, info = env.reset(seed=seed)
    transcript: list[Any] = [observation, _strip_timing(info)]
    for _ in range(MAX_ORACLE_TURNS):
        action = env.oracle_action()
        observation, reward, terminated, truncated, info = env.step(action)
        transcript.append([action, observation, reward, terminated, truncated, _strip_timing(info)])
        if terminated or truncated:
            return transcript
    raise _Failed(f"the oracle episode on seed {seed} did not end within {MAX_ORACLE_TURNS} turns")


async def _oracle_episode_async(env: Env | Wrapper, seed: int) -> list[Any]:
    observation, info = await env.areset(seed=seed)
    transcript: list[Any] = [observation, _strip_timing(info)]
    for _ in range(MAX_ORACLE_TURNS):
        action = env.oracle_action()
        observation, reward, terminated, truncated, info = await env.astep(action)
        transcript.append([action, observation, reward, terminated, truncated, _strip_timing(info)])
        if terminated or truncated:
            return transcript
    raise _Failed(
        f"the async oracle episode on seed {seed} did not end within {MAX_ORACLE_TURNS} turns"
    )


# Invalid actions for the determinism transcript: how an env answers mistakes must be
# reproducible too.
_DETERMINISM_JUNK = [
    ("text", "this is not a valid move"),
    ("none", None),
    ("tool_call", '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'),
    ("unclosed", "<answer>"),
]


def _garbage_episode(env: Env | Wrapper, seed: int) -> list[Any]:
    observation, info = env.reset(seed=seed)
    transcript: list[Any] = [observation, _strip_timing(info)]
    for name, action in _DETERMINISM_JUNK:
        out = env.step(action)
        transcript.append([name, out[0], out[1], out[2], out[3], _strip_timing(out[4])])
        if out[2] or out[3]:
            observation, info = env.reset(seed=seed + 1)
            transcript.append([observation, _strip_timing(info)])
    return transcript


def episode_digest(env: Env | Wrapper, seeds: tuple[int, ...]) -> str:
    """A JSON picture of oracle and garbage episodes, for comparing runs across processes."""
    pieces = [_oracle_episode(env, s) for s in seeds] + [_garbage_episode(env, seeds[0])]
    return json.dumps(_plain(pieces), sort_keys=True, ensure_ascii=True)


def _global_rng_state() -> tuple[Any, Any]:
    return random.getstate(), _plain(np.random.get_state(legacy=False))


def _digest_in_subprocess(spec: Any, seeds: tuple[int, ...], hash_seed: str, timeout: float) -> str:
    """Runs `_digest_main` in a fresh interpreter; returns its digest or raises.

    The child rebuilds the env from its spec (entry point and arguments), so envs
    registered at run time are checked too; it sees this process's import path.
    """
    path = [os.path.abspath(p) for p in sys.path if p and os.path.isdir(p)]
    environment = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=os.pathsep.join(path))
    data = spec.to_dict()
    data.pop("source")
    payload = json.dumps({"spec": data, "seeds": list(seeds)})
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "from palaestra.checker import _digest_main; _digest_main()",
            payload,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    if completed.returncode != 0:
        raise _Failed(f"the fresh process failed: {completed.stderr.strip()[-2000:]}")
    return completed.stdout.strip().splitlines()[-1]


def _digest_main() -> None:
    """Entry point of the fresh process: prints the digest of an env rebuilt from its spec."""
    from palaestra.registration import EnvSpec, make

    args = json.loads(sys.argv[1])
    data = args["spec"]
    data["tags"] = tuple(data["tags"])
    data["reward_range"] = tuple(data["reward_range"])
    before = _global_rng_state()
    env = make(EnvSpec(**data, source="checker"))
    digest = episode_digest(env, tuple(args["seeds"]))
    if _global_rng_state() != before:
        print("the env changed the global random or numpy.random state", file=sys.stderr)
        sys.exit(3)
    print(digest)


# --- the checks -------------------------------------------------------------------------------


def _check_api(env: Env | Wrapper, seed: int) -> None:
    base = env.unwrapped
    _expect(
        isinstance(base, Env), f"the env must subclass palaestra.Env, got {type(base).__name__}"
    )
    _expect(
        isinstance(env.observation_space, Conversation), "observation_space must be a Conversation"
    )
    _expect(isinstance(env.action_space, ChatAction), "action_space must be a ChatAction")
    tools = env.tools
    _expect(isinstance(tools, list), "env.tools must be a list")
    for schema in tools:
        function = schema.get("function") if isinstance(schema, dict) else None
        _expect(
            isinstance(function, dict)
            and schema.get("type") == "function"
            and isinstance(function.get("name"), str)
            and isinstance(function.get("parameters"), dict),
            "a tool schema must be {'type': 'function', 'function': {'name', 'parameters'}}, "
            f"got {schema!r}",
        )
    observation, info = env.reset(seed=seed)
    _check_observation(env, observation, "reset")
    _expect(len(observation) > 0, "reset must return at least one message (the task)")
    _expect(isinstance(info, dict), "reset's info must be a dict")
    _expect(info.get("status") in ("ok", "error"), "reset's info must carry status 'ok' or 'error'")
    out = env.step(env.oracle_action())
    _check_step_types(env, out, "step")


def _check_observation(env: Env | Wrapper, observation: Any, where: str) -> None:
    _expect(
        env.observation_space.contains(observation),
        f"{where} returned an observation outside the Conversation space: {str(observation)[:300]}",
    )


def _check_step_types(env: Env | Wrapper, out: Any, where: str) -> None:
    _expect(isinstance(out, tuple) and len(out) == 5, f"{where} must return a 5-tuple")
    observation, reward, terminated, truncated, info = out
    _check_observation(env, observation, where)
    _expect(
        type(reward) is float and math.isfinite(reward),
        f"{where}: reward must be a finite float, got {reward!r}",
    )
    _expect(
        type(terminated) is bool and type(truncated) is bool,
        f"{where}: terminated/truncated must be bools",
    )
    _expect(not (terminated and truncated), f"{where}: terminated and truncated are both True")
    _expect(isinstance(info, dict), f"{where}: info must be a dict")
    parts = info.get("reward_parts")
    _expect(isinstance(parts, dict), f"{where}: info['reward_parts'] is missing")
    _expect(
        abs(sum(parts.values()) - reward) < 1e-9,
        f"{where}: reward parts {parts} do not sum to {reward}",
    )
    _expect(
        info.get("status") in ("ok", "error"), f"{where}: info['status'] must be 'ok' or 'error'"
    )
    _expect(isinstance(info.get("mask"), bool), f"{where}: info['mask'] must be a bool")
    if terminated or truncated:
        _expect(
            isinstance(info.get("success"), bool),
            f"{where}: info['success'] must be a bool at the end",
        )


def _check_oracle(env: Env | Wrapper, seeds: tuple[int, ...]) -> None:
    for seed in seeds:
        env.reset(seed=seed)
        best = env.best_return()
        total, out = 0.0, None
        for _ in range(MAX_ORACLE_TURNS):
            out = env.step(env.oracle_action())
            _check_step_types(env, out, f"oracle step (seed {seed})")
            total += out[1]
            if out[2] or out[3]:
                break
        _expect(out is not None and (out[2] or out[3]), f"the oracle did not finish seed {seed}")
        _, _, terminated, truncated, info = out
        _expect(
            info.get("status") == "ok",
            f"oracle episode on seed {seed} reported an error: {info.get('error')}",
        )
        _expect(
            terminated and not truncated,
            f"the oracle episode on seed {seed} was truncated ({info.get('truncation')}), "
            "not solved",
        )
        _expect(
            info.get("success") is True,
            f"the oracle did not succeed on seed {seed}: {info.get('verdict')}",
        )
        _expect(
            total >= best - 1e-6,
            f"the oracle's return {total:.6f} on seed {seed} is below the best return {best:.6f}",
        )


def _check_determinism(
    env: Env | Wrapper,
    seeds: tuple[int, ...],
    cross_process: bool,
    timeout: float,
    report: CheckReport,
) -> None:
    before = _global_rng_state()
    first = episode_digest(env, seeds)
    _expect(
        _global_rng_state() == before, "the env changed the global random or numpy.random state"
    )
    second = episode_digest(env, seeds)
    _expect(first == second, "the same seeds gave different episodes in this process")

    async def run_async() -> list[Any]:
        return [await _oracle_episode_async(env, s) for s in seeds]

    sync = json.dumps(_plain([_oracle_episode(env, s) for s in seeds]), sort_keys=True)
    asynchronous = json.dumps(_plain(asyncio.run(run_async())), sort_keys=True)
    _expect(sync == asynchronous, "areset/astep gave a different episode from reset/step")
    if not cross_process:
        report.notes.append("cross-process determinism not checked (cross_process=False)")
        return
    spec = getattr(env.unwrapped, "palaestra_spec", None)
    if spec is None:
        report.notes.append("cross-process determinism not checked: the env was not made by id")
        return
    from palaestra.registration import make

    reference = episode_digest(make(spec), seeds)
    for hash_seed in ("0", "12345"):
        digest = _digest_in_subprocess(spec, seeds, hash_seed, timeout)
        _expect(
            digest == reference,
            f"a fresh process with PYTHONHASHSEED={hash_seed} produced a different episode",
        )


def _step_with_timeout(env: Env | Wrapper, action: Any, timeout: float) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["out"] = env.step(action)
        except BaseException as e:  # reported below, in the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise _Failed(f"step hung for more than {timeout:.0f} s")
    if "error" in box:
        error = box["error"]
        raise _Failed(f"step raised {type(error).__name__}: {str(error)[:300]}")
    return box["out"]


def _check_garbage_case(
    env: Env | Wrapper, name: str, action: Any, seed: int, timeout: float
) -> None:
    env.reset(seed=seed)
    out = _step_with_timeout(env, action, timeout)
    try:
        _check_step_types(env, out, f"garbage action {name!r}")
    except _Failed as e:
        raise _Failed(str(e)) from None
    observation, reward, terminated, truncated, info = out
    _expect(info.get("success") is not True, f"garbage action {name!r} was scored a success")
    _expect(reward <= 0.0, f"garbage action {name!r} earned a positive reward {reward}")
    verdict = info.get("verdict")
    judged_wrong = (terminated or truncated) and (
        verdict is None or (isinstance(verdict, Verdict) and verdict.status is not Status.CORRECT)
    )
    _expect(
        bool(info.get("invalid_action")) or judged_wrong or bool(info.get("tool_errors")),
        f"garbage action {name!r} was accepted silently: no invalid_action flag, "
        "no failing verdict",
    )
    if not (terminated or truncated):
        _expect(
            len(observation) > 0, f"garbage action {name!r} got no message saying what was wrong"
        )


def _check_garbage_stream(env: Env | Wrapper, seed: int, timeout: float) -> bool:
    """An endless stream of junk must end the episode when the env has limits."""
    env.reset(seed=seed)
    for turn in range(1, 10_001):
        out = _step_with_timeout(env, "not a valid move" if turn % 2 else None, timeout)
        if out[2] or out[3]:
            return True
    raise _Failed("10,000 garbage actions in a row did not end the episode")


def _has_limits(env: Env | Wrapper) -> bool:
    from palaestra.wrappers import InvalidActionLimit, TurnLimit

    layer = env
    while isinstance(layer, Wrapper):
        if isinstance(layer, (TurnLimit, InvalidActionLimit)):
            return True
        layer = layer.env
    return isinstance(layer, Env) and layer.episode_limits != (None, None)


def check_env(
    env: Env | Wrapper,
    *,
    seeds: tuple[int, ...] = (0, 1, 2),
    cross_process: bool = True,
    step_timeout: float = 20.0,
    raise_on_failure: bool = True,
) -> CheckReport:
    """Checks that an env keeps the Palaestra contract (see the module docstring).

    Args:
        env: The env, usually from `palaestra.make` (so that its limits are checked too).
        seeds: Seeds for the oracle and determinism checks.
        cross_process: Also compare episodes made in two fresh processes.
        step_timeout: Seconds one step may take before it counts as a hang.
        raise_on_failure: Raise `ConformanceError` when a check fails.

    Returns:
        The report of what passed, failed, or could not be checked.

    Raises:
        ConformanceError: A check failed (with every failure listed).
    """
    name = (
        getattr(getattr(env.unwrapped, "palaestra_spec", None), "id", None)
        or type(env.unwrapped).__name__
    )
    report = CheckReport(env=name)
    checks: list[tuple[str, Callable[[], Any]]] = [
        ("api", lambda: _check_api(env, seeds[0])),
        ("oracle", lambda: _check_oracle(env, seeds)),
        ("determinism", lambda: _check_determinism(env, seeds, cross_process, 120.0, report)),
    ]
    for case, action in garbage_actions():
        checks.append(
            (
                f"garbage:{case}",
                lambda a=action, c=case: _check_garbage_case(env, c, a, seeds[0], step_timeout),
            )
        )
    if _has_limits(env):
        checks.append(
            ("garbage:stream", lambda: _check_garbage_stream(env, seeds[0], step_timeout))
        )
    else:
        report.notes.append(
            "endless garbage stream not checked: the env has no turn or invalid-action limit"
        )
    checks.append(("close", lambda: (env.close(), env.close())))
    for check, run in checks:
        try:
            run()
        except _Failed as e:
            report.failures.append((check, str(e)))
        except Exception as e:  # an exception from the env itself is a failure to report
            report.failures.append((check, f"raised {type(e).__name__}: {str(e)[:500]}"))
        else:
            report.passed.append(check)
    if raise_on_failure and not report.ok:
        raise ConformanceError(str(report))
    return report
