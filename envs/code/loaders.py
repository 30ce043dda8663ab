"""Loaders for the code datasets users bring: JSON Lines files and Hugging Face `datasets` rows.

    from palaestra.envs.code.loaders import load_jsonl, from_rows

    problems = load_jsonl("apps_test.jsonl")                       # format detected per row
    problems = load_jsonl("code_contests.jsonl", format="code_contests", max_hidden=30)
    problems = from_rows(datasets.load_dataset(...)["test"], format="livecodebench")

    env = palaestra.make("CodeSynthesis-v1", problems="apps_test.jsonl")

Formats (``format=``; ``"auto"`` tells them apart by their fields):

* ``"apps"`` / ``"taco"``: ``question``, ``input_output`` (JSON text: ``inputs``, ``outputs``
  and, for function problems, ``fn_name``), ``solutions`` (JSON text: a list of programs),
  ``starter_code``, ``difficulty`` (and for TACO ``time_limit``). Function outputs are
  stored wrapped in a one-element list, which is unwrapped. There is no public/hidden split:
  the first two tests become public (and the rest hidden), keeping at least one hidden test.
* ``"code_contests"`` (DeepMind CodeContests): ``description``, ``public_tests``,
  ``private_tests`` and ``generated_tests`` (``{"input": [...], "output": [...]}``),
  ``solutions`` and ``incorrect_solutions`` (``{"language": [...], "solution": [...]}``;
  Python 3 is language 3: the first correct one is the reference, incorrect ones are wrong
  solutions), ``time_limit`` (``{"seconds", "nanos"}``), ``cf_rating``. Output is compared
  token by token.
* ``"livecodebench"`` (``code_generation_lite``): ``question_content``, ``starter_code``,
  ``public_test_cases`` and ``private_test_cases`` (JSON text, or for private tests JSON
  compressed as base64 of zlib of a pickled string), ``metadata`` (``func_name``),
  ``difficulty``. LeetCode problems (``testtype: functional``) call
  ``Solution().<func_name>(*args)`` with each input line a JSON argument, after a prelude of
  the imports LeetCode provides.
* ``"palaestra"``: `CodeProblem.to_json` rows (what `palaestra.datasets` writes).

Compressed LiveCodeBench tests are unpickled by an unpickler that refuses every global, so
a crafted file cannot run code: only plain strings, numbers and containers come out.
Rows without usable tests raise `ValueError` (with the row's number), or are skipped with a
warning when ``skip_invalid=True``.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import pickle
import re
import warnings
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from palaestra.envs.code.problem import CodeProblem, OutputCheck, Test

FORMATS = ("auto", "palaestra", "apps", "taco", "code_contests", "livecodebench")
PUBLIC_FROM_UNSPLIT = 2
"""How many tests of an unsplit dataset (APPS, TACO) are shown as public tests."""
DEFAULT_TIME_LIMIT_S = 4.0
PYTHON3 = 3
"""CodeContests' language code of Python 3."""

LEETCODE_PRELUDE = (
    "from typing import *\n"
    "from collections import *\n"
    "from functools import *\n"
    "from itertools import *\n"
    "from heapq import *\n"
    "from bisect import *\n"
    "from math import *\n"
    "import math, heapq, bisect, itertools, collections, functools, string, re\n"
)

_APPS_LEVELS = {"introductory": 1, "interview": 2, "competition": 3}
_TACO_LEVELS = {"EASY": 1, "MEDIUM": 2, "MEDIUM_HARD": 2, "HARD": 3, "VERY_HARD": 3}
_LCB_LEVELS = {"easy": 1, "medium": 2, "hard": 3}


