"""Planning: write a whole plan, as moves, in one answer.

Tower of Hanoi, Blocksworld, Sokoban, Rush Hour, the sliding puzzle and mazes, sharing
the plan parsing and replay of `_plans`.
"""
