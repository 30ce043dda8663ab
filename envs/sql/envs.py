"""Text-to-SQL: answer a question about a generated database with one SQL query.

The task:
    Each episode draws a fictional database from the seed (a shop, a school, an airline or a
    hospital; 3 tables at level 1 up to 12 at level 10, with keys, NULLs, duplicate names,
    dates and names with apostrophes) and a question made from a SQL template (filters,
    joins, grouping with HAVING, subqueries, anti-joins, window functions from level 7;
    some answers are empty). The gold query runs on the episode's database to give the gold
    rows. The database lives in SQLite (default) or on a PostgreSQL server
    (``backend="postgres"``, one schema per episode, dropped when the episode ends).

Observation:
    `SQLEnv`: the question and how to use the tools; then one tool message per call.
    `SQLQueryEnv`: the question and the schema (``CREATE TABLE`` statements) in one message.

Action:
    `SQLEnv`: tool calls (native ``tool_calls`` or Hermes ``<tool_call>{json}</tool_call>``):
    ``list_tables()``, ``describe(table)``, ``query(sql)`` (read-only, rows capped,
    time-limited, errors shown as the database reports them) and ``submit(sql)``, which ends
    the episode (other calls in the same turn are not run). A final answer in
    ``<answer>SQL</answer>`` or a fenced ```sql block counts as a submission too.
    `SQLQueryEnv`: the query in ``<answer>SQL</answer>`` or a fenced ```sql block.

Reward (``info["reward_parts"]``):
    ``outcome``: `CORRECT_REWARD` when the submitted query's rows equal the gold rows on a
    fresh read-only copy of the database (`palaestra.envs.sql.scoring`: a multiset of rows,
    a sequence when the question asks for an order, numbers within 1e-6), else 0. A query
    that fails or times out scores 0. ``tool``: 0 for a tool turn. ``invalid``:
    `INVALID_ACTION_PENALTY` for a turn with no tool call and no query, or whose every tool
    call is malformed.

Episode end:
    Terminated by the submission; truncated past the tool budget (or by `TurnLimit`). A
    database failure (server gone, file lost, MCP server crashed) truncates the episode with
    ``info["status"] = "error"`` and ``info["mask"] = True``, never a 0.

Arguments:
    level: 1-10: tables (3 to 12), rows, and which templates may be drawn.
    backend: ``"sqlite"`` or ``"postgres"``.
    dsn: The PostgreSQL DSN (else ``$PALAESTRA_POSTGRES_DSN``, else `palaestra db start`'s).
    domain: One domain only (``shop``, ``school``, ``airline``, ``hospital``), or None.
    templates: Template names to draw from (`questions.TEMPLATES`), or None for the level's.
    max_rows: Rows a ``query`` shows.
    timeout_s: Seconds a query may run.
    tools_via: ``"direct"`` (in-process) or ``"mcp"`` (the tools of an MCP server started as
        a stdio subprocess with the `mcp` SDK; ``submit`` is scored by the env).
    examples: Questions about your own SQLite databases instead of generated ones: a list of
        `loaders.SQLExample` (`loaders.load_examples` reads Spider and BIRD files), of rows,
        or a JSON/JSON Lines file of rows with ``question``, ``sql``, ``database``; each
        reset draws one by the seed (``level``, ``domain`` and ``templates`` then do nothing).
    max_tool_calls, max_calls_per_turn, tool_parser: as for `palaestra.tools.ToolEnv`.

Version history:
    v0: first version.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Env, Message, Observation, Step, user
from palaestra.envs.sql.backends import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    PostgresStore,
    QueryError,
    QueryTimeout,
    SQLiteStore,
    create_statements,
    resolve_dsn,
)
from palaestra.envs.sql.loaders import SQLExample, from_rows, load_examples
from palaestra.envs.sql.questions import TEMPLATES, Question, generate_question
from palaestra.envs.sql.schema import DOMAINS, Database, generate_database
from palaestra.envs.sql.scoring import compare_rows
from palaestra.envs.sql.tools import SQLTools
from palaestra.errors import InfrastructureError
from palaestra.parsers import ParsedAction
from palaestra.tools import Tool, ToolEnv, tool
from palaestra.verdict import Status, Verdict

CORRECT_REWARD = 1.0
SCORING_MAX_ROWS = 10_000
"""A submission returning more rows than this is wrong (every gold answer is far smaller)."""
GOLD_TIMEOUT_S = 30.0
SCORING_TIME_FACTOR = 2.0
"""A submission may run this many times the per-query time limit (a margin for a busy host)."""
BACKENDS = ("sqlite", "postgres")

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)
_FENCE = re.compile(r"```sql\s*\n?(.*?)```", re.S | re.I)


def extract_sql(text: str) -> str | None:
    """The query in a reply: the last ``<answer>`` or fenced ```sql block after any reasoning."""
    text = text.rsplit("</think>", 1)[-1]
    found = [m.group(1) for m in _ANSWER.finditer(text)] or [
        m.group(1) for m in _FENCE.finditer(text)
    ]
    sql = found[-1].strip().rstrip(";").strip() if found else ""
    return sql or None


def _examples(examples: Any) -> list[SQLExample]:
    """``examples=`` as a list of `SQLExample` (from a file path, rows, or examples)."""
    if examples is None:
        return []
    if isinstance(examples, (str, Path)):
        return load_examples(examples)
    items = list(examples)
    if all(isinstance(e, SQLExample) for e in items) and items:
        return items
    return from_rows(items)


class _SQLTask:
    """What both SQL envs share: arguments, the episode's database, the question, scoring."""

    def _configure(
        self,
        level: int,
        backend: str,
        dsn: str | None,
        domain: str | None,
        templates: list[str] | None,
        max_rows: int,
        timeout_s: float,
        examples: Any,
    ) -> None:
        if not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level must be an integer from 1 to 10, got {level!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if domain is not None and domain not in DOMAINS:
            raise ValueError(f"domain must be one of {sorted(DOMAINS)} or None, got {domain!r}")
        if templates is not None:
            unknown = sorted(set(templates) - set(TEMPLATES))
            if unknown or not templates:
                raise ValueError(
                    f"templates must be a non-empty list from {sorted(TEMPLATES)}; "
                    f"unknown: {unknown}"
                )
        if not isinstance(max_rows, int) or max_rows < 1:
            raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}")
        if not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
            raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
        self.level, self.backend, self.domain = level, backend, domain
        self.templates = list(templates) if templates is not None else None
        self.max_rows, self.timeout_s = max_rows, float(timeout_s)
        self.examples = _examples(examples)
        if self.examples and backend != "sqlite":
            raise ValueError("examples= are SQLite databases; use backend='sqlite'")
        self.dsn = resolve_dsn(dsn) if backend == "postgres" else None
        self.store: SQLiteStore | PostgresStore | None = None
        self.database: Database | None = None
        self.topic = ""
        self.question: Question | None = None
        self.gold: list[tuple[Any, ...]] = []

    def _store(self) -> SQLiteStore | PostgresStore:
        if self.store is None:
            self.store = SQLiteStore() if self.backend == "sqlite" else PostgresStore(self.dsn)
        return self.store

    def _new_episode(self, rng: Any) -> None:
        """Draws the database and question, creates the database, runs the gold query."""
        store = self._store()
        if self.examples:
            example = self.examples[int(rng.integers(len(self.examples)))]
            self.database, self.topic = None, example.name
            self.question = Question(example.question, example.sql, example.ordered, "dataset")
            store.copy_from(example.database)
        else:
            self.database = generate_database(rng, self.level, self.domain)
            self.topic = f"a {self.database.domain}"
            self.question = generate_question(rng, self.database, self.level, self.templates)
            store.create(self.database)
        try:
            gold = store.scoring_reader().query(
                self.question.sql, max_rows=SCORING_MAX_ROWS, timeout_s=GOLD_TIMEOUT_S
            )
        except QueryError as e:
            raise InfrastructureError(f"the gold query failed on {self.backend}: {e}") from e
        if gold.truncated:
            raise InfrastructureError(
                f"the gold query returns more than {SCORING_MAX_ROWS} rows, too many to score: "
                f"{self.question.sql}"
            )
        self.gold = gold.rows

    def _task_info(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "backend": self.backend,
            "domain": self.database.domain if self.database else self.topic,
            "template": self.question.template,
            "reference": self.question.sql,
        }

    def score(self, sql: str) -> Verdict:
        """Runs ``sql`` on the untouched database and compares its rows with the gold rows.

        SQLite scores on a copy of the file the model never opened; PostgreSQL on a
        connection of its own, in a read-only transaction that is rolled back.
        """
        common = {"reference": self.question.sql, "answer": sql, "verifier": "sql_execution"}
        try:
            result = self._store().scoring_reader().query(
                sql, max_rows=SCORING_MAX_ROWS, timeout_s=self.timeout_s * SCORING_TIME_FACTOR
            )
        except QueryTimeout as e:
            return Verdict(0.0, Status.TIMEOUT, reason=str(e), **common)
        except QueryError as e:
            return Verdict(0.0, Status.INCORRECT, reason=f"the query failed: {e}", **common)
        except InfrastructureError as e:
            return Verdict.error(str(e), verifier="sql_execution")
        if result.truncated:
            return Verdict(
                0.0, Status.INCORRECT,
                reason=f"the query returned more than {SCORING_MAX_ROWS} rows", **common,
            )
        problem = compare_rows(result.rows, self.gold, ordered=self.question.ordered)
        if problem is not None:
            return Verdict(0.0, Status.INCORRECT, reason=problem, **common)
        return Verdict(CORRECT_REWARD, Status.CORRECT, reason="the rows match", **common)

    def _end_episode(self, verdict: Verdict) -> Step:
        if self.store is not None:
            try:
                self.store.drop()
            except InfrastructureError as e:
                if not verdict.mask:
                    verdict = Verdict.error(str(e), verifier="sql_execution")
        return Env.finish(verdict, [user(f"Submitted. {verdict.reason}.")])

    def _close_store(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


def _order_note(question: Question) -> str:
    counts = "counts" if question.ordered else "does not count"
    return f" The order of the rows {counts}."


class SQLEnv(_SQLTask, ToolEnv):
    """Text-to-SQL with tools (list, describe, query, submit); see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(
        self,
        level: int = 3,
        backend: str = "sqlite",
        dsn: str | None = None,
        domain: str | None = None,
        templates: list[str] | None = None,
        max_rows: int = DEFAULT_MAX_ROWS,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        tools_via: str = "direct",
        examples: Any = None,
        max_tool_calls: int = 16,
        max_calls_per_turn: int = 4,
        tool_parser: str = "auto",
    ):
        if tools_via not in ("direct", "mcp"):
            raise ValueError(f"tools_via must be 'direct' or 'mcp', got {tools_via!r}")
        ToolEnv.__init__(
            self,
            max_tool_calls=max_tool_calls,
            max_calls_per_turn=max_calls_per_turn,
            tool_parser=tool_parser,
        )
        self._configure(level, backend, dsn, domain, templates, max_rows, timeout_s, examples)
        self.tools_via = tools_via
        self._mcp: Any = None
        self._tools: SQLTools | None = None

    # --- tools ------------------------------------------------------------------------

    def _call(self, name: str, **arguments: Any) -> str:
        # One reader per env: PostgreSQL keeps its connection between calls and episodes.
        if self._tools is None:
            self._tools = SQLTools(self._store().reader(), self.max_rows, self.timeout_s)
        return getattr(self._tools, name)(**arguments)

    def _mcp_servers(self) -> Any:
        if self._mcp is None:
            from palaestra.envs.sql.mcp_server import server_spec  # noqa: PLC0415
            from palaestra.mcp import MCPServers  # noqa: PLC0415 (needs the mcp SDK)

            spec = server_spec(
                self._store().location(), max_rows=self.max_rows, timeout_s=self.timeout_s
            )
            self._mcp = MCPServers([spec], call_timeout_s=self.timeout_s + 20.0)
        return self._mcp

    def _mcp_tools(self) -> list[Tool]:
        """The server's tools, schemas as it lists them, calls sent through the SDK's client.

        The SQL tools answer every mistake of the model with text, so a result the server
        flags as an error is the server failing: the episode is masked.
        """
        from palaestra.mcp import MCPToolError  # noqa: PLC0415

        servers = self._mcp_servers()

        def forward(name: str) -> Any:
            def run(**arguments: Any) -> str:
                try:
                    return servers.call(name, arguments)
                except MCPToolError as e:
                    raise InfrastructureError(f"the SQL MCP server failed in {name}: {e}") from e

            return run

        return [dataclasses.replace(t, fn=forward(t.name)) for t in servers.tools]

    def list_tables(self) -> str:
        """Lists the database's tables with their row counts."""
        return self._call("list_tables")

    def describe(self, table: str) -> str:
        """Describes a table's columns: type, key, references, nullability.

        Args:
            table: The table's name.
        """
        return self._call("describe", table=table)

    def query(self, sql: str) -> str:
        """Runs one read-only SQL query and shows its rows (capped; time-limited).

        Args:
            sql: One SELECT statement.
        """
        return self._call("query", sql=sql)

    def submit(self, sql: str) -> str:
        """Submits your final SQL query; its rows are scored against the answer.

        Args:
            sql: The query whose result rows answer the question.
        """
        raise RuntimeError("submit is scored by the env, not run as a tool")

    def available_tools(self) -> list[Tool]:
        """list_tables, describe, query and submit (the MCP server's, with ``tools_via="mcp"``)."""
        if self.tools_via == "mcp":
            return self._mcp_tools()
        return [
            tool(method, name=name)
            for name, method in (
                ("list_tables", self.list_tables),
                ("describe", self.describe),
                ("query", self.query),
                ("submit", self.submit),
            )
        ]

    # --- the episode --------------------------------------------------------------------

    def _reset_task(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        if options:
            raise ValueError(f"SQLEnv.reset takes no options, got {sorted(options)}")
        self._new_episode(self.np_random)
        if self.tools_via == "mcp":
            self._mcp_servers().start()  # reconnects a server that failed last episode
        engine = "SQLite" if self.backend == "sqlite" else "PostgreSQL"
        prompt = (
            f"You have a {engine} database about {self.topic}. "
            f"Question: {self.question.text}{_order_note(self.question)}\n\n"
            "Explore it with the tools list_tables(), describe(table) and query(sql) "
            f"(read-only; at most {self.max_rows} rows are shown), then call submit(sql) once "
            "with your final query."
        )
        return [user(prompt)], self._task_info()

    def _submission(self, parsed: ParsedAction) -> Step | None:
        """The step for a turn that calls submit, or None if it does not."""
        call = next((c for c in parsed.tool_calls if c.name == "submit"), None)
        if call is None:
            return None
        submit_tool = next(t for t in self.available_tools() if t.name == "submit")
        problem = submit_tool.check(call.arguments)
        if problem is not None:
            return self.invalid(problem)
        return self._end_episode(self.score(call.arguments["sql"]))

    def _step(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools":
            submitted = self._submission(parsed)
            if submitted is not None:
                return submitted
        return super()._step(action)

    async def _astep(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "tools" and any(c.name == "submit" for c in parsed.tool_calls):
            return await asyncio.to_thread(self._submission, parsed)
        return await super()._astep(action)

    def _answer(self, action: Message, parsed: ParsedAction) -> Step:
        sql = extract_sql(action.get("content") or "")
        if sql is None:
            return self.invalid(
                "no tool call and no query: call a tool, or submit(sql) with your final query"
            )
        return self._end_episode(self.score(sql))

    def oracle_action(self) -> str:
        """The gold query through the tools: first ``query``, then ``submit``."""
        name = "query" if self.budget.used == 0 else "submit"
        call = {"name": name, "arguments": {"sql": self.question.sql}}
        return f"<tool_call>{json.dumps(call)}</tool_call>"

    def render_text(self) -> str:
        """The question and the gold query."""
        return f"{self.question.text}\n  gold: {self.question.sql}"

    def close(self) -> None:
        """Stops the MCP server and deletes the episode's database; safe to call twice."""
        if self._mcp is not None:
            self._mcp.close()
            self._mcp = None
        if self._tools is not None:
            self._tools.reader.close()
            self._tools = None
        self._close_store()
        super().close()


class SQLQueryEnv(_SQLTask, Env):
    """Single-turn text-to-SQL: schema and question in, one query out; see the module docstring."""

    reply_tag = "answer"

    def __init__(
        self,
        level: int = 3,
        backend: str = "sqlite",
        dsn: str | None = None,
        domain: str | None = None,
        templates: list[str] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        examples: Any = None,
    ):
        self._configure(
            level, backend, dsn, domain, templates, DEFAULT_MAX_ROWS, timeout_s, examples
        )

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        if options:
            raise ValueError(f"SQLQueryEnv.reset takes no options, got {sorted(options)}")
        self._new_episode(self.np_random)
        engine = "SQLite" if self.backend == "sqlite" else "PostgreSQL"
        if self.database is None:
            schema = self.store.schema_text()
        else:
            schema = ";\n".join(create_statements(self.database, self.backend)) + ";"
        prompt = (
            f"A {engine} database about {self.topic} has these tables:\n\n"
            f"{schema}\n\nQuestion: {self.question.text}{_order_note(self.question)}\n"
            "Write the query inside <answer></answer> tags."
        )
        return [user(prompt)], self._task_info()

    def _step(self, action: Message) -> Step:
        sql = extract_sql(action.get("content") or "")
        if sql is None:
            verdict = Verdict(
                0.0, Status.NO_ANSWER, reason="no query in <answer></answer> or a ```sql block",
                reference=self.question.sql, verifier="sql_execution",
            )
            return self._end_episode(verdict)
        return self._end_episode(self.score(sql))

    def oracle_action(self) -> str:
        """The gold query."""
        return f"<answer>{self.question.sql}</answer>"

    def render_text(self) -> str:
        """The question and the gold query."""
        return f"{self.question.text}\n  gold: {self.question.sql}"

    def close(self) -> None:
        """Deletes the episode's database; safe to call twice."""
        self._close_store()
        super().close()
