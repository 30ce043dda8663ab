"""The SQL envs' fixtures: a PostgreSQL server (CI starts one with .ci/setup-postgres.sh)."""

from __future__ import annotations

import os

import pytest

CI_DSN = "postgresql://palaestra:palaestra@127.0.0.1:5432/palaestra"
"""The role and database .ci/setup-postgres.sh creates."""


def _find_postgres() -> str | None:
    import psycopg

    from palaestra.envs.sql.backends import DSN_VARIABLE
    from palaestra.envs.sql.local_server import running_dsn

    for dsn in (os.environ.get(DSN_VARIABLE), running_dsn(), CI_DSN):
        if not dsn:
            continue
        try:
            psycopg.connect(dsn, connect_timeout=3).close()
        except psycopg.Error:
            continue
        return dsn
    return None


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """A DSN of a reachable server (skipped, which fails under CI, when there is none)."""
    dsn = _find_postgres()
    if dsn is None:
        pytest.skip(
            "no PostgreSQL server: run .ci/setup-postgres.sh (root) or `palaestra db start`, "
            "or set $PALAESTRA_POSTGRES_DSN"
        )
    return dsn


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request) -> dict[str, str]:
    """The env arguments of each backend."""
    if request.param == "sqlite":
        return {"backend": "sqlite"}
    return {"backend": "postgres", "dsn": request.getfixturevalue("postgres_dsn")}
