"""Shortest path in a grid."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds r and c, then r lines of c characters: `.` free, `#` wall, one `S`
(start) and one `E` (exit). Each move goes to an edge-adjacent free cell (S and E are
free). Print the least number of moves from S to E, or -1 if E cannot be reached.
"""

REFERENCE = r"""
import sys
from collections import deque
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
grid = lines[2:2 + r]
start = next((i, row.index("S")) for i, row in enumerate(grid) if "S" in row)
dist = {start: 0}
queue = deque([start])
answer = -1
while queue:
    y, x = queue.popleft()
    if grid[y][x] == "E":
        answer = dist[(y, x)]
        break
    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
        if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and (ny, nx) not in dist:
            dist[(ny, nx)] = dist[(y, x)] + 1
            queue.append((ny, nx))
print(answer)
"""

WRONG = [
    r"""
import sys
from collections import deque
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
grid = lines[2:2 + r]
start = next((i, row.index("S")) for i, row in enumerate(grid) if "S" in row)
dist = {start: 0}
queue = deque([start])
answer = -1
while queue:
    y, x = queue.popleft()
    if grid[y][x] == "E":
        answer = dist[(y, x)]
        break
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            ny, nx = y + dy, x + dx
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and (ny, nx) not in dist:
                dist[(ny, nx)] = dist[(y, x)] + 1
                queue.append((ny, nx))
print(answer)
""",
]

PUBLIC = [
    ("3 4\nS..#\n.#..\n...E\n", "5\n"),
    ("2 2\nS#\n#E\n", "-1\n"),
]

HIDDEN = [
    ("1 2\nSE\n", "1\n"),
    ("3 3\nS..\n.#.\n..E\n", "4\n"),
    ("3 5\nS.#..\n.##.#\n...#E\n", "-1\n"),
    ("1 5\nS...E\n", "4\n"),
]


def _performance_input():
    return (
        "200 200\n"
        + "\n".join(
            ("S" if row == 0 else ".") + text(198, "....#", row) + ("E" if row == 199 else ".")
            for row in range(200)
        )
        + "\n"
    )


PERFORMANCE = [
    (_performance_input, "398\n"),
]

HIDDEN_V1 = [
    ("3 4\n...E\n.#..\nS..#\n", "5\n"),
    ("1 5\nE...S\n", "4\n"),
    ("2 2\n.E\nS#\n", "2\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:5:15:3": "the input holds exactly r rows: a longer slice takes no more",
    "delete:14:8:pass": "E is dequeued once, first at its shortest distance",
    "jump:14:8:continue": "E is dequeued once, first at its shortest distance",
    "bound:5:15:+1": "the input holds exactly r rows: a longer slice takes no more",
}
