"""``ladder analyse``: a game's computer analysis, as an annotated PGN (and JSON).

    ladder analyse GAME.pgn [-o OUT.pgn] [--json OUT.json] [--nodes N] [-j ENGINES]
                   [--pgn-notation wxf|iccs|xboard|chinese|chinese-traditional]
    ladder analyse --moves "h3e3 h8e8 ..." [--variant V] [--fen FEN] ...

Every game of the PGN file (or the game given by ``--moves``) is analysed on ``-j``
engines at once (the patched engine, as the levels play it), a progress bar on stderr (on
a terminal; else a line for the first game, every 10 s, and the last);
the exit codes are ``ladder match``'s (:class:`ladder.match.exit_codes.ExitCode`): 0
done, 2 a bad argument or game (an illegal move names its ply), 3 an engine that
failed, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ladder.analysis.pgn import format_analysis_pgn
from ladder.analysis.runner import AnalysisInputError, GameAnalysis, GamePositions, analyse
from ladder.analysis.search import Evaluation
from ladder.arg_types import positive_int
from ladder.cli_options import add_json_file, add_pgn_notation
from ladder.level_engine.engine import LevelEngine
from ladder.match.exit_codes import ExitCode
from ladder.match.output.paths import check_output_path
from ladder.match.output.pgn import PgnError, read_pgn, replay
from ladder.match.output.progress import StatusLines
from ladder.notation.by_name import read_move
from ladder.notation.wxf import WxfError
from ladder.rules import Game, RulesError
from ladder.variants import VARIANT_IDS
from protocol.errors import EngineError

__all__ = ["DEFAULT_NODES", "add_analyse", "run_analyse"]

#: Nodes a position by default: the service's default (ladder.service.operations.config).
DEFAULT_NODES = 150_000


class UsageError(Exception):
    """A bad argument or game: nothing was analysed."""


@dataclass
class SourceGame:
    """A game to analyse: its positions, tags and result, and how many of its first
    plies a book played (marked ``{book}``, as cutechess and ``ladder match`` mark them)."""

    positions: GamePositions
    headers: list[tuple[str, str]] = field(default_factory=list)
    result: str = "*"
    book_plies: int = 0


def add_analyse(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder analyse``."""
    p = sub.add_parser(
        "analyse",
        aliases=["analyze"],
        help="a game's computer analysis: evaluations, mistakes, best lines, accuracy",
        description="Evaluate every position of a game, mark its inaccuracies, mistakes and "
        "blunders with the engine's best line, and sum up each side (counts, mean loss, "
        "accuracy); write the game as an annotated PGN as lichess exports one.",
    )
    p.add_argument("pgn", nargs="?", type=Path, metavar="GAME.pgn", help="the game(s) to analyse")
    p.add_argument(
        "--moves",
        default=None,
        help="the game's moves instead of a PGN file (canonical h3e3 or WXF C2=5, space-separated)",
    )
    p.add_argument(
        "--variant",
        choices=VARIANT_IDS,
        default=None,
        help="the rule set (default: the PGN's Variant tag, else xiangqi)",
    )
    p.add_argument("--fen", default=None, help="the start position of --moves")
    p.add_argument(
        "--nodes",
        type=positive_int,
        default=DEFAULT_NODES,
        help=f"search each position this many nodes (default {DEFAULT_NODES:,}; "
        "level 8 searches up to 600,000: a weaker analysis may call its moves "
        "mistakes)",
    )
    p.add_argument(
        "-j",
        "--engines",
        type=positive_int,
        default=1,
        metavar="N",
        help="engines searching at once (default 1)",
    )
    p.add_argument(
        "--judge-book",
        action="store_true",
        help="judge the book's moves too (marked {book}: a match's random opening plies; "
        "by default they are evaluated but not called mistakes)",
    )
    p.add_argument(
        "-o",
        "--out",
        default=None,
        metavar="OUT.pgn",
        help="the annotated PGN ('-': standard output, the default unless --json - takes it)",
    )
    add_json_file(p, "the analysis as JSON ('-': standard output)")
    add_pgn_notation(
        p,
        "the PGN's move notation, as ladder match writes it: WXF (C2=5, the default), "
        "ICCS (H2-E2), xboard (h2e2, what XBoard reads), Chinese (炮二平五, traditional "
        "馬８進７); the Format tag says which",
    )
    p.set_defaults(func=_cmd_analyse)


