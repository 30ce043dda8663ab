"""Find a word in a letter grid."""

LEVEL = 2
STYLE = "function"
ENTRY = "exists"

STATEMENT = """
Write `exists(board, word)` for a grid of letters given as a list of equal-length strings.
Return True when `word` (non-empty) can be spelled by a path of edge-adjacent cells,
using each cell at most once.
"""

REFERENCE = r"""
def exists(board, word):
    rows, cols = len(board), len(board[0])
    used = set()
    def walk(y, x, i):
        if board[y][x] != word[i] or (y, x) in used:
            return False
        if i == len(word) - 1:
            return True
        used.add((y, x))
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < rows and 0 <= nx < cols and walk(ny, nx, i + 1):
                return True
        used.discard((y, x))
        return False
    return any(walk(y, x, 0) for y in range(rows) for x in range(cols))
"""

WRONG = [
    r"""
def exists(board, word):
    rows, cols = len(board), len(board[0])
    def walk(y, x, i):
        if board[y][x] != word[i]:
            return False
        if i == len(word) - 1:
            return True
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < rows and 0 <= nx < cols and walk(ny, nx, i + 1):
                return True
        return False
    return any(walk(y, x, 0) for y in range(rows) for x in range(cols))
""",
]

PUBLIC = [
    ("exists(['ABCE', 'SFCS', 'ADEE'], 'ABCCED')", True),
    ("exists(['ABCE', 'SFCS', 'ADEE'], 'ABCB')", False),
]

HIDDEN = [
    ("exists(['A'], 'A')", True),
    ("exists(['A'], 'AA')", False),
    ("exists(['AB', 'CD'], 'ABDC')", True),
    ("exists(['AB', 'CD'], 'ABCD')", False),
    ("exists(['ABA'], 'ABAB')", False),
]

PERFORMANCE = [
    ("exists(['ABCDEFGHIJ' * 10] * 100, 'ABCDEFGHIJ' * 3 + 'Z')", False),
]

HIDDEN_V1 = [
    ("exists(['AB', 'CD'], 'CDBA')", True),
    ("exists(['AAB', 'AAC'], 'AAAAC')", True),
]

EQUIVALENT_MUTANTS = {
    "constant:2:39:-1": "rows have equal length",
    "return:6:12:0": "any false value reads as False in `and` and any(), which gives the result",
    "return:6:12:''": "any false value reads as False in `and` and any(), which gives the result",
    "return:6:12:None": "any false value reads as False in `and` and any(), which gives the result",
    "return:6:12:[]": "any false value reads as False in `and` and any(), which gives the result",
    "delete:14:8:pass": "any false value reads as False in `and` and any(), which gives the result",
    "return:14:8:0": "any false value reads as False in `and` and any(), which gives the result",
    "return:14:8:''": "any false value reads as False in `and` and any(), which gives the result",
    "return:14:8:None": "any false value reads as False in `and` and any(), which gives the result",
    "return:14:8:[]": "any false value reads as False in `and` and any(), which gives the result",
}
