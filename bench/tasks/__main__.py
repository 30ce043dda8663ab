"""Task benchmark: generation latency per family and level, and the side-by-side with reasoning-gym.

    python -m bench.tasks [--n 200] [--levels 1,5,10] [--only Sudoku,Zebra]
                          [--clock cpu|wall] [--no-latency] [--no-compare] [--no-sweep]

1. Latency: for every registered task family (tag ``task``, mixtures excluded), the time of
   ``generate`` plus the oracle's ``solve`` per instance (what ``reset`` and the oracle do),
   p50 and p99 over ``--n`` instances at each level; ``MISS`` marks a p99 over the bar
   (50 ms at level <= 5, 1 s at level 10).
2. Side by side with reasoning-gym on the shared families (``bench/tasks/pairs.py``):
   mean generation time of each and the ratio, then the mean score each library's own scorer
   gives to rewrites of its own correct answers: legitimate ones (exact, spacing, case) and
   adversarial ones (hedged "R or W", candidate lists, "R W" both-options, padded with
   text). Our scores go through the family's ``verify`` with the text in ``<answer>`` tags,
   as ``step`` does; reasoning-gym's through its ``score_answer``.
3. Sweep: the adversarial rewrites on every family of ours at every level, listing any that paid.

Times are process CPU time unless ``--clock wall``: the machine may be shared, and wall time
then counts other jobs' work. reasoning-gym is imported only for part 2; without it the
bench prints parts 1 and 3 and says so.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import time

from bench.tasks import measure
from bench.tasks.pairs import PAIRS


def load() -> str:
    """The load average, for the record."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def families(only: list[str]) -> list[str]:
    """Registered task ids, without mixtures, filtered by ``--only`` substrings."""
    import palaestra

    ids = [s.id for s in palaestra.list_envs("task") if "mixture" not in s.tags]
    return [i for i in ids if not only or any(o.lower() in i.lower() for o in only)]


def ms(seconds: float) -> str:
    """Seconds as milliseconds, three significant figures."""
    value = seconds * 1000
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


def latency_table(ids: list[str], levels: list[int], n: int, budget_s: float) -> list[str]:
    """Part 1; returns the ids that miss the bar or fail."""
    print(f"\n## Generation latency (ms per instance; p50 / p99 over up to {n} instances)\n")
    header = "| family | " + " | ".join(f"L{lv} p50 | L{lv} p99" for lv in levels) + " | bar |"
    print(header)
    print("|" + "---|" * (2 + 2 * len(levels)))
    flagged = []
    for env_id in ids:
        cells, verdict = [], "ok"
        for level in levels:
            result = measure.in_child(
                measure.latency, env_id, level, n, budget_s, timeout=budget_s + 120
            )
            if "error" in result:
                cells += ["error", "error"]
                verdict = f"ERROR L{level}: {result['error']}"
                continue
            short = "" if result["n"] >= n else f" (n={result['n']})"
            miss = not measure.meets_bar(level, result["p99"])
            cells += [ms(result["p50"]), ms(result["p99"]) + (" MISS" if miss else "") + short]
            if miss and verdict == "ok":
                verdict = "MISS"
        if verdict != "ok":
            flagged.append(f"{env_id}: {verdict}")
        print(f"| {env_id} | " + " | ".join(cells) + f" | {verdict} |", flush=True)
    return flagged


def ratio_text(ratio: float) -> str:
    """A speed ratio with two significant figures."""
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.2g}x"


def fmt(value: float | None) -> str:
    """A mean score, or '-'."""
    return "-" if value is None else f"{value:.2f}"


