"""The registry: environment ids, their specs, and `make`.

The catalogue is data: `registry.yaml` names each id's entry point as a string, imported
only when `make` needs it. Third-party packages add ids through the ``palaestra.envs``
entry-point group (an entry point names a function that calls `register`, or a path to
their own registry file) or by calling `load_registry` themselves.

Ids follow Gymnasium: ``Name-vN`` (optionally ``namespace/Name-vN``). A change to what an
id generates or how it scores bumps ``N``. Every id is also a Gymnasium id:
``gymnasium.make("palaestra:palaestra/Name-vN")``.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palaestra.errors import RegistrationError, UnknownArgumentError, UnknownEnvError

if TYPE_CHECKING:
    from palaestra.core import Env
    from palaestra.vector import VecEnv

ENV_ID_RE = re.compile(
    r"^(?:(?P<namespace>[A-Za-z][\w.-]*)/)?(?P<name>[A-Za-z][\w.]*(?:-[A-Za-z][\w.]*)*)-v(?P<version>\d+)$"
)
GYMNASIUM_NAMESPACE = "palaestra"
ENTRY_POINT_GROUP = "palaestra.envs"

MAKE_OPTIONS = ("max_turns", "max_invalid", "render_mode")
"""Arguments `make` consumes itself; env constructors may not use these names."""

SPEC_FIELDS = (
    "entry_point",
    "kwargs",
    "max_turns",
    "max_invalid",
    "reward_range",
    "tags",
    "difficulty",
    "description",
)
"""The fields of a registry entry (`register` and registry.yaml)."""


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """Everything the registry knows about one id.

    Attributes:
        id: ``Name-vN`` or ``namespace/Name-vN``.
        entry_point: ``"module:attr"`` naming the env class or factory (or the callable).
        kwargs: Default constructor arguments; `make` arguments override them.
        max_turns: Turn cap applied by `make` (`TurnLimit`'s rule), or None.
        max_invalid: Invalid actions allowed before the episode ends (`InvalidActionLimit`'s
            rule), or None for no cap.
        reward_range: Bounds of an episode's return, ``(low, high)``.
        tags: Labels for filtering: family, ``single-turn``/``multi-turn``, ``tools``,
            ``needs-docker``, ...
        difficulty: The range of the env's ``level`` argument, or None.
        description: One line saying what the task is.
        source: Where the entry came from (a registry file, a plugin, code).
    """

    id: str
    entry_point: str | Callable[..., Any]
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    max_turns: int | None = None
    max_invalid: int | None = 3
    reward_range: tuple[float, float] = (0.0, 1.0)
    tags: tuple[str, ...] = ()
    difficulty: tuple[int, int] | None = None
    description: str = ""
    source: str = "code"

    def __post_init__(self) -> None:
        match = ENV_ID_RE.match(self.id)
        if match is None:
            raise RegistrationError(
                f"environment id {self.id!r} is malformed; ids look like 'Name-v0' or "
                "'namespace/Name-v0' (letters, digits, '_', '.', '-', then -v<version>)"
            )
        if not (
            callable(self.entry_point)
            or (isinstance(self.entry_point, str) and ":" in self.entry_point)
        ):
            raise RegistrationError(
                f"{self.id}: entry_point must be 'module:attr' or a callable, "
                f"got {self.entry_point!r}"
            )
        if self.max_turns is not None and (
            not isinstance(self.max_turns, int) or self.max_turns < 1
        ):
            raise RegistrationError(f"{self.id}: max_turns must be a positive integer or null")
        if self.max_invalid is not None and (
            not isinstance(self.max_invalid, int) or self.max_invalid < 0
        ):
            raise RegistrationError(
                f"{self.id}: max_invalid must be a non-negative integer or null"
            )
        low, high = (float(x) for x in self.reward_range)
        if not low <= high:
            raise RegistrationError(f"{self.id}: reward_range {self.reward_range} has low > high")
        object.__setattr__(self, "reward_range", (low, high))
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "kwargs", dict(self.kwargs))
        if self.difficulty is not None:
            object.__setattr__(self, "difficulty", tuple(int(x) for x in self.difficulty))
        clash = sorted(set(self.kwargs) & set(MAKE_OPTIONS))
        if clash:
            raise RegistrationError(
                f"{self.id}: {clash} are set on the spec itself (max_turns:, max_invalid:), "
                "not in kwargs"
            )

    @property
    def name(self) -> str:
        """The id without namespace and version."""
        return ENV_ID_RE.match(self.id)["name"]

    @property
    def version(self) -> int:
        """The id's version number."""
        return int(ENV_ID_RE.match(self.id)["version"])

    @property
    def namespace(self) -> str | None:
        """The id's namespace, if any."""
        return ENV_ID_RE.match(self.id)["namespace"]

    def make(self, **kwargs: Any) -> Env:
        """Same as `palaestra.make(self.id, **kwargs)`."""
        return make(self.id, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """The spec as registry data (JSON/YAML friendly)."""
        out = dataclasses.asdict(self)
        if callable(self.entry_point):
            out["entry_point"] = f"{self.entry_point.__module__}:{self.entry_point.__qualname__}"
        out["tags"] = list(self.tags)
        out["reward_range"] = list(self.reward_range)
        out["difficulty"] = list(self.difficulty) if self.difficulty else None
        return out


class Registry(Mapping[str, EnvSpec]):
    """The id -> `EnvSpec` catalogue, filled lazily on first use.

    On first access it loads the packaged `registry.yaml`, then every ``palaestra.envs``
    entry point. Later `register`/`load_registry` calls add to it.
    """

    def __init__(self) -> None:
        self._specs: dict[str, EnvSpec] = {}
        self._loaded = False
        self._loading = False
        self._listeners: list[Callable[[EnvSpec], None]] = []

    # Mapping interface -------------------------------------------------------------
    def __getitem__(self, env_id: str) -> EnvSpec:
        self._ensure_loaded()
        return self._specs[env_id]

    def __iter__(self):
        self._ensure_loaded()
        return iter(sorted(self._specs))

    def __len__(self) -> int:
        self._ensure_loaded()
        return len(self._specs)

    # Registration -------------------------------------------------------------------
    def add(self, spec: EnvSpec, *, override: bool = False) -> EnvSpec:
        """Adds a spec; an existing id is an error unless ``override``."""
        self._ensure_loaded()
        if spec.id in self._specs and not override:
            raise RegistrationError(
                f"{spec.id} is already registered (from {self._specs[spec.id].source}); "
                "pass override=True to replace it, or bump the version"
            )
        self._specs[spec.id] = spec
        for listener in self._listeners:
            listener(spec)
        return spec

    def remove(self, env_id: str) -> None:
        """Removes an id (mostly for tests)."""
        self._ensure_loaded()
        if env_id not in self._specs:
            raise UnknownEnvError(f"cannot deregister {env_id!r}: it is not registered")
        del self._specs[env_id]

    def on_register(self, listener: Callable[[EnvSpec], None]) -> None:
        """Calls ``listener`` for every spec registered from now on."""
        self._listeners.append(listener)

    def _ensure_loaded(self) -> None:
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            load_registry(_packaged_registry_path(), registry=self)
            _load_entry_points(self)
        finally:
            self._loading = False
        self._loaded = True

    # Lookup ---------------------------------------------------------------------------
    def resolve(self, env_id: str) -> EnvSpec:
        """Finds the spec of ``env_id``; accepts ``palaestra/`` prefixes and unversioned names.

        Raises:
            UnknownEnvError: The id is unknown; the message suggests close matches.
        """
        self._ensure_loaded()
        if not isinstance(env_id, str):
            raise TypeError(f"an environment id must be a string, got {type(env_id).__name__}")
        key = env_id.removeprefix(f"{GYMNASIUM_NAMESPACE}/")
        if key in self._specs:
            return self._specs[key]
        if key.startswith(("rg:", "rg/")):
            # reasoning-gym's datasets are looked up in the installed reasoning-gym, not listed.
            from palaestra.integrations import reasoning_gym

            return reasoning_gym.spec(key)
        if "-v" not in key.rsplit("/", 1)[-1]:
            versions = [s for s in self._specs.values() if s.id.rsplit("-v", 1)[0] == key]
            if versions:
                latest = max(versions, key=lambda s: s.version)
                warnings.warn(
                    f"{env_id!r} has no version; using the latest, {latest.id!r}. "
                    "Name the version to pin what you train on.",
                    stacklevel=3,
                )
                return latest
        close = difflib.get_close_matches(key, list(self._specs), n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownEnvError(
            f"no environment {env_id!r} is registered.{hint} Run `palaestra list` to see every id."
        )

    def filter(self, tags: Iterable[str] = (), *, any_tag: bool = False) -> list[EnvSpec]:
        """Specs carrying all the given tags (or any of them), sorted by id."""
        self._ensure_loaded()
        wanted = set(tags)
        test = (lambda t: bool(wanted & t)) if any_tag else (lambda t: wanted <= t)
        return [s for _, s in sorted(self._specs.items()) if not wanted or test(set(s.tags))]


registry = Registry()
"""The global catalogue."""


def _packaged_registry_path() -> Path:
    here = Path(__file__).resolve().parent
    packaged = here / "registry.yaml"  # inside an installed wheel
    if packaged.exists():
        return packaged
    return here.parent / "registry.yaml"  # a source checkout (editable install)


def _yaml():
    import yaml

    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_registry(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    registry: Registry | None = None,
    override: bool = False,
) -> list[str]:
    """Registers every id in a registry file (or its parsed content).

    The file holds ``envs:`` mapping each id to its fields (``entry_point`` required;
    ``kwargs``, ``max_turns``, ``max_invalid``, ``reward_range``, ``tags``, ``difficulty``,
    ``description`` optional).

    Returns:
        The ids registered.

    Raises:
        RegistrationError: The file is malformed; the message names the file and the id.
    """
    target = registry if registry is not None else globals()["registry"]
    if isinstance(source, Mapping):
        data, origin = source, "<mapping>"
    else:
        path = Path(source)
        yaml, loader = _yaml()
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        except (OSError, yaml.YAMLError) as e:
            raise RegistrationError(f"cannot read registry file {path}: {e}") from e
        origin = str(path)
    if data is None:
        return []
    if not isinstance(data, Mapping) or set(data) - {"envs"}:
        raise RegistrationError(f"{origin}: a registry file has one top-level key, 'envs'")
    envs = data.get("envs") or {}
    if not isinstance(envs, Mapping):
        raise RegistrationError(f"{origin}: 'envs' must map ids to their fields")
    added = []
    for env_id, fields in envs.items():
        if not isinstance(fields, Mapping):
            raise RegistrationError(f"{origin}: the entry for {env_id!r} must be a mapping")
        unknown = sorted(set(fields) - set(SPEC_FIELDS))
        if unknown:
            raise RegistrationError(
                f"{origin}: {env_id} has unknown field(s) {unknown}; "
                f"known fields: {list(SPEC_FIELDS)}"
            )
        if "entry_point" not in fields:
            raise RegistrationError(f"{origin}: {env_id} needs an entry_point ('module:attr')")
        values = dict(fields)
        values["kwargs"] = dict(values.get("kwargs") or {})
        values["tags"] = tuple(values.get("tags") or ())
        target.add(EnvSpec(id=str(env_id), source=origin, **values), override=override)
        added.append(str(env_id))
    return added


def _load_entry_points(target: Registry) -> None:
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
            result = loaded() if callable(loaded) else loaded
            if isinstance(result, (str, os.PathLike)):
                load_registry(result, registry=target)
        except Exception as e:  # a broken plugin must not break every other env
            warnings.warn(
                f"the palaestra.envs plugin {entry.name!r} ({entry.value}) failed to load and "
                f"its environments are unavailable: {type(e).__name__}: {e}",
                stacklevel=2,
            )


def register(
    id: str,
    entry_point: str | Callable[..., Any],
    *,
    override: bool = False,
    **fields: Any,
) -> EnvSpec:
    """Registers one id (fields as in `EnvSpec`).

    Raises:
        RegistrationError: The id is taken (without ``override``) or a field is invalid.
    """
    unknown = sorted(set(fields) - set(SPEC_FIELDS))
    if unknown:
        raise UnknownArgumentError(
            f"register() got unknown field(s) {unknown}; known: {list(SPEC_FIELDS)}"
        )
    return registry.add(
        EnvSpec(id=id, entry_point=entry_point, source="code", **fields), override=override
    )


def deregister(id: str) -> None:
    """Removes an id from the registry."""
    registry.remove(id)


def spec(id: str) -> EnvSpec:
    """The spec of a registered id (close matches are suggested for unknown ids)."""
    return registry.resolve(id)


def list_envs(tag: str | Iterable[str] | None = None) -> list[EnvSpec]:
    """Registered specs, optionally only those carrying every given tag."""
    tags = [tag] if isinstance(tag, str) else list(tag or [])
    return registry.filter(tags)


def load_entry_point(entry_point: str | Callable[..., Any]) -> Callable[..., Any]:
    """Imports ``"module:attr"`` (or returns a callable unchanged)."""
    if callable(entry_point):
        return entry_point
    module_name, _, attr = entry_point.partition(":")
    module = importlib.import_module(module_name)
    try:
        target: Any = module
        for part in attr.split("."):
            target = getattr(target, part)
    except AttributeError as e:
        raise RegistrationError(
            f"entry point {entry_point!r}: {module_name} has no {attr!r}"
        ) from e
    return target


def accepted_arguments(factory: Callable[..., Any]) -> tuple[list[str], bool]:
    """The keyword arguments a factory accepts, and whether it also takes ``**kwargs``.

    A factory whose signature cannot say (it forwards ``**kwargs``) may list its arguments
    in a classmethod ``argument_names()``.
    """
    if callable(getattr(factory, "argument_names", None)):
        return list(factory.argument_names()), False
    target = factory.__init__ if inspect.isclass(factory) else factory
    parameters = list(inspect.signature(target).parameters.values())
    if inspect.isclass(factory):
        parameters = parameters[1:]  # self
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return names, any(p.kind is p.VAR_KEYWORD for p in parameters)


def make(
    id: str | EnvSpec,
    *,
    max_turns: int | None | type[...] = ...,
    max_invalid: int | None | type[...] = ...,
    render_mode: str | None = None,
    **kwargs: Any,
) -> Env:
    """Creates an environment by id.

    Args:
        id: A registered id (``Name-vN``; ``palaestra/`` prefix allowed), a spec, or the URL
            of an id on a `palaestra serve` server (``http://host:port/Name-vN``), which
            gives a `palaestra.remote.RemoteEnv`, or an id leased from a Ray env pool
            (``ray://POOL/Name-vN``), which gives a `palaestra.ray_pool.PoolEnv`.
        max_turns: Overrides the spec's turn cap (None removes it).
        max_invalid: Overrides the spec's invalid-action allowance (None removes it).
        render_mode: ``"ansi"`` or ``"human"``.
        **kwargs: Constructor arguments; they override the spec's defaults.

    Returns:
        The env itself (not wrapped), with the spec's turn cap and invalid-action allowance
        set by `Env.set_limits` (the rules of the `TurnLimit` and `InvalidActionLimit`
        wrappers, applied inside its `step`).

    Raises:
        UnknownEnvError: The id is unknown (with close matches).
        UnknownArgumentError: A keyword argument is not accepted (with the accepted ones).
    """
    from palaestra.core import Env

    if isinstance(id, str) and "://" in id:
        from palaestra import ray_pool, remote

        options = {"max_turns": max_turns, "max_invalid": max_invalid}
        chosen = {k: v for k, v in options.items() if v is not ...}
        maker = ray_pool.make if ray_pool.is_pool_id(id) else remote.make
        remote_env = maker(id, **chosen, **kwargs)
        remote_env.render_mode = render_mode
        return remote_env
    env_spec = id if isinstance(id, EnvSpec) else registry.resolve(id)
    factory = load_entry_point(env_spec.entry_point)
    names, has_var_kwargs = accepted_arguments(factory)
    reserved = sorted(set(names) & set(MAKE_OPTIONS))
    if reserved:
        raise RegistrationError(
            f"{env_spec.id}: the constructor takes {reserved}, which make() reserves for "
            "itself; rename the argument (e.g. max_guesses)"
        )
    arguments = {**env_spec.kwargs, **kwargs}
    unknown = sorted(set(arguments) - set(names)) if not has_var_kwargs else []
    if unknown:
        hints = [
            f"{u!r} (did you mean {m[0]!r}?)"
            if (m := difflib.get_close_matches(u, names, n=1))
            else repr(u)
            for u in unknown
        ]
        raise UnknownArgumentError(
            f"{env_spec.id} does not accept {', '.join(hints)}. "
            f"It accepts: {', '.join(names) or 'no arguments'}."
        )
    try:
        env = factory(**arguments)
    except (ValueError, TypeError) as e:
        if type(e) not in (ValueError, TypeError):  # typed errors carry their own context
            raise
        raise type(e)(f"{env_spec.id}: {e}") from e  # which env refused its arguments
    if not isinstance(env, Env):
        raise RegistrationError(
            f"{env_spec.id}: the entry point {env_spec.entry_point!r} returned "
            f"{type(env).__name__}, not a palaestra.Env"
        )
    if render_mode is not None and render_mode not in env.metadata.get("render_modes", []):
        raise ValueError(
            f"{env_spec.id} supports render modes {env.metadata.get('render_modes')}, "
            f"not {render_mode!r}"
        )
    turns = env_spec.max_turns if max_turns is ... else max_turns
    allowance = env_spec.max_invalid if max_invalid is ... else max_invalid
    env.render_mode = render_mode
    env.palaestra_spec = dataclasses.replace(
        env_spec, kwargs=arguments, max_turns=turns, max_invalid=allowance
    )
    env.spec = _gymnasium_spec(env.palaestra_spec)
    env.set_limits(max_turns=turns, max_invalid=allowance)
    return env


def make_vec(id: str, n: int, **kwargs: Any) -> VecEnv:
    """Creates ``n`` copies of an env stepped together (see `palaestra.vector.VecEnv`)."""
    from palaestra.vector import VecEnv

    if not isinstance(n, int) or n < 1:
        raise ValueError(f"make_vec needs a positive number of envs, got {n!r}")
    return VecEnv([make(id, **kwargs) for _ in range(n)])


# --- Gymnasium bridge ---------------------------------------------------------------------


class GymnasiumEntryPoint:
    """A picklable factory registered with Gymnasium: ``gymnasium.make`` -> `palaestra.make`."""

    def __init__(self, env_id: str):
        self.env_id = env_id

    def __call__(self, **kwargs: Any) -> Env:
        """Makes the env (`palaestra.make`)."""
        return make(self.env_id, **kwargs)

    def __repr__(self) -> str:
        return f"GymnasiumEntryPoint({self.env_id!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GymnasiumEntryPoint) and other.env_id == self.env_id

    def __hash__(self) -> int:
        return hash(self.env_id)


def gymnasium_id(env_id: str) -> str:
    """The Gymnasium id of a Palaestra id (``palaestra/`` namespace unless it has one)."""
    return env_id if "/" in env_id else f"{GYMNASIUM_NAMESPACE}/{env_id}"


def _gymnasium_spec(env_spec: EnvSpec):
    from gymnasium.envs.registration import EnvSpec as GymEnvSpec

    return GymEnvSpec(
        id=gymnasium_id(env_spec.id),
        entry_point=GymnasiumEntryPoint(env_spec.id),
        max_episode_steps=None,
        order_enforce=False,
        disable_env_checker=True,
        kwargs=dict(env_spec.kwargs),
    )


_bridged = False


def register_gymnasium() -> None:
    """Registers every id (and every later one) in Gymnasium's registry. Idempotent."""
    global _bridged
    if _bridged:
        return
    _bridged = True
    # Only this module: the rest of Gymnasium may still be importing (see _gymnasium_hook).
    from gymnasium.envs import registration as gym_registration

    def bridge(env_spec: EnvSpec) -> None:
        gym_id = gymnasium_id(env_spec.id)
        gym_registration.registry.pop(gym_id, None)
        gym_registration.register(id=gym_id, entry_point=GymnasiumEntryPoint(env_spec.id))

    known = list(registry.values())  # loads the catalogue before listening
    registry.on_register(bridge)
    for env_spec in known:
        bridge(env_spec)
