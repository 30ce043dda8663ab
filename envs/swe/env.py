"""SWE environments: fix a bug in a real repository, or do a Harbor task, in a container.

The task:
    A Harbor task directory (`palaestra.envs.swe.task`): one of Palaestra's repository
    tasks (a bug put by mutation into a real package's source, graded by the package's
    own tests, hidden from the agent) or any third-party Harbor task.

Observation:
    The task's instruction and how to act; then the output of each action (capped, cut in
    the middle when long). Everything the env writes is env text: rollouts give it no
    loss (the episode record's mask is 0 on it).

Action:
    ``protocol="tools"``: native ``tool_calls`` or Hermes ``<tool_call>`` tags calling
    ``bash``, ``view``, ``create``, ``str_replace``, ``insert``, ``undo_edit``, ``search``
    and ``submit``. ``protocol="bash"``: exactly one fenced ```` ```bash ```` block per turn
    (mini-swe-agent style); a block holding only ``submit`` ends the episode.

Where the agent works:
    A container from the task's instance image (built locally, nothing pulled), network
    off, as a non-root user, read-only outside ``/work`` and ``/tmp``. A repository task's
    repository is ``/work/repo``, a git repository of one fresh commit (no history to
    mine); its hidden tests are not in the image. Containers come from a warm pool and
    every one is removed when its episode ends, fails or is abandoned.

Reward (``info["reward_parts"]``):
    ``outcome``: on ``submit``, `RESOLVED_REWARD` when grading in a fresh container
    resolves the task (`palaestra.envs.swe.grading`), else 0.
    ``tool``: 0 for an action that ran.
    ``progress`` (``public_tests_reward > 0``, repository tasks with visible tests): after
    each turn, ``public_tests_reward`` times the change in the fraction of the
    repository's visible tests that pass (run in the agent's container, so only a shaping
    signal: the agent can edit those tests; the hidden tests decide ``outcome``).
    ``invalid``: `INVALID_ACTION_PENALTY` for a turn with no valid action (no tool call or
    no single bash block), or whose every tool call failed.

Episode end:
    Terminated by ``submit``. Truncated by the turn limit or when the episode's time
    budget (the task's ``[agent].timeout_sec`` or ``episode_timeout_s``) is spent. A
    container or grading failure truncates it with ``info["status"] = "error"`` and
    ``info["mask"] = True``.

Arguments:
    tasks: ``"shipped"`` (Palaestra's repository tasks), or a Harbor task directory or
        dataset folder.
    task: Only this task (by name), or None to draw one per reset.
    protocol: ``"tools"`` or ``"bash"``.
    step_timeout_s: Seconds one command may run.
    episode_timeout_s: Seconds of wall clock per episode (None: the task's agent timeout).
    max_output_chars: Characters of one action's output the agent sees.
    memory_mb: Memory of the agent's container.
    pool_size: Warm containers kept per image.
    base_map: ``{public image: local image}`` for third-party Dockerfiles.
    public_tests_reward: Weight of the ``progress`` reward (0: off).

Version history:
    v0: first version.
"""

from __future__ import annotations

import atexit
import shlex
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Env, Message, Step, system, tool_message, user
from palaestra.envs.swe import grading
from palaestra.envs.swe.build import REPO_DIR, WORKSPACE, Built, build_task
from palaestra.envs.swe.task import HarborTask, load_tasks, shipped_dir
from palaestra.errors import InfrastructureError
from palaestra.parsers import FencedCodeParser, ParsedAction, ToolCall, get_parser
from palaestra.sandbox.api import Limits
from palaestra.tools import Tool
from palaestra.verdict import Verdict

RESOLVED_REWARD = 1.0
PROTOCOLS = ("tools", "bash")
SUBMIT = "submit"

TOOLS_PROMPT = """\
You are working in a Linux container on the task below. The working directory is {workdir}.
Use the tools to explore, edit and run code: bash (one command line), view, create,
str_replace, insert, undo_edit (file edits, paths relative to {workdir}), search (grep).
The network is off and nothing can be installed. When you are done, call submit."""

BASH_PROMPT = """\
You are working in a Linux container on the task below. The working directory is {workdir}.
Each reply must contain exactly one ```bash code block with the command(s) to run; you
will see their output. Every block runs in a fresh shell in {workdir}. The network is off
and nothing can be installed. When you are done, reply with a block holding only: submit"""


