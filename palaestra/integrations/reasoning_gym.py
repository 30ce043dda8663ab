"""reasoning-gym's datasets as Palaestra envs: ``palaestra.make("rg:<dataset>", **config)``.

    env = palaestra.make("rg:basic_arithmetic", min_terms=2, max_terms=4)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("<answer>42</answer>")

What maps to what:

* the id ``rg:<dataset>`` (or its canonical form ``rg/<dataset>-v0``) names any dataset in
  the installed reasoning-gym's registry; the keyword arguments are the dataset's config
  fields (reasoning-gym's own names, checked by its config class);
* ``reset(seed=s)`` draws one item: a fresh dataset of one item whose reasoning-gym seed is
  drawn from the env's generator (seeded by ``s``), so episodes never share
  reasoning-gym's overlapping ``seed + index`` streams;
* the observation is the item's question and a line asking for ``<answer>...</answer>``;
* one step scores the body of the last ``<answer>`` tag after any ``</think>`` with the
  dataset's own ``score_answer``; its score is the reward (reasoning-gym's partial credit
  included), ``CORRECT`` only at 1.0; no answer tag scores 0 as ``NO_ANSWER``; a scorer
  that raises masks the episode;
* the oracle answers the item's ``answer``, or, for datasets that give none, the solution
  their metadata carries (`ORACLE_METADATA_KEYS`).

What is lost: reasoning-gym's scorers are the judges, so their leniency comes along. Several
pay part or all of the reward for hedged answers ("R or W", candidate lists, padding), which
Palaestra's own tasks refuse; `docs/reasoning_gym.md` lists them (measured by
``python -m bench.rg_hedges``). The id is versioned ``-v0`` whatever reasoning-gym version is
installed: pin reasoning-gym (the ``rg`` extra) to pin what an id generates.
`NO_ORACLE` lists the datasets that cannot pass `palaestra.check_env`, and why.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import difflib
import json
import random
import sys
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from palaestra.core import Env, Message, Step, user
from palaestra.errors import require
from palaestra.parsers import find_tags, split_reasoning
from palaestra.registration import EnvSpec
from palaestra.verdict import Status, Verdict

PREFIX = "rg:"
"""The short form of a reasoning-gym id: ``rg:<dataset>``."""

NAMESPACE = "rg"
"""The namespace of the canonical ids, ``rg/<dataset>-v0``."""

INSTRUCTION = "Give your final answer inside <answer></answer> tags."
"""The line added after each question."""

ORACLE_METADATA_KEYS = ("possible_answer", "example_answer", "example_correct_answer")
"""Where datasets whose ``answer`` is None keep a solution their scorer accepts."""

NO_ORACLE = {
    "boxnet": "no reference solution: the item's answer is None and its metadata holds only "
    "the initial state; any plan that reaches the goal scores",
    "rush_hour": "no reference solution: the item's answer is None and its metadata holds "
    "only the board and the move count; any solving move list scores",
    "composite": "a mixture of other datasets: it needs a list of dataset specs "
    "(`datasets=`), so it has no default item to check; make each dataset by its own id",
}
"""Datasets that cannot pass `palaestra.check_env` with defaults, and why."""


SEEDED_AT_BUILD = frozenset({"acre", "gsm_symbolic", "list_functions"})
"""Datasets that draw from their seed while building, so each episode builds its own."""

RECENT_ITEMS = 8
"""Generated items an env keeps, by seed."""


@contextlib.contextmanager
def _global_generators_kept() -> Iterator[None]:
    """Puts the global `random` and `numpy.random` states back afterwards.

    Some of reasoning-gym draws from them: a module at import time, and datasets such as
    pool_matrix seed `numpy.random` for each item. Envs must leave them as they were.
    """
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


def _reasoning_gym() -> Any:
    if "reasoning_gym" in sys.modules:
        return sys.modules["reasoning_gym"]
    with _global_generators_kept():
        return require("reasoning_gym", "rg", "reasoning-gym datasets")


def dataset_names() -> list[str]:
    """Every dataset name in the installed reasoning-gym, sorted."""
    _reasoning_gym()  # first: a missing package is reported with the extra to install
    from reasoning_gym.factory import DATASETS

    return sorted(DATASETS)


def dataset_of(env_id: str) -> str | None:
    """The dataset named by ``rg:<dataset>`` or ``rg/<dataset>-v0``, or None for other ids."""
    if env_id.startswith(PREFIX):
        return env_id[len(PREFIX) :]
    if env_id.startswith(f"{NAMESPACE}/") and env_id.endswith("-v0"):
        return env_id[len(NAMESPACE) + 1 : -len("-v0")]
    return None


def spec(env_id: str) -> EnvSpec:
    """The spec of a reasoning-gym id (``rg:<dataset>`` or ``rg/<dataset>-v0``).

    Raises:
        ValueError: The id names no dataset of the installed reasoning-gym (with close
            matches).
    """
    name = dataset_of(env_id)
    if name is None:
        raise ValueError(f"{env_id!r} is not a reasoning-gym id; write 'rg:<dataset>'")
    names = dataset_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(f'rg:{c}' for c in close)}?" if close else ""
        raise ValueError(
            f"reasoning-gym has no dataset {name!r}.{hint} "
            "`palaestra.integrations.reasoning_gym.dataset_names()` lists them."
        )
    return EnvSpec(
        id=f"{NAMESPACE}/{name}-v0",
        entry_point="palaestra.integrations.reasoning_gym:ReasoningGymEnv",
        kwargs={"dataset": name},
        max_turns=1,
        max_invalid=0,
        tags=("reasoning-gym", "single-turn"),
        description=f"reasoning-gym's {name} dataset, scored by its own score_answer",
        source="reasoning-gym",
    )


class ReasoningGymEnv(Env):
    """One reasoning-gym item per episode, scored by the dataset's ``score_answer``.

    Observation: the item's question and `INSTRUCTION`. Action: text with the answer in
    ``<answer>...</answer>``. Reward: the dataset's score of the last answer tag (0 when there
    is none). Episode end: after one step.

    Args:
        dataset: A reasoning-gym dataset name.
        **config: The dataset's config fields (reasoning-gym's names); ``seed`` and ``size``
            are set per episode and cannot be given.

    Version history: v0: first version.
    """

    reply_tag: ClassVar[str | None] = "answer"

    def __init__(self, dataset: str, **config: Any):
        reasoning_gym = _reasoning_gym()
        reserved = sorted({"seed", "size"} & set(config))
        if reserved:
            raise ValueError(
                f"rg:{dataset}: {reserved} are set per episode from reset(seed=...); drop them"
            )
        self.dataset = dataset
        self.config = dict(config)
        try:
            # Building the dataset up front checks the config with reasoning-gym's own rules;
            # episodes then reuse it (see `_item`).
            with _global_generators_kept():
                self._base = reasoning_gym.create_dataset(dataset, seed=0, size=1, **self.config)
        except (TypeError, ValueError, AssertionError) as e:
            raise ValueError(
                f"rg:{dataset} refused its config {self.config}: {type(e).__name__}: {e}"
            ) from e
        self._recent: collections.OrderedDict[int, tuple[Any, dict[str, Any]]] = (
            collections.OrderedDict()
        )
        self.data_: Any = None
        self.entry_: dict[str, Any] | None = None

    def _reset(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"rg:{self.dataset}.reset takes no options, got {sorted(options)}")
        item_seed = int(self.np_random.integers(2**31 - 1))
        self.data_, self.entry_ = self._item(item_seed)
        prompt = f"{self.entry_['question']}\n\n{INSTRUCTION}"
        return [user(prompt)], {"dataset": self.dataset, "rg_seed": item_seed}

    def _item(self, item_seed: int) -> tuple[Any, dict[str, Any]]:
        """The dataset holding this episode's item (its item 0), and a copy of the item.

        Building a dataset can take seconds (word lists, ARC grids); most datasets derive an
        item from ``seed + index`` alone, so a copy with another seed gives the item a fresh
        build would. `SEEDED_AT_BUILD` lists those that draw from the seed while building,
        which are built afresh. Generating an item can take seconds too (sokoban, sudoku), so
        the last few are kept: a GRPO group resets every member with the same seed.
        """
        if item_seed not in self._recent:
            with _global_generators_kept():
                if self.dataset in SEEDED_AT_BUILD:
                    data = _reasoning_gym().create_dataset(
                        self.dataset, seed=item_seed, size=1, **self.config
                    )
                else:
                    data = copy.copy(self._base)
                    data.seed = item_seed
                    data.config = dataclasses.replace(self._base.config, seed=item_seed)
                self._recent[item_seed] = (data, data[0])
            while len(self._recent) > RECENT_ITEMS:
                self._recent.popitem(last=False)
        self._recent.move_to_end(item_seed)
        data, entry = self._recent[item_seed]
        return data, copy.deepcopy(entry)

    def _step(self, action: Message) -> Step:
        reference = self.entry_["answer"]
        _, visible, _ = split_reasoning(action.get("content") or "")
        bodies = [span.body for span in find_tags(visible, "answer") if span.body is not None]
        if not bodies:
            reason = "no <answer>...</answer> tag after the reasoning"
            return self.finish(
                Verdict(0.0, Status.NO_ANSWER, reference=reference, reason=reason, verifier="rg")
            )
        answer = bodies[-1].strip()
        try:
            with _global_generators_kept():
                score = float(self.data_.score_answer(answer, self.entry_))
        except Exception as e:  # a scorer bug must not read as a wrong answer: masked
            return self.finish(
                Verdict.error(f"rg:{self.dataset} score_answer raised {type(e).__name__}: {e}")
            )
        status = Status.CORRECT if score >= 1.0 else Status.INCORRECT
        verdict = Verdict(
            score,
            status,
            answer=answer,
            reference=reference,
            reason=f"reasoning-gym's {self.dataset} scorer paid {score:g}",
            verifier=f"rg:{self.dataset}",
        )
        return self.finish(verdict)

    def oracle_action(self) -> str:
        """The item's answer (or the solution in its metadata) in the answer tag.

        Raises:
            NotImplementedError: The dataset gives no solution (see `NO_ORACLE`).
        """
        answer = self.entry_["answer"]
        if answer is None:
            metadata = self.entry_.get("metadata", {})
            found = [metadata[key] for key in ORACLE_METADATA_KEYS if key in metadata]
            if not found:
                raise NotImplementedError(
                    f"rg:{self.dataset} cannot be solved by the oracle: "
                    f"{NO_ORACLE.get(self.dataset, 'its answer is None')}"
                )
            answer = found[0]
        if isinstance(answer, dict):
            answer = json.dumps({str(k): v for k, v in answer.items()})
        return f"<answer>{answer}</answer>"

    def render_text(self) -> str:
        """The question."""
        return self.entry_["question"] if self.entry_ else ""
