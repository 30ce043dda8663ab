"""Which reasoning-gym scorers pay for hedged answers, over every dataset of the installed version.

    python -m bench.rg_hedges [--n 10] [--seed 0]

For each dataset, ``--n`` items through ``palaestra.make("rg:<dataset>")`` (the oracle's answer
is the right one R; other items' answers, or a one-character nudge of R, are the wrong ones W),
then the dataset's own ``score_answer`` on the rewrites `bench.tasks.measure` defines: the
legitimate exact answer, and the adversarial ones that must score 0 (hedged "R or W", candidate
lists, "R W" both-options, R padded with text). It prints a markdown table of the mean score of
each class and the datasets whose scorer paid for any adversarial rewrite: the list
docs/reasoning_gym.md flags. Datasets whose oracle cannot answer (`NO_ORACLE`) are skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import sys

import palaestra
from bench.tasks import measure
from palaestra.integrations import reasoning_gym as rg
from palaestra.parsers import find_tags


def items(name: str, n: int, seed: int) -> list[tuple[str, list[str], object]]:
    """``(right, wrongs, score)`` for ``n`` items of ``name``, as `measure.score_classes` wants."""
    env = palaestra.make(f"rg:{name}")
    drawn = []
    for index in range(n):
        env.reset(seed=seed + index)
        right = find_tags(env.oracle_action(), "answer")[0].body
        drawn.append((right, env.data_, env.entry_))
    answers = [right for right, _, _ in drawn]
    out = []
    for right, data, entry in drawn:

        def score(text: str, data=data, entry=entry) -> float:
            return float(data.score_answer(text, entry))

        others = [a for a in answers if a != right]
        out.append((right, measure.pick_wrongs(right, others, score), score))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10, help="items per dataset")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    version = importlib.metadata.version("reasoning-gym")
    print(f"reasoning-gym {version}, {args.n} items per dataset, seed {args.seed}\n")
    classes = ("exact", *measure.ADVERSARIAL)
    print("| dataset | " + " | ".join(classes) + " |")
    print("|---" * (len(classes) + 1) + "|")
    paying = []
    for name in rg.dataset_names():
        if name in rg.NO_ORACLE:
            continue
        with contextlib.redirect_stdout(io.StringIO()):  # bf's interpreter prints progress dots
            result = measure.score_classes(items(name, args.n, args.seed))
        means = result["means"]
        cells = ["-" if means[c] is None else f"{means[c]:.2f}" for c in classes]
        print(f"| {name} | " + " | ".join(cells) + " |")
        if result["paid"]:
            paying.append(name)
    listed = ", ".join(paying)
    print(f"\n{len(paying)} datasets pay for a hedged, listed or padded answer: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
