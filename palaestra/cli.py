"""The `palaestra` command line.

    palaestra list [--tag TAG]...      the registered ids
    palaestra show ID                  an id's spec, arguments, tools and an oracle episode
    palaestra play ID [--seed N]       play an env in the terminal
    palaestra check ID | --all         run the conformance checker
    palaestra demo                     play every registered env with its oracle
    palaestra train [OPTIONS]          warm-start and train a policy with GRPO/PPO

Env arguments are passed as ``--arg name=value`` (values are read as JSON when they
parse, else as strings), e.g. ``palaestra play GuessNumber-v0 --arg level=5``.
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="palaestra",
    help="Palaestra: verifiable environments for training reasoning and agentic models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()

ARG_HELP = "Env argument as name=value (value read as JSON if possible); repeatable."


def _parse_args(pairs: list[str] | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep or not name.isidentifier():
            raise typer.BadParameter(f"--arg expects name=value, got {pair!r}")
        try:
            kwargs[name] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[name] = raw
    return kwargs


def _fail(message: str) -> None:
    console.print(f"[red]error:[/red] {message}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def _make(env_id: str, kwargs: dict[str, Any], **options: Any):
    import palaestra
    from palaestra.errors import PalaestraError

    try:
        return palaestra.make(env_id, **kwargs, **options)
    except (PalaestraError, ValueError, TypeError) as e:
        _fail(str(e))


@app.command("list")
def list_command(
    tag: Optional[list[str]] = typer.Option(
        None, "--tag", "-t", help="Only ids with this tag (repeatable)."
    ),
) -> None:
    """List the registered environment ids."""
    import palaestra

    specs = palaestra.list_envs(tag)
    table = Table(title=f"{len(specs)} environments" + (f" tagged {', '.join(tag)}" if tag else ""))
    for column in ("id", "turns", "reward", "tags", "description"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        low, high = spec.reward_range
        table.add_row(
            spec.id,
            str(spec.max_turns or "-"),
            f"[{low:g}, {high:g}]",
            ", ".join(spec.tags),
            spec.description,
        )
    console.print(table)


def _play_oracle(env, seed: int) -> list[tuple[str, Any, list, float, dict]]:
    observation, _ = env.reset(seed=seed)
    steps = [("reset", None, observation, 0.0, {})]
    for _ in range(10_000):
        action = env.oracle_action()
        observation, reward, terminated, truncated, info = env.step(action)
        steps.append(("step", action, observation, reward, info))
        if terminated or truncated:
            break
    return steps


def _show_messages(messages: list[dict[str, Any]], limit: int = 2_000) -> None:
    for message in messages:
        content = message.get("content") or ""
        if len(content) > limit:
            content = content[:limit] + f" [... {len(content) - limit:,} more characters]"
        console.print(
            f"[bold cyan]{message['role']}[/bold cyan]: {content}", markup=True, highlight=False
        )


@app.command("show")
def show_command(
    env_id: str = typer.Argument(..., help="The environment id."),
    seed: int = typer.Option(0, help="Seed of the sample episode."),
    arg: Optional[list[str]] = typer.Option(None, "--arg", help=ARG_HELP),
) -> None:
    """Show an id's spec, arguments, tools and a sample episode played by its oracle."""
    import palaestra
    from palaestra.errors import PalaestraError
    from palaestra.registration import SPEC_FIELDS, accepted_arguments, load_entry_point

    try:
        spec = palaestra.spec(env_id)
    except PalaestraError as e:
        _fail(str(e))
    console.print(f"[bold]{spec.id}[/bold]: {spec.description}")
    for field in (*SPEC_FIELDS, "source"):
        if field == "description":  # the heading above
            continue
        console.print(f"  {field}: {getattr(spec, field)}", highlight=False)
    factory = load_entry_point(spec.entry_point)
    names, _ = accepted_arguments(factory)
    parameters = inspect.signature(factory).parameters
    shown = [str(parameters[n]) if n in parameters else n for n in names]
    console.print("  arguments: " + ", ".join(shown), highlight=False)
    env = _make(env_id, _parse_args(arg))
    if env.tools:
        console.print("  tools: " + ", ".join(t["function"]["name"] for t in env.tools))
    console.rule(f"oracle episode, seed {seed}")
    total = 0.0
    for kind, action, observation, reward, info in _play_oracle(env, seed):
        if kind == "step":
            console.print(
                f"[bold green]assistant[/bold green]: {action if isinstance(action, str) else json.dumps(action)}",
                highlight=False,
            )
            total += reward
            console.print(
                f"  [dim]reward {reward:+.3f} {info.get('reward_parts')}[/dim]", highlight=False
            )
        _show_messages(observation)
    console.rule(f"return {total:.3f}")


