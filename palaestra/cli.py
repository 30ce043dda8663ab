"""The `palaestra` command line.

    palaestra list [--tag TAG]...      the registered ids
    palaestra show ID                  an id's spec, arguments, tools and an oracle episode
    palaestra play ID [--seed N]       play an env in the terminal
    palaestra check ID | --all         run the conformance checker
    palaestra demo                     play every registered env with its oracle
    palaestra train [OPTIONS]          warm-start and train a policy with GRPO/PPO
    palaestra report RUN               a training run's summary as one HTML page
    palaestra view RUN [RUN2]          browse a run's plots and episodes (--export DIR: a copy)
    palaestra serve [IDS]...           serve envs over OpenEnv's WebSocket protocol and HTTP
    palaestra search build|serve       build a search world's index; serve it over HTTP

Env arguments are passed as ``--arg name=value`` (values are read as JSON when they
parse, else as strings), e.g. ``palaestra play GuessNumber-v0 --arg level=5``.
"""

from __future__ import annotations

import inspect
import json
import secrets
import sys
import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

app = typer.Typer(
    name="palaestra",
    help="Palaestra: verifiable environments for training reasoning and agentic models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no type column beside every flag
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
    console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
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
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", "-t", metavar="TAG", help="Only ids with this tag (repeatable)."),
    ] = None,
) -> None:
    """List the registered environment ids."""
    specs = _specs_with_tags(tag)
    table = Table(title=f"{len(specs)} environments" + (f" tagged {', '.join(tag)}" if tag else ""))
    for column in ("id", "turns", "reward", "tags", "description"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        low, high = spec.reward_range
        table.add_row(
            spec.id,
            str(spec.max_turns or "-"),
            escape(f"[{low:g}, {high:g}]"),
            ", ".join(spec.tags),
            escape(spec.description),
        )
    console.print(table)


def _specs_with_tags(tags: list[str] | None) -> list:
    """The specs carrying every tag in ``tags``; a tag no id carries is an error naming the tags."""
    import palaestra

    known = {t for spec in palaestra.list_envs() for t in spec.tags}
    unknown = [t for t in tags or [] if t not in known]
    if unknown:
        _fail(
            f"no environment is tagged {', '.join(map(repr, unknown))}; the tags are: "
            + ", ".join(sorted(known))
        )
    return palaestra.list_envs(tags)


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
            f"[bold cyan]{message['role']}[/bold cyan]: {escape(content)}", highlight=False
        )


def _argument_text(name: str, parameter: inspect.Parameter | None, defaults: dict[str, Any]) -> str:
    """``name: type = default``, the default being what `make` passes (the registry's first)."""
    if parameter is None:
        return name
    text = name
    if parameter.annotation is not inspect.Parameter.empty:
        annotation = parameter.annotation  # a string under `from __future__ import annotations`
        if not isinstance(annotation, str):
            annotation = inspect.formatannotation(annotation)
        text += f": {annotation}"
    if name in defaults:
        text += f" = {defaults[name]!r}"
    elif parameter.default is not inspect.Parameter.empty:
        text += f" = {parameter.default!r}"
    return text


@app.command("show")
def show_command(
    env_id: Annotated[str, typer.Argument(metavar="ID", help="The environment id.")],
    seed: Annotated[int, typer.Option(help="Seed of the sample episode.")] = 0,
    arg: Annotated[
        list[str] | None, typer.Option("--arg", metavar="NAME=VALUE", help=ARG_HELP)
    ] = None,
) -> None:
    """Show an id's spec, arguments, tools and a sample episode played by its oracle."""
    import palaestra
    from palaestra.errors import PalaestraError
    from palaestra.registration import SPEC_FIELDS, accepted_arguments, load_entry_point

    try:
        spec = palaestra.spec(env_id)
    except PalaestraError as e:
        _fail(str(e))
    console.print(f"[bold]{spec.id}[/bold]: {escape(spec.description)}")
    for field in (*SPEC_FIELDS, "source"):
        if field == "description":  # the heading above
            continue
        console.print(f"  {field}: {getattr(spec, field)}", markup=False, highlight=False)
    factory = load_entry_point(spec.entry_point)
    names, _ = accepted_arguments(factory)
    parameters = inspect.signature(factory).parameters
    shown = [_argument_text(n, parameters.get(n), spec.kwargs) for n in names]
    console.print("  arguments: " + ", ".join(shown), markup=False, highlight=False)
    env = _make(env_id, _parse_args(arg))
    if env.tools:
        console.print(
            "  tools: " + ", ".join(t["function"]["name"] for t in env.tools), markup=False
        )
    console.rule(f"oracle episode, seed {seed}")
    total = 0.0
    for kind, action, observation, reward, info in _play_oracle(env, seed):
        if kind == "step":
            text = action if isinstance(action, str) else json.dumps(action)
            console.print(f"[bold green]assistant[/bold green]: {escape(text)}", highlight=False)
            total += reward
            console.print(
                f"  [dim]reward {reward:+.3f} {escape(str(info.get('reward_parts')))}[/dim]",
                highlight=False,
            )
        _show_messages(observation)
    console.rule(f"return {total:.3f}")


