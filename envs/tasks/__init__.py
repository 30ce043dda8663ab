"""Single-turn procedural reasoning tasks, one folder per room of the README's table.

``logic/``, ``graphs/``, ``induction/``, ``arithmetic/``, ``strings/``, ``tracing/``,
``grids/`` and ``planning/`` hold the families; a helper used by one room lives beside its
families (``grids/_grids.py``). Here, beside them: `base` (the `Task` API every family
implements), `answers` (strict answer parsers), `curriculum` (task mixtures and adaptive
levels), the helpers more than one room uses (``_logic.py``, ``_words.py``) and the shipped
data (``data/``).
"""
