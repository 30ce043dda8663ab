"""The SQL tools' behaviour, shared by the env (direct calls) and the MCP server.

Each returns the text the model reads. A query the database refuses or interrupts is not the
model's crime but information: its error comes back as the tool's text, in the database's
words, and the turn is an ordinary tool turn. Only a failure of the database itself
(`InfrastructureError`) escapes, which the env turns into a masked episode.
"""

from __future__ import annotations

import dataclasses

from palaestra.envs.sql.backends import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    QueryError,
    Reader,
    format_result,
)

TOOL_DESCRIPTIONS = {
    "list_tables": "Lists the database's tables with their row counts.",
    "describe": "Describes a table's columns: type, key, references, nullability.",
    "query": "Runs one read-only SQL query and shows its rows (capped; time-limited).",
    "submit": "Submits your final SQL query; its rows are scored against the answer.",
}


@dataclasses.dataclass
class SQLTools:
    """The tools over one reader, with the episode's limits.

    Attributes:
        reader: The model's read-only view of the episode's database.
        max_rows: Rows a query shows.
        timeout_s: Seconds a query may run.
    """

    reader: Reader
    max_rows: int = DEFAULT_MAX_ROWS
    timeout_s: float = DEFAULT_TIMEOUT_S

    def list_tables(self) -> str:
        """The tables, one a line, with their row counts."""
        return "\n".join(f"{name} ({count} rows)" for name, count in self.reader.list_tables())

    def describe(self, table: str) -> str:
        """One table's columns, or the database's error."""
        try:
            return self.reader.describe(table)
        except QueryError as e:
            return f"Error: {e}"

    def query(self, sql: str) -> str:
        """The query's rows as text, or the database's error."""
        try:
            result = self.reader.query(sql, max_rows=self.max_rows, timeout_s=self.timeout_s)
        except QueryError as e:
            return f"Error: {e}"
        return format_result(result, self.max_rows)
