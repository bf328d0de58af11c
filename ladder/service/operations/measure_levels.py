"""``ladder levels --measure``: each level's median time a move, measured by playing it
through the in-process service on this machine (:mod:`ladder.level_times` reads and
writes the file it makes)."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path

from ladder.client import Ladder
from ladder.engine_binary import engine_build_key
from ladder.level_times import OUT_OF_BOOK, LevelTimes
from ladder.levels import levels_version, load_levels
from ladder.service.operations.config import ServiceConfig

__all__ = ["measure"]


async def measure(
    engine: Path, levels_file: Path, variants: list[str], positions: int
) -> LevelTimes:
    """Every level of `variants` played from `positions` positions (a game from
    :data:`OUT_OF_BOOK` on at level 4) by the in-process service with one engine: each
    level's median wall time a move, as the service measures a request's."""
    table = load_levels(levels_file)
    config = ServiceConfig(engines=1, engine_path=engine, levels_file=levels_file)
    seconds: dict[str, dict[int, float]] = {}
    async with Ladder(config=config) as ladder:
        for variant in variants:
            games: list[list[str]] = []
            moves = list(OUT_OF_BOOK)
            for ply in range(positions):
                games.append(list(moves))
                reply = await ladder.move(variant=variant, moves=moves, level=4, seed=ply)
                if reply.outcome is not None:
                    break
                moves.append(reply.move)
            samples: dict[int, list[float]] = {}
            for level in sorted(table[variant]):
                for game in games:
                    started = time.perf_counter()
                    await ladder.move(variant=variant, moves=game, level=level, seed=1)
                    samples.setdefault(level, []).append(time.perf_counter() - started)
            seconds[variant] = {
                level: round(statistics.median(s), 4) for level, s in samples.items()
            }
    return LevelTimes(
        seconds,
        engine_build_key(engine),
        levels_version(levels_file),
        positions,
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        f"{platform.node()} ({os.cpu_count()} CPUs, {platform.processor() or platform.machine()})",
    )
