"""A run folder as the viewer reads it: its config, its metrics and an index of its episodes.

``episodes.jsonl`` can hold hundreds of thousands of episodes of many kilobytes each, so it
is never loaded whole: `EpisodeIndex` scans it once (and then only what was appended since)
and keeps, per line, its byte offset and length and the few fields the filters need, as
numpy arrays. A filtered page is an array mask plus one read per row shown; a text search
reads the candidate lines until the page is full.

Whatever is wrong with a folder (a missing file, a line cut off by a run that is still
writing or was killed, an episode too large to show whole) becomes a note a person reads on
the page, never an exception, as long as the folder holds at least one of the run's files.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import threading
from pathlib import Path
from typing import Any

import numpy as np

LARGE_EPISODE_BYTES = 256 * 1024
"""An episode line longer than this is shown cut (`SHOWN_TOKENS`, `SHOWN_CHARS`), with a note."""
SHOWN_TOKENS = 20_000
"""How many tokens of a large episode the page shows."""
SHOWN_CHARS = 20_000
"""How many characters of each message of a large episode the page shows."""

RUN_FILES = ("config.json", "metrics.jsonl", "episodes.jsonl")

_BLOCK = 1024
"""How many candidate lines a text search reads at once (and rejects at once without a hit)."""
_BLOCK_BYTES = 32 * 2**20
"""The most bytes read at once for a block of candidates."""

# The trainer names its groups "{step index}.{round}.{task}:{seed}", the step index counting
# from 0 while metrics.jsonl counts RL steps from 1. Records carry their own "step" now; the
# group id gives it for files written before they did.
_GROUP_STEP = re.compile(r"^(\d+)\.\d+\.\d+:")


@dataclasses.dataclass(frozen=True)
class Filters:
    """What the episode list shows; None (or "") lets everything through.

    Attributes:
        env: Only this env id.
        step_min: Only steps at or after this one.
        step_max: Only steps at or before this one.
        status: Only this status (``ok``, ``error``, ``timeout``), or ``masked``.
        success: Only successes (True) or failures (False; an unfinished episode is neither).
        reward_min: Only returns at or above this.
        reward_max: Only returns at or below this.
        text: Only episodes whose messages contain this text (case-insensitive).
    """

    env: str | None = None
    step_min: int | None = None
    step_max: int | None = None
    status: str | None = None
    success: bool | None = None
    reward_min: float | None = None
    reward_max: float | None = None
    text: str = ""

    @classmethod
    def from_query(cls, query: dict[str, str]) -> Filters:
        """Reads filters from URL query parameters (empty values are ignored).

        Raises:
            ValueError: An unknown parameter or a value of the wrong type, named.
        """
        readers = {
            "env": str,
            "step_min": int,
            "step_max": int,
            "status": str,
            "success": _read_bool,
            "reward_min": _read_float,
            "reward_max": _read_float,
            "text": str,
        }
        values: dict[str, Any] = {}
        for name, raw in query.items():
            if name not in readers:
                raise ValueError(f"unknown filter {name!r}; the filters are {', '.join(readers)}")
            if raw == "":
                continue
            try:
                values[name] = readers[name](raw)
            except ValueError:
                raise ValueError(
                    f"filter {name}={raw!r} is not a valid {readers[name].__name__.lstrip('_')}"
                ) from None
        return cls(**values)


def _read_bool(raw: str) -> bool:
    if raw.lower() in ("true", "1", "yes"):
        return True
    if raw.lower() in ("false", "0", "no"):
        return False
    raise ValueError(raw)


_read_bool.__name__ = "boolean (true or false)"


def _read_float(raw: str) -> float:
    value = float(raw)
    if math.isnan(value):
        raise ValueError(raw)
    return value


_read_float.__name__ = "number"


@dataclasses.dataclass
class Page:
    """One page of the filtered episode list.

    Attributes:
        rows: The episodes shown (`EpisodeIndex.row` dicts).
        total: How many episodes match, or how many were found before the page was full
            when ``exact`` is False (a text search stops reading once it has the page).
        exact: Whether ``total`` counts every match.
    """

    rows: list[dict[str, Any]]
    total: int
    exact: bool


class EpisodeIndex:
    """The lines of one ``episodes.jsonl``: offsets and filter fields, grown as the file grows.

    Args:
        path: The file (it need not exist yet).
    """

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.notes: list[str] = []
        self._scanned = 0  # bytes read into the index: always the end of a complete line
        self._lines = 0
        self._fields: dict[str, list[Any]] = {name: [] for name in _FIELDS}
        self._arrays: dict[str, np.ndarray] = {}
        self.envs: list[str] = []
        self.statuses: list[str] = []
        self._tail_note: str | None = None

    def __len__(self) -> int:
        return len(self._fields["offset"])

    def refresh(self) -> None:
        """Indexes the lines appended since the last call (all of them the first time).

        A file that shrank was replaced (``--overwrite``): it is indexed again from the start.
        A last line without its newline is left for a later call, with a note.
        """
        with self._lock:
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                return
            if size < self._scanned:
                self._reset()
            if size == self._scanned:
                return
            with open(self.path, "rb") as handle:
                handle.seek(self._scanned)
                data = handle.read(size - self._scanned)
            self._index(data)
            self._arrays = {}

    def _index(self, data: bytes) -> None:
        start = 0
        self._tail_note = None
        while start < len(data):
            end = data.find(b"\n", start)
            if end < 0:
                self._tail_note = (
                    f"episodes.jsonl ends in an incomplete line ({len(data) - start:,} bytes "
                    "without a newline): the run is still writing it or was cut off; "
                    "it is left out"
                )
                break
            self._lines += 1
            line = data[start:end]
            if line.strip():
                self._add(self._scanned + start, line)
            start = end + 1
        self._scanned += start

    def _add(self, offset: int, line: bytes) -> None:
        try:
            record, sampled = _parse_without_tokens(line)
            if not isinstance(record, dict):
                raise ValueError("not an object")
            row = _filter_fields(record, sampled)
        except (ValueError, TypeError) as e:
            self.notes.append(f"episodes.jsonl line {self._lines} is not an episode ({e}); skipped")
            return
        env = row.pop("env")
        status = row.pop("status")
        if env not in self.envs:
            self.envs.append(env)
        if status not in self.statuses:
            self.statuses.append(status)
        fields = self._fields
        fields["offset"].append(offset)
        fields["length"].append(len(line))
        fields["line"].append(self._lines)
        fields["env"].append(self.envs.index(env))
        fields["status"].append(self.statuses.index(status))
        for name, value in row.items():
            fields[name].append(value)

    def all_notes(self) -> list[str]:
        """The notes about the file, the incomplete last line's included."""
        return self.notes + ([self._tail_note] if self._tail_note else [])

    def _array(self, name: str) -> np.ndarray:
        if name not in self._arrays:
            self._arrays[name] = np.asarray(self._fields[name], dtype=_FIELDS[name])
        return self._arrays[name]

    def matching(self, filters: Filters) -> np.ndarray:
        """The positions of the episodes that pass every filter but the text search."""
        self.refresh()
        with self._lock:
            keep = np.ones(len(self), dtype=bool)
            if filters.env is not None:
                keep &= self._array("env") == _code(self.envs, filters.env)
            step = self._array("step")  # -1, an unknown step, passes no step filter
            if filters.step_min is not None:
                keep &= (step >= filters.step_min) & (step >= 0)
            if filters.step_max is not None:
                keep &= (step <= filters.step_max) & (step >= 0)
            if filters.status == "masked":
                keep &= self._array("mask")
            elif filters.status is not None:
                keep &= self._array("status") == _code(self.statuses, filters.status)
            if filters.success is not None:
                keep &= self._array("success") == int(filters.success)
            reward = self._array("reward")
            if filters.reward_min is not None:
                keep &= reward >= filters.reward_min
            if filters.reward_max is not None:
                keep &= reward <= filters.reward_max
            return np.flatnonzero(keep)

    def page(self, filters: Filters, offset: int = 0, limit: int = 50) -> Page:
        """The ``limit`` matching episodes after the first ``offset``, in file order.

        Raises:
            ValueError: A negative offset or a limit outside 1..1000.
        """
        if offset < 0 or not 1 <= limit <= 1000:
            raise ValueError(f"offset must be >= 0 and limit in 1..1000, got {offset}, {limit}")
        candidates = self.matching(filters)
        if not filters.text:
            chosen = candidates[offset : offset + limit]
            return Page([self.row(int(i)) for i in chosen], int(len(candidates)), True)
        needle = filters.text.casefold()
        # Plain ASCII without JSON escapes appears in the raw line as typed: a line that lacks
        # it is rejected without being parsed.
        raw = needle.encode() if needle.isascii() and needle.isprintable() else None
        if raw is not None and (b'"' in raw or b"\\" in raw):
            raw = None
        found: list[int] = []
        with open(self.path, "rb") as handle:
            for block in np.array_split(candidates, max(1, len(candidates) // _BLOCK)):
                if len(found) > offset + limit:
                    break
                if not len(block):
                    continue
                if raw is not None:
                    together = self._read_block(handle, block)
                    if together is not None and raw not in together.lower():
                        continue  # one read rejects a thousand lines
                for position in block.tolist():
                    if len(found) > offset + limit:
                        break
                    line = self._read(handle, position)
                    if (raw is None or raw in line.lower()) and needle in searchable_text(line):
                        found.append(position)
        exact = len(found) <= offset + limit
        return Page([self.row(i) for i in found[offset : offset + limit]], len(found), exact)

    def _read_block(self, handle: Any, block: np.ndarray) -> bytes | None:
        """The bytes from the first line of ``block`` to the end of its last.

        None where the lines lie too far apart (a filter kept few of them): they are then
        read one by one.
        """
        start = self._fields["offset"][int(block[0])]
        last = int(block[-1])
        size = self._fields["offset"][last] + self._fields["length"][last] - start
        if size > _BLOCK_BYTES:
            return None
        handle.seek(start)
        return handle.read(size)

    def _read(self, handle: Any, position: int) -> bytes:
        handle.seek(self._fields["offset"][position])
        return handle.read(self._fields["length"][position])

    def read(self, position: int) -> bytes:
        """The raw line of the episode at ``position`` (a position in the index).

        Raises:
            IndexError: No such episode.
        """
        self.refresh()
        if not 0 <= position < len(self):
            raise IndexError(f"no episode {position}; the run has {len(self)}")
        with open(self.path, "rb") as handle:
            return self._read(handle, position)

    def row(self, position: int) -> dict[str, Any]:
        """What the list shows of one episode."""
        fields = self._fields
        success = fields["success"][position]
        step = fields["step"][position]
        return {
            "index": position,
            "line": fields["line"][position],
            "env_id": self.envs[fields["env"][position]],
            "step": None if step < 0 else step,
            "status": self.statuses[fields["status"][position]],
            "mask": fields["mask"][position],
            "success": None if success < 0 else bool(success),
            "reward": fields["reward"][position],
            "turns": fields["turns"][position],
            "sampled_tokens": fields["sampled_tokens"][position],
            "bytes": fields["length"][position],
        }


def _code(names: list[str], name: str) -> int:
    """The position of ``name`` in ``names``, or -1 (which matches nothing)."""
    return names.index(name) if name in names else -1


_FIELDS: dict[str, Any] = {
    "offset": np.int64,
    "length": np.int64,
    "line": np.int64,
    "env": np.int32,
    "status": np.int32,
    "step": np.int64,  # -1: unknown
    "mask": bool,
    "success": np.int8,  # -1: the episode did not end
    "reward": np.float64,
    "turns": np.int32,
    "sampled_tokens": np.int64,
}


# The token arrays are most of a line and none of what the filters need: they are cut out
# before parsing. They hold numbers only, so no "]" ends one early, and a quoted key followed
# by a colon cannot sit inside a JSON string (its quotes would be escaped there).
_TOKEN_ARRAY = re.compile(rb'"(prompt_ids|completion_ids|loss_mask|logprobs)"\s*:\s*(\[[^\]]*\])')
_ZEROS_AND_ONES = re.compile(rb"\[[01,\s]*\]")


def _parse_without_tokens(line: bytes) -> tuple[Any, int]:
    """One line parsed without its token arrays, and the number of 1s of its loss mask."""
    sampled = 0

    def cut(match: re.Match[bytes]) -> bytes:
        nonlocal sampled
        if match.group(1) == b"loss_mask":
            values = match.group(2)
            fast = _ZEROS_AND_ONES.fullmatch(values)
            sampled = values.count(b"1") if fast else int(sum(json.loads(values)))
        return b'"' + match.group(1) + b'": []'

    return json.loads(_TOKEN_ARRAY.sub(cut, line)), sampled


def _filter_fields(record: dict[str, Any], sampled: int) -> dict[str, Any]:
    """The fields the list filters on, from one episode record (``sampled``: mask 1s)."""
    rewards = record.get("turn_rewards") or []
    success = record.get("success")
    return {
        "env": str(record.get("env_id", "?")),
        "status": str(record.get("status", "ok")),
        "step": episode_step(record),
        "mask": bool(record.get("mask", False)),
        "success": -1 if success is None else int(bool(success)),
        "reward": float(sum(float(r) for r in rewards)),
        "turns": len(record.get("turn_spans") or rewards),
        "sampled_tokens": sampled,
    }


def episode_step(record: dict[str, Any]) -> int:
    """The RL step an episode was trained at (as in metrics.jsonl), or -1 if unknown."""
    step = record.get("step")
    if isinstance(step, int) and not isinstance(step, bool):
        return step
    # Records written before episodes kept their step: the trainer's group id holds it.
    match = _GROUP_STEP.match(str(record.get("group_id", "")))
    return int(match.group(1)) + 1 if match else -1


def searchable_text(line: bytes) -> str:
    """The messages' text of one raw line, case-folded."""
    try:
        record = json.loads(line)
    except ValueError:
        return ""
    return "\n".join(_message_text(m) for m in record.get("messages") or []).casefold()


def _message_text(message: Any) -> str:
    if not isinstance(message, dict):
        return str(message)
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    calls = message.get("tool_calls")
    return text + ("\n" + json.dumps(calls, ensure_ascii=False) if calls else "")


class RunFolder:
    """One run's folder: ``config.json``, ``metrics.jsonl`` and ``episodes.jsonl``.

    Args:
        path: The folder ``palaestra train`` wrote (``--output-dir``).

    Raises:
        ValueError: The path is not a folder, or holds none of the run's files.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_dir():
            raise ValueError(f"{str(path)!r} is not a folder; pass a run's --output-dir")
        if not any((self.path / name).exists() for name in RUN_FILES):
            raise ValueError(
                f"{str(path)!r} holds none of {', '.join(RUN_FILES)}: "
                "is it a run folder (palaestra train --output-dir)?"
            )
        self.name = self.path.name
        self.episodes = EpisodeIndex(self.path / "episodes.jsonl")
        self._tokenizer: Any = None
        self._tokenizer_note: str | None = None

    def config(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The run's config and notes about it (missing, unreadable)."""
        path = self.path / "config.json"
        if not path.exists():
            return None, ["config.json is missing: the run's settings are unknown"]
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            return None, [f"config.json is not valid JSON ({e})"]
        if not isinstance(config, dict):
            return None, ["config.json does not hold an object"]
        return config, []

    def metrics(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The records of ``metrics.jsonl`` and notes about the lines left out."""
        path = self.path / "metrics.jsonl"
        if not path.exists():
            return [], [
                "metrics.jsonl is missing: no plots (the run has not finished a step yet, "
                "or its metrics were not kept)"
            ]
        records: list[dict[str, Any]] = []
        notes: list[str] = []
        data = path.read_bytes()
        lines = data.split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                where = "its last line is incomplete" if number == len(lines) else "a line"
                notes.append(
                    f"metrics.jsonl line {number} is not valid JSON ({where}: the run is "
                    "still writing or was cut off); it is left out"
                )
                continue
            if isinstance(record, dict):
                records.append({k: v for k, v in record.items() if _is_plain(v)})
            else:
                notes.append(f"metrics.jsonl line {number} is not a record; it is left out")
        return records, notes

    def summary(self) -> dict[str, Any]:
        """Everything the runs page shows: name, config, metrics, notes, list choices."""
        config, config_notes = self.config()
        metrics, metric_notes = self.metrics()
        self.episodes.refresh()
        notes = config_notes + metric_notes
        if not self.episodes.path.exists():
            notes.append(
                "episodes.jsonl is missing: no episodes to list (save_episodes was off, "
                "or no RL step has finished yet)"
            )
        notes += self.episodes.all_notes()
        return {
            "name": self.name,
            "path": str(self.path),
            "config": config,
            "metrics": metrics,
            "notes": notes,
            "episodes": len(self.episodes),
            "envs": list(self.episodes.envs),
            "statuses": list(self.episodes.statuses),
        }

    def episode(self, position: int) -> dict[str, Any]:
        """One episode as the episode page shows it (cut, with a note, when very large).

        Raises:
            IndexError: No such episode.
        """
        line = self.episodes.read(position)
        row = self.episodes.row(position)
        record = json.loads(line)
        notes: list[str] = []
        large = len(line) > LARGE_EPISODE_BYTES
        if large:
            notes.append(
                f"This episode is {len(line) / 2**20:.1f} MB: the page shows the first "
                f"{SHOWN_TOKENS:,} tokens and the first {SHOWN_CHARS:,} characters of each "
                "message; the raw link has all of it."
            )
        messages = [_shown_message(m, large) for m in record.get("messages") or []]
        tokens, token_note = self._tokens(record, SHOWN_TOKENS if large else None)
        if token_note:
            notes.append(token_note)
        if record.get("mask"):
            notes.insert(0, _mask_reason(record))
        verdict = _shown_verdict(record.get("verdict"), large)
        keep = (
            "env_id env_kwargs seed group_id sample_index turn_spans turn_rewards reward_parts "
            "finish_reasons terminated truncated status mask error success truncation drift "
            "seconds"
        ).split()
        return {
            **{name: record.get(name) for name in keep},
            **row,
            "verdict": verdict,
            "messages": messages,
            "tokens": tokens,
            "notes": notes,
        }

    def _tokens(self, record: dict[str, Any], cut: int | None) -> tuple[dict[str, Any], str]:
        """Token ids, their text (with the run's tokenizer), loss mask and log-probs."""
        prompt = list(record.get("prompt_ids") or [])
        completion = list(record.get("completion_ids") or [])
        mask = list(record.get("loss_mask") or [])
        logprobs = list(record.get("logprobs") or [])
        ids = prompt + completion
        if cut is not None:
            ids = ids[:cut]
        shown_completion = max(0, len(ids) - len(prompt))
        tokenizer, note = self.tokenizer()
        text = [_decode(tokenizer, i) for i in ids] if tokenizer is not None else None
        return {
            "ids": ids,
            "text": text,
            "prompt_length": len(prompt),
            "mask": mask[:shown_completion],
            "logprobs": [_finite(v) for v in logprobs[:shown_completion]],
            "total": len(prompt) + len(completion),
        }, note or ""

    def tokenizer(self) -> tuple[Any, str | None]:
        """The run's tokenizer (the newest checkpoint's, or the model folder's), or a note."""
        if self._tokenizer is not None or self._tokenizer_note is not None:
            return self._tokenizer, self._tokenizer_note
        candidates = sorted((self.path / "checkpoints").glob("step-*/tokenizer/tokenizer.json"))
        config, _ = self.config()
        model = str((config or {}).get("model") or "")
        if model:
            candidates.append(Path(model).expanduser() / "tokenizer.json")
        found = next((c for c in reversed(candidates) if c.is_file()), None)
        if found is None:
            self._tokenizer_note = (
                "Token text needs the run's tokenizer (checkpoints/step-N/tokenizer or a local "
                "model folder) and none was found: tokens are shown as ids."
            )
            return None, self._tokenizer_note
        try:
            from tokenizers import Tokenizer
        except ImportError:
            self._tokenizer_note = (
                'Token text needs the tokenizers package (pip install "palaestra[torch]"): '
                "tokens are shown as ids."
            )
            return None, self._tokenizer_note
        try:
            self._tokenizer = Tokenizer.from_file(str(found))
        except Exception as e:  # a corrupt file is a note, not a failed page
            self._tokenizer_note = f"The tokenizer {found} could not be read ({e}): ids shown."
        return self._tokenizer, self._tokenizer_note


def _decode(tokenizer: Any, token: Any) -> str:
    try:
        return tokenizer.decode([int(token)], skip_special_tokens=False)
    except Exception:  # an id outside the vocabulary, or not a number: show it as it is
        return f"<{token}>"


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _shown_message(message: Any, large: bool) -> dict[str, Any]:
    if not isinstance(message, dict):
        message = {"role": "?", "content": str(message)}
    shown = {k: v for k, v in message.items() if k != "content"}
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if large and len(text) > SHOWN_CHARS:
        shown["cut"] = len(text)
        text = text[:SHOWN_CHARS]
    shown["content"] = text
    return shown


def _shown_verdict(verdict: Any, large: bool) -> dict[str, Any] | None:
    """The verdict's status, score, reason, verifier and answer; None for a record without one.

    Records written before episodes kept their verdict have none. Its ``details`` (per-test
    output, a judge's text) are left to the raw link.
    """
    if not isinstance(verdict, dict):
        return None
    answer = verdict.get("answer")
    if answer is not None and not isinstance(answer, str):
        answer = json.dumps(answer, ensure_ascii=False, default=repr)
    return {
        "status": None if verdict.get("status") is None else str(verdict["status"]),
        "score": _finite(verdict.get("score")),
        "reason": _cut(str(verdict.get("reason") or ""), large),
        "verifier": str(verdict.get("verifier") or ""),
        "answer": None if answer is None else _cut(answer, large),
    }


def _cut(text: str, large: bool) -> str:
    """``text``, cut to `SHOWN_CHARS` in a large episode."""
    if large and len(text) > SHOWN_CHARS:
        return text[:SHOWN_CHARS] + f" [... {len(text) - SHOWN_CHARS:,} more characters]"
    return text


def _mask_reason(record: dict[str, Any]) -> str:
    error = record.get("error") or "no error was recorded"
    return (
        f"Masked: trainers drop this episode (status {record.get('status', '?')}): {error}. "
        "An infrastructure failure is not the policy's fault, so it is not learnt from."
    )


def finite_json(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None (strict JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool)) or _finite(value) is not None


def open_runs(paths: list[str | os.PathLike[str]]) -> list[RunFolder]:
    """Opens one or two run folders.

    Raises:
        ValueError: No path, more than two, or a path that is not a run folder.
    """
    if not 1 <= len(paths) <= 2:
        raise ValueError(f"the viewer opens one run or two side by side, got {len(paths)}")
    return [RunFolder(p) for p in paths]
