"""The shipped problem set: 150 problems written for Palaestra, one small module each.

    from palaestra.envs.code.problems import load_problems, get_problem

    problems = load_problems(categories=["strings"], levels=[1, 2], styles=["function"])
    problem = get_problem("dynamic_programming/edit_distance")
    first = get_problem("dynamic_programming/edit_distance", version=0)

Each problem lives in ``problems/<category>/<name>.py``; its id is ``"<category>/<name>"``.
The module's docstring is its title, and it defines:

    LEVEL         1 (easy), 2 (medium) or 3 (hard)
    STYLE         "function" or "stdio"
    ENTRY         the function to write (function style)
    STATEMENT     the task
    REFERENCE     a solution that passes every test
    WRONG         plausible wrong solutions; each fails at least one hidden test
    PUBLIC        (input, expected) pairs shown in the prompt
    HIDDEN        (input, expected) pairs that decide the reward: typical cases and edge cases
    PERFORMANCE   (input, expected) pairs with large inputs (hidden, labelled "performance")
    HIDDEN_V1     optional: hidden tests added in version 1 of the set
    TIME_LIMIT_S  optional: seconds per test (default `DEFAULT_TIME_LIMIT_S`)
    CHECK         optional: the output check, e.g. {"mode": "tokens", "float_tol": 1e-6}
    EQUIVALENT_MUTANTS
                  optional: {mutant id: why it computes the same function as REFERENCE}
                  for the mutants of the reference that no test can kill
                  (`palaestra.envs.code.mutation`)

For function problems an input is a call expression evaluated in the sandbox after the
candidate's code (large inputs are built there, e.g. ``f(list(range(10**5)))``); for stdio
problems it is the text on standard input. A large stdin is given by a function that builds
it (from `_inputs`), called only when the problem is loaded, so that listing the set stays
cheap. The test suite checks, in the sandbox, that every reference passes every test, that
every wrong solution fails a hidden one, that the hidden tests include the public ones, and
that they kill every first-order mutant of the reference not listed in EQUIVALENT_MUTANTS
(``python -m bench.code.mutation`` runs that check and prints the mutation score).

Versions of the set (``version=`` below; an env id's version picks one, see
`palaestra.envs.code.envs`): 0, the first, whose hidden tests are HIDDEN and PERFORMANCE;
1 (the default), whose hidden tests also include the public examples (the reward never goes
to a program that fails an example it was shown) and HIDDEN_V1, the tests that kill the
near-miss programs version 0 let through. Statements and references are the same in both.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType

from palaestra.envs.code.problem import CodeProblem, OutputCheck, Test

CATEGORIES = (
    "strings",
    "arithmetic",
    "data_structures",
    "search",
    "dynamic_programming",
    "simulation",
)
LEVELS = (1, 2, 3)
DEFAULT_TIME_LIMIT_S = 4.0
VERSIONS = (0, 1)
LATEST = 1

_REQUIRED = {"LEVEL", "STYLE", "STATEMENT", "REFERENCE", "WRONG", "PUBLIC", "HIDDEN", "PERFORMANCE"}
_OPTIONAL = {"ENTRY", "TIME_LIMIT_S", "CHECK", "HIDDEN_V1", "EQUIVALENT_MUTANTS"}


def _code(text: str) -> str:
    return text.strip("\n") + "\n"


def _from_module(category: str, name: str, module: ModuleType, version: int) -> CodeProblem:
    problem_id = f"{category}/{name}"
    names = {n for n in vars(module) if n.isupper()}
    missing, unknown = sorted(_REQUIRED - names), sorted(names - _REQUIRED - _OPTIONAL)
    if missing or unknown:
        raise ValueError(
            f"problem {problem_id}: missing {missing} / unknown {unknown}; "
            f"a problem module defines {sorted(_REQUIRED)} and optionally {sorted(_OPTIONAL)}"
        )
    title = (module.__doc__ or name).strip().splitlines()[0].rstrip(".")
    performance = [Test(i() if callable(i) else i, o, "performance") for i, o in module.PERFORMANCE]
    hidden = [Test(i, o) for i, o in module.HIDDEN]
    if version >= 1:
        shown = [Test(i, o) for i, o in module.PUBLIC if (i, o) not in module.HIDDEN]
        hidden = shown + hidden + [Test(i, o) for i, o in getattr(module, "HIDDEN_V1", ())]
    return CodeProblem(
        id=problem_id,
        title=title,
        statement=module.STATEMENT.strip(),
        style=module.STYLE,
        entry=getattr(module, "ENTRY", None),
        public=[Test(i, o) for i, o in module.PUBLIC],
        hidden=hidden + performance,
        reference=_code(module.REFERENCE),
        wrong=tuple(_code(w) for w in module.WRONG),
        time_limit_s=getattr(module, "TIME_LIMIT_S", DEFAULT_TIME_LIMIT_S),
        check=OutputCheck(**getattr(module, "CHECK", {})),
        category=category,
        level=module.LEVEL,
        source="palaestra",
    )


@dataclasses.dataclass(frozen=True)
class Entry:
    """What the index knows of a problem without building its tests.

    Attributes:
        id: ``"<category>/<name>"``.
        category: The category.
        level: 1-3.
        style: ``"function"`` or ``"stdio"``.
    """

    id: str
    category: str
    level: int
    style: str


@functools.lru_cache(maxsize=1)
def _modules() -> dict[str, ModuleType]:
    modules = {}
    for category in CATEGORIES:
        package = importlib.import_module(f"{__name__}.{category}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if not info.name.startswith("_"):
                modules[f"{category}/{info.name}"] = importlib.import_module(
                    f"{package.__name__}.{info.name}"
                )
    return modules


@functools.lru_cache(maxsize=1)
def index() -> tuple[Entry, ...]:
    """Every shipped problem's id, category, level and style, in id order (no tests built)."""
    return tuple(
        Entry(problem_id, problem_id.split("/")[0], module.LEVEL, module.STYLE)
        for problem_id, module in sorted(_modules().items())
    )


