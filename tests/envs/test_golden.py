"""Each id's episodes are pinned: a change in generation or scoring must bump the version."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import palaestra

_spec = importlib.util.spec_from_file_location("golden", Path(__file__).with_name("golden.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

RECORDED = golden.load()


@pytest.mark.parametrize(
    "env_id", [s.id for s in palaestra.list_envs() if "needs-docker" not in s.tags]
)
def test_golden_digest(env_id):
    assert env_id in RECORDED, (
        f"{env_id} has no golden digest; "
        f"record it with: python tests/envs/golden.py --update {env_id}"
    )
    assert golden.digest(env_id) == RECORDED[env_id], (
        f"{env_id} now generates or scores differently from its recorded episodes. "
        "Bump its version in registry.yaml (a new id), then record the new id's digest."
    )
