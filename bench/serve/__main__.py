"""Serve benchmark: `palaestra serve` beside in-process stepping and OpenEnv's server, one run.

    python -m bench.serve [--steps 2000] [--seconds 5] [--clients 16] [--sessions 1000]

Rows (all on `GuessNumber-v0`, a light env, so the numbers are the transport's):
    * per-step latency, p50 and p99: in process; a remote env over WebSocket; the HTTP
      session API (one keep-alive connection). Each server runs in its own process.
    * sessions held at once: WebSocket sessions opened and reset, then all asked for their
      state; the count that answered and the server's resident memory.
    * steps/s: 1, 4 and ``--clients`` WebSocket clients stepping as fast as answers come, against
      `palaestra serve` and against OpenEnv's own server framework (``openenv-core``,
      `bench.serve.openenv_server`) serving the same env, with the same client code and
      frames (OpenEnv's protocol), and the CPU time each server spent per step. A third
      server answers every frame at once with a canned frame (`bench.serve.canned_server`):
      its rate is the ceiling the clients and the machine allow, so the note shows the
      largest ratio any server could reach in that row.
    * Ray pool steps/s with 1, 2 and 3 simulated env nodes (`bench.serve.ray_pool`; skip
      them with ``--no-ray``).

Needs the ``dev`` extra (OpenEnv's package): pip install -e ".[dev]".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import httpx
import numpy as np
import websockets
from rich.console import Console
from rich.table import Table

import palaestra

ENV_ID = "GuessNumber-v0"


def action(i: int) -> str:
    """The benchmark's action stream: guesses spread over the range (episodes end by limits)."""
    return f"<guess>{(i * 37) % 64 + 1}</guess>"


