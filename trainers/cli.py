"""``palaestra train``: the `TrainConfig` dataclass as command-line options.

    palaestra train                                   # the CPU demo (tiny model, GuessNumber)
    palaestra train --env-id Wordle-v0 --estimator gigpo --steps 200
    palaestra train --model ./my-model --algorithm ppo --arg level=2

Each field of `TrainConfig` is an option of the same name (``--group-size``, ...;
booleans as ``--flag/--no-flag``); env arguments are ``--arg name=value`` (values read as
JSON when they parse), added to the run's default env arguments. Every option and env
argument is checked before anything is loaded or written (`check_run`); a bad one ends the
command with a one-line ``error: ...`` on stderr and exit status 2. Importing this module
imports neither torch nor the trainer loop.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from typing import Any, Optional

import typer

from palaestra.trainers.config import DEMO_ENV_KWARGS, TrainConfig, field_help

ARG_HELP = (
    "Env argument as name=value (value read as JSON if possible); repeatable. Added to the "
    "defaults, overriding those of the same name."
)


def parse_env_args(pairs: list[str] | None) -> dict[str, Any]:
    """``name=value`` pairs as keyword arguments (values parsed as JSON when they parse).

    Raises:
        ValueError: A pair is not ``name=value`` with an identifier for a name.
    """
    kwargs: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"--arg expects name=value, got {pair!r}")
        try:
            kwargs[name] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[name] = raw
    return kwargs


def _options() -> list[inspect.Parameter]:
    """One typer option per config field (``env_kwargs`` becomes the repeatable ``--arg``)."""
    # The docstrings mark code as ``grpo``; plain help shows it as grpo.
    helps = {name: text.replace("``", "") for name, text in field_help(TrainConfig).items()}
    defaults = TrainConfig()
    parameters = []
    for field in dataclasses.fields(TrainConfig):
        if field.name == "env_kwargs":
            demo = " ".join(f"{k}={json.dumps(v)}" for k, v in defaults.env_kwargs.items())
            help_text = f"{ARG_HELP} Defaults: {demo} for {defaults.env_id}, none for other envs."
            option = typer.Option(None, "--arg", help=help_text)
            annotation: Any = Optional[list[str]]  # noqa: UP045 - typer reads the annotation
        elif field.name == "output_dir":
            help_text = helps.get(field.name, "")
            option = typer.Option(defaults.output_dir, "--output-dir", "--output", help=help_text)
            annotation = str
        else:
            value = getattr(defaults, field.name)
            annotation = type(value)
            option = typer.Option(value, help=helps.get(field.name, ""))
        parameters.append(
            inspect.Parameter(
                field.name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation
            )
        )
    return parameters


def config_from_options(options: dict[str, Any]) -> TrainConfig:
    """A `TrainConfig` from the parsed options.

    ``env_kwargs`` holds the ``--arg`` pairs: they are added to the env's default arguments
    (the demo's ``max_number=8`` for GuessNumber-v0), overriding those of the same name.
    """
    values = dict(options)
    env_id = values.get("env_id", TrainConfig.env_id)
    pairs = parse_env_args(values.pop("env_kwargs", None))
    values["env_kwargs"] = {**DEMO_ENV_KWARGS.get(env_id, {}), **pairs}
    return TrainConfig(**values)


def train_command(**options: Any) -> None:
    """Warm-start on oracle demonstrations, then train with GRPO or PPO.

    Writes metrics, episodes, checkpoints and a reward curve into the output folder.
    """
    from rich.console import Console

    from palaestra.trainers.run import check_run

    console = Console()
    try:
        config = config_from_options(options)
        check_run(config)
    except (ValueError, TypeError, LookupError, ImportError) as e:
        typer.echo(f"error: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(2) from None
    from palaestra.trainers.loop import train
    from palaestra.trainers.progress import TrainProgress

    console.print(
        f"[bold]palaestra train[/bold]: {config.env_id} {config.env_kwargs or ''}, "
        f"{config.model or 'the tiny model'}, {config.algorithm}/{config.estimator}, "
        f"{config.warmup_steps} warm-start steps, {config.steps} RL steps -> {config.output_dir}",
        highlight=False,
    )
    with TrainProgress(config, console, show=config.progress) as progress:
        result = train(config, on_step=progress.update)
    warm, final = result.warm_start_eval or {}, result.final_eval or {}
    console.print(
        f"held-out success: {warm.get('eval_success', float('nan')):.3f} after the warm start -> "
        f"{final.get('eval_success', float('nan')):.3f} after RL "
        f"(greedy {warm.get('eval_greedy_success', float('nan')):.3f} -> "
        f"{final.get('eval_greedy_success', float('nan')):.3f}); {result.seconds:.0f} s",
        highlight=False,
    )
    console.print(f"metrics: {result.output_dir}/metrics.jsonl", highlight=False)
    if config.save_episodes:
        console.print(f"episodes: {result.output_dir}/episodes.jsonl", highlight=False)
    if result.curve:
        console.print(f"curve: {result.curve}", highlight=False)


train_command.__signature__ = inspect.Signature(_options())  # type: ignore[attr-defined]


def register(app: typer.Typer) -> None:
    """Adds ``train`` to a typer app (the core CLI calls this)."""
    app.command("train", help=train_command.__doc__)(train_command)


def main() -> None:
    """``python -m palaestra.trainers.cli``: the train command on its own."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    register(app)
    app(prog_name="palaestra train")


if __name__ == "__main__":
    sys.exit(main())
