"""Static datasets from single-turn environments: rows for trainers that want rows, not episodes.

    from palaestra import datasets

    rows = list(datasets.rows(["Countdown-v0", "Game24-v0"], n=1000, seed=0, level=4))
    datasets.write_jsonl("train.jsonl", rows)            # one JSON object per line
    hf = datasets.to_hf_dataset(rows)                     # a `datasets.Dataset` (extra: datasets)
    verdict = datasets.score(rows[0], "<answer>(25 - 1) * 3</answer>")

Any registered single-turn id can be exported. Procedural task families (envs whose class
names a ``task_class``, as `palaestra.envs.tasks.base.TaskEnv` does) are exported through
their `Task` API: item ``index`` under ``seed`` is ``task.problem(seed, index)``
(``SeedSequence([seed, index])``), and the row carries the problem itself, so re-scoring
needs neither the generator nor the seed. Other single-turn envs are exported through
``reset(seed=item_seed)`` and ``oracle_action()``, where ``item_seed`` is drawn from
``SeedSequence([seed, index])``; re-scoring remakes the env, resets it with that seed and
steps it with the completion. This module imports no env family: it reaches them through
the registry.

Every row has the same keys and types, so rows go to JSON Lines and to Arrow unchanged:

    id               the env id ("Countdown-v0")
    seed, index      the item's coordinates
    level            the difficulty level (None when the env has none)
    prompt           the opening messages, [{"role": ..., "content": ...}]
    reference        the answer alone, without its answer slot (tasks: the oracle's
                     answer; other envs: the body of the oracle's last ``<answer>`` tag,
                     else of its last fenced code block, else its whole text)
    oracle           the oracle's whole completion: the reference in its answer slot
    verifier         "task:<family>" for task families, "env" for other envs
    verifier_config  JSON text: what re-scoring needs (tasks: the family's config; other
                     envs: the make() kwargs and the reset seed)
    problem          JSON text of the task's `Problem` (prompt, reference, data); "{}" for envs

Importing this module is light: Hugging Face ``datasets`` is imported only by
`to_hf_dataset` and `from_hf_dataset`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.errors import require
from palaestra.parsers import find_tags, split_reasoning
from palaestra.verdict import Status, Verdict

ROW_KEYS = (
    "id",
    "seed",
    "index",
    "level",
    "prompt",
    "reference",
    "oracle",
    "verifier",
    "verifier_config",
    "problem",
)
"""The keys of every row, in order."""

ENV_VERIFIER = "env"
TASK_PREFIX = "task:"
FENCE = "```"


def item_seed(seed: int, index: int) -> int:
    """The reset seed of item ``index`` under ``seed`` for envs exported through ``reset``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint32)[0])


