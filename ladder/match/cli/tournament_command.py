"""``ladder tournament`` (registered by ladder/cli.py): a gauntlet or round-robin of
matches, with a crosstable and a rating list."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ladder.arg_types import non_negative_int
from ladder.match.cli import options, run

if TYPE_CHECKING:
    from ladder.match.tournament.run import TournamentConfig

__all__ = ["add_tournament"]


def add_tournament(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder tournament``."""
    p = options.add_command(
        sub,
        "tournament",
        help="a gauntlet or round-robin of matches, with a crosstable and rating list",
        description="Play a match (game pairs, colours reversed) between the first player "
        "and each other (gauntlet) or between every two players (round-robin), then print "
        "the crosstable and a Bradley-Terry rating list. Resumes from its database.",
        players="the players (gauntlet: the first meets every other)",
    )
    p.add_argument("--format", choices=("gauntlet", "round-robin"), default="round-robin")
    options.add_games(p, 2, "games per pairing (default 2)")
    p.add_argument(
        "--anchor",
        default=None,
        metavar="NAME",
        help="the player rated 0 (default: the first)",
    )
    p.add_argument(
        "--bootstrap",
        type=non_negative_int,
        default=200,
        metavar="B",
        help="rating intervals from B resamples of the game pairs (0: Wald; default 200)",
    )
    options.add_match_options(p)
    p.set_defaults(func=_cmd_tournament)


def _config(args: argparse.Namespace) -> TournamentConfig:
    from ladder.match.tournament.run import TournamentConfig

    return TournamentConfig(
        players=options.player_specs(args), format=args.format, **options.game_settings(args)
    )


def _cmd_tournament(args: argparse.Namespace) -> int:
    from ladder.match.tournament.run import play_tournament

    report = run.report_stream(args)
    try:
        config = _config(args)
        run_options = options.run_options(args, report)
        if args.anchor is not None and args.anchor not in [p.name for p in config.players]:
            raise ValueError(f"--anchor {args.anchor!r} is not one of the players' names")
    except run.setup_errors() as exc:
        return run.usage_error("tournament", exc)
    tournament_run = run.play(
        "tournament",
        lambda: play_tournament(config, run_options, anchor=args.anchor, bootstrap=args.bootstrap),
    )
    if isinstance(tournament_run, int):
        return tournament_run
    print(
        f"tournament ({config.format}, {len(config.players)} players): played "
        f"{tournament_run.result.played}, resumed past {tournament_run.result.skipped}",
        file=report,
    )
    if tournament_run.result.played:
        print(tournament_run.result.time_text(), file=report)
    print(tournament_run.report(), file=report)
    return tournament_run.code
