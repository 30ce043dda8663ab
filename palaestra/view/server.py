"""The viewer's web app: a Starlette app over one or two run folders, served by uvicorn.

    GET /                                   the page (static/index.html)
    GET /static/...                         its script and style
    GET /api/runs                           every run's config, metrics and notes
    GET /api/runs/{run}/episodes?FILTERS    one page of the episode list (`Filters`,
                                            ``offset``, ``limit``)
    GET /api/runs/{run}/episodes/{index}    one episode as its page shows it
    GET /api/runs/{run}/episodes/{index}/raw  the episode's line of episodes.jsonl

The page runs only the app's own script (a Content-Security-Policy says so), and the script
puts everything a model or an env wrote into the page as text, never as markup.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator
from importlib import resources
from typing import Any

from palaestra.errors import require
from palaestra.view.runs import Filters, RunFolder, finite_json

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)


def static_folder() -> Any:
    """The packaged folder of the page's HTML, JS and CSS."""
    return resources.files("palaestra.view") / "static"


def make_app(runs: list[RunFolder]) -> Any:
    """The Starlette app over ``runs`` (one, or two shown side by side)."""
    require("starlette", "view", "the run viewer")
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    static = str(static_folder())

    class JSON(JSONResponse):
        """Strict JSON: a NaN a run wrote (a reward, a log-prob) is sent as null."""

        def render(self, content: Any) -> bytes:
            return super().render(finite_json(content))

    def run_of(request: Request) -> RunFolder:
        try:
            return runs[int(request.path_params["run"])]
        except (ValueError, IndexError):
            raise HTTPException(404, f"no run {request.path_params['run']!r}") from None

    def index_of(request: Request, run: RunFolder) -> int:
        try:
            position = int(request.path_params["index"])
        except ValueError:
            raise HTTPException(404, "an episode index is a number") from None
        run.episodes.refresh()
        if not 0 <= position < len(run.episodes):
            raise HTTPException(404, f"no episode {position}; the run has {len(run.episodes)}")
        return position

    def page(request: Request) -> Response:
        return FileResponse(os.path.join(static, "index.html"))

    def run_list(request: Request) -> Response:
        return JSON({"runs": [run.summary() for run in runs]})

    def episodes(request: Request) -> Response:
        run = run_of(request)
        query = dict(request.query_params)
        try:
            offset = int(query.pop("offset", 0) or 0)
            limit = int(query.pop("limit", 50) or 50)
            result = run.episodes.page(Filters.from_query(query), offset, limit)
        except ValueError as e:
            return JSON({"error": str(e)}, status_code=400)
        return JSON(
            {
                "rows": result.rows,
                "total": result.total,
                "exact": result.exact,
                "episodes": len(run.episodes),
            }
        )

    def episode(request: Request) -> Response:
        run = run_of(request)
        return JSON(run.episode(index_of(request, run)))

    def raw(request: Request) -> Response:
        run = run_of(request)
        line = run.episodes.read(index_of(request, run))
        return Response(line, media_type="application/json")

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return JSON({"error": exc.detail}, status_code=exc.status_code)

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/runs", run_list),
            Route("/api/runs/{run}/episodes", episodes),
            Route("/api/runs/{run}/episodes/{index}", episode),
            Route("/api/runs/{run}/episodes/{index}/raw", raw),
            Mount("/static", StaticFiles(directory=static), name="static"),
        ],
        exception_handlers={HTTPException: http_error},
    )

    async def secure(scope: Any, receive: Any, send: Any) -> None:
        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"cache-control", b"no-store"),
                ]
            await send(message)

        await app(scope, receive, send_with_headers)

    return secure


def has_display() -> bool:
    """Whether a browser window can open here (a desktop, or a Linux display server)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def serve(
    runs: list[RunFolder], host: str = "127.0.0.1", port: int = 0, open_browser: bool = True
) -> None:
    """Serves the viewer until interrupted, printing its address (and opening it if asked).

    Args:
        runs: The run folders.
        host: The address to bind: loopback unless the runs are meant to be seen from others.
        port: The port; 0 picks a free one.
        open_browser: Open the page in a browser when this machine has a display.
    """
    with background(runs, host, port) as url:
        print(f"palaestra view: {url}  (Ctrl+C stops it)", flush=True)
        if open_browser and has_display():
            webbrowser.open(url)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


@contextlib.contextmanager
def background(runs: list[RunFolder], host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serves the viewer from a thread for the ``with`` block; yields its URL.

    Raises:
        OSError: The port cannot be bound (in use, or not this machine's address).
    """
    uvicorn = require("uvicorn", "view", "the run viewer")
    config = uvicorn.Config(make_app(runs), host=host, port=port, log_level="warning")
    server = uvicorn.Server(config)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run()
        except BaseException as e:  # uvicorn exits with SystemExit when it cannot bind
            failure.append(e)

    thread = threading.Thread(target=run, name="palaestra-view", daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    if not server.started:
        thread.join()
        raise OSError(f"the viewer could not listen on {host}:{port}: {failure or 'see above'}")
    bound = server.servers[0].sockets[0].getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    try:
        yield f"http://{shown}:{bound[1]}/"
    finally:
        server.should_exit = True
        thread.join()
