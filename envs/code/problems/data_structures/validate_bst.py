"""Validate a binary search tree."""

LEVEL = 2
STYLE = "function"
ENTRY = "is_bst"

STATEMENT = """
A binary tree is given in level order as a list, as in LeetCode: the root first, then the
children of each present node left to right, None for a missing child (trailing Nones may
be omitted). Write `is_bst(values)` that returns True when every node's value is greater
than every value in its left subtree and smaller than every value in its right subtree.
The empty tree is a BST.
"""

REFERENCE = r"""
def is_bst(values):
    if not values or values[0] is None:
        return True
    nodes = [[values[0], float("-inf"), float("inf")]]
    head, i = 0, 1
    while head < len(nodes):
        value, low, high = nodes[head]
        head += 1
        if not low < value < high:
            return False
        for bounds in ((low, value), (value, high)):
            if i < len(values) and values[i] is not None:
                nodes.append([values[i], bounds[0], bounds[1]])
            i += 1
    return True
"""

WRONG = [
    r"""
def is_bst(values):
    if not values or values[0] is None:
        return True
    nodes = [values[0]]
    head, i = 0, 1
    while head < len(nodes):
        value = nodes[head]
        head += 1
        for side in (0, 1):
            if i < len(values) and values[i] is not None:
                child = values[i]
                if (side == 0 and child >= value) or (side == 1 and child <= value):
                    return False
                nodes.append(child)
            i += 1
    return True
""",
]

PUBLIC = [
    ("is_bst([2, 1, 3])", True),
    ("is_bst([5, 1, 4, None, None, 3, 6])", False),
]

HIDDEN = [
    ("is_bst([])", True),
    ("is_bst([1, 1])", False),
    ("is_bst([5, 4, 6, None, None, 3, 7])", False),
    ("is_bst([10, 5, 15, None, None, 6, 20])", False),
    ("is_bst([3, 1, 5, 0, 2, 4, 6])", True),
]

PERFORMANCE = [
    ("is_bst([100000] + [i for k in range(99999, 0, -1) for i in (k, None)])", True),
]

HIDDEN_V1 = [
    ("is_bst([7])", True),
    ("is_bst([2, 3, None])", False),
    ("is_bst([2, 1, 2])", False),
]
