"""How varied a level's games are: the distinct games that N seeds produce from the start
position, the level playing both sides, counted by their first P plies.

    python scripts/measure_variety.py --variant xiangqi --seeds 20 --plies 10 --json out.json

Each game's move at ply p has the seed the match runner gives it (``derive_seed(game
seed, p)``, :mod:`ladder.match.play`), game seed = the seed number, so every game is
reproducible; the same seed gives the same game (checked: each game is played twice).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.level_move import derive_seed
from ladder.levels import LEVEL_NUMBERS
from ladder.match.players import Player, PlayerSpec, make_player
from ladder.rules import Game


async def play_opening(player: Player, variant: str, seed: int, plies: int) -> tuple[str, ...]:
    game = Game.from_fen(variant)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        info = await player.choose(game, derive_seed(seed, game.ply))
        game.push(info.move)
    return tuple(game.moves)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"variant": args.variant, "seeds": args.seeds, "plies": args.plies}
    levels: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
    ) as bar:
        task = bar.add_task(f"{args.variant} games", total=len(args.level) * args.seeds)
        for n in args.level:
            text = f"level:{n}" + (f",levels={args.levels}" if args.levels else "")
            player = make_player(PlayerSpec.parse(text))
            await player.start()
            try:
                games = []
                for seed in range(1, args.seeds + 1):
                    moves = await play_opening(player, args.variant, seed, args.plies)
                    if (
                        seed == 1
                        and await play_opening(player, args.variant, 1, args.plies) != moves
                    ):
                        raise SystemExit(f"level {n}: the same seed gave two games")
                    games.append(moves)
                    bar.advance(task)
            finally:
                await player.close()
            levels[str(n)] = {
                "distinct": len(set(games)),
                "distinct_by_ply": [len({g[:p] for g in games}) for p in range(1, args.plies + 1)],
            }
    out["levels"] = levels
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--level", type=int, action="append", default=None)
    p.add_argument("--levels", type=Path, default=None, help="levels file (default: shipped)")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--plies", type=int, default=10)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    args.level = args.level or list(LEVEL_NUMBERS)
    out = asyncio.run(measure(args))
    print(f"{args.variant}: distinct games of {args.seeds} seeds by ply {args.plies}")
    for n, row in out["levels"].items():
        print(f"  level {n}: {row['distinct']:>3}   by ply: {row['distinct_by_ply']}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
