"""Solve a Sudoku."""

LEVEL = 3
STYLE = "stdio"

STATEMENT = """
The input is a Sudoku puzzle: 9 lines of 9 digits, 0 for an empty cell. Fill the empty
cells with digits 1-9 so that every row, column and 3 x 3 box holds each digit once, and
print the solved grid in the same format. Every puzzle has exactly one solution.
"""

REFERENCE = r"""
import sys
cells = [int(c) for c in sys.stdin.read() if c.isdigit()][:81]
rows = [set() for _ in range(9)]
cols = [set() for _ in range(9)]
boxes = [set() for _ in range(9)]
empty = []
for i, d in enumerate(cells):
    r, c = divmod(i, 9)
    if d:
        rows[r].add(d)
        cols[c].add(d)
        boxes[r // 3 * 3 + c // 3].add(d)
    else:
        empty.append(i)
def solve():
    best, options = None, None
    for i in empty:
        if cells[i]:
            continue
        r, c = divmod(i, 9)
        b = r // 3 * 3 + c // 3
        used = rows[r] | cols[c] | boxes[b]
        choice = [d for d in range(1, 10) if d not in used]
        if best is None or len(choice) < len(options):
            best, options = i, choice
            if len(choice) <= 1:
                break
    if best is None:
        return True
    r, c = divmod(best, 9)
    b = r // 3 * 3 + c // 3
    for d in options:
        cells[best] = d
        rows[r].add(d)
        cols[c].add(d)
        boxes[b].add(d)
        if solve():
            return True
        rows[r].discard(d)
        cols[c].discard(d)
        boxes[b].discard(d)
    cells[best] = 0
    return False
solve()
for r in range(9):
    print("".join(map(str, cells[r * 9:r * 9 + 9])))
"""

WRONG = [
    r"""
import sys
cells = [int(c) for c in sys.stdin.read() if c.isdigit()][:81]
def ok(i, d):
    r, c = divmod(i, 9)
    return all(cells[r * 9 + k] != d and cells[k * 9 + c] != d for k in range(9))
def solve(i=0):
    if i == 81:
        return True
    if cells[i]:
        return solve(i + 1)
    for d in range(1, 10):
        if ok(i, d):
            cells[i] = d
            if solve(i + 1):
                return True
    cells[i] = 0
    return False
solve()
for r in range(9):
    print("".join(map(str, cells[r * 9:r * 9 + 9])))
""",
]

PUBLIC = [
    (
        "530070000\n600195000\n098000060\n800060003\n400803001\n700020006\n060000280\n000"
        "419005\n000080079\n",
        "534678912\n672195348\n198342567\n859761423\n426853791\n713924856\n961537284\n287"
        "419635\n345286179\n",
    ),
]

HIDDEN = [
    (
        "200080300\n060070084\n030500209\n000105408\n000000000\n402706000\n301007040\n720"
        "040060\n004010003\n",
        "245981376\n169273584\n837564219\n976125438\n513498627\n482736951\n391657842\n728"
        "349165\n654812793\n",
    ),
    (
        "000260701\n680070090\n190004500\n820100040\n004602900\n050003028\n009300074\n040"
        "050036\n703018000\n",
        "435269781\n682571493\n197834562\n826195347\n374682915\n951743628\n519326874\n248"
        "957136\n763418259\n",
    ),
]

PERFORMANCE = [
    (
        "000000907\n000420180\n000705026\n100904000\n050000040\n000507009\n920108000\n034"
        "059000\n507000000\n",
        "462831957\n795426183\n381795426\n173984265\n659312748\n248567319\n926178534\n834"
        "259671\n517643892\n",
    ),
]

EQUIVALENT_MUTANTS = {
    "constant:2:59:82": "the input holds exactly 81 digits",
    "constant:3:29:10": "an extra set past 8 is never read",
    "constant:4:29:10": "an extra set past 8 is never read",
    "constant:5:30:10": "an extra set past 8 is never read",
    "constant:23:35:0": "0 leaves the cell empty, so only a grid full of 1-9 ends the search",
    "compare:24:41:<=": "only the order of the search changes, and the solution is unique",
    "delete:26:12:pass": "only the order of the search changes, and the solution is unique",
    "negate:26:15:not": "only the order of the search changes, and the solution is unique",
    "compare:26:30:<": "only the order of the search changes, and the solution is unique",
    "compare:26:30:>": "only the order of the search changes, and the solution is unique",
    "constant:26:30:2": "only the order of the search changes, and the solution is unique",
    "constant:26:30:0": "only the order of the search changes, and the solution is unique",
    "delete:27:16:pass": "only the order of the search changes, and the solution is unique",
    "jump:27:16:continue": "only the order of the search changes, and the solution is unique",
    "delete:43:4:pass": "any false value reads as failure at `if solve()`",
    "return:43:4:0": "any false value reads as failure at `if solve()`",
    "return:43:4:''": "any false value reads as failure at `if solve()`",
    "return:43:4:None": "any false value reads as failure at `if solve()`",
    "return:43:4:[]": "any false value reads as failure at `if solve()`",
    "constant:45:15:10": "prints one more, empty, line, which the line check ignores",
}
