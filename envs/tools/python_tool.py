"""Python interpreter and shell tools: solve task-library problems by running code (ToRL style).

The task:
    A problem from the procedural task library (prime factorisation, linear equations,
    modular arithmetic, ...; any single-turn task family may be named). The model may think,
    run code in a stateful Python interpreter, read its output, run more code, and answer.
    Variables, functions and imports persist between calls of one episode; numpy and sympy
    are importable where the sandbox's Python has them (the local backend uses the host's
    ``/usr``: ``apt-get install python3-numpy python3-sympy``). A bash shell runs commands
    in the same episode's own sandbox, separate from the interpreter's.

Observation:
    The task's question and how to use the tools; then one tool message per call with the
    call's standard output and standard error (capped; a note says when a call timed out,
    hit the memory limit or lost the interpreter's state).

Action:
    Tool calls, then a final answer in the task's answer slot (``<answer>...</answer>``).
    With ``tool_parser="auto"``: native ``tool_calls`` or Hermes
    ``<tool_call>{"name": "python", "arguments": {"code": "..."}}</tool_call>``. With
    ``tool_parser="xml"``: ``<python>code</python>`` and ``<shell>command</shell>`` tags.

Reward (``info["reward_parts"]``):
    ``tool``: 0 for a tool turn (the budgets cap tool use).
    ``outcome``: the task verifier's score of the final answer (1 when right).
    ``invalid``: `INVALID_ACTION_PENALTY` for a turn whose every tool call failed (malformed,
    unknown tool, or after the tool-time budget is spent).

Episode end:
    Terminated by the final answer; truncated when tool calls continue past the call budget
    (or by `TurnLimit`). A sandbox failure (the interpreter's sandbox died or could not start)
    truncates the episode with ``info["status"] = "error"`` and ``info["mask"] = True``.

Arguments:
    tasks: Registry ids of single-turn task families to draw problems from.
    level: The tasks' difficulty (1-10).
    shell: Offer the ``shell`` tool too.
    tool_parser: ``"auto"`` (native or Hermes tool calls) or ``"xml"`` (``<python>`` tags).
    max_tool_calls: Tool calls per episode.
    max_calls_per_turn: Tool calls run per turn.
    call_timeout_s: Seconds one call may run before it is interrupted.
    tool_time_s: Seconds of tool time per episode; later calls are refused.
    max_output_chars: Characters of output a call returns to the model.
    memory_mb: Memory of each sandbox.
    sandbox_backend: ``"local"`` or ``"docker"``.

Version history:
    v0: first version.
"""

from __future__ import annotations

import json
import time
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Message, Step, user
from palaestra.errors import InfrastructureError
from palaestra.parsers import ParsedAction, get_parser
from palaestra.tools import Tool, ToolEnv

DEFAULT_TASKS = (
    "ArithmeticChain-v0",
    "BaseConversion-v0",
    "GcdLcm-v0",
    "LinearEquations-v0",
    "ModularArithmetic-v0",
    "PolynomialRoots-v0",
    "PrimeFactorization-v0",
    "ShortestPath-v0",
    "WordProblems-v0",
)
XML_TAGS = {"python": ("python", "code"), "shell": ("shell", "command")}
OUTPUT_BYTES = 64 * 1024
"""Bytes of each stream the sandbox keeps per call (the model sees at most ``max_output_chars``)."""


class ToolTimeSpent(RuntimeError):
    """The episode's tool-time budget is spent (the model sees this as a failed call)."""


def _resolve_task(env_id: str, level: int):
    import palaestra
    from palaestra.envs.tasks.base import TaskEnv
    from palaestra.registration import load_entry_point

    factory = load_entry_point(palaestra.spec(env_id).entry_point)
    if not (isinstance(factory, type) and issubclass(factory, TaskEnv)):
        raise ValueError(
            f"{env_id} is not a single-turn task family (a TaskEnv); pick one tagged 'task'"
        )
    return factory.task_class.from_level(level)


def format_result(result: Any, kind: str, timeout_s: float, memory_mb: int) -> str:
    """A sandbox result as the model reads it: output, errors, and what happened."""
    pieces = []
    stdout, stderr = result.stdout_text, result.stderr_text
    if stdout:
        pieces.append(stdout.rstrip("\n"))
    if stderr:
        pieces.append(("[stderr]\n" if stdout else "") + stderr.rstrip("\n"))
    if result.stdout_truncated or result.stderr_truncated:
        pieces.append("[output cut: the call printed more than the sandbox keeps]")
    if result.oom_killed:
        lost = (
            "; its variables are lost and a fresh interpreter starts on the next call"
            if kind == "python"
            else ""
        )
        pieces.append(f"[killed: the memory limit ({memory_mb} MB) was reached{lost}]")
    elif result.timed_out:
        kept = "; the interpreter's variables are kept" if kind == "python" else ""
        pieces.append(f"[timed out after {timeout_s:g} s and was interrupted{kept}]")
    elif kind == "shell" and result.exit_code not in (0, None):
        pieces.append(f"[exit status {result.exit_code}]")
    for note in result.info.get("notes", []):
        pieces.append(f"[{note}]")
    return "\n".join(pieces) if pieces else "(no output)"


