"""Game rules the conformance checker cannot know: moves, scoring, solvers against brute force."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

import palaestra
from palaestra.core import InvalidAction
from palaestra.envs.games import (
    battleship,
    blocksworld,
    connect_four,
    game2048,
    hangman,
    kuhn_poker,
    lights_out,
    mastermind,
    negotiation,
    nim,
    othello,
    prisoners_dilemma,
    sokoban,
    tic_tac_toe,
    tower_of_hanoi,
    wordle,
)
from palaestra.envs.games._common import Potential, parse_cell, parse_move


def bare(env_id, **kwargs):
    return palaestra.make(env_id, max_turns=None, max_invalid=None, **kwargs)


# --- shared parsing ---------------------------------------------------------------------------


def test_the_move_is_the_last_tag_after_thinking():
    assert parse_move("<think><move>up</move></think> then <move>Left</move>") == "left"
    assert parse_move("<move>a</move> <move> B   3 </move>") == "b 3"
    with pytest.raises(InvalidAction, match="never closed"):
        parse_move("<think>still thinking <move>up</move>")
    with pytest.raises(InvalidAction, match="reply with your move"):
        parse_move("up")
    with pytest.raises(InvalidAction, match="a few words"):
        parse_move("<move>" + "x" * 500 + "</move>")


def test_moves_are_normalised():
    for body, move in [(" B \t 3\n", "b 3"), ("Ｕｐ", "up"), ("A  c", "a c")]:
        assert parse_move(f"<move>{body}</move>") == move


def test_cells_are_column_letter_and_row_number():
    assert parse_cell("b3", 5, 5) == (2, 1)
    for bad in ("3b", "z1", "b9", "b", "", "b-1"):
        with pytest.raises(InvalidAction):
            parse_cell(bad, 5, 5)


def test_potential_progress_telescopes_and_is_clipped():
    potential = Potential(0.5, 10)
    rewards = [potential.update(d) for d in (8, 12, 20, 5, 0)]
    assert sum(rewards) == pytest.approx(0.5)
    assert min(rewards) >= -0.5 and potential.phi == 1.0


# --- single-player games -------------------------------------------------------------------------


def test_sokoban_pushes_but_never_pulls():
    env = bare("Sokoban-v0", boxes=1)
    env.reset(seed=0)
    game = env.unwrapped
    w = game.width
    game.floor = bytearray([0] * w + ([0] + [1] * (w - 2) + [0]) * game.size + [0] * w)
    game.targets = frozenset({w + 4})
    game.player, game.boxes, game.solved_count = w + 2, frozenset({w + 3}), 0
    _, reward, terminated, _, info = env.step("<move>right</move>")
    assert (
        terminated and info["success"] and info["reward_parts"] == {"progress": 0.5, "outcome": 0.5}
    )
    env.reset(seed=0)
    game.floor = bytearray([0] * w + ([0] + [1] * (w - 2) + [0]) * game.size + [0] * w)
    game.player, game.boxes = w + 2, frozenset({w + 1})
    _, _, _, _, info = env.step("<move>left</move>")  # the box is against the wall
    assert info["invalid_action"] and "cannot move" in info["invalid_reason"]


@pytest.mark.parametrize("level", [1, 4, 8])
def test_sokoban_puzzles_start_unsolved_and_solvable(level):
    env = sokoban.SokobanEnv(level=level)
    for seed in range(5):
        env.reset(seed=seed)
        assert not env.boxes & env.targets
        assert len(env.boxes) == env.box_count
        assert env.solve() is not None


def test_minesweeper_opening_is_safe_and_a_mine_ends_the_game():
    env = bare("Minesweeper-v1")
    env.reset(seed=3)
    game = env.unwrapped
    assert game.revealed and not game.revealed & game.mines
    mine = min(game.mines)
    name = game._name(mine)
    _, reward, terminated, _, info = env.step(f"<move>reveal {name}</move>")
    assert terminated and not info["success"] and info["reward_parts"]["outcome"] == 0.0


@pytest.mark.parametrize("seed", [45, 51, 60, 70, 72, 126])
def test_minesweeper_never_deals_a_board_its_opening_solves(seed):
    old = palaestra.make("Minesweeper-v0", level=1)
    old.reset(seed=seed)
    assert old.unwrapped.hidden_safe == 0  # v0 kept these boards: nothing left to win
    env = palaestra.make("Minesweeper-v1", level=1)
    env.reset(seed=seed)
    assert env.unwrapped.hidden_safe > 0
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, truncated, info = env.step(env.oracle_action())
        total += reward
        assert not truncated
    assert info["success"] and total == pytest.approx(env.best_return())


@pytest.mark.parametrize("level", range(1, 11))
def test_minesweeper_leaves_something_to_win_on_a_thousand_seeds(level):
    env = palaestra.make("Minesweeper-v1", level=level)
    for seed in range(1000):
        env.reset(seed=seed)
        assert env.unwrapped.hidden_safe > 0, f"seed {seed}: the opening solved the board"
        env.oracle_action()  # the oracle has a move from every start


def test_minesweeper_deductions_are_sound():
    env = palaestra.make("Minesweeper-v1", level=8).unwrapped
    for seed in range(10):
        env.reset(seed=seed)
        safe, mines = env.deduce()
        assert not safe & env.mines and mines <= env.mines


def test_minesweeper_deductions_from_earlier_facts_match_a_fresh_start():
    env = palaestra.make("Minesweeper-v1", level=9).unwrapped
    for seed in range(3):
        env.reset(seed=seed)
        while True:
            found = env.deduce()  # starts from the previous turn's facts
            env._proven = (frozenset(), frozenset(), frozenset(), frozenset(), [])
            assert found == env.deduce()
            _, _, terminated, _, _ = env.step(env.oracle_action())
            if terminated:
                break


@pytest.mark.parametrize(
    ("guess", "secret", "marks"),
    [
        ("crane", "crane", "GGGGG"),
        ("speed", "abide", "--Y-Y"),
        ("eerie", "there", "Y-Y-G"),
        ("allot", "label", "YYY--"),
    ],
)
def test_wordle_feedback_handles_repeated_letters(guess, secret, marks):
    assert wordle.feedback(guess, secret) == marks
    codes = wordle.pattern_codes(wordle.encode([guess]), wordle.encode([secret]))
    assert codes[0, 0] == sum("-YG".index(mark) * 3**i for i, mark in enumerate(marks))
    answers = wordle._words.answers(5)
    same = [i for i, word in enumerate(answers) if wordle.feedback(guess, word) == marks]
    kept = wordle.matching(guess, marks, np.arange(len(answers)), 5)
    assert np.flatnonzero(kept).tolist() == same


@pytest.mark.parametrize("length", [4, 5, 6])
def test_wordle_keeps_exactly_the_candidates_that_give_the_same_marks(length):
    answers = wordle._words.answers(length)
    words = sorted(wordle._words.guesses(length))
    rng = np.random.default_rng(length)
    for _ in range(10):
        guess, secret = words[rng.integers(len(words))], answers[rng.integers(len(answers))]
        marks = wordle.feedback(guess, secret)
        candidates = np.flatnonzero(rng.random(len(answers)) < 0.5)
        kept = candidates[wordle.matching(guess, marks, candidates, length)]
        same = [i for i in candidates if wordle.feedback(guess, answers[i]) == marks]
        assert kept.tolist() == same


def test_wordle_best_guess_is_the_first_guess_of_most_entropy():
    answers = wordle.encode(wordle._words.answers(4))
    rng = np.random.default_rng(0)
    for size in (3, 4, 6, 10, 30, 100, 400):
        candidates = np.sort(rng.choice(len(answers), size, replace=False))
        codes = wordle.pattern_codes(answers, answers[candidates])
        entropy = np.array(
            [
                -sum(c / size * np.log(c / size) for c in np.unique(row, return_counts=True)[1])
                for row in codes
            ]
        )
        entropy[candidates] += 1e-9
        best = np.flatnonzero(entropy >= entropy.max() - 1e-12)  # ties, up to rounding
        assert wordle._best_guess(4, candidates) in best.tolist()


def test_wordle_rejects_unknown_words_without_spending_a_guess():
    env = bare("Wordle-v0")
    env.reset(seed=0)
    _, _, _, _, info = env.step("<move>qzxjk</move>")
    assert info["invalid_action"] and env.unwrapped.history == []


@pytest.mark.slow
@pytest.mark.parametrize("length", [4, 5, 6])
def test_wordle_openings_are_the_computed_best(length):
    assert wordle.OPENINGS[length] == wordle.best_opening(length)


def test_wordle_oracle_finds_the_hardest_known_secrets_in_time():
    # Secrets that need the most guesses of the oracle (found by an exhaustive run).
    for level, secret in ((4, "rated"), (10, "jets")):
        env = wordle.WordleEnv(level=level)
        if secret not in env.answers:
            continue
        env.reset(seed=0)
        env.secret = secret
        while True:
            _, _, terminated, _, info = env.step(env.oracle_action())
            if terminated:
                break
        assert info["success"], secret


def test_mastermind_scores_black_and_white_pegs():
    codes = np.array([[1, 1, 2, 2], [1, 2, 3, 4]], dtype=np.int8)
    secret = np.array([[2, 1, 1, 5]], dtype=np.int8)
    scores = mastermind.scores(codes, secret, 6)[:, 0]
    assert scores.tolist() == [1 * 10 + 2, 0 * 10 + 2]


@pytest.mark.parametrize(("pegs", "colors", "repeats"), [(3, 4, False), (5, 8, True), (5, 9, True)])
def test_mastermind_scores_by_index_match_scores(pegs, colors, repeats):
    codes = mastermind.all_codes(pegs, colors, repeats)
    rng = np.random.default_rng(pegs)
    guesses, secrets = rng.integers(len(codes), size=40), rng.integers(len(codes), size=300)
    expected = mastermind.scores(codes[guesses], codes[secrets], colors)
    found = mastermind.scores_at(pegs, colors, repeats, guesses, secrets)
    assert np.array_equal(found, expected)


@pytest.mark.parametrize(
    ("pegs", "colors", "repeats"),
    [(2, 6, False), (4, 6, True), (4, 7, True)],  # tabulated scores and scores computed
)
def test_mastermind_candidates_are_the_codes_consistent_with_every_score(pegs, colors, repeats):
    env = bare("Mastermind-v0", pegs=pegs, colors=colors, repeats=repeats, max_guesses=6)
    game, rng = env.unwrapped, np.random.default_rng(0)
    codes = mastermind.all_codes(pegs, colors, repeats)
    for seed in range(4):
        env.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            _, _, terminated, truncated, info = env.step(game.random_action(rng))
            if info.get("invalid_action"):
                continue
            consistent = np.ones(len(codes), dtype=bool)
            for guess, black, white in game.history:
                found = mastermind.scores(np.array([guess], dtype=np.int8), codes, colors)[0]
                consistent &= found == black * 10 + white
            assert game.candidates.tolist() == np.flatnonzero(consistent).tolist()
            assert game.index[game.secret] in game.candidates


def test_hangman_reveals_every_position_and_counts_misses():
    env = bare("Hangman-v0")
    env.reset(seed=0)
    game = env.unwrapped
    game.secret, game.pattern = "banana", "______"
    env.step("<move>a</move>")
    assert game.pattern == "_a_a_a"
    env.step("<move>z</move>")
    assert game.misses == 1
    _, _, _, _, info = env.step("<move>a</move>")
    assert info["invalid_action"] and game.misses == 1


def test_hangman_reference_misses_match_the_shipped_table():
    words = hangman._words.answers(5)
    table = dict(hangman._words.hangman_words())
    for word in words[:200]:
        assert hangman.reference_misses(word, words) == table[word]


@pytest.mark.parametrize("length", [4, 7, 10])
def test_hangman_reference_guess_matches_fits_and_best_letter(length):
    words = hangman._words.answers(length)
    rng = np.random.default_rng(length)
    for _ in range(100):
        secret = words[rng.integers(len(words))]
        tried = frozenset(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), rng.integers(12)))
        pattern = "".join(ch if ch in tried else "_" for ch in secret)
        if rng.random() < 0.1:
            pattern = "q" * length  # no word fits
        fit = [word for word in words if hangman.fits(word, pattern, tried)]
        expected = fit[0] if len(fit) == 1 else hangman.best_letter(fit or words, tried)
        assert hangman.reference_guess(length, pattern, tried) == expected


def test_2048_slides_merge_once_per_pair():
    assert game2048._slide((1, 1, 1, 1)) == (2, 2, 0, 0)
    assert game2048._slide((0, 2, 2, 3)) == (3, 3, 0, 0)
    board = (1, 1, 0, 0) + (0,) * 12
    assert game2048.slide(board, "right")[:4] == (0, 0, 0, 2)


def test_2048_packed_boards_slide_place_and_score_as_tuples():
    lines = {
        "left": [[r * 4 + c for c in range(4)] for r in range(4)],
        "right": [[r * 4 + c for c in reversed(range(4))] for r in range(4)],
        "up": [[r * 4 + c for r in range(4)] for c in range(4)],
        "down": [[r * 4 + c for r in reversed(range(4))] for c in range(4)],
    }
    rng = np.random.default_rng(0)
    for _ in range(2000):
        board = tuple(int(t) for t in rng.choice(12, size=16, p=[0.4] + [0.6 / 11] * 11))
        packed = game2048._pack(board)
        assert game2048._unpack(packed) == board
        for move, after in zip(game2048._MOVES, game2048._successors(packed), strict=True):
            cells = list(board)
            for line in lines[move]:
                slid = game2048._slide(tuple(board[i] for i in line))
                for index, value in zip(line, slid, strict=True):
                    cells[index] = value
            assert game2048._unpack(after) == tuple(cells) == game2048.slide(board, move)
        where, four = rng.random(), rng.random()
        assert game2048._unpack(game2048._placed(packed, where, four)) == game2048.place(
            board, where, four
        )
        assert game2048._score(packed) == game2048.heuristic(board)
        for tile in range(12):
            cells = game2048._cells_of(packed, tile)
            assert [cells >> 4 * i & 1 for i in range(16)] == [int(t == tile) for t in board]


def test_2048_tiles_depend_on_the_seed_not_on_invalid_moves():
    first, second = bare("Game2048-v0"), bare("Game2048-v0")
    first.reset(seed=4)
    second.reset(seed=4)
    second.step("nonsense")
    move = first.oracle_action()
    assert first.step(move)[0] != [] and second.step(move)
    assert first.unwrapped.board == second.unwrapped.board


def test_2048_tile_k_takes_the_seed_streams_draws_2k_and_2k_plus_1():
    env = bare("Game2048-v0", target=2048, max_moves=200)
    game, rng = env.unwrapped, np.random.default_rng(0)
    for seed in (0, 7):
        env.reset(seed=seed)
        stream = np.random.default_rng(seed).random(2 * (200 + 2)).tolist()
        empty = game2048.place((0,) * 16, stream[0], stream[1])
        assert game.board == game2048.place(empty, stream[2], stream[3])
        tiles = 2
        for turn in range(150):
            before = game.board
            move = game.oracle_action() if turn % 3 else game.random_action(rng)
            _, _, terminated, _, info = env.step(move)
            if terminated:
                break
            if not info.get("invalid_action"):
                after = game2048.slide(before, parse_move(move))
                assert game.board == game2048.place(after, stream[2 * tiles], stream[2 * tiles + 1])
                tiles += 1
        assert tiles > 30


def test_frozen_lake_holes_end_the_episode_and_slips_are_seeded():
    env = bare("FrozenLake-v0", slippery=True)
    env.reset(seed=1)
    slips = list(env.unwrapped.slips)
    env.reset(seed=1)
    assert env.unwrapped.slips == slips
    plain = palaestra.make("FrozenLake-v0").unwrapped
    plain.reset(seed=0)
    hole = min(plain.holes)
    plain.player = hole - 1 if hole % plain.size else hole - plain.size
    move = "right" if hole % plain.size else "down"
    _, _, terminated, _, info = plain.step(f"<move>{move}</move>")
    assert terminated and not info["success"]


def _hanoi_bfs(disks, start, target):
    goal = (target,) * disks
    seen, queue = {start: 0}, deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            return seen[state]
        for source, dest in itertools.permutations(range(3), 2):
            on_source = [d for d in range(disks) if state[d] == source]
            on_dest = [d for d in range(disks) if state[d] == dest]
            if on_source and (not on_dest or min(on_dest) > min(on_source)):
                nxt = list(state)
                nxt[min(on_source)] = dest
                nxt = tuple(nxt)
                if nxt not in seen:
                    seen[nxt] = seen[state] + 1
                    queue.append(nxt)
    raise AssertionError("unreachable")


def test_tower_of_hanoi_distance_is_the_bfs_distance():
    for state in itertools.product(range(3), repeat=4):
        for target in range(3):
            where = [0, *state]
            assert tower_of_hanoi.moves_needed(where, 4, target) == _hanoi_bfs(4, state, target)


@pytest.mark.parametrize(
    ("env_id", "name"),
    [
        ("TowerOfHanoi-v0", "tower_of_hanoi"),
        ("Mastermind-v0", "mastermind"),
        ("Game2048-v0", "2048"),
    ],
)
def test_won_lost_and_out_of_turns_endings_name_the_game(env_id, name):
    env = bare(env_id, level=1)
    env.reset(seed=0)
    terminated = False
    while not terminated:
        *_, terminated, _, info = env.step(env.unwrapped.oracle_action())
    assert info["success"] and info["verdict"].verifier == name
    assert info["verdict"].score == 1.0 and info["reward_parts"]["outcome"] > 0
    observation, _ = env.reset(seed=0)
    for _ in range(env.unwrapped.max_moves):
        observation, reward, terminated, _, info = env.step("junk")
    assert terminated and not info["success"] and info["verdict"].verifier == name
    assert info["verdict"].reason == f"not solved within {env.unwrapped.max_moves} turns"
    assert info["reward_parts"] == {"outcome": 0.0, "invalid": env.unwrapped.invalid_action_penalty}
    assert [m["content"] for m in observation][-1].startswith("Out of turns")


def test_tower_of_hanoi_classic_start_is_the_textbook_puzzle():
    openings = set()
    for seed in range(5):
        env = palaestra.make("TowerOfHanoi-v0", disks=3, start="classic")
        observation, info = env.reset(seed=seed)
        openings.add(observation[0]["content"])
        assert info["fewest_moves"] == 7
        assert observation[0]["content"].endswith("A: 3 2 1\nB: -\nC: -")
        assert "Move every disk onto peg C." in observation[0]["content"]
        game, turns, terminated = env.unwrapped, 0, False
        while not terminated:
            _, _, terminated, truncated, info = env.step(game.oracle_action())
            turns += 1
            assert not truncated
        assert info["success"] and turns == 7
    assert len(openings) == 1
    with pytest.raises(ValueError, match="classic"):
        palaestra.make("TowerOfHanoi-v0", start="upside-down")


def test_tower_of_hanoi_progress_follows_the_fewest_moves_through_snapshots():
    env = bare("TowerOfHanoi-v0", disks=4)
    game, rng = env.unwrapped, np.random.default_rng(0)

    def play(turns, total, start):
        for _ in range(turns):
            _, _, terminated, _, info = env.step(game.random_action(rng))
            total += info["reward_parts"].get("progress", 0.0)
            needed = _hanoi_bfs(4, tuple(game.where[1:]), game.target)
            phi = max(0.0, 1 - needed / start)  # the potential is clipped at the start's
            assert total == pytest.approx(tower_of_hanoi.PROGRESS_REWARD * phi)
            if terminated:
                return total, True
        return total, False

    for seed in range(5):
        _, info = env.reset(seed=seed)
        start = info["fewest_moves"]
        total, ended = play(5, 0.0, start)
        if ended:
            continue
        snapshot = env.get_state()
        play(20, total, start)
        env.set_state(snapshot)
        play(20, total, start)


def test_lights_out_solver_is_exact_on_small_grids():
    size = 3
    masks = lights_out._solver(size)[0]
    for presses in range(1 << 9):
        lights = 0
        for cell in range(9):
            if presses >> cell & 1:
                lights ^= masks[cell]
        solution = lights_out.fewest_presses(lights, size)
        check = 0
        for cell in range(9):
            if solution >> cell & 1:
                check ^= masks[cell]
        assert check == lights
        assert bin(solution).count("1") <= bin(presses).count("1")


def test_blocksworld_refuses_covered_blocks_and_counts_final_blocks():
    on = {"A": "", "B": "A", "C": ""}
    goal = {"A": "", "B": "", "C": "B"}
    assert blocksworld.well_placed(on, goal) == {"A"}
    assert blocksworld.stacks(on) == [["A", "B"], ["C"]]
    env = bare("Blocksworld-v0", blocks=3)
    env.reset(seed=0)
    game = env.unwrapped
    game.on, game.goal = dict(on), dict(goal)
    _, _, _, _, info = env.step("<move>A table</move>")
    assert info["invalid_action"] and "not clear" in info["invalid_reason"]


# --- two-player games -----------------------------------------------------------------------------


def test_tic_tac_toe_minimax_values():
    assert tic_tac_toe.value("." * 9, "X") == 0  # perfect play draws
    assert tic_tac_toe.best_moves("XX.OO....", "X") == [2]


def test_connect_four_lines_and_full_columns():
    vertical = sum(1 << (0 * connect_four.STRIDE + r) for r in range(4))
    diagonal = sum(1 << (k * connect_four.STRIDE + k) for k in range(4))
    assert connect_four.has_four(vertical) and connect_four.has_four(diagonal)
    assert not connect_four.has_four(vertical >> 1 & ~(1 << 3))
    game = connect_four.ConnectFour()
    game.reset(seed=0)
    for _ in range(6):
        game.step({game.acting[0]: "<move>1</move>"})
    _, rewards, _, _, infos = game.step({game.acting[0]: "<move>1</move>"})
    agent = game.acting[0]
    assert infos[agent].get("invalid_action") and "full" in infos[agent]["invalid_reason"]


def _plain_negamax(mine, theirs, depth):
    """The connect-four search without pruning, ordering or caches, for reference."""
    if connect_four._threats(mine) & connect_four._landing(mine, theirs):
        return connect_four._WIN_SCORE + depth
    values = []
    for column in connect_four.ORDER:
        bit = connect_four._drop(mine, theirs, column)
        if bit is None:
            continue
        if (mine | bit | theirs) == connect_four._FULL:
            values.append(0)
        elif depth <= 1:
            values.append(connect_four.evaluate(mine | bit, theirs))
        else:
            values.append(-_plain_negamax(theirs, mine | bit, depth - 1))
    return max(values, default=0)


def test_connect_four_search_picks_the_columns_of_a_plain_negamax():
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 30:
        mine, theirs = 0, 0  # the side to move owns ``mine``
        for _ in range(int(rng.integers(2, 30))):
            legal = [c for c in range(7) if connect_four._drop(mine, theirs, c) is not None]
            column = legal[int(rng.integers(len(legal)))]
            mine, theirs = theirs, mine | connect_four._drop(mine, theirs, column)
        if connect_four.has_four(mine) or connect_four.has_four(theirs):
            continue
        checked += 1
        for depth in (1, 2, 3):
            # best_columns scores a column statically at depth 1; best_column looks one ply on
            values, ahead = {}, {}
            for column in connect_four.ORDER:
                bit = connect_four._drop(mine, theirs, column)
                if bit is None:
                    continue
                after = mine | bit
                if connect_four.has_four(after):
                    values[column] = ahead[column] = connect_four._WIN_SCORE + depth + 1
                elif (after | theirs) == connect_four._FULL:
                    values[column] = ahead[column] = 0
                else:
                    ahead[column] = -_plain_negamax(theirs, after, depth - 1)
                    values[column] = (
                        connect_four.evaluate(after, theirs) if depth <= 1 else ahead[column]
                    )
            best = [c for c in values if values[c] == max(values.values())]
            assert connect_four.best_columns.__wrapped__(mine, theirs, depth) == tuple(best)
            first = next(c for c in ahead if ahead[c] == max(ahead.values()))
            assert connect_four.best_column.__wrapped__(mine, theirs, depth) == first


def test_nim_winning_moves_zero_the_nim_sum():
    for piles in ([3, 4, 5], [1, 1], [7, 2, 9, 4]):
        for pile, amount in nim.winning_moves(piles):
            after = list(piles)
            after[pile] -= amount
            assert np.bitwise_xor.reduce(after) == 0


def test_kuhn_payoffs():
    assert kuhn_poker.payoff("cc", 2, 0) == 1
    assert kuhn_poker.payoff("bc", 0, 1) == -2
    assert kuhn_poker.payoff("cbf", 2, 0) == -1
    assert kuhn_poker.payoff("bf", 0, 2) == 1


def test_othello_opening_moves_and_flips():
    game = othello.Othello(8)
    game.reset(seed=0)
    black, white = game.discs
    assert othello.legal(black, white, 8).bit_count() == 4
    move = game.legal_moves(game.possible_agents[0])[0]
    assert othello.flips(black, white, move, 8).bit_count() == 1


def _othello_reference_flips(own: int, opp: int, square: int, size: int) -> int:
    """The discs a placement turns, walked square by square (what the bit tricks must match)."""
    row, column = divmod(square, size)
    turned = 0
    for dr, dc in itertools.product((-1, 0, 1), repeat=2):
        line, r, c = 0, row + dr, column + dc
        while (dr or dc) and 0 <= r < size and 0 <= c < size and opp >> (r * size + c) & 1:
            line |= 1 << (r * size + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < size and 0 <= c < size and own >> (r * size + c) & 1:
            turned |= line
    return turned


@pytest.mark.parametrize("size", [4, 6, 8])
def test_othello_move_generation_matches_a_square_by_square_walk(size):
    rng = np.random.default_rng(size)
    board = othello.geometry(size)
    for _ in range(300):
        cells = rng.integers(3, size=size * size)
        own = sum(1 << i for i, cell in enumerate(cells) if cell == 1)
        opp = sum(1 << i for i, cell in enumerate(cells) if cell == 2)
        flips = {
            square: _othello_reference_flips(own, opp, square, size)
            for square in range(size * size)
            if not (own | opp) >> square & 1
        }
        moves = sum(1 << square for square, turned in flips.items() if turned)
        theirs = sum(
            1 << square for square in flips if _othello_reference_flips(opp, own, square, size)
        )
        assert othello.moves_of(own, opp, board) == moves
        assert othello.mobility(own, opp, board) == (moves, theirs)
        for square, turned in flips.items():
            assert othello.flips(own, opp, 1 << square, size) == turned
        # The search scores a node's leaves together: as one by one.
        bits = [1 << square for square, turned in flips.items() if turned]
        one_by_one = [
            -othello.evaluate(
                opp & ~flips[b.bit_length() - 1], own | b | flips[b.bit_length() - 1], board
            )
            for b in bits
        ]
        assert othello._leaf_scores(own, opp, bits, board) == one_by_one


def test_battleship_fleets_do_not_overlap_and_hits_are_reported():
    game = battleship.Battleship(8, (4, 3, 3, 2))
    game.reset(seed=5)
    for fleet in game.fleets:
        cells = [c for ship in fleet for c in ship]
        assert len(cells) == len(set(cells)) == 12
    target = min(game.fleets[1][0])
    observations, rewards, *_ = game.step({"player_0": game.move_text("player_0", target)})
    assert "hit" in observations["player_0"][0]["content"] and rewards["player_0"] > 0


def test_battleship_density_opponent_fires_at_the_most_covered_cell():
    env = palaestra.make("Battleship-v0", level=9).unwrapped
    game, agent = env.game, "player_1"
    for seed in range(3):
        env.reset(seed=seed)
        while not game._over:
            size, me = game.size, 1
            ship_cells = {c for ship in game.fleets[0] for c in ship}
            sunk = {c for ship in game.fleets[0] if ship <= game.shots[me] for c in ship}
            blocked = (game.shots[me] - ship_cells) | sunk
            hits = game.open_hits(agent)
            counts = dict.fromkeys(range(size * size), 0)
            for length in game.unsunk_lengths(agent):
                for r, c, step in itertools.product(range(size), range(size), (1, size)):
                    cells = [r * size + c + k * step for k in range(length)]
                    if (c if step == 1 else r) + length > size or blocked & set(cells):
                        continue
                    weight = 1 + 20 * len(hits & set(cells))
                    if hits and weight == 1:
                        continue
                    for cell in set(cells) - game.shots[me]:
                        counts[cell] += weight
            top = max(counts.values())
            state = game.np_random.bit_generator.state
            move = battleship.density_opponent(game, agent)
            game.np_random.bit_generator.state = state
            if top:
                assert move == battleship.pick(game, [c for c in counts if counts[c] == top])
            env.step(env.oracle_action() if seed else env.random_action(np.random.default_rng(0)))


def test_prisoners_dilemma_best_reply_matches_brute_force():
    game = prisoners_dilemma.PrisonersDilemma(rounds=6)
    for name in prisoners_dilemma.STRATEGIES:
        game.reset(seed=2)
        initial, move, update = prisoners_dilemma.STRATEGIES[name]
        best = 0
        for plan in itertools.product("CD", repeat=6):
            state, points = initial, 0
            for r, mine in enumerate(plan):
                theirs = move(state, game.coins[r][1])
                points += prisoners_dilemma.PAYOFFS[(mine, theirs)][0]
                state = update(state, theirs, mine)
            best = max(best, points)
        assert game.best_reply("player_0", name)[0] == best, name


def test_negotiation_coin_free_strategies_never_read_their_coin():
    pool, values = (2, 2, 1), (2, 2, 2)
    for strategy in negotiation.COIN_FREE:
        for turn, offered in itertools.product(range(3), [None, *negotiation.splits_of(pool)]):
            replies = {strategy(pool, values, turn, 3, offered, coin) for coin in (0, 0.3, 0.99)}
            assert len(replies) == 1, strategy.__name__


def test_negotiation_best_line_is_reached_by_the_oracle():
    for name in negotiation.STRATEGIES:
        env = negotiation.NegotiationEnv(opponent=name)
        for seed in range(5):
            env.reset(seed=seed)
            best = env.best_return()
            total = 0.0
            while True:
                _, reward, terminated, _, info = env.step(env.oracle_action())
                total += reward
                if terminated:
                    break
            assert total == pytest.approx(best) and info["success"], (name, seed)
