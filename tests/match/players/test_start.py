"""``started_players``: players started for a measurement outside a match (the error
profile's), every one closed after the block, also when it raises."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from ladder.match.players.specs import parse_player
from ladder.match.players.start import started_players
from ladder.rules import Game
from ladder.seeds import MoveSeed

# Out of every level's book, so that the level player searches too.
OUT_OF_BOOK = [
    "h3e3",
    "h10g8",
    "h1g3",
    "i10h10",
    "i1i2",
    "a10a9",
    "b1c3",
    "b10c8",
    "a1a2",
    "a9d9",
    "c4c5",
    "c7c6",
]


def _engines_running() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if "stockfish" in p.name()]


async def test_players_play_in_the_block_and_are_closed_after(engine_exe: Path) -> None:
    specs = [parse_player(t) for t in ("greedy", "level:4", f"engine:{engine_exe},nodes=200")]
    game = Game.from_fen("xiangqi", moves=OUT_OF_BOOK)
    async with started_players(specs) as players:
        assert [p.spec for p in players] == specs
        for player in players:
            await player.new_game("xiangqi", 1)
            move = (await player.choose(game.copy(), MoveSeed.fixed(7))).move
            assert move in game.legal_moves()
        assert len(_engines_running()) == 2  # the level's and the engine player's
    assert _engines_running() == []


async def test_players_are_closed_when_the_block_raises(engine_exe: Path) -> None:
    specs = [parse_player("level:4"), parse_player(f"engine:{engine_exe},nodes=200")]
    game = Game.from_fen("xiangqi", moves=OUT_OF_BOOK)
    with pytest.raises(ValueError, match="the measurement failed"):
        async with started_players(specs) as players:
            for player in players:
                await player.new_game("xiangqi", 1)
                await player.choose(game.copy(), MoveSeed.fixed(7))
            assert len(_engines_running()) == 2
            raise ValueError("the measurement failed")
    assert _engines_running() == []
