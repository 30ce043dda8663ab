"""The viewer's HTTP API, the `palaestra view` command and its static export."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys

import httpx
import pytest
from tests_support.view import episode

from palaestra.view.runs import open_runs
from palaestra.view.server import CSP, background

HOSTILE = '</script><script>window.__ran = 1</script><img src=x onerror="window.__ran = 2">'


def test_the_api_lists_runs_and_pages_of_episodes(synthetic_run, serve):
    judged = {"score": 1.0, "status": "correct", "reason": "found in 2 guesses", "answer": 3}
    second = [episode(0), episode(1), episode(2, verdict=judged)]
    url = serve(synthetic_run("a"), synthetic_run("b", episodes=second))
    runs = httpx.get(url + "api/runs").json()["runs"]
    assert [(r["name"], r["episodes"]) for r in runs] == [("a", 32), ("b", 3)]
    assert runs[0]["metrics"][1]["reward"] == 0.25
    page = httpx.get(url + "api/runs/0/episodes", params={"step_min": 2, "limit": 5}).json()
    assert page["total"] == 24 and page["exact"]
    assert [row["index"] for row in page["rows"]] == [8, 9, 10, 11, 12]
    shown = httpx.get(url + "api/runs/1/episodes/2").json()
    assert shown["seed"] == 2 and shown["reward_parts"] == [{"invalid": -0.1}, {"outcome": 1.0}]
    assert shown["verdict"] == {
        "status": "correct",
        "score": 1.0,
        "reason": "found in 2 guesses",
        "verifier": "",
        "answer": "3",
    }
    assert httpx.get(url + "api/runs/1/episodes/1").json()["verdict"] is None
    raw = httpx.get(url + "api/runs/1/episodes/2/raw")
    assert json.loads(raw.content) == second[2]


def test_bad_requests_say_what_is_wrong(synthetic_run, serve):
    url = serve(synthetic_run())
    for path, status, message in [
        ("api/runs/0/episodes?success=perhaps", 400, "success='perhaps' is not a valid boolean"),
        ("api/runs/0/episodes?limit=5000", 400, "limit in 1..1000"),
        ("api/runs/0/episodes?colour=red", 400, "unknown filter 'colour'"),
        ("api/runs/3/episodes", 404, "no run '3'"),
        ("api/runs/0/episodes/32", 404, "no episode 32; the run has 32"),
        ("api/runs/0/episodes/x/raw", 404, "an episode index is a number"),
    ]:
        response = httpx.get(url + path)
        assert response.status_code == status, path
        assert message in response.json()["error"], path


def test_pages_are_served_with_a_policy_that_runs_only_the_apps_script(synthetic_run, serve):
    url = serve(synthetic_run())
    page = httpx.get(url)
    assert page.headers["content-security-policy"] == CSP and "script-src 'self'" in CSP
    assert '<script src="static/app.js"' in page.text
    assert httpx.get(url + "static/app.js").status_code == 200
    script = httpx.get(url + "static/app.js").text
    assert not re.search(r"\.(inner|outer)HTML\s*=|insertAdjacentHTML|document\.write", script)


def test_a_missing_web_stack_names_the_extra_to_install(synthetic_run, monkeypatch):
    from palaestra.errors import MissingDependencyError
    from palaestra.view.server import make_app

    monkeypatch.setitem(sys.modules, "starlette", None)  # what an absent package looks like
    with pytest.raises(MissingDependencyError, match=r'pip install "palaestra\[view\]"'):
        make_app(open_runs([synthetic_run()]))


def test_a_busy_port_is_an_error_that_names_it(synthetic_run):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"could not listen on 127.0.0.1:{port}"):
            with background(open_runs([synthetic_run()]), port=port):
                pass


def test_the_view_command_serves_on_loopback_without_a_browser(synthetic_run, palaestra_script):
    folder = synthetic_run()
    process = subprocess.Popen(
        [palaestra_script, "view", str(folder), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = process.stdout.readline()
        match = re.match(r"palaestra view: (http://127\.0\.0\.1:\d+/) ", line)
        assert match, line
        runs = httpx.get(match.group(1) + "api/runs").json()["runs"]
        assert runs[0]["path"] == str(folder)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["/no/such/run"], "'/no/such/run' is not a folder"),
        (["{a}", "{a}", "{a}"], "one run or two side by side, got 3"),
        (["{a}", "--export", "{a}"], "is not an empty folder"),
        (["{a}", "--port", "-5"], "could not listen"),
    ],
)
def test_the_view_command_fails_clearly(synthetic_run, palaestra_script, arguments, message):
    folder = str(synthetic_run("a"))
    command = [palaestra_script, "view", "--no-browser"]
    command += [a.format(a=folder) for a in arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in " ".join((result.stdout + result.stderr).split())


def test_export_writes_a_copy_whose_data_cannot_close_its_script(
    synthetic_run, palaestra_script, tmp_path
):
    records = [episode(0, content=HOSTILE), episode(1)]
    folder = synthetic_run(episodes=records)
    target = tmp_path / "copy"
    result = subprocess.run(
        [palaestra_script, "view", str(folder), "--export", str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout == f"wrote {target / 'index.html'} (open it in a browser)\n"
    files = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert files == [
        "data/0/0.js",
        "data/0/1.js",
        "data/loader.js",
        "data/runs.js",
        "index.html",
        "static/app.js",
        "static/style.css",
    ]
    page = (target / "index.html").read_text()
    assert page.index('src="data/runs.js"') < page.index('src="static/app.js"')
    data = (target / "data" / "0" / "0.js").read_text()
    assert "<" not in data and "\\u003c/script>\\u003cscript>window.__ran = 1" in data
    prefix = "PalaestraData.episode(..."
    arguments = json.loads(data.removeprefix(prefix).removesuffix(");\n"))
    assert arguments[:2] == [0, 0] and arguments[2]["messages"][3]["content"] == HOSTILE
    listing = (target / "data" / "runs.js").read_text()
    assert "<" not in listing and '"text":"i am thinking of' in listing


def test_view_is_imported_only_by_its_command():
    code = "import palaestra, palaestra.cli, sys; print('starlette' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.skipif(sys.platform != "linux", reason="the display check differs off Linux")
def test_the_browser_opens_only_where_linux_has_a_display(monkeypatch):
    from palaestra.view.server import has_display

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert not has_display()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert has_display()


def test_non_finite_numbers_a_run_wrote_are_sent_as_null(synthetic_run, serve, tmp_path):
    from palaestra.view.export import export

    record = episode(0, turn_rewards=[float("nan"), 1.0], seconds=float("inf"))
    folder = synthetic_run(episodes=[record])
    url = serve(folder)
    (row,) = httpx.get(url + "api/runs/0/episodes").json()["rows"]
    assert row["reward"] is None
    shown = httpx.get(url + "api/runs/0/episodes/0").json()
    assert shown["turn_rewards"] == [None, 1.0] and shown["seconds"] is None
    export(open_runs([folder]), tmp_path / "copy")
    data = (tmp_path / "copy" / "data" / "0" / "0.js").read_text()
    assert '"turn_rewards":[null,1.0]' in data and "NaN" not in data
