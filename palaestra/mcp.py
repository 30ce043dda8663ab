"""Tools from Model Context Protocol servers, for any env.

    from palaestra.mcp import MCPServers

    servers = MCPServers([
        {"command": [sys.executable, "-m", "palaestra.envs.tools.mcp_calculator"]},  # stdio
        {"url": "http://127.0.0.1:8000/mcp"},                                      # HTTP
    ])
    servers.schemas                                  # OpenAI function schemas
    servers.call("calculator", {"expression": "6 * 7"})          # -> "42"
    await servers.acall("calculator", {"expression": "6 * 7"})   # the same, from async code
    servers.tools                                    # `palaestra.tools.Tool`s for ToolEnv
    servers.restart()                                # fresh servers (e.g. per episode)
    servers.close()                                  # stops the stdio servers

A server spec is a dict with exactly one of

* ``command``: the program and its arguments (a list), started as a subprocess that
  speaks MCP over its stdin and stdout. Optional: ``env`` (extra environment variables;
  the SDK passes only PATH, HOME and a few others from ours), ``cwd``, and ``docker``
  (``{"image": tag, "mounts": {host_path: container_path}, "memory_mb": 1024, "cpus": 1,
  "pids": 256}``): run the command in a fresh container of that local image, with no
  network, a read-only root, an unprivileged user, no capabilities and those limits
  (`docker_command`); ``env`` and ``cwd`` then apply inside the container, and the
  container is removed on close. Use it for servers that run model-controlled input.
* ``url``: a streamable-HTTP endpoint that is already running (not started or stopped
  here).

Any spec may carry a ``name`` used in messages. Everything goes through the `mcp` SDK's
own client (``pip install "palaestra[mcp]"``). Public API: `MCPServers`, `MCPTool`,
`MCPToolError`, `schema_error`, `schema_validator`, `result_text`, `docker_command`.

What the model can get wrong, and what the servers can:

* Arguments that do not match a tool's input schema (checked here with `jsonschema`,
  before anything is sent) raise `ValueError` from `call`; as a `Tool` the call fails
  with the schema error as its message, and `palaestra.tools.run_tool_turn` makes a turn
  of such calls an invalid action.
* A tool that reports an error (``isError``) raises `MCPToolError`; the model reads it.
* A server that crashes, closes the connection, answers nonsense or takes longer than
  ``call_timeout_s`` raises `palaestra.errors.InfrastructureError`, which envs report as
  a masked ``error`` step. The server is then marked broken: later calls fail at once
  until `start` (which envs call at every reset) connects it again.

The SDK is asyncio-based; an `MCPServers` runs its own event loop on a background thread,
so the same object serves sync code (`call`) and async code on any loop (`acall`). Its
connections live in tasks of that loop, and `close` (or the interpreter's exit) ends them
and then the loop: a stdio server gets its stdin closed, then its process group is killed
after a grace period (the SDK's shutdown), so no server process outlives its
`MCPServers`. (A server that exits on its own within the grace period is trusted to have
ended its own children.)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import difflib
import json
import os
import random
import tempfile
import threading
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from datetime import timedelta
from typing import Any, TypeVar, cast

from palaestra.errors import InfrastructureError, require
from palaestra.tools import DEFAULT_MAX_OUTPUT_CHARS, Tool

# The first import of httpx (the SDK's HTTP client) loads rich for httpx's command line, and
# rich draws from the global `random` as it loads; an env that imports this module must leave
# its caller's random state as it found it.
_random_state = random.getstate()
import httpx  # noqa: E402

random.setstate(_random_state)
del _random_state

DEFAULT_CALL_TIMEOUT_S = 30.0
DEFAULT_CONNECT_TIMEOUT_S = 60.0
_CLOSE_TIMEOUT_S = 15.0
"""Seconds `close` waits for a connection to end (the SDK kills a stdio server within ~4 s)."""
_HTTP_TIMEOUT_S = 30.0
"""Seconds to connect to a streamable-HTTP server or send it a request."""
_REQUEST_TIMEOUT = 408
"""The error code the SDK's session gives a request whose answer is late (HTTP's 408)."""
_STDERR_TAIL_CHARS = 2_000
_DOCKER_CLIENT_ENV = ("DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH")
"""What the docker client inherits besides the SDK's defaults (PATH, HOME, ...)."""
_MAX_TOOL_PAGES = 100
_SPEC_KEYS = {"command": {"command", "env", "cwd", "docker", "name"}, "url": {"url", "name"}}
_DOCKER_DEFAULTS = {"mounts": {}, "memory_mb": 1024, "cpus": 1.0, "pids": 256}
SANDBOX_USER = "10001:10001"
"""The unprivileged user a Docker-sandboxed server runs as (the sandbox image's)."""

