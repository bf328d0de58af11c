"""The seeded baselines: :class:`RandomPlayer` (a uniformly random legal move),
:class:`GreedyPlayer` (the capture that wins the most material, or the game, else a
random move) and :class:`NovicePlayer` (a person who has just learned the rules:
:func:`novice_choice`). All are seeded per game."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from ladder.level_engine.beginner import (
    NOVICE_SIGHT,
    Sight,
    best_threat,
    loses_at_once,
    wins_at_once,
)
from ladder.level_engine.second_look import first_look
from ladder.match.game.clocks import MoveClocks
from ladder.match.players.player import MoveInfo
from ladder.match.players.specs import PlayerSpec
from ladder.material import material
from ladder.rules import Game
from ladder.seeds import MoveSeed

__all__ = [
    "BaselinePlayer",
    "GreedyPlayer",
    "NovicePlayer",
    "RandomPlayer",
    "greedy_choice",
    "greedy_move",
    "novice_choice",
]

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

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
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

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        move, at_random = greedy_choice(game, self.rng)
        return MoveInfo(move, chosen="random" if at_random else None)


def novice_choice(game: Game, rng: random.Random, sight: Sight = NOVICE_SIGHT) -> str:
    """The move of a person who has just learned the rules (the `novice` baseline,
    docs/tuning.md), drawn with ``rng``:

    1. a move that wins at once, if there is one
       (:func:`ladder.level_engine.beginner.wins_at_once`);
    2. else the move whose first look is best: what it captures
       (:func:`ladder.level_engine.second_look.first_look`) less what the opponent can then win
       (:func:`ladder.level_engine.beginner.best_threat`) among the captures the novice sees
       (``sight``: never a cannon's capture over its screen nor a line its own move
       opened, a horse's half the time); ties drawn at random;
    3. among the moves that do not lose at once
       (:func:`ladder.level_engine.beginner.loses_at_once`):
       the best-looking move that does not lose is played, so a check, atomic's wide
       check included, is always answered when it can be; if every move loses, the
       best-looking one.

    It plays no plan: among the moves that look equal it picks at random.
    """
    legal = sorted(game.legal_moves())
    wins = [move for move in legal if wins_at_once(game, move)]
    if wins:
        return rng.choice(wins)
    taken = first_look(game)
    looks: dict[str, int] = {}
    for move in legal:
        game.push(move, after_end=True)
        try:
            threat = best_threat(game, sight.after(move, rng))
        finally:
            game.pop()
        looks[move] = taken.get(move, 0) - (threat.gain_cp if threat is not None else 0)
    rng.shuffle(legal)
    legal.sort(key=looks.__getitem__, reverse=True)  # stable: ties stay in the drawn order
    # Whether a move loses at once is looked at only as far as needed (it costs a reply
    # search each); the first that does not lose is the best-looking safe move.
    return next((move for move in legal if not loses_at_once(game, move)), legal[0])


class NovicePlayer(BaselinePlayer):
    """A beginner: answers checks, takes what it sees, misses cannons and horses."""

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        return MoveInfo(novice_choice(game.copy(), self.rng))
