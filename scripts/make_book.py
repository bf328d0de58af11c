"""Build the opening books (ladder/openings/book-<variant>.json; see ladder/level_engine/book.py).

    python scripts/make_book.py --variant xiangqi            # from the grandmaster games
    python scripts/make_book.py --variant atomic-xiangqi     # from the opening suite

xiangqi: every position of the grandmaster games' first ``--plies`` plies that at least
``--min-games`` games reached, with each move at least that many of them played there,
weighted by that count. Then each such position is searched deep (``--prune-nodes``):
once for its best move anywhere (MultiPV ``--prune-lines``), once for the book moves
alone (``searchmoves``, a line each); a book move is kept only if it scores within
``--margin-cp`` of the best of both (so nothing is searched twice at play time). A
position left without moves leaves the book, and so does what only it led to.
Searches are cached in ``--cache`` (JSON), so a rerun only searches what is new; a
progress bar shows the searches.

atomic-xiangqi and crazyhouse-xiangqi: the engine's own balanced openings (the opening
suite, ``ladder/openings/<variant>.txt``) as a tree, each move weighted by how many
openings pass through it; they were kept when built because a search scored them within
±60 cp, so they are not searched again.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.calibration.master_games import master_lines
from ladder.level_engine.book import Book, book_path, position_key
from ladder.level_engine.engine import LevelEngine
from ladder.level_engine.level_move import SearchJob
from ladder.match.openings import default_suite, load_openings
from ladder.rules import Game
from ladder.variants import FSF_VARIANT


def tree(lines: list[list[str]], variant: str, plies: int) -> dict[str, collections.Counter[str]]:
    """Per position of the first ``plies`` plies of ``lines``, how often each move."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for moves in lines:
        game = Game.from_fen(variant)
        for move in moves[:plies]:
            counts[position_key(game)][move] += 1
            game.push(move)
    return counts


def reachable(
    positions: dict[str, list[tuple[str, int]]], variant: str
) -> dict[str, list[tuple[str, int]]]:
    """The positions that book moves reach from the start (dropping the orphans)."""
    out: dict[str, list[tuple[str, int]]] = {}
    todo = [Game.from_fen(variant)]
    while todo:
        game = todo.pop()
        key = position_key(game)
        if key in out or key not in positions:
            continue
        out[key] = positions[key]
        for move, _ in positions[key]:
            child = game.copy()
            child.push(move)
            todo.append(child)
    return out


async def prune(
    counts: dict[str, collections.Counter[str]],
    fens: dict[str, str],
    args: argparse.Namespace,
) -> dict[str, list[tuple[str, int]]]:
    cache: dict[str, Any] = {}
    if args.cache and args.cache.exists():
        cache = json.loads(args.cache.read_text())
    engine = LevelEngine()
    kept: dict[str, list[tuple[str, int]]] = {}
    dropped = 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with Progress(*columns, TimeRemainingColumn()) as bar:
            task = bar.add_task("deep searches", total=len(counts))
            for i, (key, moves) in enumerate(sorted(counts.items())):
                game = Game.from_fen(args.variant, fens[key])
                legal = frozenset(game.legal_moves())
                # The best the deep search finds anywhere, and the book moves' own scores
                # (a search of only them, `searchmoves`, one line each).
                ckey = f"{args.prune_nodes}|{args.prune_lines}|{key}"
                bkey = f"{args.prune_nodes}|book|{key}|{' '.join(sorted(moves))}"
                for k, lines, only in (
                    (ckey, args.prune_lines, None),
                    (bkey, len(moves), tuple(sorted(moves))),
                ):
                    if k not in cache:
                        job = SearchJob(
                            FSF_VARIANT[args.variant],
                            game.fen(),
                            (),
                            args.prune_nodes,
                            multipv=lines,
                            hash_mb=64,
                            root_moves=only,
                        )
                        searched = await engine.search(job, legal)
                        cache[k] = [[ln.move, ln.value()] for ln in searched.result.lines.values()]
                if i % 10 == 9 and args.cache:
                    args.cache.write_text(json.dumps(cache))
                scores = {str(m): int(v) for m, v in cache[bkey]}
                best = max([*scores.values(), *(int(v) for _, v in cache[ckey])])
                good = [
                    (m, c)
                    for m, c in moves.most_common()
                    if m in scores and best - scores[m] <= args.margin_cp
                ]
                dropped += len(moves) - len(good)
                if good:
                    kept[key] = sorted(good, key=lambda mc: (-mc[1], mc[0]))
                bar.advance(task)
    finally:
        if args.cache:
            args.cache.write_text(json.dumps(cache))
        await engine.close()
    print(f"pruned {dropped} book moves losing more than {args.margin_cp} cp", file=sys.stderr)
    return kept


def fens_of(lines: list[list[str]], variant: str, plies: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for moves in lines:
        game = Game.from_fen(variant)
        for move in moves[:plies]:
            out.setdefault(position_key(game), game.fen())
            game.push(move)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True, choices=sorted(FSF_VARIANT))
    p.add_argument("--plies", type=int, default=12)
    p.add_argument("--min-games", type=int, default=3)
    p.add_argument("--prune-nodes", type=int, default=150_000)
    p.add_argument("--prune-lines", type=int, default=5)
    p.add_argument("--margin-cp", type=int, default=30)
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--out", type=Path, default=None, help="default: the shipped book's path")
    args = p.parse_args(argv)
    out = args.out or book_path(args.variant)
    if args.variant == "xiangqi":
        lines = master_lines()
        counts = tree(lines, args.variant, args.plies)
        common = {
            key: collections.Counter({m: c for m, c in moves.items() if c >= args.min_games})
            for key, moves in counts.items()
        }
        common = {k: v for k, v in common.items() if v}
        positions = asyncio.run(prune(common, fens_of(lines, args.variant, args.plies), args))
        source = (
            f"grandmaster games (data/master-games.jsonl.gz, {len(lines)} games): first "
            f"{args.plies} plies, moves played in >= {args.min_games} games, weighted by "
            f"games; pruned: within {args.margin_cp} cp of the best of {args.prune_lines} "
            f"lines at {args.prune_nodes:,} nodes"
        )
        plies = args.plies
    else:
        suite = load_openings(args.variant, default_suite(args.variant))
        lines = [list(o.moves) for o in suite]
        plies = max(len(m) for m in lines)
        counts = tree(lines, args.variant, plies)
        positions = {
            k: sorted(v.items(), key=lambda mc: (-mc[1], mc[0])) for k, v in counts.items()
        }
        source = (
            f"the engine's balanced openings ({default_suite(args.variant).name}, "
            f"{len(lines)} openings), weighted by openings"
        )
    positions = reachable(positions, args.variant)
    book = Book(args.variant, source, plies, {k: tuple(v) for k, v in positions.items()})
    out.write_text(book.to_json() + "\n")
    print(
        f"{out}: {len(book.positions)} positions, "
        f"{sum(len(v) for v in book.positions.values())} moves"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