def _typed_action(text: str, tag: str | None) -> str:
    """What a person typed, as the env reads it: a bare reply goes inside the env's tag.

    People type ``b2``, not ``<move>b2</move>``; text with any markup is sent as typed, so
    the env itself stays strict about the format a model must follow.
    """
    if tag is None or "<" in text or not text.strip():
        return text
    return f"<{tag}>{text.strip()}</{tag}>"


@app.command("play")
def play_command(
    env_id: Annotated[str, typer.Argument(metavar="ID", help="The environment id.")],
    seed: Annotated[
        int | None, typer.Option(help="Seed of the episode (random if omitted).")
    ] = None,
    arg: Annotated[
        list[str] | None, typer.Option("--arg", metavar="NAME=VALUE", help=ARG_HELP)
    ] = None,
) -> None:
    """Play an environment in the terminal: type your turn, Enter to send.

    Commands: ':hint' shows the oracle's action, ':board' the state, ':quit' leaves.
    A backslash-n in your input stands for a newline.
    """
    env = _make(env_id, _parse_args(arg), render_mode="ansi")
    if seed is None:  # drawn here so that the episode can be played again with --seed
        seed = secrets.randbelow(2**31)
    observation, _ = env.reset(seed=seed)
    tag = getattr(env, "reply_tag", None)
    typing = f"; a bare reply is sent as <{tag}>...</{tag}>" if tag else ""
    console.print(f"[bold]{env_id}[/bold] (seed {seed}); ':hint', ':board', ':quit'{typing}")
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
            console.print(f"[dim]oracle: {escape(str(env.oracle_action()))}[/dim]", highlight=False)
            continue
        if command == ":board":
            console.print(env.render(), markup=False, highlight=False)
            continue
        action = _typed_action(line.replace("\\n", "\n"), tag)
        observation, reward, terminated, truncated, info = env.step(action)
        total += reward
        turn += 1
        _show_messages(observation)
        console.print(
            f"[dim]turn {turn}: reward {reward:+.3f} {escape(str(info.get('reward_parts')))}[/dim]",
            highlight=False,
        )
        if terminated or truncated:
            verdict = info.get("verdict")
            outcome = "solved" if info.get("success") else "not solved"
            why = f" ({verdict.reason})" if verdict is not None and verdict.reason else ""
            ending = "ended" if terminated else f"cut short ({info.get('truncation', 'limit')})"
            console.print(
                f"[bold]Episode {ending}: {outcome}{escape(why)}. "
                f"Return {total:.3f} in {turn} turn{'' if turn == 1 else 's'}.[/bold]"
            )
            return


@app.command("check")
def check_command(
    env_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="The environment id (or --all).")
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Check every registered id.")] = False,
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", "-t", metavar="TAG", help="With --all: only ids with this tag."),
    ] = None,
    cross_process: Annotated[
        bool, typer.Option(help="Also compare episodes across fresh processes.")
    ] = True,
    arg: Annotated[
        list[str] | None, typer.Option("--arg", metavar="NAME=VALUE", help=ARG_HELP)
    ] = None,
) -> None:
    """Run the conformance checker on one id or on all of them."""
    import palaestra

    if all_ == (env_id is not None):
        _fail("give one id, or --all")
    ids = [s.id for s in _specs_with_tags(tag)] if all_ else [env_id]
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
            escape(details),
        )
    console.print(table)
    if failed:
        raise typer.Exit(1)


