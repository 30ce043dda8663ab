"""Code environments: program synthesis scored by hidden tests, and Python/shell tool use.

* `palaestra.envs.code.problem`: `CodeProblem`, `Test`, `OutputCheck` (the data).
* `palaestra.envs.code.judge`: scoring in a fresh sandbox by the trusted runner (threat model).
* `palaestra.envs.code.problems`: the shipped problem set (reference and wrong solutions).
* `palaestra.envs.code.generators`: procedural problem families with generated tests.
* `palaestra.envs.code.loaders`: APPS/TACO, CodeContests, LiveCodeBench and `datasets` rows.
* `palaestra.envs.code.envs`: the single-turn and multi-turn synthesis envs.

The interpreter tool envs live in `palaestra.envs.tools.python_tool`.
"""
