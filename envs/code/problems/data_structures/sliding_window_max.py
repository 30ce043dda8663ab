"""Sliding window maximum."""

LEVEL = 3
STYLE = "function"
ENTRY = "window_max"

STATEMENT = """
Write `window_max(nums, k)` that returns the list of the maxima of every window of `k`
consecutive elements of `nums`, from left to right (1 <= k <= len(nums)). Lists hold up to
200000 elements, so aim for linear time.
"""

REFERENCE = r"""
from collections import deque

def window_max(nums, k):
    window, out = deque(), []
    for i, x in enumerate(nums):
        while window and nums[window[-1]] <= x:
            window.pop()
        window.append(i)
        if window[0] <= i - k:
            window.popleft()
        if i >= k - 1:
            out.append(nums[window[0]])
    return out
"""

WRONG = [
    r"""
def window_max(nums, k):
    return [max(nums[i:i + k]) for i in range(len(nums) - k + 1)]
""",
]

PUBLIC = [
    ("window_max([1, 3, -1, -3, 5, 3, 6, 7], 3)", [3, 3, 5, 5, 6, 7]),
    ("window_max([1], 1)", [1]),
]

HIDDEN = [
    ("window_max([9, 8, 7, 6], 2)", [9, 8, 7]),
    ("window_max([1, 2, 3, 4], 4)", [4]),
    ("window_max([4, 4, 4], 1)", [4, 4, 4]),
    ("window_max([-5, -1, -3], 2)", [-1, -1]),
]

PERFORMANCE = [
    ("sum(window_max([(i * 7919) % 100003 for i in range(200000)], 50000))", 15000344628),
]

EQUIVALENT_MUTANTS = {
    "compare:6:45:<": "equal values stay queued; the front still holds the window's maximum",
}
