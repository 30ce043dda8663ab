"""Environment families: procedural tasks, games, tool use, code.

Nothing here is imported by `import palaestra`; `palaestra.make` imports an env's module
when it is first made (see `registry.yaml`).
"""


def newest_game_and_task_ids() -> list[str]:
    """The newest version of every game and procedural task name (the oracle seed check's ids).

    An older version stays registered, frozen with the flaw its successor fixed, so checks that
    every episode is winnable play only the newest.
    """
    import palaestra
    from palaestra.envs.tasks.base import TaskEnv
    from palaestra.registration import load_entry_point

    specs = list(palaestra.list_envs("game"))
    for spec in palaestra.list_envs():
        factory = load_entry_point(spec.entry_point)
        if isinstance(factory, type) and issubclass(factory, TaskEnv):
            specs.append(spec)
    newest = {}
    for spec in sorted(specs, key=lambda s: s.version):
        newest[spec.name] = spec.id
    return list(newest.values())
