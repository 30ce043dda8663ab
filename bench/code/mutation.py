"""Mutation score of the shipped problems' hidden tests: do they catch near-miss programs?

    python -m bench.code.mutation                              # all 150 problems
    python -m bench.code.mutation --problems 'arithmetic/*' is_prime --jobs 4
    python -m bench.code.mutation --show killed --json out.json

Every first-order mutant of each problem's reference solution (`palaestra.envs.code.mutation`
lists the operators: flipped or negated comparisons, constants and range/slice bounds plus
or minus 1, swapped arithmetic and boolean operators, negated conditions, deleted statements,
constant returns, swapped break/continue and min/max) runs against the problem's hidden
tests through the judge the envs use. A mutant is killed when a hidden test fails on it; one
that passes them all must be listed in the problem's ``EQUIVALENT_MUTANTS`` with a reason, or
the problem fails the check. For each survivor the first public or perturbed input where it
differs from the reference is printed: a lead for a new hidden test.

Prints the operators, one line per problem (mutants, killed, listed equivalent, survivors,
score) and the overall score, killed / non-equivalent mutants. Exits 1 when a problem fails
the check (a survivor, a stale equivalent listing, a reference that fails its tests).
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import sys
import time

from palaestra.envs.code import problems
from palaestra.envs.code.mutation import (
    EQUIVALENT,
    KILLED,
    OPERATORS,
    SURVIVED,
    ProblemReport,
    check_shipped,
)


def matching(patterns: list[str] | None) -> list[str]:
    """The shipped ids that match any pattern (an id, a glob, or a name after the slash)."""
    ids = problems.select()
    if not patterns:
        return ids
    chosen = [
        i
        for i in ids
        if any(fnmatch.fnmatch(i, p) or fnmatch.fnmatch(i.split("/")[1], p) for p in patterns)
    ]
    if not chosen:
        raise SystemExit(f"no shipped problem matches {patterns}; ids look like 'strings/anagram'")
    return chosen


def overall(reports: list[ProblemReport]) -> dict[str, int | float]:
    """Totals over the reports: mutants, killed, equivalent, survived, score."""
    killed = sum(r.count(KILLED) for r in reports)
    survived = sum(r.count(SURVIVED) for r in reports)
    return {
        "problems": len(reports),
        "mutants": sum(len(r.outcomes) for r in reports),
        "killed": killed,
        "equivalent": sum(r.count(EQUIVALENT) for r in reports),
        "survived": survived,
        "score": killed / (killed + survived) if killed + survived else 1.0,
        "failing_problems": sum(not r.passed for r in reports),
    }


def _print_report(report: ProblemReport, show: str) -> None:
    mark = "ok  " if report.passed else "FAIL"
    print(
        f"{mark} {report.problem_id:42} {len(report.outcomes):4d} mutants  "
        f"{report.count(KILLED):4d} killed  {report.count(EQUIVALENT):3d} equivalent  "
        f"{report.count(SURVIVED):3d} survived  {100 * report.score:6.2f}%"
    )
    for error in report.errors:
        print(f"       error: {error}")
    shown = {"survivors": (SURVIVED,), "equivalent": (SURVIVED, EQUIVALENT)}.get(
        show, (SURVIVED, EQUIVALENT, KILLED)
    )
    for outcome in report.outcomes:
        if outcome.status in shown:
            print(f"       {outcome.status:10} {outcome.mutant.id}: {outcome.detail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", help="ids, globs or names (default: all)")
    parser.add_argument("--jobs", type=int, default=4, help="sandbox runs at once (default 4)")
    parser.add_argument(
        "--show",
        choices=("survivors", "equivalent", "killed"),
        default="survivors",
        help="mutants to list under each problem: survivors, also equivalent, or all",
    )
    parser.add_argument("--fuzz", type=int, default=300, help="perturbed inputs per survivor")
    parser.add_argument(
        "--sample",
        type=int,
        default=1,
        help="run one mutant in N, a fixed choice by id (the slow test's sample); default all",
    )
    parser.add_argument("--json", help="also write the per-mutant outcomes to this file")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.sample < 1:
        parser.error("--jobs and --sample must be at least 1")
    from palaestra import sandbox

    ids = matching(args.problems)
    print("Mutation operators:")
    for name, edit in OPERATORS.items():
        print(f"  {name:9} {edit}")
    print()
    backend = sandbox.get_backend("python", max_concurrency=args.jobs)
    start = time.perf_counter()
    try:
        reports = asyncio.run(
            check_shipped(
                ids,
                backend=backend,
                sample=args.sample,
                fuzz=args.fuzz,
                at_once=max(2, args.jobs // 2),
                on_report=lambda report: _print_report(report, args.show),
            )
        )
    finally:
        backend.close()
    totals = overall(reports)
    print(
        f"\nmutation score: {totals['killed']}/{totals['killed'] + totals['survived']} = "
        f"{100 * totals['score']:.2f}% of non-equivalent mutants killed "
        f"({totals['mutants']} mutants, {totals['equivalent']} listed equivalent, "
        f"{totals['survived']} survived) over {totals['problems']} problems; "
        f"{totals['failing_problems']} problems fail the check "
        f"[{time.perf_counter() - start:.0f} s]"
    )
    if args.json:
        rows = [
            {
                "problem": r.problem_id,
                "errors": list(r.errors),
                "mutants": [
                    {"id": o.mutant.id, "status": o.status, "detail": o.detail} for o in r.outcomes
                ],
            }
            for r in reports
        ]
        with open(args.json, "w") as f:
            json.dump({"overall": totals, "problems": rows}, f, indent=1)
    return 1 if totals["failing_problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