def compare(budget_s: float, n: int, robust_n: int, only: list[str]) -> list[str]:
    """Part 2; returns findings (our adversarial answers that paid, anchor errors)."""
    try:
        import reasoning_gym
    except ImportError:
        print("\nreasoning-gym is not installed (pip install -e '.[bench]'): side-by-side skipped.")
        return []
    pairs = [
        p
        for p in PAIRS
        if not only or any(o.lower() in p.ours.lower() or o.lower() in p.theirs for o in only)
    ]
    try:
        version = importlib.metadata.version("reasoning-gym")
    except importlib.metadata.PackageNotFoundError:
        version = getattr(reasoning_gym, "__version__", "?")
    rows, findings = [], []
    for pair in pairs:
        timeout = budget_s * 3 + 120
        ours = measure.in_child(measure.ours_side, pair, budget_s, n, robust_n, timeout=timeout)
        theirs = measure.in_child(measure.theirs_side, pair, budget_s, n, robust_n, timeout=timeout)
        rows.append((pair, ours, theirs))
        for side, result in (("ours", ours), ("reasoning-gym", theirs)):
            if "error" in result:
                findings.append(f"{pair.ours} / {pair.theirs}: {side} failed: {result['error']}")
        if "error" not in ours:
            for name, text, value in ours["paid"][:3]:
                findings.append(
                    f"BUG {pair.ours} L{pair.level}: {name} answer paid {value:.2f}: {text!r}"
                )
        print(f"  measured {pair.ours} vs {pair.theirs}", file=sys.stderr, flush=True)

    print(f"\n## Generation time beside reasoning-gym {version} (ms per instance, mean)\n")
    print("| ours (level) | reasoning-gym | settings | ours ms | theirs ms | ours faster by |")
    print("|---|---|---|---|---|---|")
    for pair, ours, theirs in rows:
        a = "error" if "error" in ours else ms(ours["mean_s"])
        b = "error" if "error" in theirs else ms(theirs["mean_s"])
        ratio = (
            "-"
            if "error" in ours or "error" in theirs
            else ratio_text(theirs["mean_s"] / ours["mean_s"])
        )
        print(
            f"| {pair.ours} (L{pair.level}) | {pair.theirs} | {pair.settings}"
            f" | {a} | {b} | {ratio} |"
        )

    print("\n## Scores of rewritten correct answers (mean; ours / reasoning-gym)\n")
    print(
        "Legitimate: exact, spacing, case. Adversarial (must be 0): hedged, list, both, padded.\n"
    )
    print("| family | " + " | ".join(measure.CLASSES) + " | adversarial pays | note |")
    print("|" + "---|" * (len(measure.CLASSES) + 3))
    for pair, ours, theirs in rows:
        cells = []
        for name in measure.CLASSES:
            a = "err" if "error" in ours else fmt(ours["means"][name])
            b = "err" if "error" in theirs else fmt(theirs["means"][name])
            cells.append(f"{a} / {b}")
        ours_pays = "error" not in ours and any(
            (ours["means"][c] or 0) > 0 for c in measure.ADVERSARIAL
        )
        theirs_pays = [
            c
            for c in measure.ADVERSARIAL
            if "error" not in theirs and (theirs["means"][c] or 0) > 0
        ]
        pays = ("ours: YES" if ours_pays else "ours: no") + (
            f"; theirs: {', '.join(theirs_pays)}" if theirs_pays else ""
        )
        note = pair.note or theirs.get("note", "")
        if "error" not in theirs and theirs.get("errors"):
            note = (note + "; " if note else "") + f"their scorer raised {theirs['errors']}x"
        print(f"| {pair.ours} / {pair.theirs} | " + " | ".join(cells) + f" | {pays} | {note} |")

    shared = [r for r in rows if "error" not in r[1] and "error" not in r[2]]
    partial = [r for r in shared if any((r[2]["means"][c] or 0) > 0 for c in measure.ADVERSARIAL)]
    clean = [
        r for r in partial if not any((r[1]["means"][c] or 0) > 0 for c in measure.ADVERSARIAL)
    ]
    print(
        f"\nreasoning-gym pays for a hedged or padded answer on {len(partial)} of {len(shared)}"
        " shared families;"
        f" Palaestra pays 0 on {len(clean)} of those {len(partial)}."
    )
    return findings


def sweep(ids: list[str], levels: list[int], robust_n: int) -> list[str]:
    """Part 3: the adversarial variants on every family of ours (not only shared ones)."""
    from bench.tasks.pairs import Pair

    print(f"\n## Adversarial answers on every family (ours; {robust_n} instances per level)\n")
    findings, cells = [], 0
    for env_id in ids:
        for level in levels:
            pair = Pair(env_id, level, "-")
            result = measure.in_child(measure.ours_side, pair, 5.0, robust_n, robust_n, timeout=300)
            cells += 1
            if "error" in result:
                findings.append(f"{env_id} L{level}: sweep failed: {result['error']}")
                continue
            for name, text, value in result["paid"][:3]:
                findings.append(f"BUG {env_id} L{level}: {name} answer paid {value:.2f}: {text!r}")
    paying = sum(1 for f in findings if f.startswith("BUG"))
    print(f"{len(ids)} families x {len(levels)} levels: {paying} adversarial answers paid.")
    return findings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.tasks", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--n", type=int, default=200, help="instances per family and level (default 200)"
    )
    parser.add_argument("--levels", default="1,5,10", help="levels to time (default 1,5,10)")
    parser.add_argument(
        "--budget",
        type=float,
        default=30.0,
        help="seconds of generation per cell before stopping early",
    )
    parser.add_argument(
        "--compare-budget",
        type=float,
        default=4.0,
        help="seconds of generation per library and pair",
    )
    parser.add_argument(
        "--robust-n",
        type=int,
        default=20,
        help="instances per pair scored with variants (default 20)",
    )
    parser.add_argument("--only", default="", help="comma-separated substrings of ids to keep")
    parser.add_argument(
        "--clock",
        choices=sorted(measure.CLOCKS),
        default="cpu",
        help="process CPU time or wall time",
    )
    parser.add_argument("--no-latency", action="store_true", help="skip part 1")
    parser.add_argument("--no-sweep", action="store_true", help="skip part 3")
    parser.add_argument("--no-compare", action="store_true", help="skip part 2")
    args = parser.parse_args(argv)
    if args.n < 1 or args.robust_n < 1:
        parser.error("--n and --robust-n must be at least 1")
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    only = [x.strip() for x in args.only.split(",") if x.strip()]

    measure.clock = measure.CLOCKS[args.clock]
    started = time.perf_counter()
    print(f"# Task benchmark ({load()} at start; {args.clock} time)")
    flagged = [] if args.no_latency else latency_table(families(only), levels, args.n, args.budget)
    findings = [] if args.no_compare else compare(args.compare_budget, args.n, args.robust_n, only)
    if not args.no_sweep:
        findings += sweep(families(only), levels, args.robust_n)
    print(f"\nFamilies over the bar or failing: {len(flagged)}")
    for line in flagged:
        print(f"- {line}")
    print(f"Findings (side-by-side and sweep): {len(findings)}")
    for line in findings:
        print(f"- {line}")
    print(f"\nDone in {time.perf_counter() - started:.0f}s; {load()} at end.")


if __name__ == "__main__":
    main()
