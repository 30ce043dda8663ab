"""Precision and recall on the labelled math set: Palaestra's math verifier vs plain math-verify.

Plain math-verify runs with its default settings, the way its README shows:
``verify(parse("\\boxed{" + reference + "}"), parse(completion))`` (its own SIGALRM timeouts on,
so it runs in the main thread of this process).

Run:  python bench/verifiers/labelled.py            (prints a table)
      python bench/verifiers/labelled.py --json     (prints one JSON object, used by the tests)
      python bench/verifiers/labelled.py --errors   (also lists every disagreement with a label)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "math_labelled.jsonl"


def load(path: Path = DATA) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def ours(rows: list[dict]) -> list[bool]:
    from palaestra import verifiers

    verdicts = verifiers.verify_batch("math", [(r["completion"], r["reference"]) for r in rows])
    return [v.correct for v in verdicts]


def plain_math_verify(rows: list[dict]) -> list[bool]:
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    out = []
    for r in rows:
        gold = parse("\\boxed{" + r["reference"] + "}")
        pred = parse(r["completion"])
        out.append(bool(verify(gold, pred)))
    return out


def scores(predicted: list[bool], labels: list[bool]) -> dict:
    tp = sum(p and y for p, y in zip(predicted, labels, strict=False))
    fp = sum(p and not y for p, y in zip(predicted, labels, strict=False))
    fn = sum(not p and y for p, y in zip(predicted, labels, strict=False))
    tn = sum(not p and not y for p, y in zip(predicted, labels, strict=False))
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "accuracy": (tp + tn) / len(labels),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    rows = load()
    labels = [r["label"] for r in rows]
    t0 = time.perf_counter()
    a = ours(rows)
    t1 = time.perf_counter()
    b = plain_math_verify(rows)
    t2 = time.perf_counter()
    result = {
        "n": len(rows),
        "positives": sum(labels),
        "palaestra": {**scores(a, labels), "seconds": t1 - t0},
        "math_verify": {**scores(b, labels), "seconds": t2 - t1},
    }
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"labelled set: {len(rows)} pairs ({sum(labels)} equivalent, {len(rows) - sum(labels)} not)"
    )
    print(
        f"{'verifier':<28}{'precision':>10}{'recall':>9}{'accuracy':>10}{'FP':>5}{'FN':>5}{'seconds':>9}"
    )
    for name, key in (
        ("palaestra math", "palaestra"),
        ("math-verify 0.9.0 (defaults)", "math_verify"),
    ):
        s = result[key]
        print(
            f"{name:<28}{s['precision']:>10.3f}{s['recall']:>9.3f}{s['accuracy']:>10.3f}"
            f"{s['fp']:>5}{s['fn']:>5}{s['seconds']:>9.2f}"
        )
    subsets = {
        "boxed completions": [i for i, r in enumerate(rows) if "\\boxed" in r["completion"]],
        "<answer> tags": [i for i, r in enumerate(rows) if "<answer>" in r["completion"]],
        "'Final answer:' lines": [
            i for i, r in enumerate(rows) if "Final answer:" in r["completion"]
        ],
    }
    print("\nby completion style (precision / recall):")
    for name, idx in subsets.items():
        sub_labels = [labels[i] for i in idx]
        ours_s = scores([a[i] for i in idx], sub_labels)
        mv_s = scores([b[i] for i in idx], sub_labels)
        print(
            f"  {name:<24} n={len(idx):<4} "
            f"palaestra {ours_s['precision']:.3f} / {ours_s['recall']:.3f}"
            f"   math-verify {mv_s['precision']:.3f} / {mv_s['recall']:.3f}"
        )
    if args.errors:
        for name, pred in (("palaestra", a), ("math-verify", b)):
            for r, p in zip(rows, pred, strict=False):
                if p != r["label"]:
                    kind = "FP" if p else "FN"
                    print(
                        f"{name} {kind} {r['id']}: {r['reference']!r} <- {r['completion'][-80:]!r}"
                    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
