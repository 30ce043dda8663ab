"""The multi-agent form: self-play, turn order, per-agent views, invalid moves, and the
strongest built-in opponent against the random one."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.multiagent import MultiAgentEnv, VsOpponent, make, play

TWO_PLAYER = [spec.id for spec in palaestra.list_envs("two-player")]


def oracle_policy(game: MultiAgentEnv, agent: str):
    return lambda observation: game.oracle_action(agent)


def random_policy(game: MultiAgentEnv, agent: str, seed: int):
    rng = np.random.default_rng(seed)

    def policy(observation):
        moves = game.legal_moves(agent)
        return game.move_text(agent, moves[int(rng.integers(len(moves)))])

    return policy


@pytest.mark.parametrize("env_id", TWO_PLAYER)
def test_self_play_runs_two_different_policies_through_one_episode(env_id):
    game = make(env_id)
    first, second = game.possible_agents
    seen = {first: [], second: []}

    def watch(agent, policy):
        def wrapped(observation):
            seen[agent].append(observation)
            return policy(observation)

        return wrapped

    result = play(
        game,
        {
            first: watch(first, oracle_policy(game, first)),
            second: watch(second, random_policy(game, second, 0)),
        },
        seed=3,
    )
    assert result["steps"] > 0 and not game.acting
    assert all(seen[agent] for agent in game.possible_agents), "both policies must have moved"
    assert set(result["verdicts"]) == {first, second}
    assert all(verdict is not None for verdict in result["verdicts"].values())


@pytest.mark.parametrize("env_id", TWO_PLAYER)
def test_one_policy_in_both_seats_is_deterministic(env_id):
    game = make(env_id)
    policies = {agent: oracle_policy(game, agent) for agent in game.possible_agents}
    assert play(game, policies, seed=1)["returns"] == play(game, policies, seed=1)["returns"]


def test_hidden_information_stays_hidden():
    game = make("Battleship-v0")
    observations, _ = game.reset(seed=0)
    text = observations["player_0"][0]["content"]
    enemy = {c for ship in game.fleets[1] for c in ship}
    target_grid = text.split("Target grid:")[1].split("Your fleet:")[0]
    assert "S" not in target_grid and enemy
    kuhn = make("KuhnPoker-v0")
    observations, _ = kuhn.reset(seed=0)
    card = "JQK"[kuhn.cards(0)[1]]
    assert f"Your card: {card}" not in observations["player_0"][0]["content"]


def test_turn_order_and_wrong_seat_actions():
    game = make("TicTacToe-v0")
    game.reset(seed=0)
    assert game.acting == ("player_0",)
    with pytest.raises(ValueError, match="acting agent"):
        game.step({"player_1": "<move>a1</move>"})
    observations, rewards, terminated, truncated, infos = game.step({"player_0": "<move>b2</move>"})
    assert game.acting == ("player_1",)
    assert "Your move" in observations["player_1"][0]["content"]
    assert infos["player_1"]["to_move"] and not infos["player_0"]["to_move"]


def test_simultaneous_moves_wait_for_every_seat():
    game = make("PrisonersDilemma-v0")
    game.reset(seed=0)
    assert game.acting == ("player_0", "player_1")
    observations, rewards, *_, infos = game.step(
        {"player_0": "<move>defect</move>", "player_1": "no idea"}
    )
    assert infos["player_1"]["invalid_action"] and rewards["player_1"] < 0
    assert game.acting == ("player_1",) and game.round == 0
    game.step({"player_1": "<move>cooperate</move>"})
    assert game.round == 1 and game.totals == [5, 0]


def test_invalid_actions_forfeit_after_the_allowance():
    game = make("ConnectFour-v0")
    game.reset(seed=0)
    for _ in range(game.max_invalid):
        game.step({"player_0": "junk"})
    observations, rewards, terminated, truncated, infos = game.step({"player_0": "junk"})
    assert terminated["player_0"] and terminated["player_1"]
    assert infos["player_1"]["success"] and not infos["player_0"]["success"]
    assert rewards["player_0"] < rewards["player_1"]


def test_vs_opponent_accepts_any_policy_and_seat():
    game = make("Nim-v0")
    calls = []

    def takes_one(g, agent):
        calls.append(agent)
        return next((i, 1) for i, p in enumerate(g.piles) if p)

    env = VsOpponent(game, takes_one, seat="second")
    observation, info = env.reset(seed=2)
    assert info["seat"] == "player_1" and calls == ["player_0"]
    assert palaestra.check_env(env, cross_process=False).ok


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "Othello-v0", "Battleship-v0"])
def test_vs_opponent_writes_only_the_learners_messages(env_id):
    # A built-in opponent reads the game, so the game draws no board for its seat; the
    # learner sees what the multi-agent form shows that seat.
    def first_legal(game, agent):
        return game.legal_moves(agent)[0]

    env = VsOpponent(make(env_id), first_legal, seat="second")
    observation, _ = env.reset(seed=3)
    assert env.game.watched() == ("player_1",)
    game = make(env_id)
    assert game.watched() == game.possible_agents
    openings, _ = game.reset(seed=3)
    assert openings["player_0"] and openings["player_1"]
    move = game.move_text("player_0", first_legal(game, "player_0"))
    replies, *_ = game.step({"player_0": move})
    assert observation[0]["content"] == "\n".join(
        [openings["player_1"][0]["content"], replies["player_1"][0]["content"]]
    )


def test_make_refuses_single_player_ids():
    with pytest.raises(ValueError, match="not a multi-agent game"):
        make("Sokoban-v0")


def test_snapshots_of_the_multi_agent_form():
    game = make("Othello-v0")
    game.reset(seed=4)
    game.step({"player_0": game.oracle_action("player_0")})
    snapshot = game.get_state()
    after = game.step({"player_1": game.oracle_action("player_1")})
    game.set_state(snapshot)
    assert game.step({"player_1": game.oracle_action("player_1")})[1] == after[1]


# --- the strongest built-in opponent never loses to the random one -----------------------------

# The strongest opponent per game; in the prisoner's dilemma "never loses" means never
# scoring less, which only unconditional defection guarantees. Negotiation has no loser.
STRONGEST = {
    "TicTacToe-v0": ("minimax", {}),
    "Nim-v0": ("optimal", {}),
    "PrisonersDilemma-v0": ("defect", {}),
    "Othello-v0": ("search4", {}),
    "ConnectFour-v0": ("search4", {}),
    "Battleship-v0": ("density", {"level": 10}),
}
SLOW = {"Othello-v0", "ConnectFour-v0", "Battleship-v0"}


def head_to_head(env_id: str, strong: str, games: int, **kwargs) -> dict[str, int]:
    game = make(env_id, **kwargs)
    counts = {"win": 0, "draw": 0, "loss": 0}
    for index in range(games):
        seats = game.possible_agents if index % 2 == 0 else game.possible_agents[::-1]
        policies = {seats[0]: game.opponents[strong], seats[1]: game.opponents["random"]}
        game.reset(seed=index)
        while game.acting:
            out = game._advance({}, {agent: policies[agent](game, agent) for agent in game.acting})
        ours, theirs = out[4][seats[0]]["verdict"].score, out[4][seats[1]]["verdict"].score
        counts["win" if ours > theirs else "draw" if ours == theirs else "loss"] += 1
    return counts


@pytest.mark.parametrize(
    "env_id", [pytest.param(e, marks=[pytest.mark.slow] if e in SLOW else []) for e in STRONGEST]
)
def test_strongest_opponent_never_loses_to_random_in_200_games(env_id):
    strong, kwargs = STRONGEST[env_id]
    counts = head_to_head(env_id, strong, 200, **kwargs)
    assert counts["loss"] == 0, counts


def test_kuhn_equilibrium_beats_random_over_long_matches():
    """Poker keeps some luck even in duplicate matches: the equilibrium wins almost every
    100-hand match against the random player and is far ahead over all of them."""
    counts = head_to_head("KuhnPoker-v0", "nash", 200, hands=100)
    assert counts["loss"] <= 4 and counts["win"] >= 190, counts
