"""What the turn-based two-player games share: turn order, messages, outcomes.

A `TurnBasedGame` resolves one move per round: the mover's move is applied (`apply`),
the game checks for an end (`result`), both seats are told what happened, and the next
mover sees the board from its side and is asked to move. Wins pay `WIN_REWARD`, draws
`DRAW_REWARD` and losses `LOSS_REWARD` (the ``outcome`` part) unless a game says otherwise.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

from palaestra.multiagent import MultiAgentEnv, Round, win_loss_verdicts

from ._common import framed, parse_move

WIN_REWARD = 1.0
DRAW_REWARD = 0.0
LOSS_REWARD = -1.0


class TurnBasedGame(MultiAgentEnv):
    """A two-player game where the seats alternate (a seat may pass when a game says so).

    Subclasses implement `start` (set up the state), `apply(agent, move) -> note`,
    `result() -> (winner or None, reason) | None`, `view(agent) -> text`, `parse_move`,
    and the `MultiAgentEnv` move helpers.
    """

    game_name: ClassVar[str] = "game"
    rules: ClassVar[str] = ""
    outcome_rewards: ClassVar[tuple[float, float, float]] = (WIN_REWARD, DRAW_REWARD, LOSS_REWARD)
    draw_succeeds: ClassVar[bool] = False
    """Whether a draw counts as a success (where perfect play can only guarantee a draw)."""
    public_board: ClassVar[bool] = False
    """Whether both seats see the same board (`view` ignores the agent), so it is drawn once."""
    forfeit_rewards = (WIN_REWARD, LOSS_REWARD)

    mover = 0

    def _to_move(self) -> tuple[str, ...]:
        return (self.possible_agents[self.mover],)

    def _reset(self, options: dict[str, Any]) -> dict[str, str]:
        if options:
            raise ValueError(f"{type(self).__name__}.reset takes no options, got {sorted(options)}")
        self.start()
        first = self.possible_agents[self.mover]
        texts = {}
        for agent, view in self.views().items():
            text = f"{self.rules}\nYou are {self.seat_name(agent)}.\n\n{view}"
            texts[agent] = text + (
                "\nYour move." if agent == first else "\nYour opponent moves first."
            )
        return texts

    def _parse(self, agent: str, text: str) -> Any:
        return self.parse_move(agent, parse_move(text, example=self.example_move))

    def _play(self, moves: dict[str, Any]) -> Round:
        agent = self.possible_agents[self.mover]
        other = self.possible_agents[1 - self.mover]
        note = self.apply(agent, moves[agent])
        parts = self.round_parts(agent)
        said = {agent: f"You played {note}.", other: f"Your opponent played {note}."}
        messages = {seat: said[seat] for seat in self.watched()}
        ended = self.result()
        if ended is not None:
            winner, reason = ended
            win, draw, loss = self.outcome_rewards
            for seat in self.possible_agents:
                value = draw if winner is None else win if seat == winner else loss
                parts.setdefault(seat, {})["outcome"] = value
            for seat, view in self.views().items():
                messages[seat] += f"\n{view}\nGame over: {self._describe(seat, winner, reason)}"
            verdicts = win_loss_verdicts(
                self.possible_agents,
                winner,
                reason,
                self.game_name,
                draw_succeeds=self.draw_succeeds,
            )
            return Round(messages, parts, verdicts)
        self.mover = self.next_mover()
        nxt = self.possible_agents[self.mover]
        if nxt in messages:
            messages[nxt] += f"\n{self.view(nxt)}\nYour move."
        if nxt == agent:
            passes = {
                agent: " Your opponent has no legal move and passes.",
                other: " You have no legal move and pass.",
            }
            for seat in messages:
                messages[seat] += passes[seat]
        return Round(messages, parts)

    def views(self) -> dict[str, str]:
        """The board as each watched seat (`watched`) sees it."""
        seats = self.watched()
        if self.public_board:
            return dict.fromkeys(seats, self.view(seats[0]))
        return {agent: self.view(agent) for agent in seats}

    @staticmethod
    def _describe(seat: str, winner: str | None, reason: str) -> str:
        if winner is None:
            return f"a draw ({reason})."
        return f"you {'win' if seat == winner else 'lose'} ({reason})."

    # --- hooks ---------------------------------------------------------------------------------

    example_move: ClassVar[str] = "..."

    def start(self) -> None:
        """Sets up a new game from `np_random`; sets `mover`."""
        raise NotImplementedError

    def apply(self, agent: str, move: Any) -> str:
        """Plays a legal move; returns how to say it (``"b2"``)."""
        raise NotImplementedError

    def result(self) -> tuple[str | None, str] | None:
        """``(winner or None for a draw, reason)`` once the game is over, else None."""
        raise NotImplementedError

    def view(self, agent: str) -> str:
        """The board as ``agent`` may see it."""
        raise NotImplementedError

    def parse_move(self, agent: str, move: str) -> Any:
        """A legal move from its text, or raise `InvalidAction`."""
        raise NotImplementedError

    def seat_name(self, agent: str) -> str:
        """How the rules name the seat (``"X"``, ``"Black"``)."""
        return agent

    def next_mover(self) -> int:
        """The index of the next mover (the other seat unless it must pass)."""
        return 1 - self.mover

    def round_parts(self, agent: str) -> dict[str, dict[str, float]]:
        """Reward parts of the move just played, per seat (none by default)."""
        return {}

    def other(self, agent: str) -> str:
        """The other seat."""
        return self.possible_agents[1 - self.possible_agents.index(agent)]

    def render_text(self, agent: str | None = None) -> str:
        """The board from ``agent``'s side (the first seat's when None)."""
        return self.view(agent or self.possible_agents[0])


@functools.cache
def board_picture(rows: int, columns: int) -> str:
    """`framed`'s picture of a grid with a ``{}`` slot per cell, to fill row by row (`str.format`).

    The frame is the same on every turn, and drawing it anew was most of a turn's work.
    """
    slot = "\0"  # stands for one cell; never part of a frame
    return framed([slot * columns] * rows).replace(slot, "{}")


def pick(game: MultiAgentEnv, options: list[Any]) -> Any:
    """A uniformly random option, drawn from the game's generator."""
    if not options:
        raise RuntimeError(
            f"{type(game).__name__}: a built-in opponent was asked to move with no legal move"
        )
    return options[int(game.np_random.integers(len(options)))]
