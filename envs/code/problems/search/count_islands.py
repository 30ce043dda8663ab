"""Count the islands."""

from palaestra.envs.code.problems._inputs import text

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
The first line holds r and c, then r lines of c characters: `#` for land and `.` for
water. Land cells that share an edge (not just a corner) belong to the same island. Print
the number of islands.
"""

REFERENCE = r"""
import sys
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
grid = [list(row) for row in lines[2:2 + r]]
islands = 0
for i in range(r):
    for j in range(c):
        if grid[i][j] == "#":
            islands += 1
            grid[i][j] = "."
            stack = [(i, j)]
            while stack:
                y, x = stack.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] == "#":
                        grid[ny][nx] = "."
                        stack.append((ny, nx))
print(islands)
"""

WRONG = [
    r"""
import sys
lines = sys.stdin.read().split()
r, c = int(lines[0]), int(lines[1])
grid = [list(row) for row in lines[2:2 + r]]
islands = 0
for i in range(r):
    for j in range(c):
        if grid[i][j] == "#":
            islands += 1
            grid[i][j] = "."
            stack = [(i, j)]
            while stack:
                y, x = stack.pop()
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        ny, nx = y + dy, x + dx
                        if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] == "#":
                            grid[ny][nx] = "."
                            stack.append((ny, nx))
print(islands)
""",
]

PUBLIC = [
    ("4 5\n##...\n##...\n..#..\n...##\n", "3\n"),
    ("1 1\n.\n", "0\n"),
]

HIDDEN = [
    ("1 1\n#\n", "1\n"),
    ("3 3\n#.#\n.#.\n#.#\n", "5\n"),
    ("2 4\n####\n#..#\n", "1\n"),
    ("3 1\n#\n.\n#\n", "2\n"),
]


def _performance_input():
    return "300 300\n" + "\n".join(text(300, "##.", row) for row in range(300)) + "\n"


PERFORMANCE = [
    (_performance_input, "1122\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:4:37:3": "the input holds exactly r rows: a longer slice takes no more",
    "delete:10:12:pass": (
        "the start is marked when a neighbour reaches it; the outer loop has passed it"
    ),
    "bound:4:37:+1": "the input holds exactly r rows: a longer slice takes no more",
}