def run_client(coroutine):
    """Runs the benchmark's clients, on uvloop where it is installed.

    The clients' own work is part of every round trip and the same for both servers; the
    leaner it is, the more the rates show the servers' difference.
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server in a child process."""

    def __init__(self, command: list[str], port: int):
        self.port, self.url = port, f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{command} did not start: {self.process.stderr.read()[-2000:]}")
            time.sleep(0.1)

    def rss_mb(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as status:
            line = next(li for li in status if li.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    def cpu_s(self) -> float:
        """CPU seconds (user and system) the server process has used."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:  # a wedged server ignores SIGTERM
            self.process.kill()
            self.process.wait(10)


def palaestra_server(max_sessions: int) -> Server:
    port = free_port()
    command = [sys.executable, "-m", "palaestra.cli", "serve", ENV_ID, "--port", str(port)]
    return Server(command + ["--max-sessions", str(max_sessions)], port)


def canned_server() -> Server:
    port = free_port()
    return Server([sys.executable, "-m", "bench.serve.canned_server", str(port)], port)


def openenv_server(max_sessions: int) -> Server:
    port = free_port()
    module = "bench.serve.openenv_server"
    return Server([sys.executable, "-m", module, str(port), ENV_ID, str(max_sessions)], port)


# --- latency -----------------------------------------------------------------------------------


def step_latencies(step, reset, steps: int) -> np.ndarray:
    """Seconds per step call (resets, when an episode ends, are not timed)."""
    reset(0)
    times = np.empty(steps)
    for i in range(steps):
        start = time.perf_counter()
        done = step(action(i))
        times[i] = time.perf_counter() - start
        if done:
            reset(i)
    return times


def in_process(steps: int) -> np.ndarray:
    env = palaestra.make(ENV_ID)
    return step_latencies(lambda a: any(env.step(a)[2:4]), lambda s: env.reset(seed=s), steps)


def over_websocket(url: str, steps: int) -> np.ndarray:
    env = palaestra.make(f"{url}/{ENV_ID}")
    try:
        return step_latencies(lambda a: any(env.step(a)[2:4]), lambda s: env.reset(seed=s), steps)
    finally:
        env.close()


def over_http(url: str, steps: int) -> np.ndarray:
    with httpx.Client(base_url=url) as client:
        session = client.post("/sessions", json={"env_id": ENV_ID}).json()["session_id"]

        def step(a: str) -> bool:
            return client.post(f"/sessions/{session}/step", json={"action": a}).json()["done"]

        def reset(seed: int) -> None:
            client.post(f"/sessions/{session}/reset", json={"seed": seed}).raise_for_status()

        times = step_latencies(step, reset, steps)
        client.delete(f"/sessions/{session}")
    return times


# --- throughput and capacity ---------------------------------------------------------------------


ANSWER_TIMEOUT_S = 30.0
"""A client that waits longer than this for an answer counts as failed."""

HOLD_DEADLINE_S = 180.0
"""The sessions-held row stops opening sessions after this long."""


async def exchange(socket_, frame: dict) -> dict:
    """Sends one frame and returns the answer (TimeoutError past ``ANSWER_TIMEOUT_S``)."""
    await socket_.send(json.dumps(frame))
    if sys.version_info < (3, 11):
        return json.loads(await asyncio.wait_for(socket_.recv(), ANSWER_TIMEOUT_S))
    async with asyncio.timeout(ANSWER_TIMEOUT_S):  # no task per frame, as wait_for makes
        return json.loads(await socket_.recv())


async def steps_per_second(ws_url: str, clients: int, seconds: float) -> tuple[float, str]:
    """Steps per second of ``clients`` sockets stepping back to back (OpenEnv frames).

    Returns:
        The rate, and the first client failure (empty if none).
    """
    deadline = time.monotonic() + seconds
    counts = [0] * clients

    async def client(index: int) -> None:
        async with websockets.connect(ws_url, max_size=None, ping_interval=None) as socket_:
            await exchange(socket_, {"type": "reset", "data": {"seed": index}})
            i = index
            while time.monotonic() < deadline:
                answer = await exchange(socket_, {"type": "step", "data": {"content": action(i)}})
                if answer["type"] != "observation":
                    raise RuntimeError(f"the server answered {answer}")
                counts[index] += 1
                i += 1
                if answer["data"]["done"]:
                    await exchange(socket_, {"type": "reset", "data": {"seed": i}})

    started = time.monotonic()
    results = await asyncio.gather(*(client(i) for i in range(clients)), return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    first = f"{len(failures)} clients failed: {type(failures[0]).__name__}" if failures else ""
    return sum(counts) / (time.monotonic() - started), first


async def sessions_held(ws_url: str, sessions: int) -> tuple[int, str]:
    """Opens and resets ``sessions`` sockets, then counts those that answer a state frame.

    Returns:
        The count, and the first failure (empty if none).
    """
    sockets = []
    failures: list[BaseException] = []
    give_up_at = time.monotonic() + HOLD_DEADLINE_S
    try:
        for batch in range(0, sessions, 50):
            if time.monotonic() > give_up_at:
                failures.append(TimeoutError(f"stopped opening after {HOLD_DEADLINE_S:g} s"))
                break

            async def open_one(seed: int):
                socket_ = await websockets.connect(
                    ws_url, open_timeout=ANSWER_TIMEOUT_S, ping_interval=None
                )
                answer = await exchange(socket_, {"type": "reset", "data": {"seed": seed}})
                if answer["type"] != "observation":
                    await socket_.close()
                    raise RuntimeError(answer["data"]["message"])
                return socket_

            opened = await asyncio.gather(
                *(open_one(s) for s in range(batch, min(batch + 50, sessions))),
                return_exceptions=True,
            )
            sockets += [s for s in opened if not isinstance(s, BaseException)]
            failures += [s for s in opened if isinstance(s, BaseException)]

        async def state(socket_) -> bool:
            return (await exchange(socket_, {"type": "state"}))["type"] == "state"

        answers = await asyncio.gather(*(state(s) for s in sockets), return_exceptions=True)
        failures += [a for a in answers if isinstance(a, BaseException)]
        first = f"{type(failures[0]).__name__}: {failures[0]}"[:120] if failures else ""
        return sum(a is True for a in answers), first
    finally:
        await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="Timed steps per latency row.")
    parser.add_argument("--seconds", type=float, default=5.0, help="Length of a steps/s run.")
    parser.add_argument("--clients", type=int, default=16, help="Sockets stepping at once.")
    parser.add_argument("--sessions", type=int, default=1000, help="Sessions to hold at once.")
    parser.add_argument("--no-ray", action="store_true", help="Skip the Ray pool rows.")
    args = parser.parse_args()
    console = Console()
    table = Table(title=f"palaestra serve, {ENV_ID}, {os.cpu_count()} CPUs")
    for column in ("row", "palaestra", "openenv-core 0.3.0", "note"):
        table.add_column(column)

    ours = palaestra_server(64)
    try:
        for name, times in (
            ("step in process", in_process(args.steps)),
            ("step over WebSocket", over_websocket(ours.url, args.steps)),
            ("step over HTTP", over_http(ours.url, args.steps)),
        ):
            p50, p99 = np.percentile(times, [50, 99]) * 1e3
            table.add_row(f"{name} p50 / p99 (ms)", f"{p50:.3f} / {p99:.3f}", "", "")
    finally:
        ours.stop()
    # Fresh servers for each row (a server wedged by one row must not sink the next), and
    # the servers alternate so that drifting load on the machine hits both alike.
    for clients in sorted({1, 4, args.clients}):
        rates: dict[str, list[float]] = {"ours": [], "theirs": [], "canned": []}
        cpu_per_step: dict[str, list[float]] = {"ours": [], "theirs": [], "canned": []}
        notes: list[str] = []
        servers = {
            "ours": palaestra_server(64),
            "theirs": openenv_server(64),
            "canned": canned_server(),
        }
        urls = {
            "ours": servers["ours"].url.replace("http", "ws") + f"/{ENV_ID}/ws",
            "theirs": servers["theirs"].url.replace("http", "ws") + "/ws",
            "canned": servers["canned"].url.replace("http", "ws"),
        }
        try:
            for _ in range(2):
                for key in ("ours", "theirs", "canned"):
                    cpu = servers[key].cpu_s()
                    rate, failed = run_client(steps_per_second(urls[key], clients, args.seconds))
                    rates[key].append(rate)
                    if rate:
                        used = servers[key].cpu_s() - cpu
                        cpu_per_step[key].append(used / (rate * args.seconds))
                    notes += [f"{key}: {failed}"] if failed else []
        finally:
            for server in servers.values():
                server.stop()
        best_ours, best_theirs = max(rates["ours"]), max(rates["theirs"])
        ratio = f"{best_ours / best_theirs:.1f}x" if best_theirs else "-"
        best_canned = max(rates["canned"])
        if best_theirs:
            ratio += f" (ceiling {best_canned / best_theirs:.1f}x: {best_canned:,.0f}/s canned)"
        table.add_row(
            f"steps/s, {clients} socket{'s' * (clients > 1)} (best of 2)",
            f"{best_ours:,.0f}",
            f"{best_theirs:,.0f}",
            "; ".join([ratio, *notes]),
        )
        cpu = {k: f"{min(v) * 1e6:.0f}" if v else "-" for k, v in cpu_per_step.items()}
        less = ""
        if cpu_per_step["ours"] and cpu_per_step["theirs"]:
            less = f"{min(cpu_per_step['theirs']) / min(cpu_per_step['ours']):.1f}x less"
        table.add_row(
            f"  server CPU per step, {clients} socket{'s' * (clients > 1)} (us, least of 2)",
            cpu["ours"],
            cpu["theirs"],
            less,
        )
    held: dict[str, str] = {}
    notes = []
    for key, start in (("ours", palaestra_server), ("theirs", openenv_server)):
        server = start(args.sessions + 16)
        path = f"/{ENV_ID}/ws" if key == "ours" else "/ws"
        try:
            count, failed = run_client(
                sessions_held(server.url.replace("http", "ws") + path, args.sessions)
            )
            held[key] = f"{count} ({server.rss_mb():.0f} MB)"
            notes += [f"{key}: {failed}"] if failed else []
        finally:
            server.stop()
    table.add_row(
        f"sessions held of {args.sessions} (server RSS)",
        held["ours"],
        held["theirs"],
        "; ".join(notes),
    )
    if not args.no_ray:
        from bench.serve import ray_pool

        for row, rate, note in ray_pool.rows(args.seconds, args.clients):
            table.add_row(row, rate, "", note)
    console.print(table)


if __name__ == "__main__":
    main()
