"""Flood fill."""

LEVEL = 1
STYLE = "function"
ENTRY = "flood_fill"

STATEMENT = """
Write `flood_fill(image, row, col, colour)` for an image given as a list of lists of
integers: recolour the pixel at (row, col) and every pixel connected to it through
edge-adjacent pixels of the same original colour, and return the new image (a new list).
"""

REFERENCE = r"""
def flood_fill(image, row, col, colour):
    image = [list(r) for r in image]
    old = image[row][col]
    if old == colour:
        return image
    stack = [(row, col)]
    image[row][col] = colour
    while stack:
        y, x = stack.pop()
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < len(image) and 0 <= nx < len(image[0]) and image[ny][nx] == old:
                image[ny][nx] = colour
                stack.append((ny, nx))
    return image
"""

WRONG = [
    r"""
def flood_fill(image, row, col, colour):
    image = [list(r) for r in image]
    old = image[row][col]
    if old == colour:
        return image
    stack = [(row, col)]
    image[row][col] = colour
    while stack:
        y, x = stack.pop()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ny, nx = y + dy, x + dx
                if 0 <= ny < len(image) and 0 <= nx < len(image[0]) and image[ny][nx] == old:
                    image[ny][nx] = colour
                    stack.append((ny, nx))
    return image
""",
]

PUBLIC = [
    ("flood_fill([[1, 1, 1], [1, 1, 0], [1, 0, 1]], 1, 1, 2)", [[2, 2, 2], [2, 2, 0], [2, 0, 1]]),
    ("flood_fill([[0, 0]], 0, 0, 0)", [[0, 0]]),
]

HIDDEN = [
    ("flood_fill([[5]], 0, 0, 3)", [[3]]),
    ("flood_fill([[1, 0], [0, 1]], 0, 0, 7)", [[7, 0], [0, 1]]),
    ("flood_fill([[0, 0, 0], [0, 1, 0]], 1, 1, 1)", [[0, 0, 0], [0, 1, 0]]),
    ("flood_fill([[2, 2], [2, 2]], 1, 0, 9)", [[9, 9], [9, 9]]),
]

PERFORMANCE = [
    ("sum(map(sum, flood_fill([[0] * 300 for _ in range(300)], 150, 150, 1)))", 90000),
]

HIDDEN_V1 = [
    ("flood_fill([[2, 2], [2, 2]], 1, 1, 9)", [[9, 9], [9, 9]]),
]

EQUIVALENT_MUTANTS = {
    "delete:2:4:pass": "the returned image is the same; only the caller's argument changes too",
    "constant:11:60:-1": "the image is rectangular: the last row is as long as the first",
}
