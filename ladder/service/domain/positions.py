"""The rules checker as the service uses it.

Every request's variant, FEN and moves are parsed and judged here before anything
reaches an engine, and what an engine is sent is the checker's canonical FEN and moves,
never the request's strings.

A game site sends the whole move list with every request, so judged positions are kept
in a small LRU cache: a game replayed move by move costs one or two plies of checking
per request, not the whole game again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cached_property

from ladder.rules import Game, GameOverError, Outcome, RulesError
from ladder.service.domain.errors import ErrorCode, InvalidRequest
from ladder.service.domain.models import OutcomeInfo
from ladder.service.domain.recent import RecentCache

#: Requests needing more plies of checking than this are checked in a worker thread,
#: so that replaying a long game does not stall the event loop and every other request.
INLINE_PLIES = 48

CacheKey = tuple[str, str | None, tuple[str, ...]]


@dataclass(frozen=True)
class Checked:
    """A judged position: the game after all moves (what to send an engine is
    ``game.engine_position()``)."""

    variant: str
    game: Game  #: the game after every move (never mutated: copy first)
    legal: frozenset[str]  #: legal moves in the final position
    outcome: OutcomeInfo | None  #: set if the game is over in the final position

    @cached_property
    def fen(self) -> str:
        """Canonical FEN of the final position (computed once: the game never changes)."""
        return self.game.fen()

    @property
    def check(self) -> bool:
        """Whether the side to move is in check."""
        return self.game.is_check()


def outcome_model(outcome: Outcome | None) -> OutcomeInfo | None:
    """The checker's outcome as the API's model."""
    if outcome is None:
        return None
    return OutcomeInfo.model_validate(
        {"result": outcome.result, "winner": outcome.winner, "reason": outcome.reason}
    )


def start_fen(variant: str) -> str:
    """The canonical start position of a variant."""
    return Game.from_fen(variant).fen()


def _fen_error(exc: RulesError) -> InvalidRequest:
    if exc.field == "variant":
        return InvalidRequest(ErrorCode.UNKNOWN_VARIANT, f"variant: {exc.reason}", field="variant")
    return InvalidRequest(ErrorCode.BAD_FEN, f"fen: {exc.reason}", field="fen")


def _judge(variant: str, game: Game) -> Checked:
    return Checked(
        variant=variant,
        game=game,
        legal=frozenset(game.legal_moves()),
        outcome=outcome_model(game.outcome()),
    )


def _extend(start: Checked, extra: tuple[str, ...], first_ply: int) -> Checked:
    """`start` plus `extra` moves (the first of which is ply `first_ply` of the request)."""
    game = start.game.copy()
    for ply, move in enumerate(extra, start=first_ply):
        field = f"moves[{ply - 1}]"
        try:
            game.push(move)
        except RulesError as exc:
            code = ErrorCode.GAME_OVER if isinstance(exc, GameOverError) else ErrorCode.ILLEGAL_MOVE
            raise InvalidRequest(
                code, f"{field} (ply {ply}): {exc.reason}", field=field, ply=ply
            ) from None
    return _judge(start.variant, game)


class PositionCache(RecentCache[CacheKey, Checked]):
    """Recently judged positions by (variant, fen as sent, moves as sent); thread-safe."""


class Positions:
    """Judges requests' positions, with a cache of recent ones."""

    def __init__(self, cache_size: int = 256) -> None:
        self.cache = PositionCache(cache_size)

    def _nearest(
        self, variant: str, fen: str | None, moves: tuple[str, ...]
    ) -> tuple[Checked | None, int]:
        """The cached position covering the longest prefix of `moves` (up to 2 short)."""
        n = len(moves)
        for k in range(min(2, n) + 1):
            hit = self.cache.get((variant, fen, moves[: n - k]))
            if hit is not None:
                return hit, n - k
        return None, 0

    def judge_sync(self, variant: str, fen: str | None, moves: tuple[str, ...]) -> Checked:
        """Judge a position (blocking): :class:`InvalidRequest` on anything wrong."""
        start, done = self._nearest(variant, fen, moves)
        if start is None:
            try:
                game = Game.from_fen(variant, fen)
            except RulesError as exc:
                raise _fen_error(exc) from None
            start = _judge(variant, game)
            done = 0
        if done == len(moves):
            return start
        checked = _extend(start, moves[done:], done + 1)
        self.cache.put((variant, fen, moves), checked)
        return checked

    async def judge(
        self,
        variant: str,
        fen: str | None,
        moves: list[str] | tuple[str, ...],
    ) -> Checked:
        """Judge a position: the cache's when it was judged before (a game's next request
        finds the position :meth:`after` cached), else from the nearest one cached; a
        long replay in a thread, off the event loop."""
        mv = tuple(moves)
        hit = self.cache.get((variant, fen, mv))
        if hit is not None:
            return hit
        if len(mv) > INLINE_PLIES and self._nearest(variant, fen, mv)[0] is None:
            return await asyncio.to_thread(self.judge_sync, variant, fen, mv)
        return self.judge_sync(variant, fen, mv)

    def after(
        self, variant: str, fen: str | None, moves: tuple[str, ...], checked: Checked, move: str
    ) -> Checked:
        """The position after the engine's `move` (legal by construction); cached under
        the move list the client will send next (and taken from the cache when the same
        move was played in the same game before)."""
        key = (variant, fen, (*moves, move))
        after = self.cache.get(key)
        if after is None:
            after = _extend(checked, (move,), len(moves) + 1)
            self.cache.put(key, after)
        return after