@app.command("play")
def play_command(
    env_id: str = typer.Argument(..., help="The environment id."),
    seed: Optional[int] = typer.Option(None, help="Seed of the episode (random if omitted)."),
    arg: Optional[list[str]] = typer.Option(None, "--arg", help=ARG_HELP),
) -> None:
    """Play an environment in the terminal: type your turn, Enter to send.

    Commands: ':hint' shows the oracle's action, ':board' the state, ':quit' leaves.
    A backslash-n in your input stands for a newline.
    """
    env = _make(env_id, _parse_args(arg), render_mode="ansi")
    observation, _ = env.reset(seed=seed)
    console.print(f"[bold]{env_id}[/bold] (seed {seed}); ':hint', ':board', ':quit'")
    _show_messages(observation)
    total, turn = 0.0, 0
    while True:
        try:
            line = input("you> ")
        except EOFError:
            console.print("\nbye")
            return
        command = line.strip()
        if command == ":quit":
            console.print("bye")
            return
        if command == ":hint":
            console.print(f"[dim]oracle: {env.oracle_action()}[/dim]", highlight=False)
            continue
        if command == ":board":
            console.print(env.render(), highlight=False)
            continue
        action = line.replace("\\n", "\n")
        observation, reward, terminated, truncated, info = env.step(action)
        total += reward
        turn += 1
        _show_messages(observation)
        console.print(
            f"[dim]turn {turn}: reward {reward:+.3f} {info.get('reward_parts')}[/dim]",
            highlight=False,
        )
        if terminated or truncated:
            verdict = info.get("verdict")
            outcome = "solved" if info.get("success") else "not solved"
            why = f" ({verdict.reason})" if verdict is not None and verdict.reason else ""
            ending = "ended" if terminated else f"cut short ({info.get('truncation', 'limit')})"
            console.print(
                f"[bold]Episode {ending}: {outcome}{why}. Return {total:.3f} in {turn} turns.[/bold]"
            )
            return


@app.command("check")
def check_command(
    env_id: Optional[str] = typer.Argument(None, help="The environment id (or --all)."),
    all_: bool = typer.Option(False, "--all", help="Check every registered id."),
    tag: Optional[list[str]] = typer.Option(
        None, "--tag", "-t", help="With --all: only ids with this tag."
    ),
    cross_process: bool = typer.Option(True, help="Also compare episodes across fresh processes."),
    arg: Optional[list[str]] = typer.Option(None, "--arg", help=ARG_HELP),
) -> None:
    """Run the conformance checker on one id or on all of them."""
    import palaestra

    if all_ == (env_id is not None):
        _fail("give one id, or --all")
    ids = [s.id for s in palaestra.list_envs(tag)] if all_ else [env_id]
    table = Table(title="palaestra check")
    for column in ("id", "result", "checks", "seconds", "details"):
        table.add_column(column, overflow="fold")
    failed = 0
    for one in ids:
        start = time.perf_counter()
        env = _make(one, _parse_args(arg))
        report = palaestra.check_env(env, cross_process=cross_process, raise_on_failure=False)
        failed += not report.ok
        details = "; ".join(f"{c}: {m}" for c, m in report.failures) or "; ".join(report.notes)
        table.add_row(
            one,
            "[green]ok[/green]" if report.ok else "[red]FAILED[/red]",
            f"{len(report.passed)}/{len(report.passed) + len(report.failures)}",
            f"{time.perf_counter() - start:.1f}",
            details,
        )
    console.print(table)
    if failed:
        raise typer.Exit(1)


@app.command("demo")
def demo_command(
    seed: int = typer.Option(0, help="Seed of every episode."),
    tag: Optional[list[str]] = typer.Option(None, "--tag", "-t", help="Only ids with this tag."),
) -> None:
    """Play every registered environment once with its oracle and print a table."""
    import palaestra

    specs = palaestra.list_envs(tag)
    table = Table(title=f"Oracle episodes, seed {seed}")
    for column in ("id", "turns", "return", "best", "success", "ms"):
        table.add_column(column, justify="right" if column not in ("id",) else "left")
    failures = 0
    for spec in specs:
        start = time.perf_counter()
        env = palaestra.make(spec.id)
        steps = _play_oracle(env, seed)
        elapsed = (time.perf_counter() - start) * 1000
        total = sum(step[3] for step in steps)
        success = bool(steps[-1][4].get("success"))
        failures += not success
        env.reset(seed=seed)
        table.add_row(
            spec.id,
            str(len(steps) - 1),
            f"{total:.3f}",
            f"{env.best_return():.3f}",
            "[green]yes[/green]" if success else "[red]no[/red]",
            f"{elapsed:.0f}",
        )
        env.close()
    console.print(table)
    console.print(f"{len(specs) - failures}/{len(specs)} environments solved by their oracle.")
    if failures:
        raise typer.Exit(1)


def _mount_subcommands() -> None:
    try:
        from palaestra.trainers.cli import register as register_train
    except ImportError:
        pass
    else:
        register_train(app)
    try:
        from palaestra.sandbox.cli import app as sandbox_app
    except ImportError:
        return
    app.add_typer(
        sandbox_app, name="sandbox", help="Sandbox tools (build the Docker base image, ...)."
    )


def main() -> None:
    """Entry point of the `palaestra` script."""
    _mount_subcommands()
    app(prog_name="palaestra")


if __name__ == "__main__":
    sys.exit(main())
