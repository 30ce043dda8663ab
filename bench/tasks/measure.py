"""Measurements: generation latency, reasoning-gym generation time, and adversarial answer scores.

Every measurement runs in a forked child with a wall-clock limit, so a family that crashes
or hangs becomes a row with its error instead of ending the run.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import multiprocessing
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.tasks.pairs import Pair

BAR_LOW_S = 0.050  # p99 bar at level <= 5
BAR_HIGH_S = 1.0  # p99 bar at level 10
# One untimed instance comes first: lazy imports and data loading are not generation.
WARMUP_SEED = 2**31 - 1
# The clock: process CPU time by default, because the machine may be shared and wall time then
# counts other jobs' work; generation is single-threaded, so on an idle machine the two agree.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = time.process_time

# The variant classes of a correct answer R, given wrong answers W (what goes in the answer slot).
LEGIT = ("exact", "spacing", "case")
ADVERSARIAL = ("hedged", "list", "both", "padded")
CLASSES = LEGIT + ADVERSARIAL


def in_child(function: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """``function(*args)`` in a forked process, or ``{"error": ...}`` if it raises or times out."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def target() -> None:
        try:
            send.send(function(*args))
        except BaseException as error:  # the parent reports it as a row
            last = traceback.extract_tb(error.__traceback__)[-1]
            where = f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno}"
            send.send({"error": f"{type(error).__name__}: {str(error)[:120]} ({where})"})

    process = context.Process(target=target, daemon=True)
    process.start()
    send.close()
    result: Any = {"error": f"timed out after {timeout:.0f}s"}
    if receive.poll(timeout):
        try:
            result = receive.recv()
        except EOFError:
            result = {"error": f"worker died (exit code {process.exitcode})"}
    process.join(1)
    if process.is_alive():
        process.kill()
        process.join()
    return result


def task_of(env_id: str, level: int) -> Any:
    """Our family's task at a level, as the env builds it."""
    from palaestra.registration import load_entry_point, registry

    env_class = load_entry_point(registry[env_id].entry_point)
    return env_class.task_class.from_level(level)


# --- generation latency --------------------------------------------------------------------------


def latency(env_id: str, level: int, n: int, budget_s: float, seed: int = 0) -> dict[str, Any]:
    """Times ``generate`` plus the oracle's ``solve`` (what reset and the oracle do) per instance.

    Instances are ``SeedSequence([seed, i])`` streams, as in the env. Stops after ``n``
    instances or once ``budget_s`` of generation has been spent (at least 3 instances).
    """
    from palaestra.envs.tasks.base import item_rng

    task = task_of(env_id, level)
    task.solve(task.generate(item_rng(WARMUP_SEED, 0)))  # imports and data loads, not timed
    times: list[float] = []
    spent = 0.0
    for index in range(n):
        rng = item_rng(seed, index)
        start = clock()
        problem = task.generate(rng)
        task.solve(problem)
        elapsed = clock() - start
        times.append(elapsed)
        spent += elapsed
        if spent > budget_s and len(times) >= 3:
            break
    values = np.array(times)
    return {
        "n": len(times),
        "p50": float(np.percentile(values, 50)),
        "p99": float(np.percentile(values, 99)),
    }


def meets_bar(level: int, p99: float) -> bool:
    """The issue's bar: p99 <= 50 ms at level <= 5 and <= 1 s above."""
    return p99 <= (BAR_LOW_S if level <= 5 else BAR_HIGH_S)


# --- adversarial variants ------------------------------------------------------------------------


def flip_case(text: str) -> str:
    """The answer in the other case (lower if it has capitals, else upper)."""
    return text.lower() if text != text.lower() else text.upper()


def variants(right: str, wrongs: list[str]) -> dict[str, list[str]]:
    """What goes in the answer slot for each class: legitimate rewrites, then hedges and padding."""
    wrong = wrongs[0]
    return {
        "exact": [right],
        "spacing": [f"  {right} \n"],
        "case": [flip_case(right)],
        "hedged": [f"{right} or {wrong}", f"{wrong} or {right}", f"{right} (or possibly {wrong})"],
        "list": [f"{right}\n{wrong}", f"{right}, {wrong}", "; ".join([wrong, right, *wrongs[1:3]])],
        "both": [f"{right} {wrong}", f"{wrong} {right}"],
        "padded": [
            f"{right} because this satisfies every constraint.",
            f"{right}\n\nExplanation: I checked each step twice.",
        ],
    }


def nudge(text: str) -> str:
    """A one-character change: the last digit plus one, else the last letter moved on."""
    for i in range(len(text) - 1, -1, -1):
        c = text[i]
        if c.isdigit():
            return text[:i] + str((int(c) + 1) % 10) + text[i + 1 :]
        if c.isalpha():
            base = "a" if c.islower() else "A"
            if not c.isascii():
                continue
            return text[:i] + chr((ord(c) - ord(base) + 1) % 26 + ord(base)) + text[i + 1 :]
    return text + "x"