_T = TypeVar("_T")


class MCPToolError(RuntimeError):
    """An MCP tool ran and reported an error (its result had ``isError`` set)."""


@dataclasses.dataclass(frozen=True)
class MCPTool(Tool):
    """A `Tool` served by an MCP server; arguments are checked against its full JSON schema.

    Attributes:
        server: The name of the server that serves it.
        validator: The `jsonschema` validator of ``parameters`` (compiled once).
    """

    server: str = ""
    validator: Any = dataclasses.field(default=None, compare=False, repr=False)

    def check(self, arguments: Mapping[str, Any]) -> str | None:
        """The schema error of ``arguments`` as the model should read it, or None."""
        return schema_error(self.name, self.parameters, arguments, self.validator)


def schema_validator(schema: Mapping[str, Any]) -> Any:
    """A `jsonschema` validator of ``schema`` (its draft read from ``$schema``).

    Raises:
        jsonschema.SchemaError: ``schema`` is not a valid JSON schema.
    """
    jsonschema = require("jsonschema", "mcp", "checking MCP tool arguments")
    kind = jsonschema.validators.validator_for(schema)
    kind.check_schema(schema)
    return kind(schema)


def schema_error(
    name: str, schema: Mapping[str, Any], arguments: Any, validator: Any = None
) -> str | None:
    """Validates ``arguments`` against a tool's input schema with `jsonschema`.

    Args:
        name: The tool's name, for the message.
        schema: Its input schema.
        arguments: The arguments the model gave.
        validator: ``schema_validator(schema)``, if already made.

    Returns:
        None when they match; else what is wrong, where, and the schema, e.g.
        ``arguments of add do not match its input schema: 'b' is a required property``.
    """
    import jsonschema

    validator = validator or schema_validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    where = "".join(f"[{part!r}]" for part in error.absolute_path)
    at = f" at arguments{where}" if where else ""
    return (
        f"arguments of {name} do not match its input schema{at}: {error.message}. "
        f"The schema is {json.dumps(schema, sort_keys=True)}"
    )


def result_text(result: Any) -> str:
    """The text of an MCP ``CallToolResult``: text blocks, text resources, notes for media."""
    pieces = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            pieces.append(block.text)
        elif kind == "resource":
            text = getattr(block.resource, "text", None)
            pieces.append(text if text is not None else f"[binary resource {block.resource.uri}]")
        elif kind == "resource_link":
            pieces.append(f"[resource {block.uri}]")
        else:
            pieces.append(f"[{kind} content ({getattr(block, 'mimeType', '?')}) not shown]")
    if not pieces and result.structuredContent is not None:
        pieces.append(json.dumps(result.structuredContent))
    return "\n".join(pieces)


def _root_cause(error: BaseException) -> BaseException:
    """The first leaf of nested exception groups (anyio wraps transport errors in them)."""
    while hasattr(error, "exceptions") and error.exceptions:
        error = error.exceptions[0]
    return error


def _describe(error: BaseException) -> str:
    leaf = _root_cause(error)
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__}: {text}" if str(leaf) else text


