"""The wheel installs one import name, `palaestra`, with every part under it."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

PROBE = """
import importlib.util, json, sys
import palaestra, palaestra.envs, palaestra.verifiers, palaestra.agents, palaestra.trainers
import palaestra.sandbox

def installed_here(name):
    # Other distributions own some of these names (PrimeIntellect's verifiers, the OpenAI
    # agents SDK) and reach this venv through PYTHONPATH; look only where the wheel installs.
    import importlib.machinery, site
    return importlib.machinery.PathFinder.find_spec(name, site.getsitepackages()) is not None

tops = {
    name: installed_here(name) for name in ("envs", "verifiers", "agents", "trainers", "sandbox")
}
env = palaestra.make("Arithmetic-v0")
obs, info = env.reset(seed=0)
_, reward, *_ = env.step(env.oracle_action())
ids = len(palaestra.list_envs())
print(json.dumps({"file": palaestra.__file__, "tops": tops, "reward": reward, "ids": ids}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, repo_root, subprocess_env) -> Path:
    out = tmp_path_factory.mktemp("dist")
    build_dir = tmp_path_factory.mktemp("build")
    # setuptools stages files in the source tree's build/: xdist workers that build at the
    # same time take turns (the lock file is in the directory all workers' temp dirs share).
    lock_path = tmp_path_factory.getbasetemp().parent / "palaestra-wheel.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "build",
                "--wheel",
                "--no-isolation",
                "--outdir",
                str(out),
                str(repo_root),
            ],
            check=True,
            capture_output=True,
            env=subprocess_env(),
            cwd=build_dir,
        )
    (built,) = out.glob("palaestra-*.whl")
    return built


def test_wheel_holds_only_the_palaestra_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {
        "palaestra",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }
    assert "palaestra/registry.yaml" in names
    for part in ("envs", "verifiers", "agents", "trainers", "sandbox"):
        assert f"palaestra/{part}/__init__.py" in names
    for page in ("index.html", "app.js", "style.css"):  # the viewer's page, served as files
        assert f"palaestra/view/static/{page}" in names


def test_wheel_installs_and_imports_in_a_fresh_venv(wheel, tmp_path, subprocess_env):
    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    # Dependencies come from this interpreter's site-packages directories (which hold no
    # `palaestra` package of their own: an editable install maps it through a finder that
    # a PYTHONPATH entry does not activate).
    deps = os.pathsep.join(p for p in sys.path if p.endswith("site-packages"))
    run = subprocess.run(
        [str(python), "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=subprocess_env(PYTHONPATH=deps),
    )
    assert run.returncode == 0, run.stderr
    import json

    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(str(target)), result["file"]
    assert result["tops"] == {
        "envs": False,
        "verifiers": False,
        "agents": False,
        "trainers": False,
        "sandbox": False,
    }
    assert result["reward"] == 1.0
    assert result["ids"] >= 3
