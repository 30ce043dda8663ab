"""Combinations with a given sum."""

LEVEL = 2
STYLE = "function"
ENTRY = "combination_sum"

STATEMENT = """
Write `combination_sum(candidates, target)` that returns every multiset of the distinct
positive `candidates` (each may be used any number of times) summing to `target` > 0, each
as an ascending list, the lists in lexicographic order.
"""

REFERENCE = r"""
def combination_sum(candidates, target):
    candidates = sorted(candidates)
    out = []
    def build(start, remaining, chosen):
        if remaining == 0:
            out.append(list(chosen))
            return
        for i in range(start, len(candidates)):
            c = candidates[i]
            if c > remaining:
                break
            chosen.append(c)
            build(i, remaining - c, chosen)
            chosen.pop()
    build(0, target, [])
    return out
"""

WRONG = [
    r"""
def combination_sum(candidates, target):
    candidates = sorted(candidates)
    out = []
    def build(remaining, chosen):
        if remaining == 0:
            out.append(list(chosen))
            return
        for c in candidates:
            if c > remaining:
                break
            chosen.append(c)
            build(remaining - c, chosen)
            chosen.pop()
    build(target, [])
    return out
""",
]

PUBLIC = [
    ("combination_sum([2, 3, 6, 7], 7)", [[2, 2, 3], [7]]),
    ("combination_sum([2], 1)", []),
]

HIDDEN = [
    ("combination_sum([2, 3, 5], 8)", [[2, 2, 2, 2], [2, 3, 3], [3, 5]]),
    ("combination_sum([1], 2)", [[1, 1]]),
    ("combination_sum([7, 3], 3)", [[3]]),
    ("combination_sum([4, 2], 6)", [[2, 2, 2], [2, 4]]),
]

PERFORMANCE = [
    ("len(combination_sum([2, 3, 5, 7, 11], 60))", 531),
]

EQUIVALENT_MUTANTS = {
    "delete:7:12:pass": "with remaining 0 the first candidate is larger and breaks the loop",
    "jump:11:16:continue": "candidates are sorted: every later one is larger too",
}
