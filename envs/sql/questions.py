"""Questions from SQL templates: a gold query, its question in plain English, and its checks.

Each template picks tables and columns that fit it from the episode's schema and writes a
gold query in the SQL both backends read the same way: no text ordering or text MIN/MAX
(collations differ), no NULLs in an ORDER BY (they sort first on SQLite and last on
PostgreSQL), no integer division, dates compared as ISO strings. Orders are asked for only
where the ordering values are distinct, so only one row order is right.

A template unlocks at a level: single-table filters and counts first, then joins, grouping
with HAVING, subqueries and anti-joins, and window functions at the top levels. Some
questions have an empty answer ("none"); the question says so may happen.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.envs.sql.backends import build_sqlite
from palaestra.envs.sql.schema import Column, Database, TableSpec

MAX_ANSWER_ROWS = 60


@dataclasses.dataclass(frozen=True)
class Question:
    """A question about a database and its gold query.

    Attributes:
        text: The question in English, naming the columns to return in order.
        sql: The gold query.
        ordered: Whether the answer's row order counts.
        template: The template's name.
    """

    text: str
    sql: str
    ordered: bool
    template: str


def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def plural(noun: str) -> str:
    """The plural of a table's row noun."""
    if noun == "aircraft":
        return noun
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _words(column: Column) -> str:
    return column.name.removesuffix("_id").replace("_", " ")


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def _columns(table: TableSpec, kind: str) -> list[Column]:
    return [c for c in table.columns if c.kind == kind]


def _measures(table: TableSpec) -> list[Column]:
    return [c for c in table.columns if c.numeric]


def _has_name(table: TableSpec) -> bool:
    return any(c.kind == "name" for c in table.columns)


def _links(db: Database) -> list[tuple[TableSpec, Column, TableSpec]]:
    """(child, foreign-key column, parent) for every foreign key in the schema."""
    names = {t.name for t in db.tables}
    return [
        (child, column, db.table(column.arg))
        for child in db.tables
        for column in _columns(child, "fk")
        if column.arg in names
    ]


_Built = tuple[str, list[str], bool] | None
_Template = Callable[[np.random.Generator, Database], _Built]


def _filter_measure(rng: np.random.Generator, db: Database) -> _Built:
    tables = [t for t in db.tables if _has_name(t) and _measures(t)]
    if not tables:
        return None
    table = _pick(rng, tables)
    column = _pick(rng, _measures(table))
    values = sorted(v for v in db.values(table.name, column.name) if v is not None)
    # Now and then a threshold above every value: the answer is "none".
    threshold = values[-1] + 1 if rng.random() < 0.15 else values[int(rng.integers(len(values)))]
    sql = f"SELECT name FROM {table.name} WHERE {column.name} > {_literal(threshold)}"
    many = plural(table.noun)
    return sql, [
        f"List the names of the {many} whose {_words(column)} is greater than {threshold}.",
        f"Which {many} have a {_words(column)} above {threshold}? Give their names.",
        f"Find every {table.noun} with {_words(column)} over {threshold} and return its name.",
    ], False


def _count_category(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(t, c) for t in db.tables for c in _columns(t, "category")]
    if not choices:
        return None
    table, column = _pick(rng, choices)
    value = _pick(rng, column.arg)
    sql = f"SELECT COUNT(*) FROM {table.name} WHERE {column.name} = {_literal(value)}"
    many = plural(table.noun)
    return sql, [
        f"How many {many} have {_words(column)} '{value}'? Return the count.",
        f"Count the {many} whose {_words(column)} is '{value}'.",
    ], False


def _exact_name(rng: np.random.Generator, db: Database) -> _Built:
    tables = [t for t in db.tables if _columns(t, "name")]
    if not tables:
        return None
    table = _pick(rng, tables)
    names = db.values(table.name, "name")
    # Prefer a name with an apostrophe or one shared by several rows: the careful cases.
    careful = [n for n in names if "'" in n or names.count(n) > 1]
    name = _pick(rng, careful or names)
    sql = f"SELECT id FROM {table.name} WHERE name = {_literal(name)}"
    return sql, [
        f"Give the id of every {table.noun} named {name}.",
        f"What are the ids of the {plural(table.noun)} called exactly \"{name}\"?",
    ], False


