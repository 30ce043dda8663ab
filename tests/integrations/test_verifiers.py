"""PrimeIntellect's verifiers loads Palaestra envs by name and evaluates them against a server.

verifiers runs in a child interpreter started in a temporary folder: in this checkout, the
repository root on sys.path would make ``import verifiers`` find the source folder of
``palaestra.verifiers`` instead of the installed package.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import palaestra

SERVER = Path(__file__).resolve().parents[1] / "agents" / "openai_server.py"

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import verifiers as vf

    base_url, out = sys.argv[1], sys.argv[2]
    os.environ["LOOPBACK_KEY"] = "unused"
    client = vf.ClientConfig(api_base_url=base_url, api_key_var="LOOPBACK_KEY")
    results = {}
    for env_id, examples, samples in (("GuessNumber-v0", 4, 2), ("Countdown-v0", 2, 1)):
        env = vf.load_environment("palaestra", id=env_id, num_examples=examples, max_turns=3)
        assert isinstance(env, vf.MultiTurnEnv), type(env)
        outputs = env.evaluate_sync(
            client, model="tiny", num_examples=examples, rollouts_per_example=samples,
            sampling_args={"max_tokens": 8},
        )["outputs"]
        results[env_id] = [
            {
                "example_id": str(o["example_id"]),
                "info": o["info"],
                "reward": o["reward"],
                "error": None if o.get("error") is None else str(o["error"]),
                "metrics": o["metrics"],
                "completion": [
                    m.model_dump(exclude_none=True) if hasattr(m, "model_dump") else dict(m)
                    for m in o["completion"]
                ],
            }
            for o in outputs
        ]
    with open(out, "w") as f:
        json.dump(results, f)
    """
)


def _server_module():
    spec = importlib.util.spec_from_file_location("palaestra_tests_openai_server", SERVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server(model, tokenizer):
    from palaestra.agents.backends.hf import HFPolicy

    running = _server_module().PolicyServer(HFPolicy(model, tokenizer, seed=0), tokenizer).start()
    yield running
    running.stop()


def replay(env_id: str, seed: int, completion: list[dict]) -> float:
    """The return Palaestra gives the transcript's assistant turns."""
    env = palaestra.make(env_id, max_turns=3)
    env.reset(seed=seed)
    total = 0.0
    for message in completion:
        if message["role"] == "assistant":
            _, reward, terminated, truncated, _ = env.step(message.get("content") or "")
            total += reward
            if terminated or truncated:
                break
    return total


@pytest.mark.slow
def test_vf_load_environment_evaluates_against_the_loopback_server(server, tmp_path):
    out = tmp_path / "results.json"
    script = tmp_path / "evaluate.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), server.base_url, str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())

    game = results["GuessNumber-v0"]
    assert len(game) == 8  # a full evaluation: 4 examples x 2 rollouts
    seeds: dict[str, set[int]] = {}
    for output in game:
        assert output["error"] is None
        info = output["info"] if isinstance(output["info"], dict) else json.loads(output["info"])
        seeds.setdefault(output["example_id"], set()).add(info["seed"])
        # The reward is Palaestra's: replaying the transcript gives the same return.
        assert output["reward"] == pytest.approx(
            replay("GuessNumber-v0", info["seed"], output["completion"])
        )
        assert output["metrics"]["palaestra_return"] == output["reward"]
        assert sum(m["role"] == "assistant" for m in output["completion"]) >= 2  # multi-turn
    assert all(len(s) == 1 for s in seeds.values())  # an example's rollouts share its seed
    assert len({next(iter(s)) for s in seeds.values()}) == 4  # examples differ

    single = results["Countdown-v0"]
    assert len(single) == 2
    for output in single:
        info = output["info"] if isinstance(output["info"], dict) else json.loads(output["info"])
        assistant = [m for m in output["completion"] if m["role"] == "assistant"]
        assert len(assistant) == 1
        assert output["reward"] == pytest.approx(
            replay("Countdown-v0", info["seed"], output["completion"])
        )


def test_palaestra_exposes_load_environment_lazily():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, palaestra; f = palaestra.load_environment; "
            "print('verifiers' in sys.modules, f.__module__)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "palaestra.integrations.verifiers"]
