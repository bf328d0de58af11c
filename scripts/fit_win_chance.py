#!/usr/bin/env python3
"""Fit the win-chance constant ``k`` of ``1 / (1 + exp(-k * cp))`` per variant on the
ladder's own committed games (calibration/games-*.jsonl.gz), as lichess fitted its
chess constant on its games.

Positions are drawn from games between two ladder levels (not the random or greedy
baselines: their results say little about a position), at plies 16, 32, 48, ... while
the game goes on; each is evaluated at ``--nodes`` by the analysis core's search
(ladder.analysis.search: the same evaluation an analysis makes). Red's result in the
game (1, ½, 0) is regressed on Red's evaluation capped at ±1000 cp (mates excluded):
``k`` maximises the log-likelihood (draws count as half a win, as in the win chance
itself). A bootstrap over games gives a 90 % interval; the log-likelihood of lichess's
chess constant is printed beside. Writes calibration/win-chance.json.

    python scripts/fit_win_chance.py [--nodes 20000] [--positions 300]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import math
import random
import re
import time
from pathlib import Path

from ladder.analysis.winchance import CHESS_K, CP_CEILING
from ladder.level_engine.engine import LevelEngine
from ladder.rules import Game, RulesError
from ladder.variants import VARIANT_IDS

ROOT = Path(__file__).resolve().parents[1]

LEVEL = re.compile(r"^(soft-)?L\d$")
RESULT = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


Position = tuple[int, str, list[str], float]


def positions(variant: str, limit: int, rng: random.Random) -> list[Position]:
    """(game index, start FEN, moves to the position, Red's result) drawn from the record."""
    path = ROOT / "calibration" / f"games-{variant}.jsonl.gz"
    games = []
    with gzip.open(path, "rt") as f:
        for line in f:
            d = json.loads(line)
            if "mv" not in d or d.get("res") not in RESULT:
                continue
            if LEVEL.match(d["r"]) and LEVEL.match(d["b"]):
                games.append(d)
    out = []
    for i, d in enumerate(games):
        moves = d["mv"].split()
        for ply in range(16, len(moves) - 4, 16):
            out.append((i, d["f"], moves[:ply], RESULT[d["res"]]))
    rng.shuffle(out)
    return out[:limit]


def log_likelihood(k: float, data: list[tuple[float, float]]) -> float:
    total = 0.0
    for cp, s in data:
        p = 1.0 / (1.0 + math.exp(-k * cp))
        p = min(max(p, 1e-9), 1 - 1e-9)
        total += s * math.log(p) + (1 - s) * math.log(1 - p)
    return total


def fit(data: list[tuple[float, float]]) -> float:
    """The maximum-likelihood k (golden-section search on [1e-4, 0.03])."""
    lo, hi = 1e-4, 0.03
    g = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if log_likelihood(a, data) > log_likelihood(b, data):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


async def evaluate(
    variant: str, items: list[Position], nodes: int
) -> list[tuple[int, float, float]]:
    engine = LevelEngine()
    out: list[tuple[int, float, float]] = []
    try:
        for game_no, fen, moves, result in items:
            try:
                game = Game.from_fen(variant, fen, moves)
            except RulesError:
                continue
            if game.outcome() is not None:
                continue
            e = (await engine.evaluate(game, nodes)).evaluation
            if e.cp is None:
                continue  # a mate says nothing about the curve's slope
            out.append((game_no, max(-CP_CEILING, min(CP_CEILING, e.cp)), result))
    finally:
        await engine.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "calibration" / "win-chance.json")
    args = parser.parse_args()
    variants: dict[str, dict[str, object]] = {}
    report = {"nodes": args.nodes, "chess_k": CHESS_K, "variants": variants}
    print(f"{'variant':<20} {'positions':>9} {'k':>9} {'90% interval':>21} "
          f"{'LL(k)':>9} {'LL(chess)':>10}")  # fmt: skip
    for variant in VARIANT_IDS:
        rng = random.Random(args.seed)
        t0 = time.time()
        rows = asyncio.run(evaluate(variant, positions(variant, args.positions, rng), args.nodes))
        data = [(cp, s) for _, cp, s in rows]
        k = fit(data)
        by_game: dict[int, list[tuple[float, float]]] = {}
        for g, cp, s in rows:
            by_game.setdefault(g, []).append((cp, s))
        keys = list(by_game)
        boot = []
        for _ in range(200):
            sample = [x for key in rng.choices(keys, k=len(keys)) for x in by_game[key]]
            boot.append(fit(sample))
        boot.sort()
        low, high = boot[10], boot[189]
        ll, ll_chess = log_likelihood(k, data), log_likelihood(CHESS_K, data)
        print(f"{variant:<20} {len(data):>9} {k:>9.5f} [{low:.5f}, {high:.5f}] "
              f"{ll:>9.1f} {ll_chess:>10.1f}   ({time.time() - t0:.0f} s)")  # fmt: skip
        variants[variant] = {
            "positions": len(data), "games": len(keys), "k": round(k, 6),
            "interval_90": [round(low, 6), round(high, 6)],
            "log_likelihood": round(ll, 1), "log_likelihood_chess_k": round(ll_chess, 1),
        }  # fmt: skip
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