def pick_wrongs(
    right: str, candidates: list[str], score: Callable[[str], float], limit: int = 3
) -> list[str]:
    """Up to ``limit`` distinct candidates scoring below 1 (a nudge of ``right`` if none does).

    A candidate inside ``right`` (a plan's prefix, a root list missing one root) is skipped:
    written next to ``right`` it adds nothing wrong ("6, 14" and "14"), so it hedges nothing.
    """
    chosen: list[str] = []
    for candidate in [*candidates, nudge(right)]:
        fresh = bool(candidate) and candidate.strip() not in right and candidate not in chosen
        if fresh and score(candidate) < 1:
            chosen.append(candidate)
            if len(chosen) == limit:
                break
    return chosen


def score_classes(items: list[tuple[str, list[str], Callable[[str], float]]]) -> dict[str, Any]:
    """Mean score per class over ``(right, wrongs, score)`` items, and any adversarial paid."""
    totals: dict[str, list[float]] = {name: [] for name in CLASSES}
    paid: list[tuple[str, str, float]] = []
    errors = 0
    for right, wrongs, score in items:
        if not wrongs:
            continue
        for name, texts in variants(right, wrongs).items():
            for text in texts:
                try:
                    value = float(score(text))
                except Exception:  # an anchor's scorer that raises pays nothing, and is counted
                    value = 0.0
                    errors += 1
                totals[name].append(value)
                if name in ADVERSARIAL and value > 0:
                    paid.append((name, text, value))
    means = {name: (float(np.mean(v)) if v else None) for name, v in totals.items()}
    return {
        "means": means,
        "paid": paid,
        "errors": errors,
        "items": sum(1 for _, w, _ in items if w),
    }


# --- ours vs reasoning-gym, one pair -------------------------------------------------------------


def ours_side(pair: Pair, budget_s: float, n: int, robust_n: int, seed: int = 0) -> dict[str, Any]:
    """Our generation time per instance and the scores of the adversarial variants."""
    from palaestra.envs.tasks.base import item_rng

    task = task_of(pair.ours, pair.level)
    task.solve(task.generate(item_rng(WARMUP_SEED, 0)))
    times: list[float] = []
    problems = []
    for index in range(n):
        rng = item_rng(seed, index)
        start = clock()
        problem = task.generate(rng)
        answer = task.solve(problem)
        times.append(clock() - start)
        problems.append((problem, answer))
        if sum(times) > budget_s and len(times) >= 5:
            break

    def scorer(problem: Any) -> Callable[[str], float]:
        return lambda text: task.verify(f"<answer>{text}</answer>", problem).score

    pool = [answer for _, answer in problems]
    items = []
    for index, (problem, answer) in enumerate(problems[:robust_n]):
        score = scorer(problem)
        mutations = list(task.mutations(problem))
        others = [a for a in pool[index + 1 :] + pool[:index] if a != answer]
        items.append((answer, pick_wrongs(answer, mutations + others, score), score))
    return {"mean_s": float(np.mean(times)), "n": len(times), **score_classes(items)}


def reference_of(entry: dict[str, Any]) -> str | None:
    """reasoning-gym's reference answer (some datasets keep an example in the metadata instead)."""
    if entry.get("answer") is not None:
        return str(entry["answer"])
    meta = entry.get("metadata", {})
    if "possible_answer" in meta:  # graph_color: a Python dict literal; the scorer parses JSON
        return json.dumps(
            {str(k): v for k, v in ast.literal_eval(str(meta["possible_answer"])).items()}
        )
    if "example_answer" in meta:  # propositional_logic
        return str(meta["example_answer"])
    return None


def theirs_side(
    pair: Pair, budget_s: float, n: int, robust_n: int, seed: int = 0
) -> dict[str, Any]:
    """reasoning-gym's time per item (``dataset[i]``) and its scores of the same variants."""
    with contextlib.redirect_stdout(io.StringIO()):  # some of its generators print progress
        return _theirs_side(pair, budget_s, n, robust_n, seed)


def _theirs_side(pair: Pair, budget_s: float, n: int, robust_n: int, seed: int) -> dict[str, Any]:
    import reasoning_gym

    start = time.perf_counter()
    dataset = reasoning_gym.create_dataset(
        pair.theirs, seed=seed, size=max(n, 1) + 1, **pair.config
    )
    init_s = time.perf_counter() - start
    dataset[n]  # the same warm-up as ours: an item outside the timed ones
    times: list[float] = []
    entries = []
    for index in range(n):
        start = clock()
        entries.append(dataset[index])
        times.append(clock() - start)
        if sum(times) > budget_s and len(times) >= 5:
            break

    def scorer(entry: dict[str, Any]) -> Callable[[str], float]:
        return lambda text: dataset.score_answer(text, entry)

    pool = [reference_of(e) for e in entries]
    items = []
    for index, entry in enumerate(entries[:robust_n]):
        right = pool[index]
        if right is None:
            continue
        score = scorer(entry)
        others = [a for a in pool[index + 1 :] + pool[:index] if a is not None and a != right]
        items.append((right, pick_wrongs(right, others, score), score))
    result = {
        "mean_s": float(np.mean(times)),
        "n": len(times),
        "init_s": init_s,
        **score_classes(items),
    }
    if not items:
        result["note"] = "no reference answers to vary"
    return result
