"""Score a bowling game."""

LEVEL = 2
STYLE = "function"
ENTRY = "bowling_score"

STATEMENT = """
Write `bowling_score(rolls)` that returns the score of a complete ten-pin bowling game
given as the list of pins knocked down by each roll. A strike (10 on a frame's first roll)
scores 10 plus the next two rolls; a spare (10 in a frame's two rolls) scores 10 plus the
next roll; other frames score their pins. The tenth frame's bonus rolls are part of the
list and only count as bonuses.
"""

REFERENCE = r"""
def bowling_score(rolls):
    score, i = 0, 0
    for _ in range(10):
        if rolls[i] == 10:
            score += 10 + rolls[i + 1] + rolls[i + 2]
            i += 1
        elif rolls[i] + rolls[i + 1] == 10:
            score += 10 + rolls[i + 2]
            i += 2
        else:
            score += rolls[i] + rolls[i + 1]
            i += 2
    return score
"""

WRONG = [
    r"""
def bowling_score(rolls):
    score = 0
    for i, pins in enumerate(rolls):
        score += pins
        if pins == 10 and i + 2 < len(rolls):
            score += rolls[i + 1] + rolls[i + 2]
    return score
""",
]

PUBLIC = [
    ("bowling_score([10] * 12)", 300),
    ("bowling_score([9, 0] * 10)", 90),
]

HIDDEN = [
    ("bowling_score([0] * 20)", 0),
    ("bowling_score([5, 5] * 10 + [5])", 150),
    ("bowling_score([10, 3, 4] + [0] * 16)", 24),
    ("bowling_score([0] * 18 + [10, 10, 10])", 30),
    ("bowling_score([1, 9, 10] + [0] * 16)", 30),
]

PERFORMANCE = [
    (
        "sum(bowling_score([10] * 12) + bowling_score([5, 5] * 10 + [5]) for _ in range(15000))",
        6750000,
    ),
]
