#!/usr/bin/env python3
"""How long does a move at each level take? The engine's speed (nodes per second) per
rule set, measured on the real engine pool, and what it predicts for each level.

A level is a node count (ladder/levels.toml), so its time per move is its nodes over the
engine's speed. Until a level is calibrated (``seconds_per_move`` from the calibration
games), ``GET /v1/levels`` gives ``expected_seconds`` = nodes / the speed measured here
(:data:`ladder.level_engine.expected_time.NODES_PER_SECOND`); the play page shows a slow level's
elapsed time against it. This script measures that speed: the in-process service (one
engine, Threads 1, as the service runs it) plays each level from a few positions past
every opening book; the speed is the total nodes over the total search time of the three
slowest levels' moves (the search dominates there; a weak level's 3,000 nodes are
mostly overhead), over the engine process's CPU time (psutil): what an idle core gives,
however loaded the machine is while it runs. It prints that speed, the wall-clock one
beside it (the load's share), and per level the median wall time of its moves beside
the predicted one. The play page refines the prediction during a game from the nodes
and times of the ladder's own moves (a loaded server is slower).

    .venv/bin/python scripts/measure_level_times.py [--positions 6] [--variant V ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics

import psutil

from ladder.calibration.pause import calibration_paused
from ladder.client import Ladder
from ladder.level_engine.expected_time import NODES_PER_SECOND, expected_seconds
from ladder.levels import LEVELS_FILE, load_levels
from ladder.service.domain.errors import ServiceError
from ladder.variants import VARIANT_IDS

#: Past every opening book (tests/level_engine/test_book.py checks it): the levels search from here.
OUT_OF_BOOK = ["h3e3", "a10a9"]
#: The levels whose moves measure the engine's speed.
SPEED_LEVELS = (6, 7, 8)


async def positions(ladder: Ladder, variant: str, count: int) -> list[list[str]]:
    """`count` positions of one game played on from OUT_OF_BOOK at level 4."""
    moves = list(OUT_OF_BOOK)
    out = []
    for _ in range(count):
        out.append(list(moves))
        reply = await ladder.move(variant=variant, moves=moves, level=4, seed=len(moves))
        if reply.outcome is not None:
            break
        moves.append(reply.move)
        reply = await ladder.move(variant=variant, moves=moves, level=4, seed=len(moves))
        moves.append(reply.move)
    return out


def engine_cpu() -> float:
    """CPU seconds used so far by this process's children (the engines)."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        times = child.cpu_times()
        total += times.user + times.system
    return total


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank (nan when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


async def main(count: int, variants: list[str], only: set[int] | None) -> None:
    table = load_levels(LEVELS_FILE)
    print(f"load average {os.getloadavg()[0]:.1f}; {count} positions per rule set")
    async with Ladder(engines=1) as ladder:
        for variant in variants:
            times: dict[int, list[float]] = {}
            cpu_times: dict[int, list[float]] = {}
            nodes = seconds = cpu = 0.0
            for moves in await positions(ladder, variant, count):
                for level in sorted(table[variant]):
                    if only is not None and level not in only:
                        continue
                    used = engine_cpu()
                    try:
                        reply = await ladder.move(variant=variant, moves=moves, level=level, seed=1)
                    except ServiceError as exc:  # (a search timed out on a loaded machine)
                        print(f"  level {level}: no move ({exc.message}); not counted")
                        continue
                    used = engine_cpu() - used
                    if reply.book:
                        continue
                    times.setdefault(level, []).append(reply.time_ms / 1000)
                    cpu_times.setdefault(level, []).append(used)
                    if level in SPEED_LEVELS:
                        nodes += reply.nodes
                        seconds += reply.time_ms / 1000
                        cpu += used
            print(f"\n{variant}: {nodes / max(cpu, 1e-9):,.0f} nodes per CPU second "
                  f"(recorded: {NODES_PER_SECOND[variant]:,}); {nodes / max(seconds, 1e-9):,.0f} "
                  f"per wall-clock second (levels {SPEED_LEVELS} measured here)")  # fmt: skip
            print(
                f"  {'level':>5} {'nodes':>10} {'moves':>5} {'median s':>9} {'predicted s':>12}"
                f" {'CPU median':>11} {'CPU p95':>8}"
            )
            for level, lv in sorted(table[variant].items()):
                if level not in times:
                    continue
                measured = statistics.median(times[level])
                predicted = expected_seconds(variant, lv.nodes)
                per_move = cpu_times[level]
                print(
                    f"  {level:>5} {lv.nodes:>10,} {len(per_move):>5} {measured:>9.2f}"
                    f" {predicted:>12.2f} {statistics.median(per_move):>11.2f}"
                    f" {percentile(per_move, 0.95):>8.2f}"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--variant", action="append", choices=VARIANT_IDS)
    parser.add_argument("--level", action="append", type=int, help="only these levels")
    args = parser.parse_args()
    with calibration_paused():
        asyncio.run(
            main(args.positions, args.variant or list(VARIANT_IDS), set(args.level or ()) or None)
        )
