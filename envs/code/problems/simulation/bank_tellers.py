"""Customers and tellers."""

from palaestra.envs.code.problems._inputs import ints

LEVEL = 3
STYLE = "stdio"

STATEMENT = """
The first line holds k tellers and n customers; each of the next n lines holds a
customer's arrival time and service time (integers, customers listed by non-decreasing
arrival). Customers are served in order of arrival; each goes to the teller that becomes
free first (the lowest-numbered teller among those free at the same time) and starts at
max(arrival, that time). Print the total waiting time (start minus arrival, summed).
"""

REFERENCE = r"""
import heapq
import sys
data = sys.stdin.read().split()
k, n = int(data[0]), int(data[1])
tellers = [(0, t) for t in range(k)]
total = 0
for i in range(n):
    arrival, service = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    free_at, teller = heapq.heappop(tellers)
    start = max(arrival, free_at)
    total += start - arrival
    heapq.heappush(tellers, (start + service, teller))
print(total)
"""

WRONG = [
    r"""
import sys
data = sys.stdin.read().split()
k, n = int(data[0]), int(data[1])
free = [0] * k
total = 0
for i in range(n):
    arrival, service = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    teller = i % k
    start = max(arrival, free[teller])
    total += start - arrival
    free[teller] = start + service
print(total)
""",
]

PUBLIC = [
    ("2 4\n0 5\n1 3\n2 4\n3 1\n", "4\n"),
    ("1 2\n0 10\n20 5\n", "0\n"),
]

HIDDEN = [
    ("3 0\n", "0\n"),
    ("1 3\n0 4\n0 4\n0 4\n", "12\n"),
    ("2 5\n0 10\n0 1\n1 1\n2 1\n3 1\n", "0\n"),
]


def _performance_input():
    return "50 100000\n" + "".join(
        f"{t} {s}\n"
        for t, s in zip(sorted(ints(100000, 0, 1000000, 51)), ints(100000, 1, 900, 52), strict=True)
    )


PERFORMANCE = [
    (_performance_input, "2377063\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:5:12:-1": "arrival times start at 0, so max(arrival, -1) == max(arrival, 0)",
}
