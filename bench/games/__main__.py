"""Games benchmark: resets/s and steps/s beside GEM and TextArena, and every game's p50.

    python -m bench.games [--seconds 4] [--only Sokoban,TicTacToe] [--markdown]

The first table has one row per game with matching settings in each library (stated in
the row). A seeded random policy plays each library's own action syntax; only ``reset``
and ``step`` are timed (TextArena's ``get_observation`` too, since its ``step`` returns
none), for ``--seconds`` per library and game split into ``--rounds`` interleaved rounds,
keeping each library's best round (the machine may be shared). Palaestra's envs come from
``palaestra.make`` with their registry limits, as users get them; two-player games use the
multi-agent form (one move per step, like TextArena's). Beside the rates, Palaestra's
median microseconds per call (p50) of ``reset`` and ``step``. "fails offline" marks an env
that tried to download data (NLTK word lists) on this machine without internet; "not
installed" an anchor library this machine lacks.

The second table has every registered game as ``palaestra.make(id)`` gives it (default
arguments; a two-player id's step includes its built-in opponent's reply), with the p50 of
``reset`` and ``step`` against the `BUDGET_US` budget.

The anchors need the ``bench`` extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

Policy = Callable[[Any, np.random.Generator], str]

BUDGET_US = 100.0
"""The most microseconds a game's reset or step may take at the median (p50)."""


@dataclasses.dataclass
class Result:
    """Throughput and median call time of one library on one game, or why there are none."""

    resets: float | None = None
    steps: float | None = None
    reset_p50: float | None = None
    """Median microseconds per reset."""
    step_p50: float | None = None
    """Median microseconds per step."""
    note: str = ""


@dataclasses.dataclass
class Runner:
    """How to drive one library's env: make, reset, step (-> done) and a random action."""

    make: Callable[[], Any]
    reset: Callable[[Any, int], None]
    step: Callable[[Any, str], bool]
    action: Policy


def measure(runner: Runner, seconds: float, max_steps: int = 400) -> Result:
    """Plays seeded episodes until ``seconds`` of timed work (at least 3 episodes)."""
    rng = np.random.default_rng(0)
    reset_times: list[float] = []
    step_times: list[float] = []
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            env = runner.make()
            while len(reset_times) < 3 or sum(reset_times) + sum(step_times) < seconds:
                start = time.perf_counter()
                runner.reset(env, len(reset_times))
                reset_times.append(time.perf_counter() - start)
                for _ in range(max_steps):
                    action = runner.action(env, rng)
                    start = time.perf_counter()
                    done = runner.step(env, action)
                    step_times.append(time.perf_counter() - start)
                    if done:
                        break
    except ImportError:
        return Result(note="not installed")
    except LookupError as error:  # NLTK's "Resource ... not found"
        text = str(error)
        return Result(
            note="fails offline" if "nltk" in text.lower() or "Resource" in text else text[:60]
        )
    except Exception as error:  # an anchor that cannot run is a row, not a crash
        return Result(note=f"error: {type(error).__name__}: {str(error)[:60]}")
    return Result(
        resets=len(reset_times) / sum(reset_times),
        steps=len(step_times) / sum(step_times) if step_times else None,
        reset_p50=statistics.median(reset_times) * 1e6,
        step_p50=statistics.median(step_times) * 1e6 if step_times else None,
    )


def best_of(runners: list[Runner | None], seconds: float, rounds: int) -> list[Result]:
    """Each runner measured ``rounds`` times, interleaved, keeping its best rates.

    The machine is shared: interleaving exposes every library to the same load, and the
    best round is the least disturbed one (the highest rates, the lowest medians).
    """
    best = [Result(note="-") if r is None else Result() for r in runners]
    for _ in range(rounds):
        for index, runner in enumerate(runners):
            if runner is None or best[index].note:
                continue
            result = measure(runner, seconds / rounds)
            if result.note:
                best[index] = result
                continue
            old = best[index]
            best[index] = Result(
                resets=_best(max, result.resets, old.resets),
                steps=_best(max, result.steps, old.steps),
                reset_p50=_best(min, result.reset_p50, old.reset_p50),
                step_p50=_best(min, result.step_p50, old.step_p50),
            )
    return best


def _best(pick: Callable[[float, float], float], new: float | None, old: float | None):
    """``pick`` of two measurements, either of which may be missing."""
    if new is None or old is None:
        return old if new is None else new
    return pick(new, old)


