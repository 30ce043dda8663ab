"""The families Palaestra shares with reasoning-gym, at matched settings.

Each pair names our id with the level (or knobs) that comes closest to the reasoning-gym
dataset and config it is compared with; ``note`` says where the two tasks differ.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Pair:
    """One shared family.

    Attributes:
        ours: Our registry id.
        level: Our difficulty level.
        theirs: The reasoning-gym dataset name.
        config: Non-default reasoning-gym config.
        settings: The matched settings, in words.
        note: How the two tasks differ, if they do.
    """

    ours: str
    level: int
    theirs: str
    config: dict[str, Any] = dataclasses.field(default_factory=dict)
    settings: str = ""
    note: str = ""


PAIRS: list[Pair] = [
    Pair(
        "KnightsKnaves-v0",
        2,
        "knights_knaves",
        {"n_people": 3, "depth_constraint": 2, "width_constraint": 2},
        "3 people",
    ),
    Pair(
        "Zebra-v0",
        5,
        "zebra_puzzles",
        {"num_people": 4, "num_characteristics": 4},
        "4 houses, 4 attributes",
        "theirs asks one attribute, ours the whole grid",
    ),
    Pair(
        "Syllogism-v0", 1, "syllogism", {}, "2 premises", "theirs Yes/No, ours True/False/Unknown"
    ),
    Pair("SelfReference-v0", 5, "self_reference", {"difficulty": 5}, "difficulty 5 / level 5"),
    Pair(
        "PropositionalEntailment-v0",
        3,
        "propositional_logic",
        {},
        "2-4 atoms",
        "theirs asks for a conclusion, ours yes/no entailment",
    ),
    Pair("BooleanCircuit-v0", 3, "circuit_logic", {}, "3-5 gates / 8 gates"),
    Pair("Sudoku-v0", 2, "mini_sudoku", {"min_empty": 10, "max_empty": 10}, "4x4, 10 blanks"),
    Pair("Sudoku-v0", 8, "sudoku", {"min_empty": 51, "max_empty": 51}, "9x9, 51 blanks"),
    Pair("Futoshiki-v0", 3, "futoshiki", {"min_board_size": 5, "max_board_size": 5}, "5x5"),
    Pair(
        "NQueens-v0",
        4,
        "n_queens",
        {"n": 8, "min_remove": 6, "max_remove": 6},
        "8x8, 2 queens given",
    ),
    Pair(
        "Countdown-v0",
        5,
        "countdown",
        {"min_numbers": 5, "max_numbers": 5, "min_target": 100, "max_target": 400},
        "5 numbers, target 100-400",
    ),
    Pair("Game24-v0", 3, "puzzle24", {}, "4 numbers to 24"),
    Pair("ArithmeticChain-v0", 3, "basic_arithmetic", {}, "5 / 2-6 operands"),
    Pair("LinearEquations-v0", 1, "simple_equations", {}, "one unknown"),
    Pair("PolynomialExpansion-v0", 3, "polynomial_multiplication", {}, "2-3 factors"),
    Pair("PolynomialRoots-v0", 3, "polynomial_equations", {}, "degree 1-3"),
    Pair("GcdLcm-v0", 1, "gcd", {}, "gcd of 2 numbers up to 1000"),
    Pair("PrimeFactorization-v0", 1, "prime_factorization", {}, "small numbers"),
    Pair("BaseConversion-v0", 3, "base_conversion", {}, "bases 2-16"),
    Pair(
        "CalendarArithmetic-v0",
        3,
        "calendar_arithmetic",
        {},
        "default mixes",
        "different question kinds",
    ),
    Pair("WordProblems-v0", 3, "gsm_symbolic", {}, "3-step / GSM templates"),
    Pair("NumberSequence-v0", 3, "number_sequence", {}, "next term"),
    Pair("ListFunctions-v0", 3, "list_functions", {}, "list to list"),
    Pair("Arc1D-v0", 5, "arc_1d", {}, "1-D grids, 10-30 / 16 cells"),
    Pair("Caesar-v0", 3, "caesar_cipher", {"min_words": 4, "max_words": 4}, "4 words, decrypt"),
    Pair("Cryptarithm-v0", 5, "cryptarithm", {"min_words": 2, "max_words": 2}, "2 addends"),
    Pair(
        "WordLadder-v0",
        5,
        "word_ladder",
        {"min_chain_length": 5, "max_chain_length": 6},
        "4 letters, 4-5 steps",
    ),
    Pair(
        "Brainfuck-v0",
        3,
        "bf",
        {"difficulty": 1},
        "short programs",
        "theirs prints a word, ours traces cells",
    ),
    Pair("FamilyTree-v0", 3, "family_relationships", {}, "4-8 / 12 people"),
    Pair(
        "ShortestPath-v0",
        5,
        "shortest_path",
        {},
        "10 nodes / 5x8 grid",
        "theirs on a grid, ours on a weighted graph",
    ),
    Pair("GraphColoring-v0", 5, "graph_color", {}, "10 vertices, 3 colours"),
    Pair(
        "TopologicalSort-v0",
        3,
        "course_schedule",
        {},
        "6 / 5-10 courses",
        "theirs asks only whether an order exists",
    ),
    Pair(
        "MazePath-v0",
        5,
        "maze",
        {"min_grid_size": 8, "max_grid_size": 8},
        "8x8",
        "theirs asks the step count, ours the path",
    ),
    Pair(
        "TowerOfHanoiPlan-v0",
        5,
        "tower_of_hanoi",
        {"min_disks": 5, "max_disks": 5, "min_pegs": 3, "max_pegs": 3},
        "5 disks, 3 pegs",
        "ours starts from random states",
    ),
    Pair(
        "SokobanPlan-v0",
        3,
        "sokoban",
        {"min_w": 6, "max_w": 6, "min_h": 6, "max_h": 6, "min_boxes": 2, "max_boxes": 2},
        "6x6, 2 boxes",
    ),
    Pair(
        "RushHourPlan-v0",
        5,
        "rush_hour",
        {"min_moves": 6, "max_moves": 6},
        "6-move puzzles",
        "reasoning-gym stores no reference move list",
    ),
]
