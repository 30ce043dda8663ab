"""Where an episode's database lives: SQLite (the default) or a PostgreSQL server.

A *store* creates an episode's database from a generated `Database` and drops it at the end;
a *reader* is the only way the model's SQL reaches it: list the tables, describe one, run a
read-only query under a row cap and a time limit. The MCP server builds the same readers
from a location string, so the model meets the same database either way.

Threat model (what the model's SQL can and cannot do):

* SQLite: the episode's file is opened read-only (``mode=ro``) and an authorizer allows
  only reads (SELECT, reading columns, functions, recursive CTEs); writes, ``ATTACH``,
  ``PRAGMA`` and DDL are refused before they run. One statement per call (the driver's
  rule). A progress handler interrupts a query past its time limit; a value longer than
  `MAX_VALUE_BYTES` is refused by SQLite's length limit; rows are fetched lazily and cut at
  the row cap, so a query returning millions of rows stops at the cap.
* PostgreSQL: the model's SQL runs as a separate login role (`READER_ROLE`, not a
  superuser, no CREATE rights) that may only SELECT from the episode's schema, in a
  ``READ ONLY`` transaction with ``statement_timeout`` set, one statement per call (the
  extended protocol), rows streamed and the query cancelled at the row cap, and a
  client-side watchdog that cancels a query the server failed to stop. Superuser-only
  functions (``pg_read_file``, ``COPY ... TO PROGRAM``) are refused by the server's
  privilege checks. A statement that changes a setting is rolled back with its
  transaction. Not covered: the reader may read other episodes' schemas on the same
  database (they hold only generated data); it may cancel or end other sessions of the
  reader role (PostgreSQL lets a role signal its own sessions), which those episodes see
  as masked errors, never as wrong scores; and one huge value (``repeat('x', 10^8)``) is
  bounded only by the server's 1 GB field limit and the time limit.
* Neither backend protects a database the user points it at from the user's own DSN role:
  the store's role creates and drops schemas, so give it a database of its own.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from palaestra.envs.sql.schema import Database
from palaestra.errors import InfrastructureError

DEFAULT_MAX_ROWS = 100
DEFAULT_TIMEOUT_S = 2.0
MAX_VALUE_BYTES = 1_000_000
READER_ROLE = "palaestra_reader"
READER_PASSWORD = "palaestra_reader"  # the role can read generated data only
DSN_VARIABLE = "PALAESTRA_POSTGRES_DSN"

_SQLITE_TYPES = {"id": "INTEGER", "fk": "INTEGER", "name": "TEXT", "category": "TEXT",
                 "int": "INTEGER", "money": "REAL", "date": "TEXT"}
_POSTGRES_TYPES = {**_SQLITE_TYPES, "money": "NUMERIC(10,2)", "date": "DATE"}


class QueryError(Exception):
    """The database refused or failed the model's query; the message is the database's."""


class QueryTimeout(QueryError):
    """The query ran past its time limit and was interrupted."""


@dataclasses.dataclass(frozen=True)
class QueryResult:
    """What a query returned.

    Attributes:
        columns: The result's column names.
        rows: Its rows, at most the row cap.
        truncated: True when the query had more rows than the cap.
    """

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False


def create_statements(database: Database, dialect: str) -> list[str]:
    """``CREATE TABLE`` statements for ``database`` in ``dialect`` (``sqlite``/``postgres``)."""
    types = _SQLITE_TYPES if dialect == "sqlite" else _POSTGRES_TYPES
    statements = []
    for table in database.tables:
        parts = []
        for column in table.columns:
            part = f"{column.name} {types[column.kind]}"
            if column.kind == "id":
                part += " PRIMARY KEY"
            elif column.kind == "fk":
                part += f" REFERENCES {column.arg}(id)"
            if column.kind != "id" and not column.null_rate:
                part += " NOT NULL"
            parts.append(part)
        statements.append(f"CREATE TABLE {table.name} ({', '.join(parts)})")
    return statements


def format_result(result: QueryResult, max_rows: int) -> str:
    """A result as the model reads it: a header, ``|``-separated rows, and a count."""
    def cell(value: Any) -> str:
        return "NULL" if value is None else str(value)

    lines = [" | ".join(result.columns)]
    lines += [" | ".join(cell(v) for v in row) for row in result.rows]
    if result.truncated:
        lines.append(f"(the first {max_rows} rows; the result was cut at the row cap)")
    else:
        lines.append(f"({len(result.rows)} row{'s' if len(result.rows) != 1 else ''})")
    return "\n".join(lines)


class Reader(abc.ABC):
    """Read-only access to one episode's database, as the model gets it."""

    @abc.abstractmethod
    def list_tables(self) -> list[tuple[str, int]]:
        """The tables and their row counts, sorted by name."""

    @abc.abstractmethod
    def describe(self, table: str) -> str:
        """A table's columns: name, type, nullability, key (raises `QueryError` if unknown)."""

    @abc.abstractmethod
    def query(
        self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> QueryResult:
        """Runs one read-only statement.

        Raises:
            QueryError: The database refused it or it failed (the database's message).
            QueryTimeout: It ran past ``timeout_s``.
            InfrastructureError: The database itself failed.
        """

    def close(self) -> None:  # noqa: B027 (readers without connections have nothing to close)
        """Releases connections."""


def _describe_lines(table: str, columns: list[tuple[str, str, bool, bool, str | None]]) -> str:
    lines = [f"table {table}:"]
    for name, type_, nullable, primary, references in columns:
        notes = [type_]
        if primary:
            notes.append("primary key")
        if references:
            notes.append(f"references {references}")
        notes.append("nullable" if nullable and not primary else "not null")
        lines.append(f"  {name}: {', '.join(notes)}")
    return "\n".join(lines)


# --- SQLite ---------------------------------------------------------------------------------

_SQLITE_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
_SQLITE_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, _SQLITE_RECURSIVE}
)
_SQLITE_REFUSED_FUNCTIONS = frozenset({"load_extension", "fts3_tokenizer"})


