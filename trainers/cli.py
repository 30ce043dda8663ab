"""``palaestra train``: the `TrainConfig` dataclass as command-line options.

    palaestra train                                   # the CPU demo (tiny model, GuessNumber)
    palaestra train --env-id Wordle-v0 --estimator gigpo --steps 200
    palaestra train --model ./my-model --algorithm ppo --arg level=2

Each field of `TrainConfig` is an option of the same name (``--group-size``, ...;
booleans as ``--flag/--no-flag``); env arguments are ``--arg name=value`` (values read as
JSON when they parse). Importing this module imports neither torch nor the trainer loop.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from typing import Any, Optional

import typer
from palaestra.trainers.config import TrainConfig, field_help

ARG_HELP = "Env argument as name=value (value read as JSON if possible); repeatable."


def parse_env_args(pairs: list[str] | None) -> dict[str, Any]:
    """``name=value`` pairs as keyword arguments (values parsed as JSON when they parse)."""
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


def _options() -> list[inspect.Parameter]:
    """One typer option per config field (``env_kwargs`` becomes the repeatable ``--arg``)."""
    helps = field_help(TrainConfig)
    defaults = TrainConfig()
    parameters = []
    for field in dataclasses.fields(TrainConfig):
        if field.name == "env_kwargs":
            default = [f"{k}={json.dumps(v)}" for k, v in defaults.env_kwargs.items()]
            option = typer.Option(
                default, "--arg", help=ARG_HELP + f" Default: {' '.join(default)}."
            )
            annotation: Any = Optional[list[str]]  # noqa: UP045 - typer reads the annotation
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
    """A `TrainConfig` from the parsed options (``env_kwargs`` from ``--arg`` pairs)."""
    values = dict(options)
    values["env_kwargs"] = parse_env_args(values.pop("env_kwargs", None))
    return TrainConfig(**values)


def train_command(**options: Any) -> None:
    """Warm-start on oracle demonstrations, then train with GRPO or PPO.

    Writes metrics, episodes, checkpoints and a reward curve into the output folder.
    """
    from rich.console import Console

    console = Console()
    try:
        config = config_from_options(options)
        import palaestra

        palaestra.spec(config.env_id)
    except (ValueError, TypeError, LookupError) as e:
        console.print(f"[red]error:[/red] {e}", soft_wrap=True, highlight=False)
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
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    app(prog_name="palaestra train")


if __name__ == "__main__":
    sys.exit(main())
