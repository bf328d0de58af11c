"""From a :class:`~ladder.match.players.specs.PlayerSpec` to a player:
:func:`make_player`, and :func:`probe`, which checks before a match that every engine
can play at all."""

from __future__ import annotations

import asyncio

from ladder.match.players.baselines import GreedyPlayer, NovicePlayer, RandomPlayer
from ladder.match.players.engines import EnginePlayer, LevelPlayer
from ladder.match.players.player import Player, PlayerError, SearchingPlayer
from ladder.match.players.specs import PlayerSpec, PlayerSpecError
from protocol import EngineError, EngineFailure

__all__ = ["make_player", "probe"]


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


async def _probe_one(spec: PlayerSpec, variant: str) -> None:
    player = make_player(spec)
    if not isinstance(player, SearchingPlayer):
        return
    await player.start()
    try:
        await player.probe(variant)
    except (EngineError, PlayerSpecError) as exc:
        reason = exc.reason if isinstance(exc, EngineFailure) else str(exc)
        raise PlayerError(f"{spec.name} cannot play {variant}: {reason}") from exc
    finally:
        await player.close()


def probe(specs: list[PlayerSpec], variant: str) -> None:
    """Start every engine of ``specs`` once (handshake, options, variant, a depth-1
    search) before a match, so that an engine that cannot play stops the match before
    its first game: :class:`PlayerError` with a one-line reason."""

    async def run() -> None:
        results = await asyncio.gather(
            *(_probe_one(s, variant) for s in dict.fromkeys(specs)), return_exceptions=True
        )
        for outcome in results:
            if isinstance(outcome, BaseException):
                raise outcome

    asyncio.run(run())