def _check_number(name: str, value: Any, low: float, high: float, integer: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {kind} from {low:g} to {high:g}, got {value!r}")


def _python_tool(fn: Any, max_output_chars: int) -> Tool:
    """The ``python`` tool's schema around ``fn``."""
    description = (
        "Runs Python code in a persistent interpreter: variables, functions and imports stay "
        "defined between calls. The value of a final expression is printed, as in a REPL. "
        "Returns standard output and standard error."
    )
    code = {"type": "string", "description": "Python source code to run."}
    parameters = {
        "type": "object",
        "properties": {"code": code},
        "required": ["code"],
        "additionalProperties": False,
    }
    return Tool("python", description, parameters, fn, max_output_chars)


def _shell_tool(fn: Any, max_output_chars: int) -> Tool:
    """The ``shell`` tool's schema around ``fn``."""
    description = (
        "Runs a bash command line in /work. Files persist between calls; shell variables and "
        "the working directory do not. Returns standard output and standard error."
    )
    command = {"type": "string", "description": "The bash command line."}
    parameters = {
        "type": "object",
        "properties": {"command": command},
        "required": ["command"],
        "additionalProperties": False,
    }
    return Tool("shell", description, parameters, fn, max_output_chars)


class PythonToolEnv(ToolEnv):
    """Task-library problems with a stateful interpreter and a shell; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(
        self,
        tasks: Any = DEFAULT_TASKS,
        level: int = 3,
        shell: bool = True,
        tool_parser: str = "auto",
        max_tool_calls: int = 8,
        max_calls_per_turn: int = 4,
        call_timeout_s: float = 10.0,
        tool_time_s: float = 60.0,
        max_output_chars: int = 4000,
        memory_mb: int = 1024,
        sandbox_backend: str = "local",
    ):
        if tool_parser not in ("auto", "xml"):
            raise ValueError(f"tool_parser must be 'auto' or 'xml', got {tool_parser!r}")
        if sandbox_backend not in ("local", "docker"):
            raise ValueError(
                "sandbox_backend must be 'local' or 'docker' (they have sessions), "
                f"got {sandbox_backend!r}"
            )
        _check_number("call_timeout_s", call_timeout_s, 0.001, 3600)
        _check_number("tool_time_s", tool_time_s, 0.001, 3600)
        _check_number("max_output_chars", max_output_chars, 100, 10**7, integer=True)
        _check_number("memory_mb", memory_mb, 64, 1 << 20, integer=True)
        if isinstance(tasks, str):
            tasks = [tasks]
        if not tasks:
            raise ValueError(
                "tasks must name at least one task family, e.g. ['PrimeFactorization-v0']"
            )
        super().__init__(
            max_tool_calls=max_tool_calls,
            max_calls_per_turn=max_calls_per_turn,
            tool_parser=tool_parser,
        )
        if tool_parser == "xml":
            tags = XML_TAGS if shell else {"python": XML_TAGS["python"]}
            self.parser = get_parser("xml", tools=tags, answer_tag=None)
        self.task_ids = list(tasks)
        self.families = [_resolve_task(t, level) for t in self.task_ids]
        self.level = level
        self.shell = bool(shell)
        self.tool_parser = tool_parser
        self.call_timeout_s = float(call_timeout_s)
        self.tool_time_s = float(tool_time_s)
        self.max_output_chars = max_output_chars
        self.memory_mb = memory_mb
        self.sandbox_backend = sandbox_backend
        self._tools = [_python_tool(self._run_python, max_output_chars)]
        if self.shell:
            self._tools.append(_shell_tool(self._run_shell, max_output_chars))
        self._sessions: dict[str, Any] = {}
        self._time_used = 0.0
        self._last_output = ""
        self.task = None
        self.problem = None

    # --- tools ---------------------------------------------------------------------------

    def available_tools(self) -> list[Tool]:
        """The interpreter, and the shell when enabled."""
        return self._tools

    def _session(self, kind: str) -> Any:
        session = self._sessions.get(kind)
        if session is not None and not session.closed:
            return session
        from palaestra import sandbox

        limits = sandbox.Limits(
            wall_s=self.call_timeout_s, memory_mb=self.memory_mb, output_bytes=OUTPUT_BYTES
        )
        session = sandbox.open_session(kind, backend=self.sandbox_backend, limits=limits)
        self._sessions[kind] = session
        return session

    def _execute(self, kind: str, source: str) -> str:
        left = self.tool_time_s - self._time_used
        if left <= 0:
            raise ToolTimeSpent(
                f"the episode's {self.tool_time_s:g} s of tool time are spent; "
                "give your final answer"
            )
        timeout = min(self.call_timeout_s, left)
        session = self._session(kind)
        start = time.perf_counter()
        result = session.exec(source, timeout_s=timeout)
        self._time_used += time.perf_counter() - start
        if result.error is not None:
            self._sessions.pop(kind, None)
            session.close()
            raise InfrastructureError(f"the {kind} sandbox failed: {result.error}")
        if session.closed:
            self._sessions.pop(kind, None)
        output = format_result(result, kind, timeout, self.memory_mb)
        self._last_output = result.stdout_text
        return output

    def _run_python(self, code: str) -> str:
        return self._execute("python", code)

    def _run_shell(self, command: str) -> str:
        return self._execute("shell", command)

    def _close_sessions(self) -> None:
        sessions, self._sessions = self._sessions, {}
        for session in sessions.values():
            session.close()

    def close(self) -> None:
        """Closes the episode's sandboxes (safe to call twice)."""
        self._close_sessions()
        super().close()

    # --- episodes ------------------------------------------------------------------------

    def _instructions(self) -> str:
        tools = "a Python interpreter" + (" and a bash shell" if self.shell else "")
        if self.tool_parser == "xml":
            how = "Run Python by writing <python>code</python>" + (
                " and shell commands with <shell>command</shell>" if self.shell else ""
            )
            how += "; the output comes back to you."
        else:
            how = "Call the tools as functions; their output comes back to you."
        return (
            f"You have {tools}. The interpreter keeps its variables between calls; "
            f"numpy and sympy are available. {how} You may make up to "
            f"{self.budget.max_calls} calls, each up to {self.call_timeout_s:g} s. "
            "When you know the answer, reply without tool calls."
        )

    def _reset_task(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"PythonToolEnv.reset takes no options, got {sorted(options)}")
        self._close_sessions()
        self._time_used = 0.0
        self._last_output = ""
        index = int(self.np_random.integers(len(self.families)))
        self.task = self.families[index]
        self.problem = self.task.generate(self.np_random)
        prompt = f"{self.problem.prompt}\n\n{self._instructions()}"
        return [user(prompt)], {
            "task": self.task.name,
            "task_id": self.task_ids[index],
            "level": self.level,
        }

    def _route(self, action: Message) -> tuple[str, ParsedAction]:
        route, parsed = super()._route(action)
        content = action.get("content") or ""
        if route == "answer" and parsed.errors and any(f"<{tag}>" in content for tag in XML_TAGS):
            return "invalid", parsed
        return route, parsed

    def _answer(self, action: Message, parsed: ParsedAction) -> Step:
        return self.finish(self.task.verify(action.get("content") or "", self.problem))

    def oracle_action(self) -> str:
        """Three calls that build on each other's state, then the answer they printed.

        The first call stores the answer's characters, the second joins them, the third prints
        the result; the answer is what was printed, so it is right only if state persisted.
        """
        pieces = list(self.task.solve(self.problem))
        calls = [f"pieces = {pieces!r}", 'answer = "".join(pieces)', "print(answer)"]
        if self.budget.used < len(calls):
            code = calls[self.budget.used]
            if self.tool_parser == "xml":
                return f"<python>{code}</python>"
            return (
                "<tool_call>"
                + json.dumps({"name": "python", "arguments": {"code": code}})
                + "</tool_call>"
            )
        return self.task.slot(self._last_output.strip())

    def render_text(self) -> str:
        """The question and the tool use so far."""
        if self.problem is None:
            return ""
        used = f"{self.budget.used} tool calls, {self._time_used:.1f} s of tool time used"
        return f"{self.problem.prompt}\n\n({used})"


class PythonTagsEnv(PythonToolEnv):
    """`PythonToolEnv` with ``<python>`` tags (ToRL style) by default."""

    def __init__(self, tool_parser: str = "xml", **kwargs: Any):
        super().__init__(tool_parser=tool_parser, **kwargs)

    @classmethod
    def argument_names(cls) -> list[str]:
        """The arguments `palaestra.make` accepts (those of `PythonToolEnv`)."""
        import inspect

        return [p for p in inspect.signature(PythonToolEnv.__init__).parameters if p != "self"]
