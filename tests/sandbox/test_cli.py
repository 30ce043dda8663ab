"""``palaestra sandbox ...`` (the typer sub-app in ``palaestra.sandbox.cli``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from palaestra.errors import InfrastructureError
from palaestra.sandbox import cli

runner = CliRunner()


def test_help_lists_the_commands():
    result = runner.invoke(cli.app, ["--help"])
    assert result.exit_code == 0
    assert "build-image" in result.output and "info" in result.output


def test_build_image_prints_the_tag(monkeypatch):
    seen = {}

    def fake_build(**kwargs):
        seen.update(kwargs)
        kwargs["log"]("working")
        return "palaestra-sandbox:base-123"

    monkeypatch.setattr("palaestra.sandbox.images.build_base_image", fake_build)
    result = runner.invoke(cli.app, ["build-image", "--package", "curl", "--suite", "bookworm"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("palaestra-sandbox:base-123")
    assert "curl" in seen["packages"] and "python3" in seen["packages"]


def test_build_image_reports_failures(monkeypatch):
    def failing(**kwargs):
        raise InfrastructureError("debootstrap is not installed")

    monkeypatch.setattr("palaestra.sandbox.images.build_base_image", failing)
    result = runner.invoke(cli.app, ["build-image"])
    assert result.exit_code == 1 and "debootstrap is not installed" in result.output


def test_info_reports_the_local_backend():
    result = runner.invoke(cli.app, ["info"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["local"]["works"] is True
    assert "memory" in report["local"]["enforced"]


@pytest.mark.timeout(60)
def test_runs_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "palaestra.sandbox.cli", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "build-image" in done.stdout
