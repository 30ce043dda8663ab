"""Every registered id, served: the conformance checker passes and episodes equal local ones."""

from __future__ import annotations

import pytest
from tests_support.serve import ThreadServer

import palaestra
from palaestra.checker import episode_digest

IDS = [spec.id for spec in palaestra.list_envs()]


@pytest.fixture(scope="module")
def server():
    with ThreadServer() as running:
        yield running


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_every_id_keeps_the_contract_through_the_server(server, env_id):
    if "needs-docker" in palaestra.spec(env_id).tags:
        from palaestra.sandbox import docker_available

        if not docker_available():
            pytest.skip("no Docker engine can be started on this machine")
    remote = palaestra.make(f"{server.url}/{env_id}")
    report = palaestra.check_env(remote, cross_process=False)
    assert report.ok, report
    assert not [n for n in report.notes if "garbage" in n], report.notes
    # The served episodes are the local ones, message for message (oracle and garbage).
    assert episode_digest(remote, (0,)) == episode_digest(palaestra.make(env_id), (0,))
    remote.close()
