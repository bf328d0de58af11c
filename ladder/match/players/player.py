"""What a player is to the game loop: the :class:`Player` protocol, the
:class:`MoveInfo` it answers, and the errors that score a game as its loss."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from chess.engine import Score

from ladder.match.game.clocks import MoveClocks
from ladder.match.players.specs import PlayerSpec
from ladder.rules import Game
from ladder.seeds import MoveSeed
from protocol import Limit, PlayResult

__all__ = [
    "FlagFell",
    "MoveInfo",
    "Player",
    "PlayerError",
    "Resignation",
    "SearchingPlayer",
]


class PlayerError(Exception):
    """A player could not give a move (an engine that answered none, a flag that fell):
    the game loop scores it as that player's loss. Anything else a player raises is a
    bug and stops the match."""


class Resignation(Exception):
    """The engine resigned instead of moving (it loses the game)."""


class FlagFell(PlayerError):
    """The player's clock ran out during its search (the engine was stopped)."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


@dataclass
class MoveInfo:
    """A move and the search behind it (engine players), from the mover's view."""

    move: str
    score: Score | None = None
    depth: int | None = None
    nodes: int | None = None
    seconds: float = 0.0  #: search time (go .. bestmove); 0 for baselines
    restarts: int = 0  #: engine restarts this move needed
    chosen: str | None = None  #: "random" or "varied": not the player's best move
    best: str | None = None  #: the engine's best move, when another one was played


class Player(Protocol):
    """A player in a worker process. ``choose`` gets the game being played (it must not
    change it) and, in a game with clocks, the clocks; an engine is sent
    ``game.engine_position()``."""

    spec: PlayerSpec

    async def start(self) -> None: ...

    async def new_game(self, variant: str, seed: int) -> None: ...

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo: ...

    async def close(self) -> None: ...


@runtime_checkable
class SearchingPlayer(Player, Protocol):
    """A player with an engine behind it (an engine or a level): checked before a match
    (:meth:`probe`), and a study's reference (:meth:`evaluate` under
    :meth:`reference_limit`)."""

    async def probe(self, variant: str) -> None:
        """Search once from ``variant``'s start; an engine that cannot play raises."""
        ...

    async def evaluate(self, game: Game, limit: Limit) -> PlayResult:
        """One search of ``game``'s position under ``limit``."""
        ...

    def reference_limit(self, variant: str) -> Limit:
        """The limit this player's own searches have in ``variant``."""
        ...
