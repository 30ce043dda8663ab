"""Throughput and latency: `verify_batch("math", ...)` vs plain math-verify item by item.

10,000 mixed math items (integers, fractions, decimals, radicals, symbolic expressions,
intervals, sets, tuples, equations, percent and units, matrices), half right and half wrong,
1% pathological (power towers, huge factorials, expressions that blow up inside sympy). Both
verifiers see the same items in the same run. Plain math-verify runs with its defaults
(``verify(parse("\\boxed{ref}"), parse(completion))``, its own 5 s SIGALRM timeouts), one item
at a time in the main thread, which is how most training code calls it.

Latency of an item: for Palaestra, the verdict's ``elapsed_s`` (its own service time: the
in-process stage plus the time in a worker, not time queued behind other items); for
math-verify, the wall time of its call. Run:

    python bench/verifiers/bench.py            # 10,000 items (math-verify alone takes ~10 min)
    python bench/verifiers/bench.py --n 2000   # quicker
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

PATHOLOGICAL = [
    ("9^{9^{9^9}}", "5"),
    ("(10^{10})!", "5"),
    ("10^{10^{10}}", "7"),
    ("\\sqrt{9^{9^{9^9}}}", "3"),
    ("2^{2^{40}} - 2^{2^{40}} + 1", "1"),
    ("\\sqrt{3}^{10^{8}}", "9"),
    ("(x+1)^{200000} - x", "1"),
    ("\\frac{(10^{5})!}{(10^{5}-1)!}", "100000"),
]


def _items(n: int, seed: int) -> list[tuple[str, str, str]]:
    """(kind, completion, reference) triples, deterministic in `seed`."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    styles = [
        "Working it out, the result follows.\n\nTherefore, the answer is $\\boxed{{{a}}}$.",
        "<think>\nSome reasoning about the problem.\n</think>\n\nThe final answer is $\\boxed{{{a}}}$.",  # noqa: E501
        "We compute step by step.\n\\[\n\\boxed{{{a}}}\n\\]",
    ]

    def integer():
        v = int(rng.integers(-500, 5000))
        return str(v), str(v if rng.random() < 0.5 else v + int(rng.integers(1, 9)))

    def fraction():
        a, b = int(rng.integers(1, 90)), int(rng.integers(2, 90))
        k = int(rng.integers(1, 4))
        ans = f"\\frac{{{a * k}}}{{{b * k}}}" if rng.random() < 0.5 else f"\\frac{{{a + 1}}}{{{b}}}"
        return ans, f"\\frac{{{a}}}{{{b}}}"

    def decimal():
        v = round(float(rng.uniform(0, 100)), 2)
        return (f"{v:.2f}" if rng.random() < 0.5 else f"{v + 0.01:.2f}"), f"{v:.2f}"

    def radical():
        a, b = int(rng.integers(2, 9)), int(rng.choice([2, 3, 5, 6, 7]))
        ans = f"\\sqrt{{{a * a * b}}}" if rng.random() < 0.5 else f"{a}\\sqrt{{{b + 1}}}"
        return ans, f"{a}\\sqrt{{{b}}}"

    def symbolic():
        a, b = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        ans = f"x^2+{a + b}x+{a * b}" if rng.random() < 0.5 else f"x^2+{a + b}x+{a * b + 1}"
        return ans, f"(x+{a})(x+{b})"

    def interval():
        a, b = sorted(int(x) for x in rng.choice(np.arange(-20, 20), 2, replace=False))
        forms = [f"({a},{b}]", f"{a} < x \\le {b}", f"[{a},{b}]"]
        return forms[int(rng.integers(0, 3))], f"({a},{b}]"

    def tuple_or_set():
        a, b = int(rng.integers(-9, 9)), int(rng.integers(-9, 9))
        if rng.random() < 0.5:
            return (f"({a}, {b})" if rng.random() < 0.5 else f"({b}, {a + 1})"), f"({a}, {b})"
        return (f"\\{{{b}, {a}\\}}" if rng.random() < 0.5 else f"\\{{{a}\\}}"), f"\\{{{a}, {b}\\}}"

    def equation():
        m, c = int(rng.integers(1, 9)), int(rng.integers(-9, 9))
        ans = f"y={m}x+{c}" if rng.random() < 0.5 else f"y={m}x+{c + 1}"
        return ans, f"y = {m}x + {c}"

    def percent_units():
        v = int(rng.integers(1, 100))
        forms = [f"{v}\\%", f"{v}", f"{v} \\text{{ cm}}", f"{v + 1}\\%"]
        return forms[
            int(rng.integers(0, 4))
        ], f"{v}\\%" if rng.random() < 0.5 else f"{v} \\text{{ cm}}"

    def matrix():
        a, b, c, d = (int(x) for x in rng.integers(-5, 5, 4))
        ref = f"\\begin{{pmatrix}} {a} & {b} \\\\ {c} & {d} \\end{{pmatrix}}"
        ans = (
            ref
            if rng.random() < 0.5
            else f"\\begin{{pmatrix}} {a} & {c} \\\\ {b} & {d + 1} \\end{{pmatrix}}"
        )
        return ans, ref

    mix = [
        ("integer", integer, 0.40),
        ("fraction", fraction, 0.15),
        ("decimal", decimal, 0.10),
        ("radical", radical, 0.08),
        ("symbolic", symbolic, 0.07),
        ("interval", interval, 0.05),
        ("tuple/set", tuple_or_set, 0.05),
        ("equation", equation, 0.04),
        ("percent/units", percent_units, 0.03),
        ("matrix", matrix, 0.02),
    ]
    weights = np.array([w for _, _, w in mix])
    out = []
    n_bad = max(1, n // 100)
    bad_at = set(int(i) for i in rng.choice(n, n_bad, replace=False))
    for i in range(n):
        style = styles[int(rng.integers(0, len(styles)))]
        if i in bad_at:
            ans, ref = PATHOLOGICAL[len([j for j in bad_at if j < i]) % len(PATHOLOGICAL)]
            out.append(("pathological", style.format(a=ans), ref))
            continue
        kind, make, _ = mix[int(rng.choice(len(mix), p=weights / weights.sum()))]
        ans, ref = make()
        out.append((kind, style.format(a=ans), ref))
    return out


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) if values else float("nan")


