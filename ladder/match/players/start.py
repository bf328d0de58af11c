"""From a :class:`~ladder.match.players.specs.PlayerSpec` to a player:
:func:`make_player`; :func:`started_players`, players started for a measurement outside
a match; and :func:`probe`, which checks before a match that every engine can play at
all."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from ladder.match.players.baselines import GreedyPlayer, NovicePlayer, RandomPlayer
from ladder.match.players.engines import EnginePlayer, LevelPlayer
from ladder.match.players.player import Player, PlayerError, SearchingPlayer
from ladder.match.players.specs import PlayerSpec, PlayerSpecError
from protocol import EngineError, EngineFailure

__all__ = ["make_player", "probe", "started_players"]


def make_player(spec: PlayerSpec) -> Player:
    """A runtime player for ``spec`` (call ``await player.start()`` next)."""
    if spec.kind == "random":
        return RandomPlayer(spec)
    if spec.kind == "greedy":
        return GreedyPlayer(spec)
    if spec.kind == "novice":
        return NovicePlayer(spec)
    if spec.kind == "level":
        return LevelPlayer(spec)
    return EnginePlayer(spec)


@asynccontextmanager
async def started_players(specs: Sequence[PlayerSpec]) -> AsyncIterator[list[Player]]:
    """A started player for each of ``specs``, in order, for the block; every one closed
    after it, also when the block raises or a player fails to start (closing one never
    started is a no-op)."""
    players = [make_player(spec) for spec in specs]
    try:
        for player in players:
            await player.start()
        yield players
    finally:
        for player in players:
            await player.close()


async def _probe_one(spec: PlayerSpec, variant: str, fen: str | None) -> PlayerSpec:
    player = make_player(spec)
    if not isinstance(player, SearchingPlayer):
        return spec
    await player.start()
    try:
        if isinstance(player, EnginePlayer):
            return await player.check(variant, fen)
        await player.probe(variant)
        return spec
    except (EngineError, PlayerSpecError) as exc:
        reason = exc.reason if isinstance(exc, EngineFailure) else str(exc)
        raise PlayerError(f"{spec.name} cannot play {variant}: {reason}") from exc
    finally:
        await player.close()


def probe(
    specs: list[PlayerSpec], variant: str, fen: str | None = None
) -> dict[PlayerSpec, PlayerSpec]:
    """Start every engine of ``specs`` once (handshake, options, variant, ``fen`` set up
    when the match sets up positions, a search) before a match, so that an engine that
    cannot play stops the match before its first game: :class:`PlayerError` with a
    one-line reason. Returns each spec as the games play it: an engine's FEN letters
    and search deadline found (:meth:`EnginePlayer.check`)."""

    async def run() -> dict[PlayerSpec, PlayerSpec]:
        unique = list(dict.fromkeys(specs))
        results = await asyncio.gather(
            *(_probe_one(s, variant, fen) for s in unique), return_exceptions=True
        )
        checked: dict[PlayerSpec, PlayerSpec] = {}
        for spec, outcome in zip(unique, results, strict=True):
            if isinstance(outcome, BaseException):
                raise outcome
            checked[spec] = outcome
        return checked

    return asyncio.run(run())
