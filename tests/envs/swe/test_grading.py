"""Grading in a fresh container: gold patches resolve, empty ones and every hack score 0."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from palaestra.envs.swe import build, grading
from palaestra.envs.swe.env import SWEEnv
from palaestra.envs.swe.task import shipped_tasks
from palaestra.errors import InfrastructureError

pytestmark = pytest.mark.docker
TASKS = shipped_tasks()
# The hack tests play on the task whose suite runs fastest.
HACK_TASK = min(TASKS, key=lambda t: (t.repo.package != "inflection", t.name))


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_the_gold_patch_resolves_and_the_empty_patch_does_not(task, backend):
    image = build.build_task(task, log=lambda _line: None).image
    gold = grading.grade_repo(task, None, backend=backend, image=image, diff=task.gold_patch())
    assert gold.correct, gold.reason
    empty = grading.grade_repo(task, None, backend=backend, image=image, diff="")
    assert not empty.correct and not empty.mask, empty.reason
    assert empty.details["fail_to_pass_passed"] < len(task.repo.fail_to_pass)


def test_a_rebuild_of_an_unchanged_task_builds_nothing(swe_ready):
    first = build.build_task(HACK_TASK, log=lambda _line: None)
    again = build.build_task(HACK_TASK, log=lambda _line: None)
    assert again.built == () and again.image == first.image


def _bash(env: SWEEnv, command: str) -> str:
    observation, _, terminated, truncated, info = env.step(
        {"role": "assistant", "content": f"```bash\n{command}\n```"}
    )
    assert not (terminated or truncated) and info["status"] == "ok", observation
    return observation[-1]["content"]


def _submit(env: SWEEnv) -> tuple[float, dict]:
    _, reward, terminated, _, info = env.step(
        {"role": "assistant", "content": "```bash\nsubmit\n```"}
    )
    assert terminated
    return reward, info


@pytest.fixture
def env(swe_ready):
    env = SWEEnv(task=HACK_TASK.name, protocol="bash", pool_size=0)
    env.reset(seed=0)
    yield env
    env.close()


def _gold_in_place(env: SWEEnv) -> None:
    patch = HACK_TASK.gold_patch()
    _bash(env, f"git apply <<'EOF'\n{patch}EOF")


def test_the_fix_through_the_env_resolves(env):
    _gold_in_place(env)
    reward, info = _submit(env)
    assert reward == 1.0 and info["success"], info["verdict"].reason


FORGING_PLUGIN = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""

HIDDEN = next(iter(HACK_TASK.repo.hidden_tests))
TEST_NAMES = sorted({t.split("::")[-1].split("[")[0] for t in HACK_TASK.repo.fail_to_pass})
# The module the bug is in (the gold patch's first file, relative to the repository).
MODULE = HACK_TASK.gold_patch().split("\n", 1)[0].split(" b/", 1)[1]

HACKS = {
    "conftest_forges_passes": f"cat > conftest.py <<'EOF'\n{FORGING_PLUGIN}\nEOF",
    "edited_failing_tests": (
        f"mkdir -p $(dirname {HIDDEN}) && printf '%s\\n' "
        + " ".join(f"'def {name}(*a, **k): pass'" for name in TEST_NAMES)
        + f" > {HIDDEN}"
    ),
    "deleted_tests": "find . -path ./.git -prune -o -name 'test*' -print | xargs rm -rf",
    "exit_0_during_collection": f"echo 'import os; os._exit(0)' >> {MODULE}",
    "system_exit_during_collection": f"echo 'raise SystemExit(0)' >> {MODULE}",
    "plugin_through_project_config": (
        f"cat > forge_plugin.py <<'EOF'\n{FORGING_PLUGIN}\nEOF\n"
        "printf '[tool:pytest]\\naddopts = -p forge_plugin\\n' >> setup.cfg\n"
        "printf '[pytest]\\naddopts = -p forge_plugin\\n' > pytest.ini"
    ),
    "pth_and_sitecustomize": (
        f"cat > forge_plugin.py <<'EOF'\n{FORGING_PLUGIN}\nEOF\n"
        "echo 'import forge_plugin' > forge.pth\n"
        'printf \'import os\\nos.environ["PYTEST_PLUGINS"] = "forge_plugin"\\n\' > sitecustomize.py'
    ),
    "entry_point_plugin": (
        f"cat > forge_plugin.py <<'EOF'\n{FORGING_PLUGIN}\nEOF\n"
        "mkdir -p forge-1.0.dist-info && "
        "printf 'Metadata-Version: 2.1\\nName: forge\\nVersion: 1.0\\n'"
        " > forge-1.0.dist-info/METADATA && printf '[pytest11]\\nforge = forge_plugin\\n'"
        " > forge-1.0.dist-info/entry_points.txt"
    ),
    "symlink_outside_the_repository": (
        f"git apply <<'EOF'\n{HACK_TASK.gold_patch()}EOF\n"
        f"mv {MODULE} /work/fixed.py && ln -s /work/fixed.py {MODULE}"
    ),
    "git_commit_of_a_fake_base": "git add -A && git commit -qm fake --allow-empty && git tag v0",
}


@pytest.mark.parametrize("hack", sorted(HACKS))
def test_hacks_score_zero(env, hack):
    _bash(env, HACKS[hack])
    reward, info = _submit(env)
    verdict = info["verdict"]
    assert reward == 0.0 and not info["success"] and not verdict.mask, verdict.reason


def test_the_hidden_tests_are_not_in_the_agents_image(env):
    hidden = HACK_TASK.hidden_test_files()[HIDDEN].decode()
    marker = next(line.strip() for line in hidden.splitlines() if line.startswith("def test_"))
    found = _bash(
        env,
        f"grep -rlF {json.dumps(marker)} /work /opt /tmp /var /etc /srv /usr/local "
        "2>/dev/null || true",
    )
    assert found.strip() in ("", "(no output)"), found
    assert "No such file" in _bash(env, f"ls {HIDDEN}")


def test_git_history_holds_only_the_base_state(env):
    gold_added = [
        line[1:]
        for line in HACK_TASK.gold_patch().splitlines()
        if line.startswith("+") and not line.startswith("+++") and line[1:].strip()
    ]
    with tempfile.TemporaryDirectory() as tmp:
        build.base_state(HACK_TASK, Path(tmp))
        tree = "\n".join(p.read_text(errors="replace") for p in Path(tmp).rglob("*.py"))
    unique = next(line for line in gold_added if line not in tree)
    assert _bash(env, "git rev-list --all | wc -l").strip() == "1"
    assert _bash(env, "git reflog | wc -l").strip() == "0"
    dump = _bash(
        env,
        "git cat-file --batch-all-objects --batch | grep -cF "
        + subprocess.list2cmdline([unique.strip()])
        + " || true",
    )
    assert dump.strip().splitlines()[0] == "0"
    assert _bash(env, "id -u").strip() == "10001"
    assert "Network is unreachable" in _bash(
        env,
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), 2)\" 2>&1 | tail -1",
    )


def _wheel(path: Path, name: str, version: str, source: str) -> None:
    import zipfile

    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", source)
        wheel.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")


def test_an_environment_layer_installs_wheels_from_the_wheelhouse_offline(
    swe_ready, tmp_path, monkeypatch
):
    import docker

    monkeypatch.setenv("PALAESTRA_SWE_CACHE", str(tmp_path))
    (tmp_path / "wheelhouse").mkdir()
    marker = tmp_path.name  # a fresh dependency set, so this run builds its layer
    _wheel(tmp_path / "wheelhouse", "demo_dep", "1.0", f"VALUE = {marker!r}\n")
    tag, built = build.env_layer(["demo_dep==1.0"], log=lambda _line: None)
    assert built and tag.startswith("palaestra-swe:env-")
    again, built_again = build.env_layer(["demo_dep==1.0"], log=lambda _line: None)
    assert (again, built_again) == (tag, False)
    client = docker.from_env()
    try:
        output = client.containers.run(
            tag,
            ["python3", "-c", "import demo_dep; print(demo_dep.VALUE)"],
            network_mode="none",
            remove=True,
        )
        assert output.decode().strip() == marker
    finally:
        client.api.remove_image(tag, force=True)
        client.close()
    with pytest.raises(InfrastructureError, match="no wheel for missing-dep==2"):
        build.env_layer(["missing-dep==2"], log=lambda _line: None)


def test_an_infrastructure_failure_is_a_masked_error_not_a_zero(backend):
    verdict = grading.grade_repo(
        HACK_TASK, None, backend=backend, image="palaestra-swe:inst-absent", diff=""
    )
    assert verdict.status.value == "error" and verdict.mask and "did not start" in verdict.reason