def _plain_messages(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    return [{"role": str(m["role"]), "content": str(m.get("content") or "")} for m in messages]


def _action_text(action: Any) -> str:
    if isinstance(action, str):
        return action
    if (
        isinstance(action, Mapping)
        and isinstance(action.get("content"), str)
        and not action.get("tool_calls")
    ):
        return action["content"]
    raise ValueError(
        f"the oracle answered with {type(action).__name__}, not text; only envs whose oracle "
        "writes text can be exported as rows"
    )


def _slot_body(action: str) -> str:
    """The answer inside an oracle's action, without its answer slot.

    The body of the action's last ``<answer>`` tag, else of its last closed fenced code block,
    else the whole text (an env whose action is the answer itself).
    """
    _, visible, _ = split_reasoning(action)
    tags = [span.body for span in find_tags(visible, "answer") if span.body is not None]
    if tags:
        return tags[-1]
    parts = visible.split(FENCE)  # closed blocks are the odd parts before the last one
    if len(parts) >= 3:
        last = len(parts) - 2 if len(parts) % 2 else len(parts) - 3
        return parts[last].partition("\n")[2]
    return action


def _tupled(value: Any) -> Any:
    """JSON lists back to tuples (configs are frozen dataclasses whose sequences are tuples)."""
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    if isinstance(value, dict):
        return {k: _tupled(v) for k, v in value.items()}
    return value


@functools.lru_cache(maxsize=256)
def _task(env_id: str, config_json: str):
    """The task of a task-family id, rebuilt from its config (cached)."""
    import palaestra
    from palaestra.registration import load_entry_point

    task_class = load_entry_point(palaestra.spec(env_id).entry_point).task_class
    return task_class(task_class.Config(**_tupled(json.loads(config_json))))


def _task_of(env: Any) -> Any:
    """The `Task` behind a task-family env (one whose class names a ``task_class``), or None."""
    unwrapped = env.unwrapped
    return unwrapped.task if getattr(type(unwrapped), "task_class", None) is not None else None


class _Exporter:
    """Makes rows of one id with fixed kwargs."""

    def __init__(self, env_id: str, kwargs: Mapping[str, Any]):
        import palaestra

        spec = palaestra.spec(env_id)
        if "single-turn" not in spec.tags and spec.max_turns != 1:
            raise ValueError(
                f"{spec.id} is not single-turn (tags {list(spec.tags)}, max_turns "
                f"{spec.max_turns}); only single-turn envs can be exported as rows. Use the "
                "rollout engine for multi-turn envs."
            )
        self.id = spec.id
        self.kwargs = dict(kwargs)
        self.env = palaestra.make(spec.id, **self.kwargs)
        self.arguments = dict(self.env.unwrapped.palaestra_spec.kwargs)
        self.task = _task_of(self.env)
        level = self.arguments.get("level")
        self.level = level if isinstance(level, int) and not isinstance(level, bool) else None
        if self.task is not None:
            self.task_config = json.dumps(dataclasses.asdict(self.task.config), sort_keys=True)

    def row(self, seed: int, index: int) -> dict[str, Any]:
        if self.task is not None:
            problem = self.task.problem(seed, index)
            answer = self.task.solve(problem)
            config = {
                "env_id": self.id,
                "task": self.task.name,
                "config": json.loads(self.task_config),
            }
            return {
                "id": self.id,
                "seed": seed,
                "index": index,
                "level": self.level,
                "prompt": [{"role": "user", "content": problem.prompt}],
                "reference": answer,
                "oracle": self.task.slot(answer),
                "verifier": TASK_PREFIX + self.task.name,
                "verifier_config": json.dumps(config, sort_keys=True),
                "problem": json.dumps(problem.to_json(), sort_keys=True),
            }
        reset_seed = item_seed(seed, index)
        observation, _ = self.env.reset(seed=reset_seed)
        action = _action_text(self.env.oracle_action())
        config = {"env_id": self.id, "kwargs": self.arguments, "reset_seed": reset_seed}
        return {
            "id": self.id,
            "seed": seed,
            "index": index,
            "level": self.level,
            "prompt": _plain_messages(observation),
            "reference": _slot_body(action),
            "oracle": action,
            "verifier": ENV_VERIFIER,
            "verifier_config": json.dumps(config, sort_keys=True),
            "problem": "{}",
        }


def _id_kwargs(
    ids: str | Iterable[str] | Mapping[str, Mapping[str, Any]], kwargs: Mapping[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(ids, str):
        return [(ids, dict(kwargs))]
    if isinstance(ids, Mapping):
        return [(env_id, {**kwargs, **dict(own or {})}) for env_id, own in ids.items()]
    pairs = [(env_id, dict(kwargs)) for env_id in ids]
    for env_id, _ in pairs:
        if not isinstance(env_id, str):
            raise TypeError(f"ids must be env id strings, got {env_id!r}")
    return pairs


def rows(
    ids: str | Iterable[str] | Mapping[str, Mapping[str, Any]],
    n: int,
    *,
    seed: int = 0,
    start: int = 0,
    **kwargs: Any,
) -> Iterator[dict[str, Any]]:
    """Rows of items ``start .. start + n - 1`` of every id, id by id.

    Args:
        ids: One id, several ids, or a mapping of id to its own make() kwargs.
        n: Items per id.
        seed: The stream's seed (items are ``SeedSequence([seed, index])``).
        start: The first index (use disjoint index ranges for train and eval splits).
        **kwargs: make() kwargs for every id (``level=4``, a family's knobs); a mapping's
            own kwargs override them.

    Returns:
        An iterator of row dicts with the keys of `ROW_KEYS` (rows are made as it is read).

    Raises:
        ValueError: An id is multi-turn, or n, seed or start is not a non-negative integer.
        UnknownEnvError, UnknownArgumentError: As `palaestra.make` raises them.
    """
    for name, value in (("n", n), ("seed", seed), ("start", start)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    # Built before the first row, so that a bad id or argument raises at the call.
    exporters = [_Exporter(env_id, own) for env_id, own in _id_kwargs(ids, kwargs)]
    return (
        exporter.row(seed, index) for exporter in exporters for index in range(start, start + n)
    )


def write_jsonl(path: str | Path, rows_: Iterable[Mapping[str, Any]]) -> int:
    """Writes rows as JSON Lines (UTF-8); returns how many were written."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as f:
        for row in rows_:
            f.write(json.dumps(dict(row), ensure_ascii=False) + "\n")
            count += 1
    return count


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Reads rows written by `write_jsonl`; a malformed line raises ValueError naming it."""
    out = []
    with Path(path).open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {number}: not JSON ({e})") from e
            missing = [k for k in ROW_KEYS if k not in row]
            if missing:
                raise ValueError(
                    f"{path}, line {number}: the row lacks {missing}; was it written by "
                    "write_jsonl?"
                )
            out.append(row)
    return out


def _features():
    datasets = require("datasets", "datasets", "exporting rows as a Hugging Face dataset")
    string, integer = datasets.Value("string"), datasets.Value("int64")
    return datasets.Features(
        {
            "id": string,
            "seed": integer,
            "index": integer,
            "level": integer,
            "prompt": [{"role": string, "content": string}],
            "reference": string,
            "oracle": string,
            "verifier": string,
            "verifier_config": string,
            "problem": string,
        }
    )


def to_hf_dataset(rows_: Iterable[Mapping[str, Any]]):
    """Rows as a Hugging Face ``datasets.Dataset`` (needs the ``datasets`` extra)."""
    datasets = require("datasets", "datasets", "exporting rows as a Hugging Face dataset")
    materialised = [{k: row[k] for k in ROW_KEYS} for row in rows_]
    return datasets.Dataset.from_list(materialised, features=_features())


def from_hf_dataset(dataset: Any) -> Iterator[dict[str, Any]]:
    """The rows of a dataset made by `to_hf_dataset` (or loaded from its saved files)."""
    for row in dataset:
        yield {k: row[k] for k in ROW_KEYS}


def score(row: Mapping[str, Any], completion: Any) -> Verdict:
    """Re-scores a completion against a row, exactly as the env would score it.

    Task rows are scored by the family's checker on the stored problem; other rows by
    remaking the env, resetting it with the row's seed and stepping it with the completion
    (an invalid action, which a single-turn env answers without ending the episode, gives a
    ``bad_format`` verdict with the env's penalty as its score).

    Raises:
        ValueError: The row is not a row of this module (unknown verifier or missing keys).
    """
    missing = [k for k in ("id", "verifier", "verifier_config") if k not in row]
    if missing:
        raise ValueError(f"not a dataset row: it lacks {missing}")
    config = json.loads(row["verifier_config"])
    if str(row["verifier"]).startswith(TASK_PREFIX):
        task = _task(row["id"], json.dumps(config["config"], sort_keys=True))
        return task.verify_json(completion, json.loads(row["problem"]))
    if row["verifier"] != ENV_VERIFIER:
        raise ValueError(
            f"unknown verifier {row['verifier']!r}; rows name 'env' or 'task:<family>'"
        )
    import palaestra

    env = palaestra.make(row["id"], **config["kwargs"])
    env.reset(seed=config["reset_seed"])
    _, reward, terminated, truncated, info = env.step(
        completion if isinstance(completion, (str, dict)) else ""
    )
    verdict = info.get("verdict")
    if isinstance(verdict, Verdict):
        return verdict
    status = (
        Status.CORRECT
        if info.get("success")
        else Status.BAD_FORMAT
        if info.get("invalid_action")
        else Status.INCORRECT
    )
    return Verdict(
        float(reward),
        status,
        reason=str(info.get("invalid_reason", "scored by the env")),
        verifier=row["id"],
    )
