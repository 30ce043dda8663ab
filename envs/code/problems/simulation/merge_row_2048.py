"""Slide a 2048 row."""

LEVEL = 1
STYLE = "function"
ENTRY = "slide_left"

STATEMENT = """
Write `slide_left(row)` for a row of the game 2048 (a list of integers, 0 for empty).
Tiles slide left past empty cells; two equal neighbouring tiles merge into one tile of
their sum, each tile merging at most once per move, scanning from the left. Return the new
row, padded with zeros to the same length.
"""

REFERENCE = r"""
def slide_left(row):
    tiles = [t for t in row if t]
    out = []
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (len(row) - len(out))
"""

WRONG = [
    r"""
def slide_left(row):
    tiles = [t for t in row if t]
    changed = True
    while changed:
        changed = False
        for i in range(len(tiles) - 1):
            if tiles[i] == tiles[i + 1]:
                tiles[i:i + 2] = [2 * tiles[i]]
                changed = True
                break
    return tiles + [0] * (len(row) - len(tiles))
""",
]

PUBLIC = [
    ("slide_left([2, 2, 0, 4])", [4, 4, 0, 0]),
    ("slide_left([0, 0, 0, 2])", [2, 0, 0, 0]),
]

HIDDEN = [
    ("slide_left([])", []),
    ("slide_left([2, 2, 2, 2])", [4, 4, 0, 0]),
    ("slide_left([2, 2, 4, 0])", [4, 4, 0, 0]),
    ("slide_left([4, 0, 4, 4])", [8, 4, 0, 0]),
    ("slide_left([8, 4, 2, 2])", [8, 4, 4, 0]),
]

PERFORMANCE = [
    ("sum(slide_left([2] * 200000))", 400000),
]
