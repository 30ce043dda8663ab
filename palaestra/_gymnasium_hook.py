"""A one-shot import hook: register Palaestra's ids as soon as Gymnasium's registry loads.

Gymnasium resolves ``gymnasium.make("palaestra:palaestra/Name-vN")`` by importing the module
``palaestra`` and then reading its own registry. If ``palaestra`` was imported before
Gymnasium, that import is a no-op, so the ids must reach Gymnasium's registry when
Gymnasium itself is loaded. This hook waits for ``gymnasium.envs.registration`` to execute,
registers the ids through that module alone (the rest of Gymnasium may still be loading),
and removes itself. Importing ``palaestra`` therefore never pays for importing Gymnasium.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

WATCHED = "gymnasium.envs.registration"


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader):
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._inner.exec_module(module)
        from palaestra.registration import register_gymnasium

        register_gymnasium()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None):
        if fullname != WATCHED:
            return None
        uninstall()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader)
        return spec


_finder = _Finder()


def install() -> None:
    """Installs the hook (once)."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Removes the hook."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
