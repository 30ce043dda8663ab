"""Next greater element."""

LEVEL = 2
STYLE = "function"
ENTRY = "next_greater"

STATEMENT = """
Write `next_greater(nums)` that returns, for every position i, the first value to the
right of i that is strictly greater than nums[i], or -1 if there is none. Lists hold up
to 200000 elements.
"""

REFERENCE = r"""
def next_greater(nums):
    out = [-1] * len(nums)
    stack = []
    for i, x in enumerate(nums):
        while stack and nums[stack[-1]] < x:
            out[stack.pop()] = x
        stack.append(i)
    return out
"""

WRONG = [
    r"""
def next_greater(nums):
    out = [-1] * len(nums)
    stack = []
    for i, x in enumerate(nums):
        while stack and nums[stack[-1]] <= x:
            out[stack.pop()] = x
        stack.append(i)
    return out
""",
]

PUBLIC = [
    ("next_greater([2, 1, 2, 4, 3])", [4, 2, 4, -1, -1]),
    ("next_greater([5, 4, 3])", [-1, -1, -1]),
]

HIDDEN = [
    ("next_greater([])", []),
    ("next_greater([1, 1, 2])", [2, 2, -1]),
    ("next_greater([3, 3, 3])", [-1, -1, -1]),
    ("next_greater([1, 3, 2, 4])", [3, 4, 4, -1]),
]

PERFORMANCE = [
    ("sum(next_greater([(i * 7919) % 100003 for i in range(200000)]))", 11490165917),
]