def _count_missing(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(t, c) for t in db.tables for c in t.columns if c.null_rate and c.kind != "fk"]
    if not choices:
        return None
    table, column = _pick(rng, choices)
    sql = f"SELECT COUNT(*) FROM {table.name} WHERE {column.name} IS NULL"
    many = plural(table.noun)
    return sql, [
        f"How many {many} have no {_words(column)} recorded? Return the count.",
        f"Count the {many} whose {_words(column)} is missing (NULL).",
    ], False


def _date_range(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(t, c) for t in db.tables for c in _columns(t, "date")]
    if not choices:
        return None
    table, column = _pick(rng, choices)
    values = sorted(v for v in db.values(table.name, column.name) if v is not None)
    low, high = sorted(_pick(rng, values) for _ in range(2))
    if low == high:
        return None
    sql = (
        f"SELECT COUNT(*) FROM {table.name} WHERE {column.name} >= '{low}' "
        f"AND {column.name} < '{high}'"
    )
    many = plural(table.noun)
    return sql, [
        f"How many {many} have a {_words(column)} on or after {low} and before {high}?",
        f"Count the {many} whose {_words(column)} falls from {low} (inclusive) to {high} "
        "(exclusive).",
    ], False


def _join_filter(rng: np.random.Generator, db: Database) -> _Built:
    choices = [
        (child, fk, parent, category)
        for child, fk, parent in _links(db)
        if _has_name(parent)
        for category in _columns(parent, "category")
    ]
    if not choices:
        return None
    child, fk, parent, category = _pick(rng, choices)
    value = _pick(rng, category.arg)
    sql = (
        f"SELECT c.id, p.name FROM {child.name} c JOIN {parent.name} p ON c.{fk.name} = p.id "
        f"WHERE p.{category.name} = {_literal(value)}"
    )
    return sql, [
        f"For each {child.noun} whose {_words(fk)} has {_words(category)} '{value}', return "
        f"the {child.noun}'s id and the name of its {_words(fk)}.",
        f"List the {plural(child.noun)} linked through {fk.name} to a {parent.noun} with "
        f"{_words(category)} '{value}': give the {child.noun} id and the {parent.noun}'s name.",
    ], False


def _top_k(rng: np.random.Generator, db: Database) -> _Built:
    tables = [t for t in db.tables if _has_name(t) and _measures(t)]
    if not tables:
        return None
    table = _pick(rng, tables)
    column = _pick(rng, _measures(table))
    values = sorted((v for v in db.values(table.name, column.name) if v is not None), reverse=True)
    k = int(rng.integers(3, 6))
    # Only one right order: the top k values and the one after them are all distinct.
    if len(values) <= k or len(set(values[: k + 1])) != k + 1:
        return None
    sql = (
        f"SELECT name, {column.name} FROM {table.name} WHERE {column.name} IS NOT NULL "
        f"ORDER BY {column.name} DESC LIMIT {k}"
    )
    many = plural(table.noun)
    return sql, [
        f"Which {k} {many} have the highest {_words(column)}? Return name and "
        f"{_words(column)}, highest first.",
        f"List the top {k} {many} by {_words(column)} (largest first) with their names and "
        f"{_words(column)}.",
    ], True


def _group_count(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(t, c) for t in db.tables for c in _columns(t, "category")]
    if not choices:
        return None
    table, column = _pick(rng, choices)
    sql = (
        f"SELECT {column.name}, COUNT(*) FROM {table.name} WHERE {column.name} IS NOT NULL "
        f"GROUP BY {column.name}"
    )
    many = plural(table.noun)
    return sql, [
        f"For each {_words(column)} that appears among the {many}, how many {many} have it? "
        f"Return the {_words(column)} and the count.",
        f"Count the {many} per {_words(column)} (ignore missing values): {_words(column)}, "
        "count.",
    ], False


