"""Typed exceptions. Every message says what failed, why, and how to fix it."""

from __future__ import annotations


class PalaestraError(Exception):
    """Base class of every error Palaestra raises on purpose."""


class UnknownEnvError(PalaestraError, LookupError):
    """An environment id is not in the registry."""


class UnknownArgumentError(PalaestraError, TypeError):
    """A keyword argument is not accepted by an environment, wrapper or config."""


class RegistrationError(PalaestraError, ValueError):
    """A registry entry or registry file is malformed."""


class ResetNeeded(PalaestraError, RuntimeError):
    """`step` was called before `reset`, or after the episode ended."""


class MissingDependencyError(PalaestraError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class InfrastructureError(PalaestraError, RuntimeError):
    """Something outside the policy's control failed (sandbox, judge, server).

    Environments catch it and report `info["status"] = "error"` with `info["mask"] = True`,
    so that trainers drop the episode instead of reading the failure as a zero reward.
    """


class CapacityError(InfrastructureError):
    """An env server holds as many sessions as it may; the message says how many.

    Attributes:
        active: Sessions open on the server.
        limit: The most it may hold.
    """

    def __init__(self, message: str, *, active: int, limit: int):
        super().__init__(message)
        self.active, self.limit = active, limit


class ConformanceError(PalaestraError, AssertionError):
    """An environment breaks the contract checked by `palaestra.check_env`."""


def require(module: str, extra: str, purpose: str = ""):
    """Imports an optional dependency or raises an error naming the extra that provides it.

    Args:
        module: The module to import, e.g. ``"torch"``.
        extra: The Palaestra extra that installs it, e.g. ``"torch"``.
        purpose: What the caller needs it for, shown in the message.

    Returns:
        The imported module.

    Raises:
        MissingDependencyError: The module is not installed.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        needed = f" for {purpose}" if purpose else ""
        raise MissingDependencyError(
            f"`{module}` is needed{needed} but is not installed. "
            f'Install it with: pip install "palaestra[{extra}]"'
        ) from e
