"""What the beginner rule costs the server: the process CPU of a weak level's move
(`LevelEngine.play`, the engine's search not counted) before and after the rule, side by
side in one run, and the `novice` baseline's time per move.

    .venv/bin/python scripts/bench_weak_levels.py [--positions 80]

"Before" is calibration/levels-before-beginner.toml, "now" the shipped levels file; both
play the same general positions of the frozen sets (data/positions-*) with the same
seeds, on one engine. A running calibration is paused meanwhile (the load is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from ladder.calibration.pause import calibration_paused
from ladder.calibration.position_sets import load_sets
from ladder.level_engine.engine import LevelEngine
from ladder.levels import LEVELS_FILE, load_levels
from ladder.match.players.baselines import novice_choice
from ladder.package_data import CHECKOUT_ROOT
from ladder.variants import VARIANT_IDS

BEFORE = (CHECKOUT_ROOT or Path.cwd()) / "calibration" / "levels-before-beginner.toml"


async def levels_cpu(positions: int) -> None:
    engine = LevelEngine()
    try:
        for variant in VARIANT_IDS:
            games = [p.game() for p in load_sets(variant) if p.kind == "general"][:positions]
            medians: dict[str, list[float]] = {}
            for tag, path in (("before", BEFORE), ("now", LEVELS_FILE)):
                table = load_levels(path)[variant]
                for n in (1, 2, 3):
                    cpu = []
                    for i, game in enumerate(games):
                        start = time.process_time()
                        await engine.play(game, table[n], i)
                        cpu.append(time.process_time() - start)
                    medians.setdefault(tag, []).append(statistics.median(cpu))
            cells = [
                f"L{n} {1000 * b:.1f} -> {1000 * a:.1f} ms ({a / b:.1f}x)"
                for n, b, a in zip((1, 2, 3), medians["before"], medians["now"], strict=True)
            ]
            print(f"{variant}: median process CPU a move, before -> now: " + "; ".join(cells))
    finally:
        await engine.close()


def novice_cpu(positions: int) -> None:
    for variant in VARIANT_IDS:
        games = [p.game() for p in load_sets(variant) if p.kind == "general"][:positions]
        cpu = []
        for i, game in enumerate(games):
            start = time.process_time()
            novice_choice(game, random.Random(i))
            cpu.append(time.process_time() - start)
        cpu.sort()
        print(
            f"{variant}: novice median {1000 * statistics.median(cpu):.1f} ms, "
            f"p90 {1000 * cpu[int(0.9 * len(cpu))]:.1f} ms, max {1000 * cpu[-1]:.0f} ms"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--positions", type=int, default=80)
    args = p.parse_args()
    with calibration_paused():
        asyncio.run(levels_cpu(args.positions))
        novice_cpu(args.positions)


if __name__ == "__main__":
    main()