@functools.cache
def _build(problem_id: str, version: int) -> CodeProblem:
    category, name = problem_id.split("/")
    return _from_module(category, name, _modules()[problem_id], version)


def _check_version(version: int) -> int:
    if isinstance(version, bool) or version not in VERSIONS:
        raise ValueError(f"version must be one of {list(VERSIONS)}, got {version!r}")
    return version


def _check_choice(name: str, given: Iterable | None, allowed: tuple) -> set | None:
    if given is None:
        return None
    if isinstance(given, (str, int)):
        given = [given]
    chosen = set(given)
    unknown = sorted(map(str, chosen - set(allowed)))
    if unknown:
        raise ValueError(f"unknown {name} {unknown}; choose from {list(allowed)}")
    return chosen


def select(
    categories: Iterable[str] | str | None = None,
    levels: Iterable[int] | int | None = None,
    styles: Iterable[str] | str | None = None,
) -> list[str]:
    """The ids of the shipped problems that match, in id order (cheap: no tests built).

    Args:
        categories: Keep these categories (see `CATEGORIES`).
        levels: Keep these levels (1-3).
        styles: Keep ``"function"`` and/or ``"stdio"`` problems.

    Raises:
        ValueError: An unknown category, level or style.
    """
    wanted_categories = _check_choice("categories", categories, CATEGORIES)
    wanted_levels = _check_choice("levels", levels, LEVELS)
    wanted_styles = _check_choice("styles", styles, ("function", "stdio"))
    return [
        e.id
        for e in index()
        if (wanted_categories is None or e.category in wanted_categories)
        and (wanted_levels is None or e.level in wanted_levels)
        and (wanted_styles is None or e.style in wanted_styles)
    ]


def load_problems(
    categories: Iterable[str] | str | None = None,
    levels: Iterable[int] | int | None = None,
    styles: Iterable[str] | str | None = None,
    version: int = LATEST,
) -> list[CodeProblem]:
    """The shipped problems that match (see `select`), built with the tests of ``version``."""
    _check_version(version)
    return [_build(problem_id, version) for problem_id in select(categories, levels, styles)]


def get_problem(problem_id: str, version: int = LATEST) -> CodeProblem:
    """One shipped problem by id (``"<category>/<name>"``), built with the tests of ``version``.

    Raises:
        KeyError: No such problem (with the closest ids).
        ValueError: An unknown version (see `VERSIONS`).
    """
    _check_version(version)
    if problem_id not in _modules():
        close = difflib.get_close_matches(problem_id, list(_modules()), n=3)
        raise KeyError(
            f"no shipped problem {problem_id!r}" + (f"; did you mean {close}?" if close else "")
        )
    return _build(problem_id, version)


def equivalent_mutants(problem_id: str) -> dict[str, str]:
    """The mutants of a shipped problem's reference listed as equivalent: {mutant id: reason}.

    Raises:
        KeyError: No such problem.
        TypeError: The problem's ``EQUIVALENT_MUTANTS`` is not a dict of non-empty strings.
    """
    get_problem(problem_id)
    listed = getattr(_modules()[problem_id], "EQUIVALENT_MUTANTS", {})
    if not isinstance(listed, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in listed.items()
    ):
        raise TypeError(
            f"problem {problem_id}: EQUIVALENT_MUTANTS must map mutant ids to one-line reasons "
            "(non-empty strings)"
        )
    return dict(listed)
