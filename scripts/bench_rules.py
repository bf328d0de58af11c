#!/usr/bin/env python3
"""Benchmark the rules checker's per-ply work against pyffish, on the same positions.

Per variant, a fixed set of positions is generated from seeded random games (capture-
and drop-biased, stopped at a random ply from the opening to the late middlegame, so
most are middlegames). For each position we time what a match or the move service does
on every ply:

* ours: ``game.legal_moves()`` + ``game.outcome()`` on a :class:`ladder.rules.Game`
  whose move cache is cleared first (so the moves are generated from scratch);
* pyffish: ``legal_moves`` + ``game_result`` (no legal move) or ``is_immediate_game_end``
  and ``is_optional_game_end``, given the position at the last capture and the moves
  since (what the service sends the engine, so that FSF sees repetitions).

Each position is timed ``--repeat`` times and its best time kept; the report gives the
median (and 90th percentile) over positions, and the ratio pyffish / ours. The target is
a median of at most 1 ms for the checker in every variant.

    .venv/bin/python scripts/bench_rules.py [--positions 300] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI

ROOT = Path(__file__).resolve().parent.parent


def positions(variant: str, count: int, seed: int = 2024) -> list[Game]:
    """``count`` deterministic positions (games still going on) of a variant."""
    rng = random.Random(f"{seed}-{variant}")
    out: list[Game] = []
    while len(out) < count:
        game = Game.from_fen(variant)
        target = rng.randint(4, 120)
        while game.ply < target and game.outcome() is None:
            legal = game.legal_moves()
            board = game.position.board
            special = [m for m in legal if "@" in m or board[_dest(m)]]
            pick = special if special and rng.random() < 0.35 else legal
            game.push(rng.choice(pick))
        if game.outcome() is None:
            out.append(game)
    return out


def _dest(move: str) -> int:
    point = move.split("@")[1] if "@" in move else move[2 if move[2].isalpha() else 3 :]
    return (int(point[1:]) - 1) * 9 + ord(point[0]) - ord("a")


def time_ours(game: Game, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        game._legal = None  # measure generation from scratch, not the per-ply cache
        game._legal_names = None
        game._any_legal = None
        t0 = time.perf_counter()
        game.legal_moves()
        game.outcome()
        best = min(best, time.perf_counter() - t0)
    return best


def time_pyffish(sf: object, variant: str, game: Game, repeat: int) -> float:
    section = FSF_VARIANT[variant]
    fen, history = game.engine_position()  # the history an engine gets
    moves = list(history)  # pyffish takes a list, not a tuple
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        legal = sf.legal_moves(section, fen, moves)  # type: ignore[attr-defined]
        if not legal:
            sf.game_result(section, fen, moves)  # type: ignore[attr-defined]
        else:
            sf.is_immediate_game_end(section, fen, moves)  # type: ignore[attr-defined]
            sf.is_optional_game_end(section, fen, moves)  # type: ignore[attr-defined]
        best = min(best, time.perf_counter() - t0)
    return best


def summarize(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_us": statistics.median(ordered) * 1e6,
        "p90_us": ordered[int(0.9 * (len(ordered) - 1))] * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300, help="positions per variant")
    parser.add_argument("--repeat", type=int, default=5, help="timings per position (best)")
    parser.add_argument("--no-pyffish", action="store_true", help="time the checker only")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    sf = None
    if not args.no_pyffish:
        try:
            import pyffish

            pyffish.load_variant_config(VARIANTS_INI.read_text())
            sf = pyffish
        except ImportError:
            print("pyffish not installed: timing the checker only", file=sys.stderr)
    report: dict[str, dict[str, float]] = {}
    for variant in VARIANT_IDS:
        games = positions(variant, args.positions)
        row = {
            "positions": float(len(games)),
            "legal_moves_mean": statistics.mean(len(g.legal_moves()) for g in games),
        }
        ours = summarize([time_ours(g, args.repeat) for g in games])
        row.update({f"ours_{k}": v for k, v in ours.items()})
        if sf is not None:
            theirs = summarize([time_pyffish(sf, variant, g, args.repeat) for g in games])
            row.update({f"pyffish_{k}": v for k, v in theirs.items()})
            row["ratio_pyffish_over_ours"] = theirs["median_us"] / ours["median_us"]
        report[variant] = row
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{'variant':<20} {'moves':>6} {'ours median':>12} {'ours p90':>10} "
        f"{'pyffish median':>15} {'ratio':>7}"
    )
    for name, row in report.items():
        theirs_text = (
            f"{row['pyffish_median_us']:>12.0f} us" if "pyffish_median_us" in row else f"{'-':>15}"
        )
        ratio = (
            f"{row['ratio_pyffish_over_ours']:>6.1f}x"
            if "ratio_pyffish_over_ours" in row
            else f"{'-':>7}"
        )
        print(
            f"{name:<20} {row['legal_moves_mean']:>6.1f} {row['ours_median_us']:>9.0f} us "
            f"{row['ours_p90_us']:>7.0f} us {theirs_text} {ratio}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