@app.command("demo")
def demo_command(
    seed: Annotated[int, typer.Option(help="Seed of every episode.")] = 0,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", metavar="TAG", help="Only ids with this tag.")
    ] = None,
) -> None:
    """Play every registered environment once with its oracle and print a table."""
    specs = _specs_with_tags(tag)
    table = Table(title=f"Oracle episodes, seed {seed}")
    for column in ("id", "turns", "return", "guaranteed", "success", "ms"):
        table.add_column(column, justify="right" if column not in ("id",) else "left")
    failures: list[tuple[str, str]] = []
    for spec in specs:
        start = time.perf_counter()
        try:
            turns, total, guaranteed, success, why = _demo_episode(spec.id, seed)
        except Exception as e:  # one env's failure (a missing extra, say) must not end the demo
            turns, total, guaranteed, success, why = 0, 0.0, float("nan"), False, _one_line(e)
        if not success:
            failures.append((spec.id, why))
        table.add_row(
            spec.id,
            str(turns),
            f"{total:.3f}",
            f"{guaranteed:.3f}",
            "[green]yes[/green]" if success else "[red]no[/red]",
            f"{(time.perf_counter() - start) * 1000:.0f}",
        )
    console.print(table)
    console.print(
        "guaranteed: the return best play reaches whatever chance or the opponent does "
        "(env.best_return()); a weak opponent's mistakes can give more.",
        highlight=False,
    )
    for env_id, why in failures:
        console.print(f"[red]{env_id}[/red]: {escape(why)}", highlight=False, soft_wrap=True)
    console.print(f"{len(specs) - len(failures)}/{len(specs)} environments solved by their oracle.")
    if failures:
        raise typer.Exit(1)


def _demo_episode(env_id: str, seed: int) -> tuple[int, float, float, bool, str]:
    """``(turns, return, guaranteed return, success, why not)`` of an oracle episode."""
    import palaestra

    with palaestra.make(env_id) as env:
        steps = _play_oracle(env, seed)
        info = steps[-1][4]
        success = bool(info.get("success"))
        verdict = info.get("verdict")
        why = ""
        if not success:
            why = (
                info.get("error")
                or (verdict.reason if verdict is not None else "")
                or (f"the oracle did not finish in {len(steps) - 1} turns")
            )
        env.reset(seed=seed)
        total = sum(step[3] for step in steps)
        return len(steps) - 1, total, env.best_return(), success, why


@app.command("view")
def view_command(
    runs: Annotated[
        list[str], typer.Argument(metavar="RUN [RUN2]", help="Run folders (--output-dir).")
    ],
    export: Annotated[
        str | None,
        typer.Option(metavar="DIR", help="Write a static copy to this new folder and exit."),
    ] = None,
    host: Annotated[str, typer.Option(help="Address to serve on (loopback by default).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to serve on; 0 picks a free one.")] = 0,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the page where there is a display.")
    ] = True,
) -> None:
    """Browse one run, or two side by side: plots, the episode list, each episode's tokens."""
    from palaestra.errors import MissingDependencyError
    from palaestra.view.runs import open_runs

    try:
        folders = open_runs(runs)
        if export is not None:
            from palaestra.view.export import export as write_copy

            page = write_copy(folders, export)
            console.print(
                f"wrote {escape(str(page))} (open it in a browser)",
                soft_wrap=True,
                highlight=False,
            )
            return
        from palaestra.view.server import serve

        serve(folders, host, port, open_browser=browser)
    except (ValueError, OSError, MissingDependencyError) as e:
        _fail(str(e))


def _one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


@app.command("report")
def report_command(
    run: Annotated[
        str, typer.Argument(metavar="RUN", help="The run's folder (the output_dir of train).")
    ],
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", help="Where to write the page (default RUN/report.html)."),
    ] = None,
) -> None:
    """Write a training run's summary as one self-contained HTML page.

    The page shows the config, the final numbers, the curves and the five best and five
    worst episodes; it loads nothing from elsewhere, so it can be sent as it is.
    """
    from palaestra.trainers.report import write_report

    try:
        path = write_report(run, output)
    except (OSError, ValueError) as e:
        _fail(str(e))
    console.print(f"report: {path}", highlight=False, markup=False)


COMMANDS_ENTRY_POINT_GROUP = "palaestra.commands"
"""Entry points naming a Typer app mounted as a subcommand (env families' own tools)."""


def _mount_subcommands() -> None:
    from palaestra.serve.cli import register as register_serve

    register_serve(app)
    try:
        from palaestra.trainers.cli import register as register_train
    except ImportError:
        pass
    else:
        register_train(app)
    # Env families bring their own commands (`palaestra db`, `search`, `swe`) through entry
    # points, as they bring their envs; one whose extra is not installed is left out.
    from importlib.metadata import entry_points

    for entry in sorted(entry_points(group=COMMANDS_ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            family_app = entry.load()
        except ImportError:
            continue
        app.add_typer(family_app, name=entry.name)
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
