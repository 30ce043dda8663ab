"""Interactive text games: single-player puzzles and two-player games with built-in opponents.

Single-player (`palaestra.make`): Sokoban, Minesweeper, Wordle, Mastermind, Hangman, 2048,
FrozenLake, Maze, SlidingPuzzle, TowerOfHanoi, LightsOut, Blocksworld, and the exemplar
GuessNumber. Two-player, against a built-in opponent of graded strength (`palaestra.make`)
or in the multi-agent form for self-play (`palaestra.multiagent.make`): TicTacToe,
ConnectFour, Nim, KuhnPoker, Othello, Battleship, PrisonersDilemma, Negotiation.

Every game reads its move from the last ``<move>...</move>`` after any ``</think>``, pays
dense rewards as named parts, offers ``state_key()`` and ``get_state()``/``set_state()``,
and has an oracle that reaches its best return.
"""
