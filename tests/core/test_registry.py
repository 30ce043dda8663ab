"""The registry: ids, specs, make, plugins and the Gymnasium bridge."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import pytest

import palaestra
from palaestra.errors import RegistrationError, UnknownArgumentError, UnknownEnvError

ARITHMETIC = "palaestra.envs.tasks.arithmetic.arithmetic:ArithmeticEnv"


def test_unknown_id_suggests_a_close_match():
    with pytest.raises(UnknownEnvError, match="Did you mean 'GuessNumber-v0'"):
        palaestra.make("GuessNumbr-v0")


def test_unknown_kwarg_lists_the_accepted_ones():
    with pytest.raises(UnknownArgumentError) as caught:
        palaestra.make("Arithmetic-v0", levle=2)
    message = str(caught.value)
    assert "did you mean 'level'" in message
    assert "level, num_operands, max_operand" in message


def test_spec_carries_the_catalogue_fields():
    spec = palaestra.spec("GuessNumber-v0")
    assert spec.name == "GuessNumber" and spec.version == 0
    assert spec.max_turns == 20 and spec.max_invalid == 3
    assert spec.reward_range == (-2.0, 1.0)
    assert "multi-turn" in spec.tags and spec.difficulty == (1, 10)
    assert spec.description


def test_namespace_prefix_and_unversioned_ids():
    assert palaestra.spec("palaestra/Arithmetic-v0").id == "Arithmetic-v0"
    with pytest.warns(UserWarning, match="has no version"):
        assert palaestra.spec("Arithmetic").id == "Arithmetic-v0"


def test_list_filters_by_every_tag():
    tools = {s.id for s in palaestra.list_envs("tools")}
    assert "Calculator-v0" in tools and "GuessNumber-v0" not in tools
    both = {s.id for s in palaestra.list_envs(["exemplar", "math"])}
    assert both >= {"Arithmetic-v0", "Calculator-v0"}
    assert "GuessNumber-v0" not in both


def test_make_applies_the_spec_limits_and_overrides():
    env = palaestra.make("GuessNumber-v0")
    assert env is env.unwrapped and env.episode_limits == (20, 3)
    bare = palaestra.make("GuessNumber-v0", max_turns=None, max_invalid=None)
    assert bare is bare.unwrapped
    assert bare.palaestra_spec.max_turns is None
    assert palaestra.make("GuessNumber-v0", level=5).unwrapped.max_number == 256


def test_register_rejects_duplicates_unless_overridden(registered):
    registered("Dup-v0", ARITHMETIC)
    with pytest.raises(RegistrationError, match="already registered"):
        palaestra.register("Dup-v0", ARITHMETIC)
    palaestra.register("Dup-v0", ARITHMETIC, override=True, kwargs={"level": 2})
    assert palaestra.make("Dup-v0").unwrapped.level == 2


@pytest.mark.parametrize(
    "entry, match",
    [
        ({"Bad Id": {"entry_point": ARITHMETIC}}, "malformed"),
        ({"NoVersion": {"entry_point": ARITHMETIC}}, "malformed"),
        ({"X-v0": {}}, "needs an entry_point"),
        ({"X-v0": {"entry_point": ARITHMETIC, "max_turn": 3}}, "unknown field"),
        ({"X-v0": {"entry_point": "no_colon"}}, "module:attr"),
        ({"X-v0": {"entry_point": ARITHMETIC, "max_turns": 0}}, "max_turns"),
        ({"X-v0": {"entry_point": ARITHMETIC, "reward_range": [1, 0]}}, "low > high"),
        ({"X-v0": {"entry_point": ARITHMETIC, "kwargs": {"max_turns": 3}}}, "spec itself"),
    ],
)
def test_malformed_registry_entries_are_errors(entry, match):
    with pytest.raises(RegistrationError, match=match):
        palaestra.load_registry({"envs": entry})


def test_registry_file_with_extra_top_level_keys_is_an_error(tmp_path):
    path = tmp_path / "registry.yaml"
    path.write_text("envs: {}\nextras: {}\n")
    with pytest.raises(RegistrationError, match="one top-level key"):
        palaestra.load_registry(path)


def test_constructor_using_a_reserved_name_is_rejected(registered):
    registered("Reserved-v0", "tests_support.envs:ReservedNameEnv")
    with pytest.raises(RegistrationError, match="reserves"):
        palaestra.make("Reserved-v0")


def test_entry_point_returning_a_non_env_is_rejected(registered):
    registered("NotAnEnv-v0", "tests_support.envs:not_an_env")
    with pytest.raises(RegistrationError, match="not a palaestra.Env"):
        palaestra.make("NotAnEnv-v0")


def test_bad_render_mode_is_rejected():
    with pytest.raises(ValueError, match="render modes"):
        palaestra.make("Arithmetic-v0", render_mode="rgb_array")


PLUGIN_PROBE = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import palaestra
    ids = [s.id for s in palaestra.list_envs()]
    env = palaestra.make("Plugin-v0")
    obs, _ = env.reset(seed=0)
print(json.dumps({"ids": ids, "warnings": [str(w.message) for w in caught]}))
"""


