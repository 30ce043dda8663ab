"""What the SkyRL, verl and OpenRLHF adapters share: an episode's coordinates in a dataset row.

Those frameworks read prompts from a dataset and hand each row's extra fields to the code
that plays it. A row here carries one `EpisodeSpec` (id, make() kwargs, reset seed) as a
JSON string, so any id and any kwargs fit one column type in Parquet or JSON Lines, and the
members of a GRPO group (the frameworks repeat a row) share the row's seed.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palaestra.errors import require

if TYPE_CHECKING:
    from palaestra.core import Env

SPEC_KEYS = ("id", "seed", "kwargs")
"""The keys of an episode spec's JSON object."""


@dataclasses.dataclass(frozen=True)
class EpisodeSpec:
    """One episode: a registered id, its make() kwargs and its reset seed.

    Attributes:
        env_id: A registered Palaestra id.
        seed: The reset seed (a non-negative integer).
        kwargs: Arguments for `palaestra.make` (JSON values).
    """

    env_id: str
    seed: int
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.env_id, str) or not self.env_id:
            raise ValueError(f"an episode needs a registered id string, got {self.env_id!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"an episode's seed must be a non-negative integer, got {self.seed!r}")
        if not isinstance(self.kwargs, Mapping):
            raise ValueError(f"an episode's kwargs must be a mapping, got {self.kwargs!r}")
        object.__setattr__(self, "kwargs", dict(self.kwargs))

    def to_json(self) -> str:
        """The spec as a JSON object with the keys of `SPEC_KEYS`."""
        try:
            return json.dumps(
                {"id": self.env_id, "seed": self.seed, "kwargs": self.kwargs}, sort_keys=True
            )
        except TypeError as e:
            raise ValueError(
                f"{self.env_id}: make() kwargs must be JSON values to go into a dataset row ({e})"
            ) from e

    @classmethod
    def parse(cls, value: str | Mapping[str, Any]) -> EpisodeSpec:
        """A spec from its JSON text or its mapping (as a row's column holds it).

        Raises:
            ValueError: The value is not JSON, or lacks a key, or has one more.
        """
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as e:
                raise ValueError(f"an episode spec must be JSON text, got {value[:80]!r}") from e
        if not isinstance(value, Mapping):
            raise ValueError(
                f"an episode spec is a JSON object with keys {list(SPEC_KEYS)}, got {value!r}"
            )
        missing = [k for k in ("id", "seed") if k not in value]
        extra = sorted(set(value) - set(SPEC_KEYS))
        if missing or extra:
            raise ValueError(
                f"an episode spec has keys {list(SPEC_KEYS)} (kwargs optional); "
                f"missing {missing}, unknown {extra}: was the row made by a Palaestra "
                "integration's rows()?"
            )
        return cls(value["id"], value["seed"], value.get("kwargs") or {})

    def start(self) -> tuple[Env, list[dict[str, Any]]]:
        """Makes the env and resets it with the seed; returns the env and its opening messages."""
        import palaestra

        env = palaestra.make(self.env_id, **self.kwargs)
        observation, _ = env.reset(seed=self.seed)
        return env, plain_messages(observation)


def specs(
    ids: str | Iterable[str], n: int, *, seed: int = 0, start: int = 0, **kwargs: Any
) -> list[EpisodeSpec]:
    """Specs of episodes ``start .. start + n - 1`` of every id, id by id.

    Episode ``index`` is reset with ``palaestra.datasets.item_seed(seed, index)``
    (``SeedSequence([seed, index])``), so disjoint index ranges give disjoint splits.

    Raises:
        ValueError: n, seed or start is not a non-negative integer.
        UnknownEnvError, UnknownArgumentError: As `palaestra.make` raises them.
    """
    import palaestra
    from palaestra.datasets import item_seed

    for name, value in (("n", n), ("seed", seed), ("start", start)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    id_list = [ids] if isinstance(ids, str) else list(ids)
    for env_id in id_list:
        palaestra.make(env_id, **kwargs).close()  # a bad id or argument raises at the call
    return [
        EpisodeSpec(env_id, item_seed(seed, index), kwargs)
        for env_id in id_list
        for index in range(start, start + n)
    ]


def plain_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages with string content and only the keys chat templates read."""
    out = []
    for message in messages:
        plain = {"role": str(message["role"]), "content": str(message.get("content") or "")}
        for key in ("tool_call_id", "name"):
            if message.get(key) is not None:
                plain[key] = str(message[key])
        out.append(plain)
    return out


def outcome(info: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a step's info that survive as JSON metadata in a framework's records."""
    verdict = info.get("verdict")
    return {
        "reward_parts": {k: float(v) for k, v in (info.get("reward_parts") or {}).items()},
        "success": info.get("success"),
        "status": info.get("status"),
        "mask": bool(info.get("mask", False)),
        "verdict": verdict.to_dict() if verdict is not None else None,
    }


def write_parquet(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """Writes rows as a Parquet file (needs ``pyarrow``); returns how many were written."""
    pyarrow = require("pyarrow", "datasets", "writing rows as Parquet")
    parquet = require("pyarrow.parquet", "datasets", "writing rows as Parquet")
    table = pyarrow.Table.from_pylist([dict(row) for row in rows])
    parquet.write_table(table, str(path))
    return table.num_rows
