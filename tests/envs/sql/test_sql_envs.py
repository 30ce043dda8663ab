"""SQL-v0, SQLMCP-v0, SQLQuery-v0: conformance on both backends, oracle, wrong answers, failures."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

import palaestra
from palaestra.envs.sql.backends import PostgresStore, SQLiteStore
from palaestra.envs.sql.questions import TEMPLATES, generate_question
from palaestra.envs.sql.schema import DOMAINS, generate_database, table_count
from palaestra.envs.sql.scoring import compare_rows


def submit(sql: str) -> str:
    return f"<tool_call>{json.dumps({'name': 'submit', 'arguments': {'sql': sql}})}</tool_call>"


def play_oracle(env, seed: int) -> dict:
    env.reset(seed=seed)
    for _ in range(5):
        *_, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        if terminated or truncated:
            return info
    raise AssertionError("the oracle did not finish")


# tests/envs/test_all_envs.py checks every id on its default backend, SQLite.
@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["SQL-v0", "SQLMCP-v0", "SQLQuery-v0"])
def test_check_env_on_postgres(env_id, postgres_dsn):
    report = palaestra.check_env(palaestra.make(env_id, backend="postgres", dsn=postgres_dsn))
    assert report.ok, str(report)


@pytest.mark.parametrize("level", range(1, 11))
def test_the_oracle_scores_one_on_many_seeds_and_select_1_scores_zero(level):
    env = palaestra.make("SQL-v0", level=level)
    for seed in range(8):
        info = play_oracle(env, seed)
        assert info["verdict"].status.value == "correct", (seed, info["verdict"])
        assert info["reward_parts"]["outcome"] == 1.0
        env.reset(seed=seed)
        *_, terminated, _, info = env.step(submit("SELECT 1"))
        assert terminated and info["reward_parts"]["outcome"] == 0.0, (seed, info["verdict"])
        assert not info["mask"]
    env.close()


@pytest.mark.slow
def test_the_oracle_scores_one_on_postgres_at_every_level(postgres_dsn):
    for level in range(1, 11):
        env = palaestra.make("SQL-v0", level=level, backend="postgres", dsn=postgres_dsn)
        for seed in range(3):
            assert play_oracle(env, seed)["verdict"].status.value == "correct", (level, seed)
            env.reset(seed=seed)
            *_, info = env.step(submit("SELECT 1"))
            assert info["reward_parts"]["outcome"] == 0.0
        env.close()


def test_single_turn_oracle_and_select_1(backend):
    env = palaestra.make("SQLQuery-v0", level=6, **backend)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        assert "CREATE TABLE" in obs[0]["content"]
        *_, info = env.step(env.unwrapped.oracle_action())
        assert info["verdict"].status.value == "correct"
        env.reset(seed=seed)
        *_, info = env.step("```sql\nSELECT 1\n```")
        assert info["verdict"].status.value == "incorrect" and info["reward_parts"]["outcome"] == 0
    env.close()


@pytest.mark.slow
def test_the_same_task_gives_the_same_gold_rows_on_both_backends(postgres_dsn):
    sqlite_store, postgres_store = SQLiteStore(), PostgresStore(postgres_dsn)
    seen = set()
    try:
        for seed in range(80):
            rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
            level = 1 + seed % 10
            database = generate_database(rng, level)
            question = generate_question(rng, database, level)
            seen.add(question.template)
            results = []
            for store in (sqlite_store, postgres_store):
                store.create(database)
                reader = store.scoring_reader()
                results.append(reader.query(question.sql, max_rows=1000).rows)
                reader.close()
            assert compare_rows(*results, ordered=question.ordered) is None, (seed, question)
    finally:
        sqlite_store.close()
        postgres_store.close()
    assert seen == set(TEMPLATES), f"templates never drawn: {set(TEMPLATES) - seen}"


def test_databases_have_3_to_12_tables_by_level_in_every_domain():
    assert [table_count(level) for level in (1, 10)] == [3, 12]
    for domain in DOMAINS:
        for level in (1, 5, 10):
            database = generate_database(np.random.default_rng(level), level, domain)
            assert len(database.tables) == table_count(level)
            connection = sqlite3.connect(":memory:")
            connection.execute("PRAGMA foreign_keys = ON")
            from palaestra.envs.sql.backends import build_sqlite

            build_sqlite(database).close()  # foreign keys hold, NOT NULL columns are filled


def test_questions_include_empty_answers_and_careful_text():
    empty = careful = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        database = generate_database(rng, 5)
        question = generate_question(rng, database, 5, templates=["filter", "exact_name"])
        from palaestra.envs.sql.backends import build_sqlite

        rows = build_sqlite(database).execute(question.sql).fetchall()
        empty += not rows
        careful += "''" in question.sql
    assert empty > 0 and careful > 0


def test_the_order_counts_only_when_the_question_asks_for_one():
    env = palaestra.make("SQL-v0", level=5, templates=["top_k"])
    obs, info = env.reset(seed=1)
    assert "The order of the rows counts." in obs[0]["content"]
    reference = info["reference"]
    reversed_order = f"SELECT * FROM ({reference}) AS t ORDER BY 2 ASC"
    *_, info = env.step(submit(reversed_order))
    assert info["verdict"].status.value == "incorrect"
    env = palaestra.make("SQL-v0", level=5, templates=["group_count"])
    obs, info = env.reset(seed=1)
    assert "does not count" in obs[0]["content"]
    *_, info = env.step(submit(f"SELECT * FROM ({info['reference']}) AS t ORDER BY 2 DESC"))
    assert info["verdict"].status.value == "correct"


def test_query_errors_are_shown_as_the_database_reports_them(backend):
    env = palaestra.make("SQL-v0", **backend)
    env.reset(seed=0)
    call = {"name": "query", "arguments": {"sql": "SELECT no_such_column FROM no_such_table"}}
    obs, reward, *_, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    text = obs[0]["content"]
    assert text.startswith("Error: ") and "no_such_table" in text
    assert reward == 0 and not info.get("invalid_action")
    env.close()


def test_a_submission_that_fails_scores_zero_and_is_not_masked(backend):
    env = palaestra.make("SQL-v0", **backend)
    env.reset(seed=0)
    *_, terminated, truncated, info = env.step(submit("SELEC oops"))
    assert terminated and not truncated and not info["mask"]
    assert info["reward_parts"]["outcome"] == 0 and "failed" in info["verdict"].reason
    env.close()


def test_a_turn_without_a_tool_call_or_a_query_is_invalid():
    env = palaestra.make("SQL-v0")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("I think the answer is 4.")
    assert info["invalid_action"] and reward < 0 and not (terminated or truncated)
    assert "submit(sql)" in obs[0]["content"]


def test_submit_with_bad_arguments_is_invalid_with_the_reason():
    env = palaestra.make("SQL-v0")
    env.reset(seed=0)
    call = {"name": "submit", "arguments": {"query": "SELECT 1"}}
    obs, reward, terminated, _, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    assert info["invalid_action"] and not terminated and "sql" in obs[0]["content"]


def test_a_lost_sqlite_database_is_a_masked_error_not_a_zero():
    env = palaestra.make("SQL-v0")
    _, info = env.reset(seed=0)
    store = env.unwrapped.store
    (store.directory / "scoring.db").unlink()
    *_, terminated, truncated, info = env.step(submit(info["reference"]))
    assert truncated and not terminated
    assert info["status"] == "error" and info["mask"] and info["verdict"].status.value == "error"
    env.close()


def test_a_postgres_server_out_of_reach_is_a_masked_error_not_a_zero(postgres_dsn):
    env = palaestra.make("SQL-v0", backend="postgres", dsn=postgres_dsn)
    env.reset(seed=0)
    env.unwrapped.store.dsn = "postgresql://palaestra:palaestra@127.0.0.1:1/palaestra"
    call = {"name": "query", "arguments": {"sql": "SELECT 1"}}
    *_, terminated, truncated, info = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    assert truncated and not terminated
    assert info["status"] == "error" and info["mask"] and info["verdict"].status.value == "error"
    assert info["reward_parts"] == {}
    env.close()


def test_postgres_schemas_are_dropped_at_the_end_of_each_episode_and_on_close(postgres_dsn):
    import psycopg

    env = palaestra.make("SQL-v0", backend="postgres", dsn=postgres_dsn)

    def exists() -> bool:
        with psycopg.connect(postgres_dsn) as connection:
            found = connection.execute(
                "SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)
            ).fetchone()
        return found is not None

    env.reset(seed=0)
    schema = env.unwrapped.store.name
    assert exists()
    info = play_oracle(env, 0)
    assert info["success"] and not exists()
    env.reset(seed=1)
    assert exists()
    env.close()
    assert not exists()
