"""A WebSocket server that answers every frame with the same observation frame, at once.

    python -m bench.serve.canned_server PORT

No env, no sessions, no framework (the `websockets` library alone, no compression):
`bench.serve` drives it with the same clients as the real servers, so its rate is the
most the clients, the loopback and this machine allow, and ceiling / OpenEnv's rate is the
largest ratio any server could show in that row.
"""

from __future__ import annotations

import asyncio
import http
import json
import sys

from websockets.asyncio.server import serve

ANSWER = json.dumps(
    {
        "type": "observation",
        "data": {
            "observation": {
                "messages": [{"role": "user", "content": "The number is lower than 32."}],
                "info": {"status": "ok", "mask": False, "reward_parts": {"progress": 0.1}},
                "terminated": False,
                "truncated": False,
            },
            "reward": 0.1,
            "done": False,
        },
    }
)


async def answer(socket) -> None:
    """Answers each frame of one client."""
    async for _ in socket:
        await socket.send(ANSWER)


def health(connection, request):
    """Answers ``GET /health`` (how `bench.serve` waits for a server) without a handshake."""
    if request.path == "/health":
        return connection.respond(http.HTTPStatus.OK, "ok\n")
    return None


async def main(port: int) -> None:
    async with serve(
        answer, "127.0.0.1", port, compression=None, ping_interval=None, process_request=health
    ):
        await asyncio.Future()


if __name__ == "__main__":
    try:  # the same event loop as uvicorn picks for the real servers
        import uvloop
    except ImportError:
        asyncio.run(main(int(sys.argv[1])))
    else:
        uvloop.run(main(int(sys.argv[1])))