def _tool_schema(name: str, description: str, properties: dict, required: list[str]) -> Tool:
    return Tool(
        name=name,
        description=description,
        parameters={"type": "object", "properties": properties, "required": required},
        fn=lambda **_: "",
    )


_STR = {"type": "string"}
_INT = {"type": "integer"}
TOOL_SCHEMAS = [
    _tool_schema(
        "bash",
        "Runs a bash command line in the working directory.",
        {"command": _STR, "timeout_s": {"type": "number"}},
        ["command"],
    ),
    _tool_schema(
        "view",
        "Shows a file with line numbers, or lists a directory.",
        {"path": _STR, "view_range": {"type": "array", "items": _INT}},
        ["path"],
    ),
    _tool_schema(
        "create",
        "Writes a new file (or overwrites one).",
        {"path": _STR, "file_text": _STR},
        ["path", "file_text"],
    ),
    _tool_schema(
        "str_replace",
        "Replaces the one occurrence of old_str in a file by new_str.",
        {"path": _STR, "old_str": _STR, "new_str": _STR},
        ["path", "old_str", "new_str"],
    ),
    _tool_schema(
        "insert",
        "Inserts new_str after line insert_line (0: at the top).",
        {"path": _STR, "insert_line": _INT, "new_str": _STR},
        ["path", "insert_line", "new_str"],
    ),
    _tool_schema(
        "undo_edit", "Undoes the last edit made to a file by these tools.", {"path": _STR}, ["path"]
    ),
    _tool_schema(
        "search",
        "Searches files for a regular expression (grep -rnE).",
        {"pattern": _STR, "path": _STR},
        ["pattern"],
    ),
    _tool_schema("submit", "Ends the episode; your changes are graded.", {}, []),
]


def cut_middle(text: str, limit: int) -> str:
    """Caps text at ``limit`` characters by cutting its middle, saying how much was cut."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit:,} characters cut ...]\n{text[-tail:]}"


class WarmPool:
    """Started sessions waiting for episodes, per image; refilled in the background.

    Args:
        backend: The `DockerBackend` the sessions run on.
        size: Sessions kept ready per image.
    """

    def __init__(self, backend: Any, size: int) -> None:
        self.backend = backend
        self.size = size
        self._ready: dict[tuple, deque] = {}
        self._lock = threading.Lock()
        self._filler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="palaestra-swe-pool")
        self._closed = False

    def _open(self, key: tuple) -> Any:
        image, limits, copy_from, idle_s = key
        return self.backend.session(
            "shell", image=image, limits=limits, copy_from=copy_from, idle_timeout_s=idle_s
        )

    def take(self, image: str, limits: Limits, copy_from: str, idle_s: float) -> Any:
        """A started session (from the pool, else started now); the pool refills behind it."""
        key = (image, limits, copy_from, idle_s)
        with self._lock:
            queue = self._ready.setdefault(key, deque())
            session = None
            while queue and session is None:
                candidate = queue.popleft()
                session = None if candidate.closed else candidate
        if self.size:
            self._filler.submit(self._fill, key)
        return session if session is not None else self._open(key)

    def _fill(self, key: tuple) -> None:
        with self._lock:
            missing = self.size - len(self._ready.get(key, ()))
        for _ in range(max(0, missing)):
            try:
                session = self._open(key)
            except InfrastructureError:
                return
            with self._lock:
                if self._closed:
                    session.close()
                    return
                self._ready.setdefault(key, deque()).append(session)

    def close(self) -> None:
        """Closes every waiting session."""
        with self._lock:
            self._closed = True
            sessions = [s for queue in self._ready.values() for s in queue]
            self._ready.clear()
        self._filler.shutdown(wait=True, cancel_futures=True)
        for session in sessions:
            session.close()


_shared: dict[str, Any] = {}
_shared_lock = threading.Lock()
_built: dict[tuple, Built] = {}


def _backend_and_pool(pool_size: int) -> tuple[Any, WarmPool]:
    with _shared_lock:
        if "backend" not in _shared:
            from palaestra.sandbox.docker_backend import DockerBackend

            _shared["backend"] = DockerBackend(max_concurrency=8, pool_size=0)
        key = f"pool-{pool_size}"
        if key not in _shared:
            _shared[key] = WarmPool(_shared["backend"], pool_size)
        return _shared["backend"], _shared[key]


@atexit.register
def _close_shared() -> None:
    with _shared_lock:
        for name, value in list(_shared.items()):
            if name.startswith("pool-"):
                value.close()
        if "backend" in _shared:
            _shared["backend"].close()
        _shared.clear()


def ensure_built(task: HarborTask, base_map: dict[str, str] | None = None) -> Built:
    """The task's images, built once per process (a no-op when they exist)."""
    key = (str(task.path), tuple(sorted((base_map or {}).items())))
    if key not in _built:
        _built[key] = build_task(task, base_map=base_map, log=lambda _line: None)
    return _built[key]