def _read_only_authorizer(action: int, arg1: Any, arg2: Any, database: Any, source: Any) -> int:
    if action not in _SQLITE_READ_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and str(arg2).lower() in _SQLITE_REFUSED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def build_sqlite(database: Database, path: str | Path = ":memory:") -> sqlite3.Connection:
    """Writes ``database`` into a new SQLite database at ``path`` and returns the connection."""
    connection = sqlite3.connect(str(path), check_same_thread=False)
    connection.execute("PRAGMA foreign_keys = ON")
    # A file built once and then only read needs no journal and no fsync.
    connection.execute("PRAGMA journal_mode = OFF")
    connection.execute("PRAGMA synchronous = OFF")
    with connection:
        for statement in create_statements(database, "sqlite"):
            connection.execute(statement)
        for table in database.tables:
            marks = ", ".join("?" * len(table.columns))
            connection.executemany(
                f"INSERT INTO {table.name} VALUES ({marks})", database.rows[table.name]
            )
    return connection


class SQLiteReader(Reader):
    """The model's read-only view of an SQLite file (a fresh connection per call)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def _connect(self, *, guarded: bool) -> sqlite3.Connection:
        if not self.path.is_file():
            raise InfrastructureError(f"the episode's SQLite database {self.path} is missing")
        try:
            connection = sqlite3.connect(
                f"{self.path.as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
        except sqlite3.Error as e:
            raise InfrastructureError(f"cannot open {self.path}: {e}") from e
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        if guarded:
            connection.set_authorizer(_read_only_authorizer)
        return connection

    def list_tables(self) -> list[tuple[str, int]]:
        """See `Reader.list_tables`."""
        with contextlib.closing(self._connect(guarded=False)) as connection:
            names = [r[0] for r in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )]
            return [
                (n, connection.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0]) for n in names
            ]

    def describe(self, table: str) -> str:
        """See `Reader.describe`."""
        with contextlib.closing(self._connect(guarded=False)) as connection:
            known = {r[0] for r in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            )}
            if table not in known:
                raise QueryError(f"no such table: {table} (tables: {', '.join(sorted(known))})")
            references = {
                row[3]: f"{row[2]}({row[4]})"
                for row in connection.execute("SELECT * FROM pragma_foreign_key_list(?)", (table,))
            }
            columns = [
                (name, type_, not notnull, bool(pk), references.get(name))
                for _, name, type_, notnull, _, pk in connection.execute(
                    "SELECT * FROM pragma_table_info(?)", (table,)
                )
            ]
        return _describe_lines(table, columns)

    def query(
        self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> QueryResult:
        """See `Reader.query`."""
        deadline = time.monotonic() + timeout_s
        with contextlib.closing(self._connect(guarded=True)) as connection:
            # Called every 1000 virtual-machine steps, while the statement runs and while
            # rows are fetched; a true result interrupts the statement.
            connection.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
            try:
                cursor = connection.execute(sql)
                rows = cursor.fetchmany(max_rows + 1)
            except sqlite3.OperationalError as e:
                if str(e) == "interrupted":
                    raise QueryTimeout(
                        f"the query ran longer than {timeout_s:g} s and was interrupted"
                    ) from e
                raise QueryError(_sqlite_message(e)) from e
            except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError) as e:
                raise QueryError(_sqlite_message(e)) from e
            columns = [d[0] for d in cursor.description or ()]
        return QueryResult(columns, rows[:max_rows], truncated=len(rows) > max_rows)


def _sqlite_message(error: Exception) -> str:
    message = str(error)
    if message == "not authorized":
        return "not authorized: only read-only SELECT statements may run"
    return message


class SQLiteStore:
    """Episode databases as SQLite files in a private temporary directory.

    Each episode writes a new file and a copy of it; the model reads the first, scoring
    reads the copy, so nothing the model did can reach the score.
    """

    dialect = "sqlite"

    def __init__(self) -> None:
        self._directory: str | None = None

    @property
    def directory(self) -> Path:
        """The private directory (created on first use)."""
        if self._directory is None:
            self._directory = tempfile.mkdtemp(prefix="palaestra-sql-")
        return Path(self._directory)

    @property
    def path(self) -> Path:
        """The file the model reads (the same path every episode)."""
        return self.directory / "episode.db"

    def create(self, database: Database) -> None:
        """Writes the episode's database (replacing the previous one) and its scoring copy."""
        staging = self.directory / "staging.db"
        staging.unlink(missing_ok=True)
        try:
            build_sqlite(database, staging).close()
            shutil.copyfile(staging, self.directory / "scoring.db")
        except (sqlite3.Error, OSError) as e:
            raise InfrastructureError(f"cannot create the episode's SQLite database: {e}") from e
        os.replace(staging, self.path)

    def copy_from(self, path: str | Path) -> None:
        """Uses a copy of an existing SQLite file as the episode's database (and its copy)."""
        staging = self.directory / "staging.db"
        try:
            shutil.copyfile(path, staging)
            shutil.copyfile(staging, self.directory / "scoring.db")
        except OSError as e:
            raise InfrastructureError(f"cannot copy the SQLite database {path}: {e}") from e
        os.replace(staging, self.path)

    def schema_text(self) -> str:
        """The ``CREATE TABLE`` statements of the episode's database, as SQLite stores them."""
        with contextlib.closing(sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True)) as c:
            return ";\n".join(
                sql for (sql,) in c.execute(
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL "
                    "ORDER BY rowid"
                )
            ) + ";"

    def reader(self) -> SQLiteReader:
        """The model's reader."""
        return SQLiteReader(self.path)

    def scoring_reader(self) -> SQLiteReader:
        """A reader of the untouched copy, for scoring (the store closes it)."""
        return SQLiteReader(self.directory / "scoring.db")

    def location(self) -> str:
        """Where an MCP server finds the episode's database."""
        return f"sqlite:{self.path}"

    def drop(self) -> None:
        """Deletes the episode's files."""
        for name in ("episode.db", "scoring.db"):
            (self.directory / name).unlink(missing_ok=True)

    def close(self) -> None:
        """Deletes the directory."""
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None