def run_ours(items, timeout_s: float):
    from palaestra import verifiers
    from palaestra.verifiers.pool import default_pool

    # Start the workers before timing, as a training job's first step would have.
    verifiers.verify_batch("math", [("\\boxed{\\sqrt{4}}", "2")] * 4, timeout_s=timeout_s)
    start = time.perf_counter()
    verdicts = verifiers.verify_batch("math", [(c, r) for _, c, r in items], timeout_s=timeout_s)
    wall = time.perf_counter() - start
    pool = default_pool()
    pids = pool.pids + [pool.factory_pid]
    from palaestra.verifiers.pool import shutdown_default_pool

    shutdown_default_pool()
    time.sleep(0.5)
    leftovers = [
        p
        for p in pids
        if p
        and os.path.exists(f"/proc/{p}")
        and "Z" not in open(f"/proc/{p}/stat").read().split()[2]
    ]
    return verdicts, wall, leftovers


def run_math_verify(items):
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    results, latencies = [], []
    start = time.perf_counter()
    for _, completion, reference in items:
        t = time.perf_counter()
        ok = verify(parse("\\boxed{" + reference + "}"), parse(completion))
        latencies.append(time.perf_counter() - t)
        results.append(bool(ok))
    return results, latencies, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="per-item limit for verify_batch"
    )
    parser.add_argument("--skip-math-verify", action="store_true")
    args = parser.parse_args()

    items = _items(args.n, args.seed)
    normal = [i for i, it in enumerate(items) if it[0] != "pathological"]
    print(
        f"items: {len(items)} ({len(items) - len(normal)} pathological); cpus: {os.cpu_count()}; "
        f"load: {os.getloadavg()[0]:.2f}"
    )

    ordinary_items = [items[i] for i in normal]
    _, wall_ours_ordinary, _ = run_ours(ordinary_items, args.timeout)
    verdicts, wall_ours, leftovers = run_ours(items, args.timeout)
    lat_ours = [v.elapsed_s for v in verdicts]
    over = max(v.elapsed_s - args.timeout for v in verdicts)
    rows = [("palaestra verify_batch", wall_ours, lat_ours, len(normal) / wall_ours_ordinary)]
    if not args.skip_math_verify:
        _, lat_mv, wall_mv = run_math_verify(items)
        # Called serially, so the time spent on ordinary items is the sum of their latencies.
        rows.append(
            (
                "math-verify, item by item",
                wall_mv,
                lat_mv,
                len(normal) / sum(lat_mv[i] for i in normal),
            )
        )

    print()
    print(
        f"{'':<28}{'items/s':>9}{'wall s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'ordinary items/s':>18}"  # noqa: E501
    )
    for name, wall, lat, ordinary_rate in rows:
        print(
            f"{name:<28}{len(items) / wall:>9.0f}{wall:>9.1f}{_pct(lat, 50) * 1e3:>9.2f}"
            f"{_pct(lat, 99) * 1e3:>9.1f}{max(lat) * 1e3:>9.0f}{ordinary_rate:>18.0f}"
        )
    if len(rows) == 2:
        print(
            f"\nthroughput ratio, all items: {rows[1][1] / rows[0][1]:.1f}x; "
            f"ordinary items only: {rows[0][3] / rows[1][3]:.1f}x"
        )
    statuses = {}
    for v in verdicts:
        statuses[v.status.value] = statuses.get(v.status.value, 0) + 1
    patho = [verdicts[i] for i, it in enumerate(items) if it[0] == "pathological"]
    print(f"\npalaestra statuses: {statuses}")
    print(
        f"pathological items: {sum(v.status.value == 'timeout' for v in patho)}/{len(patho)} timeout, "  # noqa: E501
        f"{sum(v.correct for v in patho)} correct, slowest {max(v.elapsed_s for v in patho):.2f} s"
    )
    print(
        f"per-item limit {args.timeout:.1f} s; largest overrun: {max(over, 0.0):.3f} s; "
        f"workers left behind after shutdown: {len(leftovers)}"
    )


if __name__ == "__main__":
    main()