class _NoGlobalsUnpickler(pickle.Unpickler):
    """Refuses every class and function: only built-in plain values can be unpickled."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a dataset file")


def _json_field(value: Any, what: str) -> Any:
    if isinstance(value, (str, bytes)):
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except json.JSONDecodeError as e:
            raise ValueError(f"{what} is not valid JSON: {e}") from None
    return value


def decode_lcb_tests(value: Any) -> list[dict[str, Any]]:
    """LiveCodeBench test cases: plain JSON text, or base64(zlib(pickle(JSON text)))."""
    if not isinstance(value, str):
        return list(value or [])
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        pass
    try:
        raw = zlib.decompress(base64.b64decode(value.encode("ascii")))
        text = _NoGlobalsUnpickler(io.BytesIO(raw)).load()
    except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as e:
        raise ValueError(f"private_test_cases is neither JSON nor compressed JSON: {e}") from None
    if isinstance(text, bytes):
        text = text.decode()
    if not isinstance(text, str):
        raise ValueError(f"compressed test cases hold a {type(text).__name__}, not JSON text")
    return json.loads(text)


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(map(str, value)) + "\n"
    return str(value)


def _split(tests: list[Test]) -> tuple[list[Test], list[Test]]:
    if len(tests) <= 1:
        return [], tests
    shown = min(PUBLIC_FROM_UNSPLIT, len(tests) - 1)
    return tests[:shown], tests[shown:]


def _call(entry: str, args: list[Any], method: bool) -> str:
    target = f"Solution().{entry}" if method else entry
    return f"{target}({', '.join(repr(a) for a in args)})"


def _seconds(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
        return seconds or None
    if isinstance(value, (int, float)):
        return float(value) or None
    match = re.search(r"\d+(?:\.\d+)?", str(value))
    return float(match.group()) if match else None


def _time_limit(value: Any) -> float:
    seconds = _seconds(value)
    return min(60.0, max(1.0, seconds)) if seconds else DEFAULT_TIME_LIMIT_S


def from_apps(row: Mapping[str, Any], index: int = 0, flavour: str = "apps") -> CodeProblem:
    """An APPS or TACO row as a `CodeProblem`."""
    io_spec = _json_field(row.get("input_output"), "input_output") or {}
    inputs, outputs = io_spec.get("inputs") or [], io_spec.get("outputs") or []
    if not inputs or len(inputs) != len(outputs):
        raise ValueError(
            f"row {index}: input_output has no tests (or inputs and outputs differ in number)"
        )
    entry = io_spec.get("fn_name")
    starter = row.get("starter_code") or ""
    if entry:
        method = "class Solution" in starter
        tests = []
        for args, expected in zip(inputs, outputs, strict=True):
            if not isinstance(args, list):
                args = [args]
            if isinstance(expected, list) and len(expected) == 1:
                expected = expected[0]
            tests.append(Test(_call(entry, args, method), expected))
        style = "function"
    else:
        tests = [Test(_text(i), _text(o)) for i, o in zip(inputs, outputs, strict=True)]
        style = "stdio"
    public, hidden = _split(tests)
    solutions = _json_field(row.get("solutions"), "solutions") or []
    levels = _TACO_LEVELS if flavour == "taco" else _APPS_LEVELS
    ident = row.get("problem_id", row.get("id", index))
    return CodeProblem(
        id=f"{flavour}/{ident}",
        title=str(row.get("name") or ""),
        statement=str(row.get("question") or "").strip() or "(no statement)",
        style=style,
        entry=entry if entry else None,
        starter=starter,
        public=public,
        hidden=hidden,
        reference=solutions[0] if solutions else None,
        time_limit_s=_time_limit(row.get("time_limit")),
        check=OutputCheck("tokens") if style == "stdio" else OutputCheck(),
        prelude=LEETCODE_PRELUDE if entry and "class Solution" in starter else "",
        category=str(row.get("source") or ""),
        level=levels.get(str(row.get("difficulty")), 2),
        source=flavour,
    )


def _pairs(block: Any) -> list[Test]:
    if not block:
        return []
    return [
        Test(_text(i), _text(o))
        for i, o in zip(block.get("input") or [], block.get("output") or [], strict=False)
    ]


def _python3(block: Any) -> list[str]:
    if not block:
        return []
    return [
        s
        for lang, s in zip(block.get("language") or [], block.get("solution") or [], strict=False)
        if lang == PYTHON3
    ]


def from_code_contests(row: Mapping[str, Any], index: int = 0) -> CodeProblem:
    """A DeepMind CodeContests row as a `CodeProblem`."""
    public = _pairs(row.get("public_tests"))
    hidden = _pairs(row.get("private_tests")) + _pairs(row.get("generated_tests"))
    if not hidden:
        hidden = list(public)
    if not hidden:
        raise ValueError(f"row {index}: no public, private or generated tests")
    solutions = _python3(row.get("solutions"))
    rating = row.get("cf_rating") or 0
    level = 2 if not rating else 1 if rating < 1400 else 2 if rating < 2000 else 3
    return CodeProblem(
        id=f"code_contests/{row.get('name') or index}",
        title=str(row.get("name") or ""),
        statement=str(row.get("description") or "").strip() or "(no statement)",
        style="stdio",
        public=public,
        hidden=hidden,
        reference=solutions[0] if solutions else None,
        wrong=tuple(_python3(row.get("incorrect_solutions"))[:3]),
        time_limit_s=_time_limit(row.get("time_limit")),
        check=OutputCheck("tokens"),
        level=level,
        source="code_contests",
    )


def from_livecodebench(row: Mapping[str, Any], index: int = 0) -> CodeProblem:
    """A LiveCodeBench ``code_generation_lite`` row as a `CodeProblem`."""
    public_raw = decode_lcb_tests(row.get("public_test_cases") or "[]")
    private_raw = decode_lcb_tests(row.get("private_test_cases") or "[]")
    metadata = _json_field(row.get("metadata"), "metadata") or {}
    functional = any(t.get("testtype") == "functional" for t in public_raw + private_raw)
    entry = metadata.get("func_name")
    if functional and not entry:
        raise ValueError(f"row {index}: functional tests need metadata.func_name")
    starter = row.get("starter_code") or ""

    def convert(case: Mapping[str, Any]) -> Test:
        if functional:
            args = [json.loads(line) for line in str(case["input"]).split("\n") if line.strip()]
            return Test(_call(entry, args, "class Solution" in starter), json.loads(case["output"]))
        return Test(str(case["input"]), str(case["output"]))

    try:
        public = [convert(c) for c in public_raw]
        hidden = [convert(c) for c in private_raw]
    except (KeyError, json.JSONDecodeError) as e:
        raise ValueError(
            f"row {index}: a test case is malformed ({type(e).__name__}: {e})"
        ) from None
    if not hidden:
        hidden = list(public)
    if not hidden:
        raise ValueError(f"row {index}: no test cases")
    return CodeProblem(
        id=f"livecodebench/{row.get('question_id') or index}",
        title=str(row.get("question_title") or ""),
        statement=str(row.get("question_content") or "").strip() or "(no statement)",
        style="function" if functional else "stdio",
        entry=entry if functional else None,
        starter=starter,
        public=public,
        hidden=hidden,
        time_limit_s=DEFAULT_TIME_LIMIT_S,
        check=OutputCheck("tokens") if not functional else OutputCheck(),
        prelude=LEETCODE_PRELUDE if functional else "",
        category=str(row.get("platform") or ""),
        level=_LCB_LEVELS.get(str(row.get("difficulty")), 2),
        source="livecodebench",
    )


def detect_format(row: Mapping[str, Any]) -> str:
    """The format of one row, from its fields.

    Raises:
        ValueError: The fields match no known format.
    """
    keys = set(row)
    if {"statement", "style", "hidden"} <= keys:
        return "palaestra"
    if "public_tests" in keys and "description" in keys:
        return "code_contests"
    if "question_content" in keys or "public_test_cases" in keys:
        return "livecodebench"
    if "input_output" in keys and "question" in keys:
        return "taco" if keys & {"skill_types", "raw_tags", "time_limit", "picture_num"} else "apps"
    raise ValueError(
        f"cannot tell the format of a row with fields {sorted(keys)[:12]}; pass format="
    )


def convert_row(
    row: Mapping[str, Any], format: str = "auto", *, index: int = 0, max_hidden: int | None = None
) -> CodeProblem:
    """One row as a `CodeProblem`.

    Raises:
        ValueError: Unknown format, or the row has no usable tests.
    """
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {list(FORMATS)}")
    if not isinstance(row, Mapping):
        raise ValueError(f"row {index} is a {type(row).__name__}, not an object")
    kind = detect_format(row) if format == "auto" else format
    if kind == "palaestra":
        problem = CodeProblem.from_json(row)
    elif kind in ("apps", "taco"):
        problem = from_apps(row, index, kind)
    elif kind == "code_contests":
        problem = from_code_contests(row, index)
    else:
        problem = from_livecodebench(row, index)
    if max_hidden is not None and len(problem.hidden) > max_hidden:
        problem = dataclasses.replace(problem, hidden=problem.hidden[:max_hidden])
    return problem


def from_rows(
    rows: Iterable[Mapping[str, Any]],
    format: str = "auto",
    *,
    max_hidden: int | None = None,
    skip_invalid: bool = False,
) -> list[CodeProblem]:
    """Rows (dicts, or a Hugging Face `datasets.Dataset`, which iterates as dicts) as problems.

    Args:
        rows: The rows.
        format: One of `FORMATS`.
        max_hidden: Keep at most this many hidden tests per problem.
        skip_invalid: Skip rows without usable tests (with a warning) instead of raising.

    Raises:
        ValueError: A row cannot be converted (and ``skip_invalid`` is False).
    """
    if max_hidden is not None and (
        isinstance(max_hidden, bool) or not isinstance(max_hidden, int) or max_hidden < 1
    ):
        raise ValueError(f"max_hidden must be a positive integer or None, got {max_hidden!r}")
    problems, skipped = [], []
    for index, row in enumerate(rows):
        try:
            problems.append(convert_row(row, format, index=index, max_hidden=max_hidden))
        except (ValueError, TypeError) as e:
            if not skip_invalid:
                raise ValueError(f"{e} (pass skip_invalid=True to skip such rows)") from None
            skipped.append(str(e))
    if skipped:
        warnings.warn(
            f"skipped {len(skipped)} rows without usable tests; first: {skipped[0]}", stacklevel=2
        )
    return problems


def load_jsonl(
    path: str | Path,
    format: str = "auto",
    *,
    max_hidden: int | None = None,
    skip_invalid: bool = False,
) -> list[CodeProblem]:
    """Problems from a JSON Lines file, one row per line (see `from_rows`).

    Raises:
        FileNotFoundError: No such file.
        ValueError: A line is not JSON, or a row cannot be converted.
    """
    path = Path(path)
    rows = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{number} is not valid JSON: {e}") from None
    return from_rows(rows, format, max_hidden=max_hidden, skip_invalid=skip_invalid)