# --- PostgreSQL -----------------------------------------------------------------------------


def _psycopg() -> Any:
    try:
        import psycopg  # noqa: PLC0415 (an optional dependency)
    except ImportError as e:
        raise InfrastructureError(
            'the PostgreSQL backend needs psycopg: pip install "palaestra[sql]"'
        ) from e
    return psycopg


def resolve_dsn(dsn: str | None) -> str:
    """The DSN to use: ``dsn``, else ``$PALAESTRA_POSTGRES_DSN``, else the local server.

    Raises:
        ValueError: None of them is given or running.
    """
    if dsn:
        return dsn
    if os.environ.get(DSN_VARIABLE):
        return os.environ[DSN_VARIABLE]
    from palaestra.envs.sql.local_server import running_dsn  # noqa: PLC0415

    local = running_dsn()
    if local is None:
        raise ValueError(
            "backend='postgres' needs a server: pass dsn='postgresql://...', set "
            f"${DSN_VARIABLE}, or start a local one with `palaestra db start`"
        )
    return local


def reader_dsn(dsn: str) -> str:
    """The DSN of the read-only role on the same server and database as ``dsn``."""
    conninfo = _psycopg().conninfo
    return conninfo.make_conninfo(dsn, user=READER_ROLE, password=READER_PASSWORD)


