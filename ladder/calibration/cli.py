"""The ``ladder calibrate`` subcommand (registered by ladder/cli.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ladder.variants import VARIANT_IDS

__all__ = ["add_calibrate"]


def add_calibrate(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder calibrate``."""
    p = sub.add_parser(
        "calibrate",
        help="measure the levels' Elo (random = 0); writes a calibrated levels file",
        description="Games among random, greedy, the eight levels and the plan's extra "
        "players (adjacent and skip-one pairings; more games where a gap's interval is "
        "widest), a whole-pool fit anchored at random = 0 with bootstrap intervals, and "
        "the tuning criteria. Writes the calibrated levels file to --out (the shipped "
        "file only with --write). Resumable: run the same command again.",
    )
    p.add_argument(
        "--variant",
        action="append",
        choices=VARIANT_IDS,
        default=None,
        help="variant(s) to calibrate (repeatable; default: all three)",
    )
    p.add_argument(
        "--plan",
        type=Path,
        default=None,
        help="plan file: games, adaptive target, adjudication, extra players "
        "(default: the built-in plan; the project's is calibration/plan.toml)",
    )
    p.add_argument(
        "--levels",
        type=Path,
        default=None,
        help="levels file to calibrate (default: the shipped ladder/levels.toml)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("levels-calibrated.toml"),
        help="where the calibrated levels file goes (default ./levels-calibrated.toml)",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="replace the levels file given by --levels (the shipped one by default)",
    )
    p.add_argument("--db", type=Path, default=Path("calibrate.sqlite"), help="results database")
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        help="folder of the compact game record to resume from and update "
        "(the project's is calibration/)",
    )
    p.add_argument("--docs", type=Path, default=None, help="write ladder.md and plots here")
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop starting games after this long; run again to continue",
    )
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples (default 200)")
    p.add_argument(
        "--fit-only", action="store_true", help="play nothing: fit what the database holds"
    )
    p.add_argument(
        "--concurrency", "-j", type=int, default=None, help="games at once (default: cores)"
    )
    p.add_argument("--ray-address", default=None, help="run games as Ray tasks (see ladder match)")
    p.set_defaults(func=_cmd_calibrate)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from ladder.calibration.plan import Plan, PlanError
    from ladder.calibration.run import CalibrationConfig, run_calibration
    from ladder.levels import LEVELS_FILE, LevelsError
    from ladder.match.backends import abandon_workers, interrupts_raise
    from ladder.match.runner import MatchError

    levels = args.levels or LEVELS_FILE
    try:
        plan = Plan.load(args.plan) if args.plan else Plan()
        if args.bootstrap < 0 or (args.concurrency is not None and args.concurrency < 1):
            raise ValueError("--bootstrap must be >= 0 and --concurrency >= 1")
        config = CalibrationConfig(
            variants=tuple(args.variant or VARIANT_IDS),
            plan=plan,
            levels_file=levels,
            out=levels if args.write else args.out,
            budget_seconds=args.budget,
            bootstrap=args.bootstrap,
            docs=args.docs,
            record=args.record,
            play=not args.fit_only,
        )
        with interrupts_raise():
            run_calibration(
                config, db=args.db, concurrency=args.concurrency, ray_address=args.ray_address
            )
    except MatchError as exc:
        print(f"ladder calibrate: {exc} (run again to resume)", file=sys.stderr)
        return 3
    except (PlanError, LevelsError, ValueError, OSError) as exc:
        print(f"ladder calibrate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        abandon_workers()
        print("ladder calibrate: interrupted; run again to resume", file=sys.stderr)
        return 130
    return 0