def _write_plugin(root, name, module_source, value):
    (root / f"{name}.py").write_text(textwrap.dedent(module_source))
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[palaestra.envs]\n{name} = {value}\n")


def test_third_party_plugins_register_through_entry_points(tmp_path, subprocess_env):
    _write_plugin(
        tmp_path,
        "plugin_by_code",
        """
        import palaestra
        def register():
            palaestra.register(
                "Plugin-v0",
                "palaestra.envs.tasks.arithmetic.arithmetic:ArithmeticEnv",
                kwargs={"level": 2},
            )
        """,
        "plugin_by_code:register",
    )
    (tmp_path / "plugin_registry.yaml").write_text(
        "envs:\n  PluginFile-v0:\n"
        "    entry_point: palaestra.envs.games.guess_number:GuessNumberEnv\n"
    )
    _write_plugin(
        tmp_path,
        "plugin_by_file",
        """
        from pathlib import Path
        REGISTRY = str(Path(__file__).with_name("plugin_registry.yaml"))
        """,
        "plugin_by_file:REGISTRY",
    )
    _write_plugin(
        tmp_path,
        "plugin_broken",
        "def register():\n    raise RuntimeError('boom')\n",
        "plugin_broken:register",
    )
    out = subprocess.run(
        [sys.executable, "-c", PLUGIN_PROBE],
        capture_output=True,
        text=True,
        env=subprocess_env(PYTHONPATH=str(tmp_path)),
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "Plugin-v0" in result["ids"] and "PluginFile-v0" in result["ids"]
    assert "Arithmetic-v0" in result["ids"]
    assert any("plugin_broken" in w and "boom" in w for w in result["warnings"])


GYMNASIUM_ORDERS = {
    "gymnasium_first": (
        "import gymnasium\nenv = gymnasium.make('palaestra:palaestra/GuessNumber-v0')"
    ),
    "palaestra_first": (
        "import palaestra\nimport gymnasium\n"
        "env = gymnasium.make('palaestra:palaestra/GuessNumber-v0')"
    ),
    "plain_id_after_import": (
        "import palaestra, gymnasium\nenv = gymnasium.make('palaestra/Arithmetic-v0')"
    ),
}


@pytest.mark.parametrize("order", sorted(GYMNASIUM_ORDERS))
def test_gymnasium_make_works_whatever_was_imported_first(order, subprocess_env):
    code = GYMNASIUM_ORDERS[order] + "\nobs, info = env.reset(seed=0)\nprint(obs[0]['role'])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env()
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "user"


def test_gymnasium_sees_ids_registered_later(registered):
    import gymnasium

    registered("LateArrival-v0", ARITHMETIC)
    env = gymnasium.make("palaestra/LateArrival-v0")
    observation, _ = env.reset(seed=1)
    assert observation[0]["role"] == "user"


def test_make_vec_makes_independent_copies():
    envs = palaestra.make_vec("Arithmetic-v0", 3, level=2)
    assert len(envs) == 3
    assert len({id(e.unwrapped) for e in envs.envs}) == 3
    with pytest.raises(ValueError, match="positive number"):
        palaestra.make_vec("Arithmetic-v0", 0)


def test_no_warning_on_versioned_ids():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        palaestra.spec("Arithmetic-v0")