# --- Palaestra ---------------------------------------------------------------------------


def ours(env_id: str, **kwargs: Any) -> Runner:
    import palaestra

    def step(env: Any, action: str) -> bool:
        _, _, terminated, truncated, _ = env.step(action)
        return terminated or truncated

    return Runner(
        make=lambda: palaestra.make(env_id, **kwargs),
        reset=lambda env, seed: env.reset(seed=seed),
        step=step,
        action=lambda env, rng: env.unwrapped.random_action(rng),
    )


def ours_two_player(env_id: str, **kwargs: Any) -> Runner:
    from palaestra.multiagent import make

    def step(game: Any, action: str) -> bool:
        game.step({game.acting[0]: action})
        return not game.acting

    def action(game: Any, rng: np.random.Generator) -> str:
        agent = game.acting[0]
        moves = game.legal_moves(agent)
        return game.move_text(agent, moves[int(rng.integers(len(moves)))])

    return Runner(
        make=lambda: make(env_id, **kwargs),
        reset=lambda g, seed: g.reset(seed=seed),
        step=step,
        action=action,
    )


# --- GEM ---------------------------------------------------------------------------------


def gem(env_id: str, action: Policy) -> Runner:
    def make() -> Any:
        import gem as gem_library

        return gem_library.make(env_id)

    def step(env: Any, text: str) -> bool:
        _, _, terminated, truncated, _ = env.step(text)
        return terminated or truncated

    return Runner(make=make, reset=lambda env, seed: env.reset(seed=seed), step=step, action=action)


# --- TextArena ---------------------------------------------------------------------------


def textarena(env_id: str, action: Policy, players: int = 1) -> Runner:
    def make() -> Any:
        import textarena as ta

        return ta.make(env_id)

    def reset(env: Any, seed: int) -> None:
        env.reset(num_players=players, seed=seed)
        env.get_observation()

    def step(env: Any, text: str) -> bool:
        done, _ = env.step(text)
        if not done:
            env.get_observation()
        return done

    return Runner(make=make, reset=reset, step=step, action=action)


def _choice(options: list[str]) -> Policy:
    return lambda env, rng: options[int(rng.integers(len(options)))]


def _grid(template: str, rows: int, columns: int) -> Policy:
    return lambda env, rng: template.format(r=int(rng.integers(rows)), c=int(rng.integers(columns)))


def _code(template: str, pegs: int, colors: int) -> Policy:
    return lambda env, rng: template.format(
        " ".join(str(d) for d in rng.permutation(colors)[:pegs] + 1)
    )


def _ta_tic_tac_toe(env: Any, rng: np.random.Generator) -> str:
    board = env.state.game_state["board"]
    free = [r * 3 + c for r in range(3) for c in range(3) if board[r][c] == ""]
    return f"[{free[int(rng.integers(len(free)))]}]"


def _ta_connect_four(env: Any, rng: np.random.Generator) -> str:
    board = env.state.game_state["board"]
    free = [c for c in range(len(board[0])) if board[0][c] == "."]
    return f"[col {free[int(rng.integers(len(free)))]}]"


_DIRECTIONS = ["up", "down", "left", "right"]

