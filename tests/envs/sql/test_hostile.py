"""Hostile queries get a clear answer and hurt nothing, on both backends.

Each query goes through the ``query`` tool and through ``submit``; afterwards every table
still holds exactly the generated rows, and so does the next episode's database.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import palaestra
from palaestra.envs.sql.scoring import compare_rows

TIMEOUT_S = 1.0
MAX_ROWS = 20
MARKER = Path("/tmp/palaestra-sql-hostile-marker")

REFUSED, TIMED_OUT, CUT = "refused", "timed out", "cut"
_COUNT_FOREVER = (
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r"
)
HOSTILE = {
    "insert": ("INSERT INTO {table} (id) VALUES (100000)", REFUSED),
    "update": ("UPDATE {table} SET id = id + 1000", REFUSED),
    "delete": ("DELETE FROM {table}", REFUSED),
    "drop": ("DROP TABLE {table}", REFUSED),
    "create": ("CREATE TABLE intruder (x INTEGER)", REFUSED),
    "two_statements": ("SELECT 1; DROP TABLE {table}", REFUSED),
    "attach": (f"ATTACH DATABASE '{MARKER}' AS intruder", REFUSED),
    "writable_schema": ("PRAGMA writable_schema = 1", REFUSED),
    "query_only_off": ("PRAGMA query_only = 0", REFUSED),
    "read_write_session": ("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", REFUSED),
    "copy_to_program": (f"COPY (SELECT 1) TO PROGRAM 'touch {MARKER}'", REFUSED),
    "pg_read_file": ("SELECT pg_read_file('/etc/passwd')", REFUSED),
    "huge_value": ("SELECT zeroblob(500000000)", REFUSED),
    "endless_recursive_cte": (_COUNT_FOREVER, TIMED_OUT),
    "cartesian_join": (
        "SELECT COUNT(*) FROM "
        + ", ".join(f"{{table}} t{i}" for i in range(10)),
        TIMED_OUT,
    ),
    "millions_of_rows": (
        "SELECT a.id, b.id, c.id, d.id FROM {table} a, {table} b, {table} c, {table} d",
        CUT,
    ),
    "endless_rows": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r", CUT
    ),
}


def call(name: str, sql: str) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': {'sql': sql}})}</tool_call>"


def assert_untouched(env) -> None:
    """Every table holds exactly the episode's generated rows, and no table was added."""
    unwrapped = env.unwrapped
    reader = unwrapped.store.reader()
    try:
        tables = reader.list_tables()
        assert [name for name, _ in tables] == sorted(t.name for t in unwrapped.database.tables)
        for table in unwrapped.database.tables:
            rows = reader.query(
                f"SELECT * FROM {table.name} ORDER BY id", max_rows=100_000, timeout_s=10
            ).rows
            expected = unwrapped.database.rows[table.name]
            assert compare_rows(rows, expected, ordered=True) is None, table.name
    finally:
        reader.close()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_query_gets_a_clear_result_and_changes_nothing(backend, case):
    template, expected = HOSTILE[case]
    MARKER.unlink(missing_ok=True)
    env = palaestra.make("SQL-v0", level=2, timeout_s=TIMEOUT_S, max_rows=MAX_ROWS, **backend)
    env.reset(seed=11)
    sql = template.format(table=env.unwrapped.database.tables[0].name)

    obs, reward, terminated, truncated, info = env.step(call("query", sql))
    text = obs[0]["content"]
    assert not (terminated or truncated) and info["status"] == "ok" and reward == 0
    if expected == CUT:
        assert f"the first {MAX_ROWS} rows; the result was cut at the row cap" in text
        assert len(text.splitlines()) == MAX_ROWS + 2  # header, rows, the note
    elif expected == TIMED_OUT:
        assert text.startswith("Error: the query ran longer than 1 s"), text
    else:
        assert text.startswith("Error: ") and "ran longer" not in text, text
    assert_untouched(env)
    assert not MARKER.exists()

    *_, terminated, truncated, info = env.step(call("submit", sql))
    assert terminated and not info["mask"] and info["reward_parts"]["outcome"] == 0
    assert not MARKER.exists()

    env.reset(seed=12)  # the next episode's database is whole
    assert_untouched(env)
    env.close()


def test_the_sqlite_authorizer_refuses_writes_even_on_a_writable_file(tmp_path):
    # The authorizer alone (without mode=ro) stops a write: two independent guards.
    import sqlite3

    from palaestra.envs.sql.backends import _read_only_authorizer

    connection = sqlite3.connect(tmp_path / "w.db")
    connection.execute("CREATE TABLE t (x INTEGER)")
    connection.set_authorizer(_read_only_authorizer)
    for statement in ("INSERT INTO t VALUES (1)", "DROP TABLE t", "PRAGMA writable_schema = 1"):
        with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
            connection.execute(statement)
    assert connection.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)


def test_the_postgres_reader_role_cannot_write_outside_a_read_only_transaction(postgres_dsn):
    # The role's own rights refuse writes: a second guard behind READ ONLY.
    import psycopg

    from palaestra.envs.sql.backends import PostgresStore, reader_dsn

    env = palaestra.make("SQL-v0", backend="postgres", dsn=postgres_dsn)
    env.reset(seed=0)
    table = env.unwrapped.database.tables[0].name
    store: PostgresStore = env.unwrapped.store
    with psycopg.connect(reader_dsn(postgres_dsn), autocommit=True) as connection:
        connection.execute("SET default_transaction_read_only = off")
        connection.execute(f'SET search_path TO "{store.name}"')
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute(f"DELETE FROM {table}")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute(f'CREATE TABLE "{store.name}".intruder (x int)')
    assert_untouched(env)
    env.close()


def test_a_setting_a_query_changes_does_not_outlive_it(postgres_dsn):
    env = palaestra.make("SQL-v0", backend="postgres", dsn=postgres_dsn)
    env.reset(seed=0)
    obs, *_ = env.step(call("query", "SELECT set_config('application_name', 'intruder', false)"))
    assert "intruder" in obs[0]["content"]
    obs, *_ = env.step(call("query", "SELECT current_setting('application_name')"))
    assert "intruder" not in obs[0]["content"]
    env.close()
