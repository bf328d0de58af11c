"""The ``ladder calibrate`` subcommand (registered by ladder/cli.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ladder.levels import LEVEL_NUMBERS
from ladder.variants import VARIANT_IDS

if TYPE_CHECKING:
    from ladder.calibration.plan import Plan

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
    _add_what(p)
    _add_where(p)
    _add_how(p)
    p.set_defaults(func=_cmd_calibrate)


def _add_what(p: argparse.ArgumentParser) -> None:
    """What is calibrated, from which levels file, into which."""
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


def _add_where(p: argparse.ArgumentParser) -> None:
    """Where the games and the reports are kept."""
    p.add_argument("--db", type=Path, default=Path("calibrate.sqlite"), help="results database")
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        help="folder of the compact game record to resume from and update "
        "(the project's is calibration/)",
    )
    p.add_argument("--docs", type=Path, default=None, help="write ladder.md and plots here")


def _add_how(p: argparse.ArgumentParser) -> None:
    """How the games are played (or only estimated)."""
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop starting games after this long; run again to continue",
    )
    p.add_argument(
        "--max-level",
        type=int,
        choices=LEVEL_NUMBERS,
        default=LEVEL_NUMBERS[-1],
        metavar="N",
        help="play only the pairings up to level N (the cheap bottom first); the fit "
        "still covers every game stored (default: all eight levels)",
    )
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples (default 200)")
    p.add_argument(
        "--fit-only", action="store_true", help="play nothing: fit what the database holds"
    )
    p.add_argument(
        "--concurrency", "-j", type=int, default=None, help="games at once (default: cores)"
    )
    p.add_argument("--ray-address", default=None, help="run games as Ray tasks (see ladder match)")
    p.add_argument(
        "--estimate",
        action="store_true",
        help="play nothing: print the games and core-hours each pairing is expected to need",
    )
    p.add_argument(
        "--nps",
        type=float,
        default=300_000,
        help="with --estimate: the engine's nodes per second on one core (default 300000)",
    )


def _print_estimate(variants: tuple[str, ...], plan: Plan, levels: Path, nps: float) -> int:
    from ladder.calibration.budget import estimate

    total = 0.0
    for variant in variants:
        rows = estimate(variant, plan, levels, nps)
        print(
            f"{variant}: {sum(r.games for r in rows):,} games, "
            f"{sum(r.core_hours for r in rows):.1f} core-hours"
        )
        for r in sorted(rows, key=lambda r: r.core_hours):
            print(
                f"  {r.stronger:>8} - {r.weaker:<8} {r.games:>5} games  "
                f"{r.seconds_per_game:7.1f} s/game  {r.core_hours:6.2f} core-h"
            )
        total += sum(r.core_hours for r in rows)
    print(f"in all: {total:.1f} core-hours (at {nps:,.0f} nodes/s a core)")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from ladder.calibration.plan import Plan, PlanError
    from ladder.calibration.run import CalibrationConfig, run_calibration
    from ladder.levels import LEVELS_FILE, LevelsError
    from ladder.match.runner.errors import MatchError
    from ladder.match.runner.interrupts import abandon_workers, interrupts_raise

    levels = args.levels or LEVELS_FILE
    try:
        plan = Plan.load(args.plan) if args.plan else Plan()
        if args.estimate:
            return _print_estimate(tuple(args.variant or VARIANT_IDS), plan, levels, args.nps)
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
            max_level=args.max_level,
            engine=args.engine_path,
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