@dataclasses.dataclass(frozen=True)
class _Spec:
    """A checked server spec."""

    name: str
    command: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    docker: dict[str, Any] | None = None

    @classmethod
    def parse(cls, spec: Any, index: int) -> _Spec:
        if not isinstance(spec, Mapping):
            raise ValueError(
                f"server {index} must be a dict like {{'command': ['python', 'server.py']}} "
                f"or {{'url': 'http://127.0.0.1:8000/mcp'}}, got {spec!r}"
            )
        kinds = [k for k in ("command", "url") if k in spec]
        if len(kinds) != 1:
            raise ValueError(
                f"server {index} must have exactly one of 'command' (a stdio subprocess) or "
                f"'url' (a streamable-HTTP endpoint), got keys {sorted(spec)}"
            )
        kind = kinds[0]
        unknown = sorted(set(spec) - _SPEC_KEYS[kind])
        if unknown:
            raise ValueError(
                f"server {index} ({kind}) has unknown keys {unknown}; "
                f"it takes {sorted(_SPEC_KEYS[kind])}"
            )
        name = spec.get("name")
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"server {index}: name must be a non-empty string, got {name!r}")
        if kind == "url":
            url = spec["url"]
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ValueError(f"server {index}: url must be an http(s) URL, got {url!r}")
            return cls(name=name or url, url=url)
        command = spec["command"]
        if (
            not isinstance(command, (list, tuple))
            or not command
            or not all(isinstance(part, str) and part for part in command)
        ):
            raise ValueError(
                f"server {index}: command must be a non-empty list of strings (the program "
                f"and its arguments), got {command!r}"
            )
        env = spec.get("env")
        if env is not None and not (
            isinstance(env, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise ValueError(f"server {index}: env must map strings to strings, got {env!r}")
        cwd = spec.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ValueError(f"server {index}: cwd must be a string, got {cwd!r}")
        docker = _docker_options(spec["docker"], index) if "docker" in spec else None
        return cls(
            name=name or " ".join(command),
            command=tuple(command),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            docker=docker,
        )


def _docker_options(options: Any, index: int) -> dict[str, Any]:
    """Checks a spec's ``docker`` options and fills in the defaults."""
    if not isinstance(options, Mapping) or not isinstance(options.get("image"), str):
        raise ValueError(
            f"server {index}: docker must be a dict with an 'image' (a local image tag), "
            f"e.g. {{'image': 'my-mcp-server:1'}}, got {options!r}"
        )
    unknown = sorted(set(options) - {"image", *_DOCKER_DEFAULTS})
    if unknown:
        raise ValueError(
            f"server {index}: docker has unknown keys {unknown}; "
            f"it takes {sorted({'image', *_DOCKER_DEFAULTS})}"
        )
    merged = {**_DOCKER_DEFAULTS, **options}
    mounts = merged["mounts"]
    if not isinstance(mounts, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and v.startswith("/") for k, v in mounts.items()
    ):
        raise ValueError(
            f"server {index}: docker mounts must map host paths to absolute paths in the "
            f"container, got {mounts!r}"
        )
    for key in ("memory_mb", "pids"):
        value = merged[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"server {index}: docker {key} must be a positive integer")
    cpus = merged["cpus"]
    if isinstance(cpus, bool) or not isinstance(cpus, (int, float)) or not cpus > 0:
        raise ValueError(f"server {index}: docker cpus must be a positive number, got {cpus!r}")
    return merged


def docker_command(spec: _Spec, container: str) -> list[str]:
    """The ``docker run`` command line that runs ``spec``'s server in a locked-down container.

    No network, a read-only root with a small private ``/tmp``, an unprivileged user, no
    capabilities, no privilege gain, and caps on memory (swap included), CPUs and
    processes; the mounts are read-only; the image must be local (nothing is pulled). The
    server's stdin and stdout are the container's.
    """
    options = spec.docker or {}
    memory = f"{options['memory_mb']}m"
    argv = [
        "docker",
        "run",
        "--interactive",
        "--rm",
        "--init",
        "--pull",
        "never",
        "--name",
        container,
    ]
    argv += ["--network", "none", "--read-only", "--tmpfs", "/tmp:size=64m"]
    argv += ["--user", SANDBOX_USER, "--cap-drop", "ALL"]
    argv += ["--security-opt", "no-new-privileges", "--memory", memory, "--memory-swap", memory]
    argv += ["--cpus", f"{options['cpus']:g}", "--pids-limit", str(options["pids"])]
    for host, inside in options["mounts"].items():
        argv += ["--volume", f"{host}:{inside}:ro"]
    for key, value in (spec.env or {}).items():
        argv += ["--env", f"{key}={value}"]
    if spec.cwd is not None:
        argv += ["--workdir", spec.cwd]
    return [*argv, options["image"], *spec.command]


class _Connection:
    """One server's client session, held open by a task of the background loop."""

    def __init__(self, spec: _Spec):
        self.spec = spec
        self.client: Any = None
        self.tools: list[Any] = []
        self.broken: str | None = "not connected"
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task | None = None
        self._stderr: Any = None
        self._container: str | None = None
        self._ended: BaseException | None = None
        self._lost = asyncio.Event()

    def stderr_tail(self) -> str:
        """The end of a stdio server's standard error, for messages."""
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0)
            text = self._stderr.read()[-_STDERR_TAIL_CHARS:].strip()
            return f"; its stderr ends with:\n{text}" if text else ""
        return ""

    async def _streams(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        """Starts the transport within ``stack``; returns its read and write streams."""
        if self.spec.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            # No read timeout: a call's own deadline bounds it, and the SDK's default (300 s)
            # would cut a longer `call_timeout_s` short.
            http = await stack.enter_async_context(
                httpx.AsyncClient(
                    transport=_WatchedTransport(self._connection_lost),
                    timeout=httpx.Timeout(_HTTP_TIMEOUT_S, read=None),
                )
            )
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(self.spec.url, http_client=http)
            )
            return read, write
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        # The server's stderr goes to a file, so a crash can be explained without the
        # server's logs interleaving with the caller's output.
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        if self.spec.docker is not None:
            # A fresh name per start, so that `close` can remove this very container.
            self._container = f"palaestra-mcp-{uuid.uuid4().hex[:16]}"
            program, *arguments = docker_command(self.spec, self._container)
            env = {k: os.environ[k] for k in _DOCKER_CLIENT_ENV if k in os.environ}
            cwd = None
        else:
            program, *arguments = self.spec.command
            env, cwd = self.spec.env, self.spec.cwd
        parameters = StdioServerParameters(command=program, args=arguments, env=env, cwd=cwd)
        return await stack.enter_async_context(stdio_client(parameters, errlog=self._stderr))

    def _connection_lost(self, error: BaseException) -> None:
        """Called when an HTTP response breaks off: the server is gone or unreachable."""
        if self._ended is None:
            self._ended = error
        self._lost.set()

    async def open(self, connect_timeout_s: float) -> None:
        """Connects and lists the tools; raises `InfrastructureError` on failure."""
        await self.close()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._stop = asyncio.Event()
        self._ended = None
        self._lost = asyncio.Event()
        self._holder = loop.create_task(self._hold(ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), connect_timeout_s)
        except asyncio.TimeoutError:
            await self.close()
            raise InfrastructureError(
                f"MCP server {self.spec.name!r} did not answer within {connect_timeout_s:g} s "
                f"of starting{self.stderr_tail()}"
            ) from None
        except Exception as e:
            tail = self.stderr_tail()
            await self.close()
            raise InfrastructureError(
                f"could not connect to MCP server {self.spec.name!r}: {_describe(e)}{tail}"
            ) from e
        self.broken = None

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        # The SDK's transport and session are async context managers whose task groups must
        # be entered and left by one task: this one, which then waits until `close` asks it
        # to leave. The session has no timeout of its own: `open` bounds the handshake and
        # each call passes its own.
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._streams(stack)
                client = await stack.enter_async_context(ClientSession(read, write))
                await client.initialize()
                self.tools = await _list_tools(client)
                self.client = client
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as e:
            if self._ended is None:
                self._ended = e
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else RuntimeError(repr(e)))
            if not isinstance(e, Exception):
                raise
        finally:
            self.client = None
            self._lost.set()

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> Any:
        """Calls a tool; transport failures and timeouts raise `InfrastructureError`."""
        from mcp import McpError
        from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND

        if self.broken is not None or self.client is None:
            raise InfrastructureError(
                f"MCP server {self.spec.name!r} is unavailable ({self.broken}); "
                "`start()` connects it again (envs do at every reset)"
            )
        try:
            return await self._unless_ended(
                # The SDK's read timeout ends the request; the outer bound also covers a
                # transport that stops answering below the request layer.
                asyncio.wait_for(
                    self.client.call_tool(
                        name, arguments, read_timeout_seconds=timedelta(seconds=timeout_s)
                    ),
                    timeout_s + 5.0,
                )
            )
        except McpError as e:
            if e.error.code in (INVALID_PARAMS, METHOD_NOT_FOUND):
                raise MCPToolError(e.error.message) from e
            what = (
                f"did not answer {name} within {timeout_s:g} s"
                if e.error.code == _REQUEST_TIMEOUT
                else f"failed during {name}: {e.error.message}"
            )
        except asyncio.TimeoutError:
            what = f"did not answer {name} within {timeout_s:g} s"
        except Exception as e:
            what = f"failed during {name}: {_describe(e)}"
        self.broken = what
        raise InfrastructureError(f"MCP server {self.spec.name!r} {what}{self.stderr_tail()}")

    async def _unless_ended(self, request: Coroutine[Any, Any, _T]) -> _T:
        """Awaits ``request``, or raises `ConnectionError` if the connection is lost first.

        The SDK's streamable-HTTP transport leaves a request unanswered when its server dies
        mid-call (it only logs the broken stream); without this the call would wait out its
        whole deadline and read as a hang.
        """
        task = asyncio.ensure_future(request)
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended = not task.done()
            # No-ops when done; else the connection (or our own caller) ended first.
            task.cancel()
            lost.cancel()
        if ended:
            cause = f" ({_describe(self._ended)})" if self._ended is not None else ""
            raise ConnectionError(f"the connection ended{cause}")
        return task.result()

    async def close(self) -> None:
        """Ends the session (for a stdio server: stops its process) and waits for it."""
        holder, self._holder = self._holder, None
        if holder is not None:
            self._stop.set()
            done, _ = await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT_S)
            if not done:
                holder.cancel()
                await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT_S)
            if holder.done() and not holder.cancelled():
                holder.exception()  # retrieved: a crashed server's exit is not news
        if self._container is not None:
            # Killing the docker client does not stop its container; removing it does.
            await _remove_container(self._container)
            self._container = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self.client = None
        self.broken = "closed"


