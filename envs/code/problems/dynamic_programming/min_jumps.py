"""Fewest jumps to the end."""

LEVEL = 2
STYLE = "function"
ENTRY = "min_jumps"

STATEMENT = """
From index i of `nums` you may jump forward by 1 to nums[i] places. Write
`min_jumps(nums)` that returns the fewest jumps from index 0 to the last index, or -1 if
it cannot be reached. Lists hold up to 300000 elements.
"""

REFERENCE = r"""
def min_jumps(nums):
    jumps, end, farthest = 0, 0, 0
    for i in range(len(nums) - 1):
        if i > farthest:
            return -1
        farthest = max(farthest, i + nums[i])
        if i == end:
            jumps += 1
            end = farthest
            if end <= i:
                return -1
    return jumps
"""

WRONG = [
    r"""
def min_jumps(nums):
    i = jumps = 0
    while i < len(nums) - 1:
        if nums[i] == 0:
            return -1
        i += nums[i]
        jumps += 1
    return jumps
""",
]

PUBLIC = [
    ("min_jumps([2, 3, 1, 1, 4])", 2),
    ("min_jumps([3, 2, 1, 0, 4])", -1),
]

HIDDEN = [
    ("min_jumps([0])", 0),
    ("min_jumps([1, 0])", 1),
    ("min_jumps([2, 3, 0, 1, 4])", 2),
    ("min_jumps([2, 3, 1, 1, 4])", 2),
    ("min_jumps([0, 1])", -1),
    ("min_jumps([2, 1, 5, 1, 1, 1, 1])", 2),
    ("min_jumps([1, 1, 1, 1])", 3),
]

PERFORMANCE = [
    ("min_jumps([(i * 7919) % 5 + 1 for i in range(300000)])", 60001),
]

EQUIVALENT_MUTANTS = {
    "delete:4:8:pass": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "delete:5:12:pass": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:0": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:''": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:None": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:True": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:False": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "return:5:12:[]": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "unary:5:19:drop-minus": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "constant:5:20:2": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
    "constant:5:20:0": "unreachable: a walk that gets stuck returns -1 at `end <= i` first",
}