ROWS: list[tuple[str, str, Runner, Runner | None, Runner | None]] = [
    (
        "Sokoban (6x6 with walls, 2 boxes)",
        "ours size=4 boxes=2; GEM Sokoban-v0-easy; TextArena Sokoban-v0 (3 boxes)",
        ours("Sokoban-v0", size=4, boxes=2),
        gem("game:Sokoban-v0-easy", _choice([f"\\boxed{{{d}}}" for d in _DIRECTIONS])),
        textarena("Sokoban-v0", _choice([f"[{d}]" for d in _DIRECTIONS])),
    ),
    (
        "Sokoban (8x8 with walls, 4 boxes)",
        "ours size=6 boxes=4; GEM Sokoban-v0-hard",
        ours("Sokoban-v0", size=6, boxes=4),
        gem("game:Sokoban-v0-hard", _choice([f"\\boxed{{{d}}}" for d in _DIRECTIONS])),
        None,
    ),
    (
        "Minesweeper (5x5, 5 mines)",
        "ours level=2; GEM Minesweeper-v0-easy",
        ours("Minesweeper-v1", level=2),
        gem("game:Minesweeper-v0-easy", _grid("\\boxed{{reveal {r} {c}}}", 5, 5)),
        None,
    ),
    (
        "Minesweeper (8x8, 10 mines)",
        "ours level=5; TextArena Minesweeper-v0",
        ours("Minesweeper-v1", level=5),
        None,
        textarena("Minesweeper-v0", _grid("[{r} {c}]", 8, 8)),
    ),
    (
        "Wordle (5 letters, 6 guesses)",
        "ours level=4; GEM Wordle-v0-hard; TextArena Wordle-v0",
        ours("Wordle-v0", level=4),
        gem("game:Wordle-v0-hard", _choice(["\\boxed{crane}", "\\boxed{slate}"])),
        textarena("Wordle-v0", _choice(["[crane]", "[slate]"])),
    ),
    (
        "Mastermind (2 of 6, no repeats)",
        "ours pegs=2 colors=6 repeats=False; GEM Mastermind-v0-easy",
        ours("Mastermind-v0", pegs=2, colors=6, repeats=False, max_guesses=10),
        gem("game:Mastermind-v0-easy", _code("\\boxed{{{}}}", 2, 6)),
        None,
    ),
    (
        "Mastermind (4 of 6, no repeats)",
        "ours pegs=4 colors=6 repeats=False; TextArena Mastermind-v0",
        ours("Mastermind-v0", pegs=4, colors=6, repeats=False, max_guesses=20),
        None,
        textarena("Mastermind-v0", _code("[{}]", 4, 6)),
    ),
    (
        "Hangman",
        "ours level=3; GEM Hangman-v0-easy; TextArena Hangman-v0",
        ours("Hangman-v0", level=3),
        gem("game:Hangman-v0-easy", _choice([f"\\boxed{{{ch}}}" for ch in "etaoinshrdlu"])),
        textarena("Hangman-v0", _choice([f"[{ch}]" for ch in "etaoinshrdlu"])),
    ),
    (
        "2048 (4x4, target 64)",
        "ours target=64; GEM Game2048-v0-easy",
        ours("Game2048-v0", target=64, max_moves=50),
        gem("game:Game2048-v0-easy", _choice([f"\\boxed{{{d}}}" for d in _DIRECTIONS])),
        None,
    ),
    (
        "2048 (4x4, target 2048)",
        "ours target=2048; TextArena 2048-v0",
        ours("Game2048-v0", target=2048, max_moves=400),
        None,
        textarena("2048-v0", _choice([f"[{d}]" for d in _DIRECTIONS])),
    ),
    (
        "FrozenLake (4x4)",
        "ours size=4; TextArena FrozenLake-v0 (3 holes)",
        ours("FrozenLake-v0", size=4, holes=0.2),
        None,
        textarena("FrozenLake-v0", _choice([f"[{d}]" for d in _DIRECTIONS])),
    ),
    (
        "Tower of Hanoi (3 disks, all on A, target C)",
        "ours disks=3 start=classic; GEM TowerofHanoi-v0-easy; TextArena TowerOfHanoi-v0",
        ours("TowerOfHanoi-v0", disks=3, start="classic"),
        gem(
            "game:TowerofHanoi-v0-easy",
            _choice([f"\\boxed{{{a} {b}}}" for a in "ABC" for b in "ABC" if a != b]),
        ),
        textarena(
            "TowerOfHanoi-v0", _choice([f"[{a} {b}]" for a in "ABC" for b in "ABC" if a != b])
        ),
    ),
    (
        "Tic-tac-toe (two players)",
        "ours multi-agent form; TextArena TicTacToe-v0",
        ours_two_player("TicTacToe-v0"),
        None,
        textarena("TicTacToe-v0", _ta_tic_tac_toe, players=2),
    ),
    (
        "Connect Four (two players, 6x7)",
        "ours multi-agent form; TextArena ConnectFour-v0",
        ours_two_player("ConnectFour-v0"),
        None,
        textarena("ConnectFour-v0", _ta_connect_four, players=2),
    ),
]


def _rate(value: float | None, note: str) -> str:
    return f"{value:,.0f}" if value is not None else (note or "-")


def _p50(value: float | None, note: str) -> str:
    return f"{value:,.1f}" if value is not None else (note or "-")


def _ratio(ours_value: float | None, anchors: list[float | None]) -> str:
    known = [a for a in anchors if a]
    if ours_value is None or not known:
        return "-"
    ratio = ours_value / max(known)
    # Two decimals near parity, so that 0.96 never shows as 1.0.
    return f"{ratio:,.2f}x" if ratio < 2 else f"{ratio:,.1f}x"


