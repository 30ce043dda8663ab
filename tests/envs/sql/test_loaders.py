"""Spider- and BIRD-style rows over the user's own SQLite databases."""

from __future__ import annotations

import json
import sqlite3

import pytest

import palaestra
from palaestra.envs.sql.loaders import from_rows, gold_is_ordered, load_examples


@pytest.fixture
def spider(tmp_path):
    """A Spider-style folder: database/<db_id>/<db_id>.sqlite and a dev.json."""
    folder = tmp_path / "database" / "concert_singer"
    folder.mkdir(parents=True)
    connection = sqlite3.connect(folder / "concert_singer.sqlite")
    connection.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INT)")
    connection.executemany(
        "INSERT INTO singer VALUES (?, ?, ?)", [(1, "Joe", 52), (2, "Ana", 29), (3, "Li", 41)]
    )
    connection.commit()
    connection.close()
    rows = [
        {"db_id": "concert_singer", "question": "How many singers are there?",
         "query": "SELECT count(*) FROM singer"},
        {"db_id": "concert_singer", "question": "Names of singers by age, oldest first.",
         "query": "SELECT name FROM singer ORDER BY age DESC"},
    ]
    (tmp_path / "dev.json").write_text(json.dumps(rows))
    return tmp_path


def test_spider_rows_play_on_both_envs(spider):
    examples = load_examples(spider / "dev.json", databases=spider / "database")
    assert [e.ordered for e in examples] == [False, True]
    for env_id in ("SQL-v0", "SQLQuery-v0"):
        env = palaestra.make(env_id, examples=examples)
        for seed in range(4):
            obs, info = env.reset(seed=seed)
            assert "concert_singer" in obs[0]["content"] and info["template"] == "dataset"
            for _ in range(3):
                *_, terminated, _, info = env.step(env.unwrapped.oracle_action())
                if terminated:
                    break
            assert info["success"], info["verdict"]
            env.reset(seed=seed)
            *_, info = env.step("<answer>SELECT 1</answer>")
            assert info["reward_parts"]["outcome"] == 0
        env.close()


def test_the_users_database_is_never_written(spider):
    examples = load_examples(spider / "dev.json", databases=spider / "database")
    before = examples[0].database.read_bytes()
    env = palaestra.make("SQL-v0", examples=examples)
    env.reset(seed=0)
    call = {"name": "query", "arguments": {"sql": "DELETE FROM singer"}}
    obs, *_ = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    assert obs[0]["content"].startswith("Error: ")
    env.close()
    assert examples[0].database.read_bytes() == before


def test_bird_rows_carry_their_hint_and_plain_rows_a_path(spider):
    path = spider / "database" / "concert_singer" / "concert_singer.sqlite"
    bird = from_rows(
        [{"db_id": "concert_singer", "question": "Oldest singer?", "evidence": "age is in years",
          "SQL": "SELECT name FROM singer WHERE age = (SELECT max(age) FROM singer)"}],
        databases=spider / "database",
    )
    assert bird[0].question == "Oldest singer? (Hint: age is in years)"
    plain = from_rows([{"question": "q", "sql": "SELECT 1", "database": str(path)}])
    assert plain[0].database == path


def test_bad_rows_say_what_is_missing(spider):
    with pytest.raises(ValueError, match="row 0 needs a 'question'"):
        from_rows([{"sql": "SELECT 1", "database": "x"}])
    with pytest.raises(ValueError, match="does not exist"):
        from_rows([{"question": "q", "sql": "SELECT 1", "database": str(spider / "nope.db")}])
    with pytest.raises(ValueError, match="backend='sqlite'"):
        palaestra.make("SQL-v0", backend="postgres", dsn="postgresql://x@/y",
                       examples=[{"question": "q", "sql": "SELECT 1",
                                  "database": str(spider / "database" / "concert_singer"
                                                  / "concert_singer.sqlite")}])


def test_the_order_counts_only_for_a_top_level_order_by():
    assert gold_is_ordered("SELECT name FROM t ORDER BY count(*) DESC LIMIT 1")
    assert not gold_is_ordered("SELECT name FROM (SELECT * FROM t ORDER BY a) AS s")
    assert not gold_is_ordered("SELECT border_by FROM t")
