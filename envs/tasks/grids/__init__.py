"""Grid puzzles: fill a grid so that every constraint holds.

Sudoku, Futoshiki, KenKen, Skyscrapers, Nonogram, Binairo, Light Up, Star Battle, N-queens
and magic squares, sharing the parsers and solvers of `_grids`.
"""
