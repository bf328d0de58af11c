"""``ladder match`` (registered by ladder/cli.py): game pairs between two players,
resumable, with SPRT, PGN and JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ladder.arg_types import probability
from ladder.match.cli import options, run
from ladder.match.exit_codes import ExitCode

if TYPE_CHECKING:
    from ladder.match.config import MatchConfig

__all__ = ["add_match"]


def add_match(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder match``."""
    p = options.add_command(
        sub,
        "match",
        help="play a match between two players (resumable, SPRT, PGN, JSON)",
        description="Play game pairs (each opening twice, colours reversed) between "
        "player A and player B; figures are A's. Running the same command "
        "again resumes the match from its database.",
        players="player A, then player B (or give them with -engine)",
    )
    options.add_games(
        p,
        100,
        "games to play (default 100): pairs, an odd count ending with the first game of a pair",
    )
    p.add_argument(
        "--name", default=None, help="match id in the database (default: derived from the settings)"
    )
    p.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        default=None,
        metavar=("ELO0", "ELO1"),
        help="run a GSPRT of H0: elo=ELO0 against H1: elo=ELO1 (A's logistic "
        "Elo, pentanomial) and stop when it is decided (exit 4: H0, 5: H1)",
    )
    p.add_argument("--alpha", type=probability, default=0.05)
    p.add_argument("--beta", type=probability, default=0.05)
    options.add_match_options(p)
    p.set_defaults(func=_cmd_match)


def _config(args: argparse.Namespace) -> MatchConfig:
    from ladder.match.config import MatchConfig
    from ladder.match.statistics.sprt import Sprt

    specs = options.player_specs(args)
    if len(specs) != 2:
        raise ValueError(f"a match needs two players, got {len(specs)}")
    a, b = specs
    if a.name == b.name:
        a, b = a.with_name(f"{a.name}#A"), b.with_name(f"{b.name}#B")
    sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    return MatchConfig(
        player_a=a, player_b=b, sprt=sprt, name=args.name, **options.game_settings(args)
    )


def _cmd_match(args: argparse.Namespace) -> int:
    from ladder.match.runner.match_run import play_match

    report = run.report_stream(args)
    try:
        config = _config(args)
        run_options = options.run_options(args, report)
    except run.setup_errors() as exc:
        return run.usage_error("match", exc)
    match_run = run.play("match", lambda: play_match(config, run_options))
    if isinstance(match_run, int):
        return match_run
    decided = {
        ExitCode.SPRT_H0: " (stopped: SPRT accepted H0)",
        ExitCode.SPRT_H1: " (stopped: SPRT accepted H1)",
    }.get(match_run.code, "")
    print(
        f"match {config.match_id}: played {match_run.result.played}, resumed past "
        f"{match_run.result.skipped}{decided}",
        file=report,
    )
    if match_run.result.played:
        print(match_run.result.time_text(), file=report)
    print(match_run.stats.report(), file=report)
    return match_run.code
