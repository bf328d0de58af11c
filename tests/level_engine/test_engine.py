"""The level engine on the real engine: the book without a process, a searched move,
an analysis evaluation."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from ladder.level_engine.book import load_book
from ladder.level_engine.clock import MoveClock
from ladder.level_engine.engine import LevelEngine
from ladder.levels import load_levels
from ladder.rules import Game


def test_a_book_move_starts_no_engine() -> None:
    level = load_levels()["xiangqi"][5]
    book = load_book("xiangqi")
    assert level.book and book is not None

    async def run() -> None:
        engine = LevelEngine()
        try:
            start = Game.from_fen("xiangqi")
            moved = await engine.play(start, level, 3)
            assert moved.book and moved.move == book.pick(start, 3)
            assert moved.score is None and moved.pv == (moved.move,)
            assert engine.managed.engine is None  # nothing was started
        finally:
            await engine.close()

    asyncio.run(run())


def test_a_searched_move_and_an_evaluation() -> None:
    level = replace(load_levels()["xiangqi"][2], book=False)

    async def run() -> None:
        engine = LevelEngine()
        try:
            game = Game.from_fen("xiangqi", moves=["h3e3", "h8e8"])
            moved = await engine.play(game, level, 7, MoveClock(60_000))
            assert moved.move in game.legal_moves() and not moved.book
            assert moved.nodes > 0 and moved.depth > 0 and moved.score is not None
            again = await engine.play(game, level, 7)
            assert again.move == moved.move  # the seed decides, not the engine's history
            searched = await engine.evaluate(game, 2000)
            assert searched.evaluation.best in game.legal_moves()
            assert searched.evaluation.nodes > 0 and not searched.incidents
        finally:
            await engine.close()

    asyncio.run(run())
