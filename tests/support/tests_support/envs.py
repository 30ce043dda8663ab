"""Small envs for testing the contract and the conformance checker.

Each `Broken*` env breaks one rule; the checker tests assert that the matching check fails.
"""

from __future__ import annotations

import random
import time
from typing import Any

from palaestra.core import Env, Step, user
from palaestra.verdict import Status, Verdict


class EchoEnv(Env):
    """A well-behaved single-turn env: answer the word shown (the oracle repeats it)."""

    words = ("alpha", "bravo", "charlie", "delta")

    def __init__(self, bonus: float = 0.0):
        self.bonus = bonus
        self.word = ""

    def _reset(self, options: dict[str, Any]):
        self.word = self.words[int(self.np_random.integers(0, len(self.words)))]
        return [user(f"Say {self.word}.")], {}

    def _step(self, action) -> Step:
        ok = (action.get("content") or "").strip() == self.word
        verdict = Verdict(
            1.0 if ok else 0.0, Status.CORRECT if ok else Status.INCORRECT, verifier="echo"
        )
        return self.finish(verdict)

    def oracle_action(self) -> str:
        return self.word


class ReservedNameEnv(EchoEnv):
    def __init__(self, max_turns: int = 3):
        super().__init__()


def not_an_env(**kwargs: Any) -> object:
    return object()


class BrokenCrashEnv(EchoEnv):
    """Crashes on anything but the right word, and on non-strings (bypassing the base class)."""

    max_action_chars = 10**9

    def step(self, action):
        if not isinstance(action, str):
            raise TypeError("cannot handle this action")
        return super().step(action)

    def _step(self, action) -> Step:
        if (action.get("content") or "").strip() != self.word:
            raise ValueError("unexpected answer")
        return super()._step(action)


class BrokenSilentEnv(EchoEnv):
    """Takes anything without a word of complaint: reward 0, goes on, no invalid flag."""

    def step(self, action):
        if action == self.word:
            return super().step(action)
        info = {"reward_parts": {"outcome": 0.0}, "status": "ok", "mask": False}
        return [], 0.0, False, False, info


class BrokenGenerousEnv(EchoEnv):
    """Pays every reply in full, whatever it is."""

    def step(self, action):
        info = {"reward_parts": {"outcome": 1.0}, "status": "ok", "mask": False, "success": True}
        return [], 1.0, True, False, info


class BrokenHangEnv(EchoEnv):
    """Hangs on an empty reply."""

    def _step(self, action) -> Step:
        if not (action.get("content") or "").strip():
            time.sleep(30)
        return super()._step(action)


class BrokenGlobalRandomEnv(EchoEnv):
    """Draws from the global `random` module."""

    def _reset(self, options: dict[str, Any]):
        self.word = random.choice(self.words)
        return [user(f"Say {self.word}.")], {}


class BrokenHashEnv(EchoEnv):
    """Depends on `hash()` of a string, which changes with PYTHONHASHSEED."""

    def _reset(self, options: dict[str, Any]):
        index = (hash("palaestra") + int(self.np_random.integers(0, 4))) % len(self.words)
        self.word = self.words[index]
        return [user(f"Say {self.word}.")], {}


class BrokenOracleEnv(EchoEnv):
    """Its oracle answers wrong."""

    def oracle_action(self) -> str:
        return "wrong"


class BrokenBothFlagsEnv(EchoEnv):
    """Ends episodes as terminated and truncated at once."""

    def _step(self, action) -> Step:
        return Step([], {"outcome": 0.0}, terminated=True, truncated=True)


class BrokenPartsEnv(EchoEnv):
    """Reports reward parts that do not add up (by bypassing the base class)."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        info["reward_parts"] = {"outcome": reward + 1.0}
        return observation, reward, terminated, truncated, info


class BrokenCloseEnv(EchoEnv):
    """Cannot be closed twice."""

    closed = False

    def close(self) -> None:
        if self.closed:
            raise RuntimeError("already closed")
        self.closed = True


class InfraFailureEnv(EchoEnv):
    """Its backing service is down."""

    def _step(self, action) -> Step:
        from palaestra.errors import InfrastructureError

        raise InfrastructureError("the judge server is unreachable")
