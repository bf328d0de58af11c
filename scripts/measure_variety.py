"""How varied a level's own choices are: with its opponent's moves fixed, the distinct
sequences of the level's first moves that N seeds produce.

    python scripts/measure_variety.py --variant xiangqi --seeds 20 --moves 5 --json out.json

With ``--json`` a record already there keeps the rows of the levels not measured now.

The opponent is fixed (it does not depend on the seed): it plays a scenario's moves while
they are legal, then the engine's best move at ``--opponent-nodes`` (a deterministic
search). Scenarios: in xiangqi, 10 grandmaster openings (the level plays Black against
the master's Red moves, and Red against the master's Black moves, alternately) and 5 Red
first moves that leave the book (the level plays Black); in atomic and crazyhouse, 10
openings of the engine's balanced suite and the same 5 first moves. Each game's move at
ply p has the seed the match runner gives it (``derive_seed(game seed, p)``), game seed =
the seed number, so each sequence is reproducible; every game is played twice and must
repeat (the same seed, the same game). The goal (docs/tuning.md): at least 15 distinct
sequences of the level's first 5 moves from 20 seeds, in every scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.calibration.master_games import master_lines
from ladder.level_engine.book import load_book
from ladder.level_engine.engine import LevelEngine
from ladder.level_engine.level_move import SearchJob
from ladder.levels import LEVEL_NUMBERS, Level, load_levels, play_settings
from ladder.match.openings import load_openings
from ladder.rules import Game
from ladder.seeds import derive_seed
from ladder.variants import FSF_VARIANT

#: How many first moves out of the book the level must also vary against.
OFF_BOOK_SCENARIOS = 5


def scenarios(variant: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(name, the level's side, the opponent's scripted moves in game order)."""
    if variant == "xiangqi":
        lines = [m for m in master_lines() if len(m) >= 12][:10]
    else:
        lines = [list(o.moves) for o in load_openings(variant)[:10]]
    book = load_book(variant)
    out = []
    for i, moves in enumerate(lines):
        side = "black" if i % 2 == 0 else "red"
        out.append((f"opening {i + 1}", side, tuple(moves)))
    start = Game.from_fen(variant)
    in_book = {m for m, _ in book.moves(start)} if book is not None else set()
    # Quiet first moves (a capture at move one forces the reply: nothing to vary).
    off_book = [
        m
        for m in sorted(start.legal_moves())
        if m not in in_book and start.piece_at(m[-2:] if m[-2].isalpha() else m[-3:]) is None
    ]
    # Spread over the legal moves, so that not only one piece's moves are tried.
    step = max(1, len(off_book) // OFF_BOOK_SCENARIOS)
    for move in off_book[::step][:OFF_BOOK_SCENARIOS]:
        out.append((f"first move {move}", "black", (move,)))
    return out


async def opponent_move(
    engine: LevelEngine, game: Game, script: tuple[str, ...], nodes: int
) -> str:
    """The scripted move at this ply if it is legal, else the engine's deterministic best."""
    legal = frozenset(game.legal_moves())
    if game.ply < len(script) and script[game.ply] in legal:
        return script[game.ply]
    fen, moves = game.engine_position()
    job = SearchJob(FSF_VARIANT[game.variant.name], fen, moves, nodes)
    searched = await engine.search(job, legal)
    assert searched.result.bestmove is not None
    return searched.result.bestmove


async def level_sequence(
    engine: LevelEngine,
    opponent: LevelEngine,
    variant: str,
    settings: Level,
    side: str,
    script: tuple[str, ...],
    seed: int,
    moves: int,
    opponent_nodes: int,
) -> tuple[str, ...]:
    game = Game.from_fen(variant)
    own: list[str] = []
    while len(own) < moves and game.outcome() is None:
        if game.turn == side:
            played = await engine.play(game, settings, derive_seed(seed, game.ply))
            own.append(played.move)
            game.push(played.move)
        else:
            game.push(await opponent_move(opponent, game, script, opponent_nodes))
    return tuple(own)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    engine, opponent = LevelEngine(), LevelEngine()
    plan = scenarios(args.variant)
    ladder = load_levels(args.levels) if args.levels else load_levels()
    table: dict[str, dict[str, int]] = {}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with Progress(*columns, TimeRemainingColumn()) as bar:
            task = bar.add_task(args.variant, total=len(args.level) * len(plan) * args.seeds)
            for level in args.level:
                row: dict[str, int] = {}
                for name, side, script in plan:
                    seen: set[tuple[str, ...]] = set()
                    for seed in range(1, args.seeds + 1):
                        call = (
                            args.variant,
                            ladder[args.variant][level],
                            side,
                            script,
                            seed,
                            args.moves,
                            args.opponent_nodes,
                        )
                        first = await level_sequence(engine, opponent, *call)
                        if await level_sequence(engine, opponent, *call) != first:
                            raise SystemExit(
                                f"level {level}, {name}, seed {seed}: not reproducible"
                            )
                        seen.add(first)
                        bar.advance(task)
                    row[name] = len(seen)
                table[str(level)] = row
    finally:
        await engine.close()
        await opponent.close()
    return {
        "variant": args.variant,
        "seeds": args.seeds,
        "moves": args.moves,
        "opponent_nodes": args.opponent_nodes,
        "levels": table,
        # what each level played: docs/ladder.md shows a retuned level's row as stale
        "settings": {str(n): play_settings(ladder[args.variant][n]) for n in args.level},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True, choices=sorted(FSF_VARIANT))
    p.add_argument("--level", type=int, action="append", choices=list(LEVEL_NUMBERS))
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--moves", type=int, default=5, help="the level's own first moves compared")
    p.add_argument("--opponent-nodes", type=int, default=3_000)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--levels", type=Path, default=None, help="levels file (default: shipped)")
    args = p.parse_args(argv)
    args.level = args.level or list(LEVEL_NUMBERS)
    out = asyncio.run(measure(args))
    print(
        f"{out['variant']}: distinct sequences of the level's first {out['moves']} moves "
        f"from {out['seeds']} seeds, opponent fixed (min over scenarios; goal >= 15)"
    )
    for level, row in out["levels"].items():
        worst = min(row, key=lambda k: row[k])
        print(
            f"  level {level}: min {row[worst]} ({worst}); "
            + " ".join(f"{v}" for v in row.values())
        )
    if args.json is not None:
        args.json.write_text(json.dumps(merged(args.json, out), indent=2))
    return 0


def merged(path: Path, out: dict[str, Any]) -> dict[str, Any]:
    """``out`` over the record already at ``path`` (same variant, seeds, moves and
    opponent): the levels measured now replace their rows, the others keep theirs, each
    row beside the settings it was measured with."""
    if not path.exists():
        return out
    old = json.loads(path.read_text())
    same = ("variant", "seeds", "moves", "opponent_nodes")
    if any(old.get(k) != out[k] for k in same):
        return out
    levels = {**old.get("levels", {}), **out["levels"]}
    settings = {**old.get("settings", {}), **out["settings"]}
    order = sorted(levels, key=int)
    return {
        **out,
        "levels": {k: levels[k] for k in order},
        "settings": {k: settings[k] for k in order if k in settings},
    }


if __name__ == "__main__":
    sys.exit(main())