def _cmd_analyse(args: argparse.Namespace) -> int:
    try:
        games = load_games(args.pgn, args.moves, args.variant, args.fen)
    except UsageError as exc:
        print(f"ladder analyse: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.out == "-" and args.json_path == "-":
        print("ladder analyse: -o and --json cannot both be standard output", file=sys.stderr)
        return ExitCode.USAGE
    if args.out is None:  # standard output, unless the JSON goes there (then no PGN)
        args.out = None if args.json_path == "-" else "-"
    try:  # before the searches, not after them
        check_output_path("--out", args.out)
        check_output_path("--json", args.json_path)
    except OSError as exc:
        print(f"ladder analyse: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        return run_analyse(
            games,
            nodes=args.nodes,
            engines=args.engines,
            out=args.out,
            json_path=args.json_path,
            engine_path=args.engine_path,
            notation=args.pgn_notation,
            judge_book=args.judge_book,
        )
    except KeyboardInterrupt:
        print("ladder analyse: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED


def load_games(
    pgn: Path | None, moves: str | None, variant: str | None, fen: str | None
) -> list[SourceGame]:
    """The games named on the command line (:class:`UsageError` for a bad one)."""
    if (pgn is None) == (moves is None):
        raise UsageError("give a PGN file or --moves (one of the two)")
    if moves is not None:
        try:
            game = Game.from_fen(variant or "xiangqi", fen)
        except RulesError as exc:
            raise UsageError(f"--{exc.field}: {exc.reason}") from None
        for ply, token in enumerate(moves.split(), start=1):
            try:
                game.push(read_move(game, token))
            except WxfError as exc:
                raise UsageError(f"--moves: ply {ply}: {exc}") from None
        return [SourceGame(GamePositions(game.variant.name, fen, game.moves))]
    if fen is not None:
        raise UsageError("--fen goes with --moves (a PGN game has its FEN tag)")
    try:
        text = pgn.read_text()  # type: ignore[union-attr]
        parsed = list(read_pgn(text))
    except (OSError, UnicodeDecodeError, PgnError) as exc:
        raise UsageError(f"{pgn}: {exc}") from None
    if not parsed:
        raise UsageError(f"{pgn}: no games")
    out = []
    for number, item in enumerate(parsed, start=1):
        try:
            game = replay(item, variant or ("xiangqi" if "Variant" not in item.headers else None))
            positions = GamePositions(game.variant.name, game.start_fen, game.moves)
        except (PgnError, AnalysisInputError) as exc:
            raise UsageError(f"{pgn}: game {number}: {exc}") from None
        result = item.headers.get("Result", item.result or "*")
        book = 0
        while book < len(item.comments) and item.comments[book] == "book":
            book += 1
        out.append(SourceGame(positions, list(item.headers.items()), result, book))
    return out


def run_analyse(
    games: Sequence[SourceGame],
    *,
    nodes: int,
    engines: int,
    out: str | None,
    json_path: str | None,
    console: Console | None = None,
    engine_path: Path | None = None,
    notation: str = "wxf",
    judge_book: bool = False,
) -> int:
    """Analyse ``games`` and write them (``out`` None: no PGN, else its moves in
    ``notation``); the exit code. ``engine_path``: the patched engine's (None: the usual
    lookup)."""
    console = console or Console(stderr=True)
    try:
        done = asyncio.run(_analyse_all(games, nodes, engines, console, engine_path, judge_book))
    except EngineError as exc:
        print(f"ladder analyse: the engine failed: {exc}", file=sys.stderr)
        return ExitCode.ENGINE_FAILURE
    text = "\n".join(
        format_analysis_pgn(a, headers=g.headers, result=g.result, notation=notation)
        for g, a in zip(games, done, strict=True)
    )
    if out == "-":
        sys.stdout.write(text)
    elif out is not None:
        Path(out).write_text(text)
    if json_path is not None:
        document = json.dumps({"games": [a.to_dict() for a in done]}, indent=2)
        if json_path == "-":
            sys.stdout.write(document + "\n")
        else:
            Path(json_path).write_text(document + "\n")
    for number, analysis in enumerate(done, start=1):
        figures = "; ".join(
            f"{side}: {s.inaccuracies} inaccuracies, {s.mistakes} mistakes, {s.blunders} "
            f"blunders, accuracy {'-' if s.accuracy is None else round(s.accuracy)}"
            for side, s in analysis.summary.items()
        )
        console.print(f"game {number}: {len(analysis.plies)} plies; {figures}", highlight=False)
    return ExitCode.DONE


async def _analyse_all(
    games: Sequence[SourceGame],
    nodes: int,
    engines: int,
    console: Console,
    engine_path: Path | None,
    judge_book: bool,
) -> list[GameAnalysis]:
    pool = [LevelEngine(engine_path) for _ in range(engines)]

    def evaluator(engine: LevelEngine):  # type: ignore[no-untyped-def]
        async def evaluate(game: Game) -> Evaluation:
            return (await engine.evaluate(game, nodes)).evaluation

        return evaluate

    evaluators = [evaluator(e) for e in pool]
    done: list[GameAnalysis] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    try:
        lines = (
            None
            if console.is_terminal
            else StatusLines(console, "analyse", len(games), "games analysed")
        )
        with Progress(*columns, console=console, disable=lines is not None) as bar:
            for number, source in enumerate(games, start=1):
                g = source.positions
                task = bar.add_task(f"game {number}", total=g.plies)
                analysis = GameAnalysis(g.variant, g.start_fen, g.moves, nodes)
                async for ply in analyse(g, evaluators):
                    if ply.ply <= source.book_plies and not judge_book:
                        ply = dataclasses.replace(ply, judgement=None)  # the book's, not a side's
                    analysis.plies.append(ply)
                    bar.advance(task)
                done.append(analysis)
                if lines is not None:
                    lines.add()
    finally:
        await asyncio.gather(*(e.close() for e in pool), return_exceptions=True)
    return done