def _total_per_parent(rng: np.random.Generator, db: Database) -> _Built:
    choices = [
        (child, fk, parent, measure)
        for child, fk, parent in _links(db)
        if _has_name(parent)
        for measure in _measures(child)
    ]
    if not choices:
        return None
    child, fk, parent, measure = _pick(rng, choices)
    function, word = _pick(rng, [("SUM", "total"), ("MAX", "largest"), ("AVG", "average")])
    sql = (
        f"SELECT p.id, p.name, {function}(c.{measure.name}) FROM {parent.name} p "
        f"JOIN {child.name} c ON c.{fk.name} = p.id GROUP BY p.id, p.name"
    )
    return sql, [
        f"For each {parent.noun} with at least one {child.noun}, give its id, its name and the "
        f"{word} {_words(measure)} of its {plural(child.noun)}.",
        f"What is the {word} {_words(measure)} of the {plural(child.noun)} of each "
        f"{parent.noun} (only those that have some)? Return id, name, {word}.",
    ], False


def _having(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(c, fk, p) for c, fk, p in _links(db) if _has_name(p)]
    if not choices:
        return None
    child, fk, parent = _pick(rng, choices)
    counts = sorted(
        {v: db.values(child.name, fk.name).count(v) for v in db.values(child.name, fk.name)
         if v is not None}.values()
    )
    if not counts:
        return None
    k = counts[int(rng.integers(len(counts)))]
    sql = (
        f"SELECT p.name, COUNT(*) FROM {parent.name} p JOIN {child.name} c "
        f"ON c.{fk.name} = p.id GROUP BY p.id, p.name HAVING COUNT(*) >= {k}"
    )
    return sql, [
        f"Which {plural(parent.noun)} have at least {k} {plural(child.noun)}? Return each "
        f"one's name and its number of {plural(child.noun)}.",
        f"List the name and {child.noun} count of every {parent.noun} with {k} or more "
        f"{plural(child.noun)}.",
    ], False


def _above_average(rng: np.random.Generator, db: Database) -> _Built:
    tables = [t for t in db.tables if _has_name(t) and _measures(t)]
    if not tables:
        return None
    table = _pick(rng, tables)
    column = _pick(rng, _measures(table))
    sql = (
        f"SELECT name, {column.name} FROM {table.name} "
        f"WHERE {column.name} > (SELECT AVG({column.name}) FROM {table.name})"
    )
    many = plural(table.noun)
    return sql, [
        f"Which {many} have a {_words(column)} above the average {_words(column)} of all "
        f"{many}? Return name and {_words(column)}.",
        f"Find the {many} whose {_words(column)} exceeds the {table.noun} average; give "
        f"their names and {_words(column)}.",
    ], False


def _without_children(rng: np.random.Generator, db: Database) -> _Built:
    choices = [(c, fk, p) for c, fk, p in _links(db) if _has_name(p)]
    if not choices:
        return None
    child, fk, parent = _pick(rng, choices)
    sql = (
        f"SELECT p.id, p.name FROM {parent.name} p WHERE NOT EXISTS "
        f"(SELECT 1 FROM {child.name} c WHERE c.{fk.name} = p.id)"
    )
    return sql, [
        f"Which {plural(parent.noun)} have no {plural(child.noun)} at all? Return id and name.",
        f"List the id and name of every {parent.noun} that no {child.noun} refers to through "
        f"{fk.name}.",
    ], False


def _named_category_measures(db: Database) -> list[tuple[TableSpec, Column, Column]]:
    """(table, category column, measure column) of every table whose rows have names."""
    return [
        (t, c, m)
        for t in db.tables
        if _has_name(t)
        for c in _columns(t, "category")
        for m in _measures(t)
    ]


