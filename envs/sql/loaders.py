"""Loaders for Spider- and BIRD-style text-to-SQL rows, for users who have the databases.

    from palaestra.envs.sql.loaders import load_examples

    examples = load_examples("spider/dev.json", databases="spider/database")
    examples = load_examples("bird/dev/dev.json", databases="bird/dev/dev_databases")
    env = palaestra.make("SQL-v0", examples=examples)        # or SQLQuery-v0

A row names its question, its gold SQL and its database:

* Spider: ``question``, ``query``, ``db_id`` (the database is
  ``<databases>/<db_id>/<db_id>.sqlite``).
* BIRD: ``question``, ``SQL``, ``db_id``, ``evidence`` (a hint, added to the question).
* Plain rows: ``question``, ``sql`` and ``database`` (a path to an SQLite file).

Files are JSON (a list of rows) or JSON Lines. The order of the gold rows counts when the
gold query ends with an ``ORDER BY`` (Spider's convention). These databases are SQLite
files, so the episodes run on the SQLite backend; each episode reads a private copy.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

_ORDER_BY = re.compile(r"\border\s+by\b", re.I)


@dataclasses.dataclass(frozen=True)
class SQLExample:
    """One question about an SQLite database, with its gold query.

    Attributes:
        question: The question (with any hint appended).
        sql: The gold query.
        database: The SQLite file.
        ordered: Whether the answer's row order counts.
    """

    question: str
    sql: str
    database: Path
    ordered: bool

    @property
    def name(self) -> str:
        """The database's name (the file's stem)."""
        return self.database.stem


def gold_is_ordered(sql: str) -> bool:
    """Whether ``sql`` has an ``ORDER BY`` outside every parenthesis (not in a subquery)."""
    depth, top_level = 0, []
    for position, char in enumerate(sql):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and _ORDER_BY.match(sql, position):
            top_level.append(position)
    return bool(top_level)


def from_rows(
    rows: Iterable[Mapping[str, Any]], databases: str | Path | None = None
) -> list[SQLExample]:
    """Examples from rows in any of the three styles (see the module docstring).

    Raises:
        ValueError: A row lacks its question, query or database, or the database file is
            missing (the message names the row).
    """
    examples = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(f"row {index} is a {type(row).__name__}, not an object")
        question = row.get("question")
        sql = row.get("sql") or row.get("query") or row.get("SQL")
        if not isinstance(question, str) or not isinstance(sql, str):
            raise ValueError(f"row {index} needs a 'question' and a 'sql' (or 'query', 'SQL')")
        if row.get("database"):
            database = Path(row["database"])
        elif row.get("db_id") and databases is not None:
            database = Path(databases) / row["db_id"] / f"{row['db_id']}.sqlite"
        else:
            raise ValueError(
                f"row {index} needs a 'database' path, or a 'db_id' and the databases= folder"
            )
        if not database.is_file():
            raise ValueError(f"row {index}: the database {database} does not exist")
        if row.get("evidence"):
            question = f"{question} (Hint: {row['evidence']})"
        examples.append(SQLExample(question, sql.strip(), database, gold_is_ordered(sql)))
    if not examples:
        raise ValueError("no rows: give at least one example")
    return examples


def load_examples(path: str | Path, databases: str | Path | None = None) -> list[SQLExample]:
    """Examples from a JSON or JSON Lines file (see `from_rows`)."""
    text = Path(path).read_text()
    if text.lstrip().startswith("["):
        rows = json.loads(text)
    else:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return from_rows(rows, databases)
