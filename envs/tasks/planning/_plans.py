"""Shared pieces of the single-turn planning families.

Shared pieces of the single-turn planning families: instances drawn from the interactive
games of `palaestra.envs.games`, their oracles' plans, and a strict plan parser.

A planning family poses a whole puzzle and reads a whole plan; its checker replays the plan
with its own simulator. Where a game of the same puzzle exists, the family draws its
instances from that game (its constructor, ``reset(seed=...)`` and public state attributes)
and may take the game's oracle as the reference plan, so that both forms share one
generator.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

MAX_PLAN_CHARS = 1_000
"""Plans longer than this are refused before parsing (the shared extraction caps at 1,000)."""

_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?|\n?\s*```\s*$")
_SPLIT = re.compile(r"[\s,]+")
_MOVE_TAG = re.compile(r"<move>(.*?)</move>", re.S)


def game_env(env_class: type, rng: np.random.Generator, **kwargs: Any) -> Any:
    """A game env made with ``kwargs`` and reset with a seed drawn from ``rng``."""
    env = env_class(**kwargs)
    env.reset(seed=int(rng.integers(2**63 - 1)))
    return env


def oracle_moves(env: Any, limit: int = 10_000) -> list[str] | None:
    """The moves the game's oracle plays from the env's current state to a win, or None.

    Each move is the body of the oracle's ``<move>...</move>``. None when the episode ends
    without success (the oracle fell back to a weaker plan that ran out of turns).
    """
    moves: list[str] = []
    for _ in range(limit):
        action = env.oracle_action()
        match = _MOVE_TAG.search(action)
        if match is None:
            return None
        moves.append(match.group(1).strip())
        *_, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return moves if info.get("success") else None
    return None


def plan_tokens(text: str, token: re.Pattern[str], max_moves: int) -> tuple[list[str] | None, str]:
    """Splits a plan into moves, each matching ``token`` in full (case-insensitive).

    Moves are separated by spaces, commas or new lines; a code fence around the plan is
    ignored. Anything else (a word, ``or``, a second plan after ``;``) makes the plan
    malformed.

    Returns:
        The moves and ``""``, or None and the reason the text is not a plan.
    """
    if len(text) > MAX_PLAN_CHARS:
        return None, f"the plan is longer than {MAX_PLAN_CHARS} characters"
    body = _FENCE.sub("", text.strip())
    moves = [m for m in _SPLIT.split(body) if m]
    if not moves:
        return None, "the plan is empty"
    if len(moves) > max_moves:
        return None, f"the plan has {len(moves)} moves, more than the {max_moves} allowed"
    for i, move in enumerate(moves):
        if not token.fullmatch(move):
            return None, f"move {i + 1}, {move[:20]!r}, is not a move of the documented form"
    return moves, ""


def run_plan(
    start: Any,
    moves: list[Any],
    apply: Callable[[Any, Any], tuple[Any, str]],
    solved: Callable[[Any], bool],
) -> str:
    """Replays ``moves`` from ``start``; ``""`` when the last move (and no earlier one) solves it.

    Args:
        start: The start state.
        moves: The parsed moves.
        apply: (state, move) -> (next state, ``""``) or (anything, why the move is illegal).
        solved: Whether a state is solved.

    Returns:
        ``""`` when the plan is legal and reaches the goal exactly at its end, else why not.
    """
    state = start
    for i, move in enumerate(moves):
        if solved(state):
            return f"the puzzle is already solved before move {i + 1}; the plan must stop there"
        state, why = apply(state, move)
        if why:
            return f"move {i + 1} is illegal: {why}"
    if not solved(state):
        return "the plan ends before the puzzle is solved"
    return ""
