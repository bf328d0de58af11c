"""The seeded baselines: :class:`RandomPlayer` (a uniformly random legal move) and
:class:`GreedyPlayer` (the capture that wins the most material, or the game, else a
random move). Both are seeded per game."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from ladder.match.game.clocks import MoveClocks
from ladder.match.players.player import MoveInfo
from ladder.match.players.specs import PlayerSpec
from ladder.material import material
from ladder.rules import Game

__all__ = ["BaselinePlayer", "GreedyPlayer", "RandomPlayer", "greedy_choice", "greedy_move"]

_DEST_RE = re.compile(r"([a-i])(\d{1,2})$")


@dataclass
class BaselinePlayer:
    """Shared part of the seeded baselines."""

    spec: PlayerSpec
    rng: random.Random = field(default_factory=random.Random)

    async def start(self) -> None:
        return None

    async def new_game(self, variant: str, seed: int) -> None:
        self.rng = random.Random(seed)

    async def close(self) -> None:
        return None

    def pick(self, game: Game) -> str:
        return self.rng.choice(sorted(game.legal_moves()))


class RandomPlayer(BaselinePlayer):
    """A uniformly random legal move."""

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        return MoveInfo(self.pick(game), chosen="random")


def greedy_choice(game: Game, rng: random.Random) -> tuple[str, bool]:
    """The capture that gains the most material (a winning move first), else random;
    and whether the move was a random one.

    Material is counted on the board after the move, so an atomic explosion counts
    what it removes on both sides. Ties are broken by ``rng``.
    """
    red = game.turn == "red"
    before_us, before_them = (
        material(game.board_fen(), red),
        material(game.board_fen(), not red),
    )
    best: list[str] = []
    best_gain = 0
    for move in sorted(game.legal_moves()):
        dest = _DEST_RE.search(move)
        if "@" in move or dest is None or game.piece_at(dest.group(0)) is None:
            continue
        game.push(move)
        try:
            outcome = game.outcome()
            if outcome is not None and outcome.winner == ("red" if red else "black"):
                return move, False
            bf = game.board_fen()
            gain = (before_them - material(bf, not red)) - (before_us - material(bf, red))
        finally:
            game.pop()
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain and gain > 0:
            best.append(move)
    if best:
        return rng.choice(best), False
    return rng.choice(sorted(game.legal_moves())), True


def greedy_move(game: Game, rng: random.Random) -> str:
    """:func:`greedy_choice`'s move."""
    return greedy_choice(game, rng)[0]


class GreedyPlayer(BaselinePlayer):
    """The most valuable capture it can make, else a random move."""

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        move, at_random = greedy_choice(game, self.rng)
        return MoveInfo(move, chosen="random" if at_random else None)
