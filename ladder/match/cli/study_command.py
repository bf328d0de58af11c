"""``ladder study`` (registered by ladder/cli.py): the games of matches or a PGN file,
annotated (:mod:`ladder.match.output.study`), with a summary per match."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ladder.arg_types import non_negative_int
from ladder.cli_options import add_json_file, add_pgn_notation
from ladder.match.cli import run
from ladder.match.exit_codes import ExitCode
from ladder.variants import VARIANT_IDS

__all__ = ["add_study"]


def add_study(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder study``."""
    p = sub.add_parser(
        "study",
        help="annotate the games of matches or a PGN file for a study",
        description="Write the games as an annotated PGN: every atomic explosion (what it "
        "removed), every crazyhouse drop that gave check, and the decisive move (the "
        "largest swing of a reference engine's evaluation, with the move it preferred); "
        "print a summary per match (draw rate, Red's score, length, endings).",
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="MATCH-OR-PGN",
        help="a PGN file, or a match id (or a unique prefix of one) in --db",
    )
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the study (PGN)")
    p.add_argument("--db", type=Path, default=Path("match.sqlite"), help="results database")
    p.add_argument(
        "--variant",
        choices=VARIANT_IDS,
        default=None,
        help="the rule set of PGN games without a Variant tag (default: xiangqi)",
    )
    p.add_argument(
        "--engine",
        dest="reference",
        default="level:8,variety=off",
        metavar="PLAYER",
        help="the reference engine, a player spec that searches (default: the patched "
        "engine, as level:8,variety=off)",
    )
    p.add_argument(
        "--nodes",
        type=non_negative_int,
        default=50_000,
        help="search each position this many nodes (default 50000; 0: the reference's own limit)",
    )
    add_json_file(p, "the summary and the notes as JSON ('-': standard output)")
    add_pgn_notation(p, "move notation")
    p.set_defaults(func=_cmd_study)


def _cmd_study(args: argparse.Namespace) -> int:
    from ladder.match.output.paths import check_output_path
    from ladder.match.output.store import check_db_path
    from ladder.match.output.study import StudyError, run_study
    from ladder.match.runner.interrupts import abandon_workers, interrupts_raise

    report = run.report_stream(args)
    try:
        check_db_path(args.db)
        check_output_path("--out", args.out)  # before the evaluations, not after them
        check_output_path("--json", args.json_path)
    except OSError as exc:
        print(f"ladder study: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        with interrupts_raise():
            return run_study(
                args.sources,
                out=args.out,
                db=args.db,
                variant=args.variant,
                reference=args.reference,
                nodes=args.nodes or None,
                json_path=args.json_path,
                notation=args.pgn_notation,
                report=report,
                patched_engine=args.engine_path,
            )
    except StudyError as exc:
        print(f"ladder study: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        abandon_workers()
        print("ladder study: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