class _WatchedStream(httpx.AsyncByteStream):
    """An HTTP response body that reports it broke off (the server died mid-answer)."""

    def __init__(self, inner: httpx.AsyncByteStream, on_break: Callable[[BaseException], None]):
        self._inner = inner
        self._on_break = on_break

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                yield chunk
        except httpx.TransportError as e:
            self._on_break(e)
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


class _WatchedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose response bodies call ``on_break`` when they break off.

    The SDK's streamable-HTTP client reads each answer from a response stream and only
    logs one that breaks; this is how a call in flight learns that its server died.
    """

    def __init__(self, on_break: Callable[[BaseException], None]):
        self._inner = httpx.AsyncHTTPTransport()
        self._on_break = on_break

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        body = cast(httpx.AsyncByteStream, response.stream)  # an async transport's is async
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_WatchedStream(body, self._on_break),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _remove_container(name: str) -> None:
    """``docker rm --force name``, quietly (the container may be gone already)."""
    with contextlib.suppress(OSError):
        process = await asyncio.create_subprocess_exec(
            "docker",
            "rm",
            "--force",
            name,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await asyncio.wait_for(process.wait(), _CLOSE_TIMEOUT_S)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()


async def _list_tools(client: Any) -> list[Any]:
    tools, cursor = [], None
    for _ in range(_MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if cursor is None:
            return tools
    raise InfrastructureError(f"the server's tool list did not end after {_MAX_TOOL_PAGES} pages")


class _LoopThread:
    """An asyncio event loop running on a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-client", daemon=True)
        self.thread.start()

    def submit(self, coroutine: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise RuntimeError("MCPServers' sync methods cannot be called from its own loop")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


def _shutdown(runner: _LoopThread, connections: list[_Connection]) -> None:
    """Closes every connection, then the loop (also run by `weakref.finalize` at exit)."""
    if runner.loop.is_closed():
        return

    async def close_all() -> None:
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    # Each close is bounded already; this outer bound keeps `close` from ever hanging.
    with contextlib.suppress(concurrent.futures.TimeoutError):
        runner.submit(close_all()).result(timeout=2 * _CLOSE_TIMEOUT_S + 5)
    runner.stop()


class MCPServers:
    """Connections to MCP servers, offering their tools to sync and async code.

    Servers connect on first use (`start`, `tools`, `schemas`, `call`). A server that crashes
    or hangs is marked broken and its calls fail until `start` connects it again. Tool names
    must be unique across the servers.

    Args:
        servers: Server specs: ``{"command": [program, *args], "env": {...}, "cwd": ...}``
            for a stdio subprocess, ``{"url": "http://host:port/mcp"}`` for streamable HTTP;
            each may have a ``name``.
        call_timeout_s: Seconds one tool call may take before the server counts as hung.
        connect_timeout_s: Seconds a server may take to start and list its tools.
        max_output_chars: Characters of a result the model reads (in `tools`); longer
            results are cut with a note.

    Raises:
        ValueError: A spec is malformed or a limit is out of range.
    """

    def __init__(
        self,
        servers: Sequence[Mapping[str, Any]],
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    ):
        require("mcp", "mcp", "tools from MCP servers")
        if isinstance(servers, (str, Mapping)) or not isinstance(servers, Sequence):
            raise ValueError(f"servers must be a list of server specs, got {servers!r}")
        if not servers:
            raise ValueError("servers must name at least one MCP server")
        for label, value in (
            ("call_timeout_s", call_timeout_s),
            ("connect_timeout_s", connect_timeout_s),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{label} must be a positive number of seconds, got {value!r}")
        if isinstance(max_output_chars, bool) or not isinstance(max_output_chars, int):
            raise ValueError(f"max_output_chars must be an integer, got {max_output_chars!r}")
        if max_output_chars < 1:
            raise ValueError(f"max_output_chars must be positive, got {max_output_chars}")
        specs = [_Spec.parse(spec, i) for i, spec in enumerate(servers)]
        self.call_timeout_s = float(call_timeout_s)
        self.connect_timeout_s = float(connect_timeout_s)
        self.max_output_chars = max_output_chars
        self._connections = [_Connection(spec) for spec in specs]
        self._runner = _LoopThread()
        self._lock = threading.Lock()
        self._route: dict[str, _Connection] = {}
        self._tools: list[MCPTool] = []
        self._started = False
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, self._runner, self._connections)

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Connects every server not connected (or broken) and lists the tools.

        Raises:
            InfrastructureError: A server could not start or connect in time.
            ValueError: Two servers offer a tool of the same name.
        """
        self._check_open()
        with self._lock:
            pending = [c for c in self._connections if c.broken is not None]
            if not pending:
                return
            self._runner.submit(self._open(pending)).result()
            self._index()
            self._started = True

    def _ensure_started(self) -> None:
        # First use connects; a server that broke later stays broken until `start`, so that
        # no episode goes on with a server whose state was lost.
        if not self._started:
            self.start()

    async def _open(self, connections: list[_Connection]) -> None:
        results = await asyncio.gather(
            *(c.open(self.connect_timeout_s) for c in connections),
            return_exceptions=True,
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def _index(self) -> None:
        route: dict[str, _Connection] = {}
        tools = []
        for connection in self._connections:
            for listed in connection.tools:
                if listed.name in route:
                    raise ValueError(
                        f"MCP servers {route[listed.name].spec.name!r} and "
                        f"{connection.spec.name!r} both offer a tool named {listed.name!r}; "
                        "tool names must be unique across an env's servers"
                    )
                route[listed.name] = connection
                tools.append(self._make_tool(listed, connection.spec.name))
        self._route, self._tools = route, tools

    def _make_tool(self, listed: Any, server: str) -> MCPTool:
        import jsonschema

        name, schema = listed.name, dict(listed.inputSchema)
        try:
            validator = schema_validator(schema)
        except jsonschema.SchemaError as e:
            raise InfrastructureError(
                f"MCP server {server!r} lists tool {name!r} with an invalid input schema: "
                f"{e.message}"
            ) from e

        def run(**arguments: Any) -> str:
            return self.call(name, arguments)

        return MCPTool(
            name=name,
            description=listed.description or "",
            parameters=schema,
            fn=run,
            max_output_chars=self.max_output_chars,
            server=server,
            validator=validator,
        )

    def restart(self) -> None:
        """Stops every server and connects again (fresh server state, e.g. per episode)."""
        self._check_open()
        with self._lock:
            self._runner.submit(self._close_all()).result()
        self.start()

    async def _close_all(self) -> None:
        await asyncio.gather(*(c.close() for c in self._connections), return_exceptions=True)

    def close(self) -> None:
        """Ends every session and stops every stdio server (safe to call twice)."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> MCPServers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this MCPServers is closed; make a new one")

    # --- tools ------------------------------------------------------------------------------

    @property
    def tools(self) -> list[MCPTool]:
        """The servers' tools as `palaestra.tools.Tool`s (sync functions; connects if needed)."""
        self._ensure_started()
        return list(self._tools)

    @property
    def async_tools(self) -> list[MCPTool]:
        """The same tools with async functions, for `palaestra.tools.arun_tool_turn`."""
        return [dataclasses.replace(t, fn=self._async_caller(t.name)) for t in self.tools]

    def _async_caller(self, name: str) -> Any:
        async def run(**arguments: Any) -> str:
            return await self.acall(name, arguments)

        return run

    @property
    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas of the tools, with the input schemas the servers gave."""
        return [t.schema() for t in self.tools]

    def _prepare(self, name: str, arguments: Any) -> Coroutine[Any, Any, str]:
        self._check_open()
        self._ensure_started()
        if name not in self._route:
            close = difflib.get_close_matches(name, self._route, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"no MCP server offers a tool named {name!r}{hint} (tools: {sorted(self._route)})"
            )
        tool = next(t for t in self._tools if t.name == name)
        problem = tool.check(arguments) if isinstance(arguments, Mapping) else None
        if not isinstance(arguments, Mapping):
            problem = f"arguments of {name} must be an object, got {type(arguments).__name__}"
        if problem is not None:
            raise ValueError(problem)
        return self._call(self._route[name], name, dict(arguments))

    async def _call(self, connection: _Connection, name: str, arguments: dict[str, Any]) -> str:
        result = await connection.call(name, arguments, self.call_timeout_s)
        text = result_text(result)
        if result.isError:
            raise MCPToolError(text or f"{name} failed without a message")
        return text

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Calls a tool and returns its text (uncapped).

        Raises:
            ValueError: No server offers ``name``, or ``arguments`` do not match its schema.
            MCPToolError: The tool reported an error; the message is its text.
            InfrastructureError: The server crashed, hung past ``call_timeout_s`` or failed.
        """
        return self._runner.submit(self._prepare(name, arguments)).result()

    async def acall(self, name: str, arguments: Mapping[str, Any]) -> str:
        """The async twin of `call`, usable from any event loop."""
        if self._started:
            coroutine = self._prepare(name, arguments)
        else:  # the first use connects, which blocks
            coroutine = await asyncio.to_thread(self._prepare, name, arguments)
        # Awaited on the caller's loop; cancelling the caller cancels the call.
        return await asyncio.wrap_future(self._runner.submit(coroutine))