class Report:
    """One table, printed by rich and kept as Markdown."""

    def __init__(self, title: str, columns: list[str], left: tuple[str, ...]):
        self.table = Table(title=title)
        for column in columns:
            justify = "left" if column in left else "right"
            self.table.add_column(column, justify=justify, overflow="fold")
        self.markdown = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]

    def add(self, row: list[str]) -> None:
        """Adds a row to both forms."""
        self.table.add_row(*row)
        self.markdown.append("| " + " | ".join(row) + " |")


def compare(args: argparse.Namespace, wanted: list[str]) -> tuple[Report, set[str]]:
    """The table beside the anchors, and the anchors this machine lacks."""
    report = Report(
        "Games: resets/s and steps/s (higher is better; ratio = Palaestra / best anchor) "
        "and Palaestra's p50 per call (us)",
        [
            "game",
            "settings",
            "Palaestra resets/s",
            "GEM",
            "TextArena",
            "ratio",
            "reset p50 (us)",
            "Palaestra steps/s",
            "GEM",
            "TextArena",
            "ratio",
            "step p50 (us)",
        ],
        left=("game", "settings"),
    )
    missing = set()
    for name, settings, mine, gem_runner, ta_runner in ROWS:
        if wanted and not any(w in name.lower() for w in wanted):
            continue
        ours_result, gem_result, ta_result = best_of(
            [mine, gem_runner, ta_runner], args.seconds, args.rounds
        )
        for anchor, result in (("GEM", gem_result), ("TextArena", ta_result)):
            if result.note == "not installed":
                missing.add(anchor)
        report.add(
            [
                name,
                settings,
                _rate(ours_result.resets, ours_result.note),
                _rate(gem_result.resets, gem_result.note),
                _rate(ta_result.resets, ta_result.note),
                _ratio(ours_result.resets, [gem_result.resets, ta_result.resets]),
                _p50(ours_result.reset_p50, ours_result.note),
                _rate(ours_result.steps, ours_result.note),
                _rate(gem_result.steps, gem_result.note),
                _rate(ta_result.steps, ta_result.note),
                _ratio(ours_result.steps, [gem_result.steps, ta_result.steps]),
                _p50(ours_result.step_p50, ours_result.note),
            ]
        )
    return report, missing


def every_game(args: argparse.Namespace, wanted: list[str]) -> tuple[Report, list[str]]:
    """The p50 table of every registered game, and the calls over `BUDGET_US`."""
    import palaestra

    report = Report(
        f"Every game as palaestra.make(id) gives it: p50 per call (us; budget {BUDGET_US:.0f})",
        ["id", "reset p50 (us)", "step p50 (us)", f"both under {BUDGET_US:.0f} us"],
        left=("id",),
    )
    over = []
    for spec in palaestra.list_envs("game"):
        if wanted and not any(w in spec.id.lower() for w in wanted):
            continue
        [result] = best_of([ours(spec.id)], args.seconds, args.rounds)
        slow = [
            f"{spec.id} {call} ({value:,.1f} us)"
            for call, value in (("reset", result.reset_p50), ("step", result.step_p50))
            if value is None or value >= BUDGET_US
        ]
        over += slow
        report.add(
            [
                spec.id,
                _p50(result.reset_p50, result.note),
                _p50(result.step_p50, result.note),
                "no" if slow else "yes",
            ]
        )
    return report, over


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=6.0, help="timed work per library and game"
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts")
    parser.add_argument(
        "--only", default="", help="comma-separated words: run rows whose name or id has one"
    )
    parser.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    args = parser.parse_args()
    wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]

    console = Console(width=max(Console().width, 200))
    anchors, missing = compare(args, wanted)
    console.print(anchors.table)
    console.print("All Palaestra games run offline (word lists ship with the package; no NLTK).")
    for anchor in sorted(missing):
        console.print(
            f"{anchor} is not installed here: its columns say so and its ratios are '-' "
            """(pip install -e ".[bench]").""",
            markup=False,
        )
    games, over = every_game(args, wanted)
    console.print(games.table)
    if over:
        console.print(f"Over the {BUDGET_US:.0f} us p50 budget: {'; '.join(over)}.")
    else:
        console.print(f"Every game's reset and step p50 is under {BUDGET_US:.0f} us.")
    if args.markdown:
        print("\n".join(anchors.markdown + [""] + games.markdown))


if __name__ == "__main__":
    main()