def _is_infrastructure(error: Exception) -> bool:
    """Whether a psycopg error is the server's or the connection's fault, not the query's."""
    psycopg = _psycopg()
    state = getattr(error, "sqlstate", None)
    if state is None:
        # Without a server's code: a lost connection, or the driver's own complaint about
        # the statement (e.g. one that returns no rows).
        return not isinstance(error, psycopg.ProgrammingError)
    return state[:2] in ("08", "53", "57", "58", "XX") and state != "57014"


class PostgresReader(Reader):
    """The model's read-only view of one episode's schema, through `READER_ROLE`."""

    def __init__(self, dsn: str, schema: str):
        self.dsn, self.schema = dsn, schema
        self._connection: Any = None
        self._lock = threading.Lock()

    def _connect(self) -> Any:
        psycopg = _psycopg()
        if self._connection is None or self._connection.closed or self._connection.broken:
            try:
                self._connection = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
            except psycopg.Error as e:
                raise InfrastructureError(f"cannot connect to PostgreSQL as the reader: {e}") from e
            self._connection.read_only = True
        return self._connection

    def _run(self, sql: str, params: Any, max_rows: int, timeout_s: float) -> QueryResult:
        psycopg = _psycopg()
        with self._lock:
            connection = self._connect()
            watchdog = threading.Timer(timeout_s + 2.0, connection.cancel_safe)
            watchdog.start()
            try:
                # Always rolled back: nothing a query sets outlives it on this connection.
                with (
                    connection.transaction(force_rollback=True),
                    connection.cursor() as cursor,
                ):
                    cursor.execute(
                        "SELECT set_config('statement_timeout', %s, true), "
                        "set_config('search_path', %s, true)",
                        (f"{int(timeout_s * 1000)}ms", f'"{self.schema}"'),
                    )
                    rows, truncated = [], False
                    stream = cursor.stream(sql, params)
                    for row in stream:
                        if len(rows) == max_rows:
                            truncated = True
                            break
                        rows.append(row)
                    columns = [d.name for d in cursor.description or ()]
                    if truncated:
                        connection.cancel_safe()  # stop the server producing the rest
                        with contextlib.suppress(psycopg.Error):
                            stream.close()
            except psycopg.errors.QueryCanceled as e:
                raise QueryTimeout(
                    f"the query ran longer than {timeout_s:g} s and was cancelled"
                ) from e
            except psycopg.Error as e:
                if _is_infrastructure(e):
                    raise InfrastructureError(f"PostgreSQL failed: {e}") from e
                if getattr(e, "sqlstate", None) is None:
                    raise QueryError(f"{e} (only a query that returns rows may run)") from e
                raise QueryError(str(e).strip()) from e
            finally:
                watchdog.cancel()
        return QueryResult(columns, rows, truncated)

    def query(
        self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> QueryResult:
        """See `Reader.query`."""
        if "\x00" in sql:
            raise QueryError("the query contains a NUL character")
        return self._run(sql, None, max_rows, timeout_s)

    def list_tables(self) -> list[tuple[str, int]]:
        """See `Reader.list_tables`."""
        names = [r[0] for r in self._run(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
            "ORDER BY table_name", (self.schema,), 1000, 10.0
        ).rows]
        return [
            (n, self._run(f'SELECT COUNT(*) FROM "{n}"', None, 1, 10.0).rows[0][0]) for n in names
        ]

    def describe(self, table: str) -> str:
        """See `Reader.describe`."""
        columns = self._run(
            "SELECT a.attname, upper(format_type(a.atttypid, a.atttypmod)), NOT a.attnotnull, "
            "EXISTS (SELECT 1 FROM pg_constraint p WHERE p.conrelid = c.oid "
            "  AND p.contype = 'p' AND a.attnum = ANY (p.conkey)), "
            "(SELECT r.relname || '(' || ra.attname || ')' FROM pg_constraint f "
            "  JOIN pg_class r ON r.oid = f.confrelid "
            "  JOIN pg_attribute ra ON ra.attrelid = r.oid AND ra.attnum = f.confkey[1] "
            "  WHERE f.conrelid = c.oid AND f.contype = 'f' AND f.conkey[1] = a.attnum) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.oid "
            "WHERE n.nspname = %s AND c.relname = %s AND c.relkind = 'r' "
            "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            (self.schema, table), 1000, 10.0,
        ).rows
        if not columns:
            known = ", ".join(name for name, _ in self.list_tables())
            raise QueryError(f'relation "{table}" does not exist (tables: {known})')
        return _describe_lines(table, columns)

    def close(self) -> None:
        """Closes the connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class PostgresStore:
    """Episode databases as schemas (one per episode, dropped at its end) on a server.

    Every episode of one store recreates the schema under the same fresh name, so that a
    reader (or an MCP server) made once finds each new episode's tables.

    Args:
        dsn: A role that may create schemas in the database and create roles (on first use
            it creates `READER_ROLE`, the role the model's queries run as).
    """

    dialect = "postgres"

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.name = f"palaestra_sql_{uuid.uuid4().hex[:16]}"
        self.schema: str | None = None
        self._admin: Any = None
        self._scoring: PostgresReader | None = None

    def _connection(self) -> Any:
        psycopg = _psycopg()
        if self._admin is None or self._admin.closed or self._admin.broken:
            try:
                self._admin = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
                self._ensure_reader()
            except psycopg.Error as e:
                raise InfrastructureError(f"cannot connect to PostgreSQL at the DSN: {e}") from e
        return self._admin

    def _ensure_reader(self) -> None:
        psycopg = _psycopg()
        exists = self._admin.execute(
            "SELECT 1 FROM pg_roles WHERE rolname = %s", (READER_ROLE,)
        ).fetchone()
        if exists is not None:
            return
        try:
            self._admin.execute(
                f"CREATE ROLE {READER_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                f"NOINHERIT PASSWORD '{READER_PASSWORD}'"
            )
        except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
            return  # another store created it at the same moment
        self._admin.execute(f"ALTER ROLE {READER_ROLE} SET default_transaction_read_only = on")

    def create(self, database: Database) -> None:
        """Creates the episode's schema (dropping the previous episode's) with its rows."""
        psycopg = _psycopg()
        self.drop()
        schema = self.name
        connection = self._connection()
        try:
            with connection.transaction():
                # An episode's tables are disposable: no need to wait for the WAL flush.
                connection.execute("SET LOCAL synchronous_commit = off")
                connection.execute(f'CREATE SCHEMA "{schema}"')
                connection.execute(f"SET LOCAL search_path TO \"{schema}\"")
                for statement in create_statements(database, "postgres"):
                    connection.execute(statement)
                with connection.cursor() as cursor:
                    for table in database.tables:
                        names = ", ".join(c.name for c in table.columns)
                        with cursor.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
                            for row in database.rows[table.name]:
                                copy.write_row(row)
                connection.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {READER_ROLE}')
                connection.execute(
                    f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {READER_ROLE}'
                )
        except psycopg.Error as e:
            raise InfrastructureError(f"cannot create the episode's schema: {e}") from e
        self.schema = schema

    def reader(self) -> PostgresReader:
        """The model's reader."""
        return PostgresReader(reader_dsn(self.dsn), self.name)

    def scoring_reader(self) -> PostgresReader:
        """The scoring reader: a connection of its own (the model's never serves scoring)."""
        if self._scoring is None:
            self._scoring = self.reader()
        return self._scoring

    def location(self) -> str:
        """Where an MCP server finds the episode's database (the schema, the reader's DSN)."""
        return f"postgres:{self.name}:{reader_dsn(self.dsn)}"

    def drop(self) -> None:
        """Drops the episode's schema, if any."""
        if self.schema is None or self._admin is None or self._admin.closed:
            self.schema = None
            return
        psycopg = _psycopg()
        try:
            with self._admin.transaction():
                self._admin.execute("SET LOCAL synchronous_commit = off")
                self._admin.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        except psycopg.Error as e:
            raise InfrastructureError(f"cannot drop schema {self.schema}: {e}") from e
        finally:
            self.schema = None

    def close(self) -> None:
        """Drops the schema and closes the connections (a server gone leaves the schema)."""
        try:
            self.drop()
        except InfrastructureError:
            pass  # nothing more can be done from here; the next `palaestra db` run is clean
        finally:
            if self._scoring is not None:
                self._scoring.close()
                self._scoring = None
            if self._admin is not None:
                self._admin.close()
                self._admin = None


def reader_at(location: str) -> Reader:
    """The reader for a location string made by a store's ``location()``."""
    kind, _, rest = location.partition(":")
    if kind == "sqlite":
        return SQLiteReader(rest)
    if kind == "postgres":
        schema, _, dsn = rest.partition(":")
        return PostgresReader(dsn, schema)
    raise ValueError(f"unknown database location {location!r}; expected sqlite:... or postgres:...")
