"""One move request answered in-process without the service: ``ladder move``'s own path.

A command that asks for one move does not need the service's engine pool, queue, metrics
or HTTP client, and importing them took most of its time (issue 36). It plays the move on
one :class:`~ladder.level_engine.engine.LevelEngine`, started only when the position is
past the book, with the request's checks and answer made as the service makes them
(:mod:`ladder.service.domain.move_answer`): the same request gives the same answer.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from ladder.level_engine.clock import MoveClock
from ladder.level_engine.level_move import book_move
from ladder.levels import levels_version, load_levels
from ladder.service.domain.errors import NoEngineAnswer
from ladder.service.domain.models import MoveRequest, MoveResponse
from ladder.service.domain.move_answer import (
    check_not_over,
    move_response,
    move_strength,
    request_time_limit_ms,
)
from ladder.service.domain.positions import Positions
from protocol.errors import EngineFailure

__all__ = ["play_move"]


async def play_move(req: MoveRequest, levels_file: Path, engine: Path) -> MoveResponse:
    """``req``'s answer with the levels of ``levels_file``, searched (past the book) on
    ``engine``. Raises the service's :class:`~ladder.service.domain.errors.RequestRejected`
    for a request it cannot answer as asked,
    :class:`~ladder.service.domain.errors.NoEngineAnswer` when the engine failed the
    search, and :class:`protocol.errors.EngineError` when it did not start."""
    levels = load_levels(levels_file)  # the service's are loaded before any request
    clock_started = time.monotonic()  # as the service's: the checks count on a clock
    seed = req.seed if req.seed is not None else secrets.randbits(53)
    level = move_strength(levels, req.variant, req.level, req.elo)
    positions = Positions()
    checked = await positions.judge(req.variant, req.fen, req.moves)
    check_not_over(checked)
    time_limit_ms = request_time_limit_ms(req)
    elapsed = 0.0
    moved = book_move(checked.game, level, seed)
    if moved is None:  # past the book: the only case that starts an engine
        # Imported, started and set up (the variant, the level's hash table) off the
        # clock, as the service's engines are before a request; EngineError when the
        # engine does not start.
        started = time.monotonic()
        from ladder.level_engine.engine import LevelEngine

        level_engine = LevelEngine(engine)
        try:
            settings = level.at_move(seed)
            await level_engine.prepare(checked.game.variant.name, settings.hash_mb)
            clock_started += time.monotonic() - started
            clock = None if time_limit_ms is None else MoveClock(time_limit_ms, clock_started)
            t0 = time.perf_counter()
            try:
                moved = await level_engine.play(
                    checked.game, level, seed, clock, legal=checked.legal
                )
            except EngineFailure as exc:  # as the service answers it (NoLevelMove too)
                raise NoEngineAnswer(f"the engine gave no usable answer: {exc}") from None
            elapsed = time.perf_counter() - t0
        finally:
            await level_engine.close()
    after = positions.after(req.variant, req.fen, tuple(req.moves), checked, moved.move)
    return move_response(
        req, seed, checked.game, after, moved, elapsed, time_limit_ms, levels_version(levels_file)
    )
