"""Execution scoring: multisets of rows, order only when asked, numbers within a tolerance."""

from __future__ import annotations

import datetime
import decimal

from palaestra.envs.sql.envs import extract_sql
from palaestra.envs.sql.scoring import compare_rows


def test_rows_match_as_a_multiset_unless_the_order_counts():
    want = [("a", 1), ("b", 2), ("a", 1)]
    assert compare_rows([("b", 2), ("a", 1), ("a", 1)], want, ordered=False) is None
    assert compare_rows([("b", 2), ("a", 1), ("a", 1)], want, ordered=True) == "row 1 differs"
    assert "rows" in compare_rows([("a", 1), ("b", 2)], want, ordered=False)  # a duplicate lost


def test_backend_types_and_the_numeric_tolerance():
    sqlite_rows = [(12.3, "2024-01-05", 3)]
    postgres_rows = [(decimal.Decimal("12.30"), datetime.date(2024, 1, 5), 3)]
    assert compare_rows(sqlite_rows, postgres_rows, ordered=False) is None
    assert compare_rows([(0.1 + 0.2,)], [(0.3,)], ordered=False) is None
    assert compare_rows([(1.0001,)], [(1.0,)], ordered=False) is not None
    assert compare_rows([(3,)], [(3.0,)], ordered=False) is None


def test_null_text_and_column_counts_are_exact():
    assert compare_rows([(None,)], [(0,)], ordered=False) is not None
    assert compare_rows([(None,)], [(None,)], ordered=False) is None
    assert compare_rows([("Ada",)], [("ada",)], ordered=False) is not None
    assert compare_rows([("1",)], [(1,)], ordered=False) is not None
    assert "columns" in compare_rows([("a", 1)], [("a",)], ordered=False)
    assert compare_rows([], [], ordered=True) is None


def test_the_query_is_read_from_the_last_answer_tag_or_sql_block_after_reasoning():
    assert extract_sql("<answer>SELECT 1;</answer>") == "SELECT 1"
    assert extract_sql("x ```sql\nSELECT 2\n``` y") == "SELECT 2"
    assert extract_sql("<think><answer>SELECT 1</answer></think><answer>SELECT 3</answer>") == (
        "SELECT 3"
    )
    assert extract_sql("no query here") is None
    assert extract_sql("<answer> </answer>") is None