class SWEEnv(Env):
    """Repository and Harbor tasks in containers (see the module docstring)."""

    def __init__(
        self,
        *,
        tasks: str = "shipped",
        task: str | None = None,
        protocol: str = "tools",
        step_timeout_s: float = 60.0,
        episode_timeout_s: float | None = None,
        max_output_chars: int = 10_000,
        memory_mb: int = 2048,
        pool_size: int = 1,
        base_map: dict[str, str] | None = None,
        public_tests_reward: float = 0.0,
    ) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        for name, value in (("step_timeout_s", step_timeout_s), ("memory_mb", memory_mb)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        if episode_timeout_s is not None and (
            not isinstance(episode_timeout_s, (int, float)) or episode_timeout_s <= 0
        ):
            raise ValueError("episode_timeout_s must be a positive number or None")
        if not isinstance(max_output_chars, int) or max_output_chars < 100:
            raise ValueError(f"max_output_chars must be an int >= 100, got {max_output_chars!r}")
        if (
            isinstance(public_tests_reward, bool)
            or not isinstance(public_tests_reward, (int, float))
            or public_tests_reward < 0
        ):
            raise ValueError(f"public_tests_reward must be >= 0, got {public_tests_reward!r}")
        if not isinstance(pool_size, int) or pool_size < 0:
            raise ValueError(f"pool_size must be an int >= 0, got {pool_size!r}")
        source = shipped_dir() if tasks == "shipped" else Path(tasks)
        loaded = load_tasks(source)
        if task is not None:
            loaded = [t for t in loaded if t.name == task]
            if not loaded:
                raise ValueError(f"no task named {task!r} in {source}")
        self.task_list = loaded
        self.protocol = protocol
        self.step_timeout_s = float(step_timeout_s)
        self.episode_timeout_s = episode_timeout_s
        self.max_output_chars = max_output_chars
        self.memory_mb = int(memory_mb)
        self.pool_size = pool_size
        self.base_map = dict(base_map or {})
        self.public_tests_reward = float(public_tests_reward)
        self._public: list[str] = []
        self._passing = self._public_total = 0
        self.parser = (
            FencedCodeParser({"bash": ("bash", "command"), "sh": ("bash", "command")})
            if protocol == "bash"
            else get_parser("auto")
        )
        self.task: HarborTask | None = None
        self.session: Any = None
        self.image: str | None = None
        self._history: dict[str, list[bytes | None]] = {}
        self._deadline = 0.0
        self._oracle_done = False

    # ---- episode

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool schemas (``protocol="tools"``); the bash protocol offers none."""
        return [t.schema() for t in TOOL_SCHEMAS] if self.protocol == "tools" else []

    @property
    def workdir(self) -> str:
        """Where the agent works inside its container."""
        return REPO_DIR if self.task is not None and self.task.repo is not None else "/work"

    def _limits(self) -> Limits:
        return Limits(
            wall_s=self.step_timeout_s,
            memory_mb=self.memory_mb,
            pids=256,
            disk_mb=512,
            cpus=1.0,
            output_bytes=256 * 1024,
        )

    def _release(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            session.close()

    def _reset(self, options: dict[str, Any]) -> tuple[list[Message], dict[str, Any]]:
        unknown = set(options) - {"task"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; known: ['task']")
        self._release()
        if "task" in options:
            matches = [t for t in self.task_list if t.name == options["task"]]
            if not matches:
                raise ValueError(f"no task named {options['task']!r} in this env")
            task = matches[0]
        else:
            task = self.task_list[int(self.np_random.integers(len(self.task_list)))]
        self.task = task
        self._history = {}
        self._oracle_done = False
        budget = self.episode_timeout_s or task.timeout("agent", 1800.0)
        try:
            built = ensure_built(task, self.base_map)
            _, pool = _backend_and_pool(self.pool_size)
            copy_from = WORKSPACE if task.repo is not None else f"{WORKSPACE}/workdir"
            self.session = pool.take(built.image, self._limits(), copy_from, budget + 120)
        except InfrastructureError as e:
            self.image = None
            return [user(f"The environment failed to start: {e}")], {
                "status": "error",
                "mask": True,
                "error": str(e),
                "task": task.name,
            }
        self.image = built.image
        self._deadline = time.monotonic() + budget
        self._public, self._passing = [], 0
        if self.public_tests_reward and task.repo is not None:
            self._start_public_tests()
        prompt = TOOLS_PROMPT if self.protocol == "tools" else BASH_PROMPT
        return [system(prompt.format(workdir=self.workdir)), user(task.instruction)], {
            "task": task.name,
            "difficulty": task.difficulty,
            "image": built.image,
        }

    def close(self) -> None:
        """Removes the episode's container."""
        self._release()

    # ---- actions

    def _step(self, action: Message) -> Step:
        if self.session is None:
            raise InfrastructureError("the episode has no container (reset failed)")
        if time.monotonic() > self._deadline:
            self._release()
            return Step(
                [user("The episode's time budget is spent.")],
                truncated=True,
                info={"truncation": "time", "success": False},
            )
        parsed = self.parser.parse(action)
        if self.protocol == "bash":
            if len(parsed.tool_calls) != 1:
                return self.invalid(
                    f"reply with exactly one ```bash block (found {len(parsed.tool_calls)})"
                )
            call = parsed.tool_calls[0]
            if call.arguments["command"].strip() == SUBMIT:
                return self._submit()
            return self._run_calls([call], parsed)
        if not parsed.tool_calls:
            reason = parsed.error_message() if parsed.errors else "no tool call"
            return self.invalid(f"{reason}; call a tool, or submit when you are done")
        return self._run_calls(list(parsed.tool_calls), parsed)

    def _start_public_tests(self) -> None:
        """Finds the visible test files and counts how many of their tests pass now."""
        listed = self._exec("git ls-files").stdout_text.splitlines()
        self._public = [
            p
            for p in listed
            if grading.dropped_reason(p) == "test file"
            and p.endswith(".py")
            and Path(p).name.startswith("test")
        ]
        if self._public:
            assert self.task is not None and self.task.repo is not None
            self.session.put(
                {
                    ".palaestra-public/run.py": grading._RUNNER,
                    ".palaestra-public/pytest.ini": grading.harness_ini(self.task.repo.python_path),
                    ".palaestra-public/ids.txt": "\n".join(self._public) + "\n",
                }
            )
            self._passing, self._public_total = self._public_passing()

    def _public_passing(self) -> tuple[int, int]:
        """(passed, collected) of the visible tests in the agent's container."""
        h = "/work/.palaestra-public"
        self._exec(
            f"rm -f {h}/report.xml; PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -I {h}/run.py "
            f"{h}/ids.txt {h}/pytest.ini {REPO_DIR} {h}/report.xml >/dev/null 2>&1",
            self.step_timeout_s,
        )
        report = self.session.get([".palaestra-public/report.xml"]).get(
            ".palaestra-public/report.xml"
        )
        try:
            outcomes, count = grading.junit_outcomes(report or b"")
        except ValueError:
            return 0, 0
        return sum(o == "passed" for o in outcomes.values()), count

    def _progress(self) -> dict[str, float]:
        if not self._public:
            return {}
        passed, _ = self._public_passing()
        # Over the count at reset: a change that breaks collection must not shrink the scale.
        change = (passed - self._passing) / max(self._public_total, 1)
        self._passing = passed
        return {"progress": self.public_tests_reward * change}

    def _run_calls(self, calls: list[ToolCall], parsed: ParsedAction) -> Step:
        observation: list[Message] = []
        ok = []
        for call in calls:
            if call.name == SUBMIT:
                step = self._submit()
                step.observation = observation + step.observation
                return step
            text, good = self._call(call)
            ok.append(good)
            text = cut_middle(text, self.max_output_chars)
            if self.protocol == "bash":
                observation.append(user(text))
            else:
                observation.append(tool_message(call.id, text, call.name))
        if parsed.errors:
            observation.append(user(f"Some tool calls were malformed: {parsed.error_message()}"))
        if not any(ok):
            return Step(
                observation,
                {"invalid": self.invalid_action_penalty},
                info={"invalid_action": True, "invalid_reason": "every tool call failed"},
            )
        return Step(observation, {"tool": 0.0, **self._progress()}, info={"tool_calls": len(calls)})

    def _call(self, call: ToolCall) -> tuple[str, bool]:
        handlers = {
            "bash": self._bash,
            "view": self._view,
            "create": self._create,
            "str_replace": self._str_replace,
            "insert": self._insert,
            "undo_edit": self._undo_edit,
            "search": self._search,
        }
        if call.name not in handlers:
            return f"Error: unknown tool {call.name!r}; tools: {sorted(handlers) + [SUBMIT]}", False
        try:
            return handlers[call.name](**call.arguments), True
        except InfrastructureError:
            raise
        except (TypeError, ValueError, KeyError) as e:
            return f"Error: {e}", False

    def _exec(self, command: str, timeout_s: float | None = None) -> Any:
        timeout = min(float(timeout_s or self.step_timeout_s), self.step_timeout_s)
        result = self.session.exec(f"cd {self.workdir} && {command}", timeout_s=timeout)
        if result.error is not None:
            raise InfrastructureError(f"the agent's container failed: {result.error}")
        if command.strip() == self._oracle_command() and result.exit_code == 0:
            self._oracle_done = True
        return result

    def _bash(self, command: str, timeout_s: float | None = None) -> str:
        if not isinstance(command, str) or not command.strip():
            raise ValueError("command must be a non-empty string")
        result = self._exec(command, timeout_s)
        text = result.stdout_text
        if result.stderr:
            text += result.stderr_text
        if result.timed_out:
            limit = min(float(timeout_s or self.step_timeout_s), self.step_timeout_s)
            text += f"\n[timed out after {limit:g} s]"
        elif result.exit_code not in (0, None):
            text += f"\n[exit status {result.exit_code}]"
        return text or "(no output)"

    def _relpath(self, path: str) -> str:
        """``path`` relative to /work (the session's root), refusing anything outside workdir."""
        if not isinstance(path, str) or not path or "\0" in path:
            raise ValueError("path must be a non-empty string")
        absolute = path if path.startswith("/") else f"{self.workdir}/{path}"
        parts: list[str] = []
        for part in absolute.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                raise ValueError(
                    f"{path!r}: '..' is not allowed; give a path inside {self.workdir}"
                )
            parts.append(part)
        joined = "/" + "/".join(parts)
        if joined != self.workdir and not joined.startswith(self.workdir + "/"):
            raise ValueError(f"{path!r} is outside the working directory {self.workdir}")
        if ".git" in parts:
            raise ValueError("the tools do not edit or show .git; use bash for git commands")
        return joined[len("/work/") :] if joined != "/work" else ""

    def _read(self, relpath: str) -> bytes | None:
        return self.session.get([relpath]).get(relpath) if relpath else None

    def _write(self, relpath: str, data: bytes | None) -> None:
        if data is None:
            self._exec(f"rm -f -- {shlex.quote('/work/' + relpath)}")
        else:
            self.session.put({relpath: data})

    def _view(self, path: str, view_range: list[int] | None = None) -> str:
        relpath = self._relpath(path)
        target = "/work/" + relpath if relpath else "/work"
        listing = self._exec(
            f"if [ -d {shlex.quote(target)} ]; then cd {shlex.quote(target)} && "
            "find . -maxdepth 2 -not -path '*/.git*' -not -name '.' | sort | head -n 500; "
            "else echo __FILE__; fi"
        )
        if listing.stdout_text.strip() != "__FILE__":
            return listing.stdout_text or "(empty directory)"
        data = self._read(relpath)
        if data is None:
            raise ValueError(f"{path!r} does not exist (or is not a regular file)")
        lines = data.decode("utf-8", errors="replace").splitlines()
        start, end = 1, len(lines)
        if view_range is not None:
            if len(view_range) != 2 or not all(isinstance(v, int) for v in view_range):
                raise ValueError("view_range must be [first line, last line] (last -1: to the end)")
            start, end = view_range[0], (len(lines) if view_range[1] == -1 else view_range[1])
            if not 1 <= start <= max(end, 1) or end > len(lines):
                raise ValueError(
                    f"view_range {view_range} is outside the file's {len(lines)} lines"
                )
        return "\n".join(f"{n:6}\t{lines[n - 1]}" for n in range(start, end + 1))

    def _edit(self, relpath: str, new: bytes) -> None:
        self._history.setdefault(relpath, []).append(self._read(relpath))
        self._write(relpath, new)

    def _create(self, path: str, file_text: str) -> str:
        relpath = self._relpath(path)
        if not relpath:
            raise ValueError("give a file path")
        self._edit(relpath, file_text.encode())
        return f"Wrote {path} ({len(file_text.splitlines())} lines)."

    def _text(self, path: str) -> tuple[str, str]:
        relpath = self._relpath(path)
        data = self._read(relpath)
        if data is None:
            raise ValueError(f"{path!r} does not exist (or is not a regular file)")
        return relpath, data.decode("utf-8", errors="replace")

    def _str_replace(self, path: str, old_str: str, new_str: str) -> str:
        relpath, text = self._text(path)
        count = text.count(old_str) if old_str else 0
        if count != 1:
            raise ValueError(
                f"old_str occurs {count} times in {path}; give text that occurs exactly once"
            )
        self._edit(relpath, text.replace(old_str, new_str, 1).encode())
        return f"Replaced one occurrence in {path}."

    def _insert(self, path: str, insert_line: int, new_str: str) -> str:
        relpath, text = self._text(path)
        lines = text.splitlines(keepends=True)
        if not 0 <= insert_line <= len(lines):
            raise ValueError(f"insert_line must be in 0..{len(lines)}, got {insert_line}")
        block = new_str if new_str.endswith("\n") else new_str + "\n"
        if insert_line and not lines[insert_line - 1].endswith("\n"):
            block = "\n" + block
        lines.insert(insert_line, block)
        self._edit(relpath, "".join(lines).encode())
        return f"Inserted {len(new_str.splitlines())} lines after line {insert_line} of {path}."

    def _undo_edit(self, path: str) -> str:
        relpath = self._relpath(path)
        history = self._history.get(relpath)
        if not history:
            raise ValueError(f"no edit of {path} to undo")
        self._write(relpath, history.pop())
        return f"Undid the last edit of {path}."

    def _search(self, pattern: str, path: str = ".") -> str:
        relpath = self._relpath(path)
        target = "/work/" + relpath if relpath else "/work"
        result = self._exec(
            f"grep -rnE --exclude-dir=.git -- {shlex.quote(pattern)} {shlex.quote(target)} "
            "| head -n 200"
        )
        return result.stdout_text or "(no match)"

    # ---- the end

    def _submit(self) -> Step:
        assert self.task is not None and self.image is not None
        workdir = self.workdir
        try:
            snapshot = grading.take_snapshot(self.session, workdir)
        finally:
            self._release()
        backend, _ = _backend_and_pool(self.pool_size)
        if self.task.repo is not None:
            verdict = grading.grade_repo(self.task, snapshot, backend=backend, image=self.image)
        else:
            verdict = grading.grade_harbor(self.task, snapshot, backend=backend, image=self.image)
        return self.grade_step(verdict)

    def grade_step(self, verdict: Verdict) -> Step:
        """The terminal step for a grading verdict."""
        text = f"Submitted. {verdict.reason}." if not verdict.mask else "Grading failed."
        return self.finish(verdict, [user(text)], outcome=RESOLVED_REWARD * verdict.score)

    # ---- the oracle

    def _oracle_command(self) -> str:
        if self.task is None:
            return ""
        if self.task.repo is not None:
            patch = self.task.gold_patch() or ""
            marker = "PALAESTRA_GOLD_PATCH_END"
            return (
                "git checkout -q -- . && git clean -fdq && "
                f"git apply --whitespace=nowarn <<'{marker}'\n{patch}{marker}"
            )
        solve = self.task.solution_dir / "solve.sh"
        script = solve.read_text() if solve.is_file() else "true\n"
        marker = "PALAESTRA_SOLUTION_END"
        return f"bash <<'{marker}'\n{script.rstrip()}\n{marker}"

    def oracle_action(self) -> Message:
        """Applies the reference solution with one bash action, then submits."""
        if self._oracle_done:
            if self.protocol == "bash":
                return {"role": "assistant", "content": f"```bash\n{SUBMIT}\n```"}
            return _call_message(SUBMIT, {})
        command = self._oracle_command()
        if self.protocol == "bash":
            return {"role": "assistant", "content": f"```bash\n{command}\n```"}
        return _call_message("bash", {"command": command})

    def render_text(self) -> str:
        """The task and the last messages."""
        name = self.task.name if self.task is not None else "(no task)"
        return f"[task {name}]\n" + super().render_text()


def _call_message(name: str, arguments: dict[str, Any]) -> Message:
    import json

    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_0",  # as parsers number the calls of a message
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


__all__ = ["INVALID_ACTION_PENALTY", "RESOLVED_REWARD", "SWEEnv", "WarmPool", "cut_middle"]
