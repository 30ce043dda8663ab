"""Depth of a binary tree."""

LEVEL = 2
STYLE = "function"
ENTRY = "max_depth"

STATEMENT = """
A binary tree is given in level order as a list: the root first, then the children of
each present node from left to right, with None for a missing child (missing nodes have no
entries for their children; trailing Nones may be omitted). Write `max_depth(values)` that
returns the number of nodes on the longest root-to-leaf path (0 for an empty tree).
"""

REFERENCE = r"""
def max_depth(values):
    if not values or values[0] is None:
        return 0
    depth_of = [1]
    best = 1
    queue = [0]
    i = 1
    head = 0
    while head < len(queue) and i < len(values):
        parent = queue[head]
        head += 1
        for _ in range(2):
            if i < len(values) and values[i] is not None:
                depth_of.append(depth_of[parent] + 1)
                best = max(best, depth_of[-1])
                queue.append(len(depth_of) - 1)
            i += 1
    return best
"""

WRONG = [
    r"""
def max_depth(values):
    n = len(values)
    depth = 0
    while (1 << depth) - 1 < n:
        depth += 1
    return depth
""",
]

PUBLIC = [
    ("max_depth([3, 9, 20, None, None, 15, 7])", 3),
    ("max_depth([1, None, 2])", 2),
]

HIDDEN = [
    ("max_depth([])", 0),
    ("max_depth([1])", 1),
    ("max_depth([1, 2, None, 3, None, 4])", 4),
    ("max_depth([1, 2, 3, 4, 5, 6, 7])", 3),
    ("max_depth([1, None, 2, None, 3, None, 4])", 4),
]

PERFORMANCE = [
    ("max_depth([1] + [2, None] * 100000)", 100001),
]

EQUIVALENT_MUTANTS = {
    "compare:9:17:<=": "a valid list ends with the last node's child slots: values run out first",
    "boolean:9:32:or": "a valid list ends with the last node's child slots: values run out first",
    "compare:9:36:<=": "one more pass with every slot read appends nothing",
}