def _best_per_group(rng: np.random.Generator, db: Database) -> _Built:
    choices = _named_category_measures(db)
    if not choices:
        return None
    table, category, measure = _pick(rng, choices)
    sql = (
        f"SELECT name, {category.name}, {measure.name} FROM (SELECT name, {category.name}, "
        f"{measure.name}, RANK() OVER (PARTITION BY {category.name} ORDER BY {measure.name} "
        f"DESC) AS position FROM {table.name} WHERE {measure.name} IS NOT NULL "
        f"AND {category.name} IS NOT NULL) ranked WHERE position = 1"
    )
    return sql, [
        f"For each {_words(category)}, which {table.noun} has the highest {_words(measure)}? "
        f"Return name, {_words(category)} and {_words(measure)} (all of them on a tie).",
        f"Within every {_words(category)}, find the {plural(table.noun)} ranked first by "
        f"{_words(measure)}; give name, {_words(category)}, {_words(measure)}.",
    ], False


def _gap_to_group_average(rng: np.random.Generator, db: Database) -> _Built:
    choices = _named_category_measures(db)
    if not choices:
        return None
    table, category, measure = _pick(rng, choices)
    sql = (
        f"SELECT name, {measure.name} - AVG({measure.name}) OVER (PARTITION BY "
        f"{category.name}) FROM {table.name} WHERE {measure.name} IS NOT NULL "
        f"AND {category.name} IS NOT NULL"
    )
    return sql, [
        f"For every {table.noun} with a known {_words(measure)} and {_words(category)}, return "
        f"its name and how far its {_words(measure)} is above the average of its "
        f"{_words(category)} (negative when below).",
        f"Give each {table.noun}'s name and its {_words(measure)} minus the mean "
        f"{_words(measure)} of the {plural(table.noun)} sharing its {_words(category)} "
        f"(skip missing values).",
    ], False


TEMPLATES: dict[str, tuple[int, _Template]] = {
    "filter": (1, _filter_measure),
    "count": (1, _count_category),
    "exact_name": (1, _exact_name),
    "missing": (2, _count_missing),
    "date_range": (2, _date_range),
    "join": (2, _join_filter),
    "top_k": (3, _top_k),
    "group_count": (3, _group_count),
    "aggregate_join": (4, _total_per_parent),
    "having": (4, _having),
    "subquery": (5, _above_average),
    "anti_join": (5, _without_children),
    "window_rank": (7, _best_per_group),
    "window_average": (8, _gap_to_group_average),
}
"""Template name -> (the first level it appears at, its builder)."""

_CLOSING = (
    " Answer with one SQL query whose result rows are exactly the answer"
    " (if nothing qualifies, the query returns no rows)."
)


def generate_question(
    rng: np.random.Generator, db: Database, level: int, templates: Sequence[str] | None = None
) -> Question:
    """Draws a question for ``db`` from the templates open at ``level``.

    Every candidate's gold query runs on an in-memory copy of ``db``; one with more than
    `MAX_ANSWER_ROWS` rows, or whose answer is the single value 1, is redrawn.

    Raises:
        ValueError: ``templates`` names an unknown template, or none fits the schema.
    """
    names = list(templates) if templates is not None else [
        name for name, (first, _) in TEMPLATES.items() if first <= level
    ]
    unknown = sorted(set(names) - set(TEMPLATES))
    if unknown:
        raise ValueError(f"unknown templates {unknown}; choose from {sorted(TEMPLATES)}")
    with contextlib.closing(build_sqlite(db)) as connection:
        for _ in range(50):
            name = _pick(rng, names)
            built = TEMPLATES[name][1](rng, db)
            if built is None:
                continue
            sql, phrasings, ordered = built
            rows = connection.execute(sql).fetchall()
            # Too long an answer to read, or the single value 1 (``SELECT 1`` would score).
            if len(rows) > MAX_ANSWER_ROWS or rows == [(1,)]:
                continue
            return Question(_pick(rng, phrasings) + _CLOSING, sql, ordered, name)
    raise ValueError(f"no template among {names} fits the {db.domain} database")
