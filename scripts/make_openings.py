#!/usr/bin/env python3
"""Make the opening suites: ladder/openings/<variant>.txt.

For each variant: seeded random playouts of 4..8 plies from the start position (uniform
legal moves, no capture of a chariot, horse or cannon, so the material stays even),
distinct final positions only, each evaluated by the patched engine with a shallow
search (``--nodes``, Threads=1, a new game each); an opening is kept when the engine's
score lies within ``+-window`` centipawns (from Red's view). The score is written as a
comment. Deterministic for a given seed, engine build and node count.

    .venv/bin/python scripts/make_openings.py --count 300 --window 60
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import time
from pathlib import Path

from ladder.engine_binary import engine_path
from ladder.match.openings import OPENINGS_DIR, Opening
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI
from protocol import Limit, ManagedEngine

ROOT = Path(__file__).resolve().parent.parent

_BIG = {"r", "n", "c"}
_DEST = re.compile(r"([a-i]\d{1,2})$")


def random_opening(variant: str, rng: random.Random, min_plies: int, max_plies: int) -> Game | None:
    """A random line of min..max plies that captures no major piece, or None."""
    game = Game.from_fen(variant)
    for _ in range(rng.randint(min_plies, max_plies)):
        moves = sorted(game.legal_moves())
        rng.shuffle(moves)
        for move in moves:
            target = game.piece_at(_DEST.search(move).group(1))  # type: ignore[union-attr]
            if target is None or target.lower() not in _BIG:
                game.push(move)
                break
        else:
            return None
        if game.outcome() is not None:
            return None
    return game


async def make_suite(
    variant: str, count: int, window: int, nodes: int, seed: int, min_plies: int, max_plies: int
) -> list[Opening]:
    rng = random.Random(f"{variant}:{seed}")
    seen: set[str] = set()
    kept: list[Opening] = []
    tried = 0
    async with ManagedEngine(
        engine_path(),
        options={"Threads": 1, "Hash": 16},
        variant_path=VARIANTS_INI,
        variant_aliases=FSF_VARIANT,
    ) as engine:
        while len(kept) < count and tried < count * 20:
            game = random_opening(variant, rng, min_plies, max_plies)
            if game is None:
                continue
            key = game.fen().rsplit(" ", 2)[0]
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            out = await engine.search(variant, game.start_fen, game.moves, Limit(nodes=nodes))
            score = out.result.info.get("score")
            if score is None or score.is_mate():
                continue
            red_cp = score.white().score()
            if red_cp is not None and abs(red_cp) <= window:
                kept.append(Opening(None, tuple(game.moves), f"{red_cp:+d}cp"))
    return kept


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", choices=VARIANT_IDS)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--window", type=int, default=60, help="keep |score| <= this (cp)")
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--min-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OPENINGS_DIR)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for variant in args.variant or VARIANT_IDS:
        t0 = time.perf_counter()
        suite = asyncio.run(
            make_suite(
                variant,
                args.count,
                args.window,
                args.nodes,
                args.seed,
                args.min_plies,
                args.max_plies,
            )
        )
        header = (
            f"# {variant}: {len(suite)} openings, {args.min_plies}-{args.max_plies} "
            f"random plies (no major piece captured), kept when the engine's score "
            f"at {args.nodes} nodes is within +-{args.window}cp (Red's view).\n"
            f"# Made by scripts/make_openings.py --seed {args.seed}.\n"
        )
        path = args.out / f"{variant}.txt"
        path.write_text(header + "".join(o.line() + "\n" for o in suite))
        print(f"{path}: {len(suite)} openings in {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
