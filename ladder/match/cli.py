"""The ``ladder match`` subcommand (registered by ladder/cli.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ladder.variants import VARIANT_IDS

__all__ = ["add_match"]

_PLAYERS_HELP = (
    "level:N | engine:PATH,protocol=uci|ucci|xboard,[ranks=0-9|1-10,]nodes=N|depth=N|movetime=MS,"
    "Option=value,... | random | greedy"
)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed for the opening order and the players' choices (default 1)",
    )
    p.add_argument(
        "--concurrency",
        "-j",
        type=int,
        default=None,
        help="games at once (default: one per core; with Ray: the cluster's CPUs)",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        help="run games as Ray tasks: a cluster address, 'auto', or 'local' "
        "(a Ray instance on this machine)",
    )
    g = p.add_argument_group("adjudication (the rules endings always apply)")
    g.add_argument(
        "--resign-score",
        type=int,
        default=None,
        metavar="CP",
        help="a player whose score is <= -CP for --resign-moves of its moves loses",
    )
    g.add_argument("--resign-moves", type=int, default=4, metavar="N")
    g.add_argument(
        "--draw-score",
        type=int,
        default=None,
        metavar="CP",
        help="both scores within +-CP for --draw-moves moves each: draw",
    )
    g.add_argument("--draw-moves", type=int, default=8, metavar="N")
    g.add_argument(
        "--draw-after",
        type=int,
        default=60,
        metavar="PLY",
        help="draw adjudication only after this ply (default 60)",
    )
    g.add_argument(
        "--max-plies",
        type=int,
        default=500,
        metavar="N",
        help="a game reaching N plies is drawn (default 500)",
    )


def _adjudication(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ladder.match.adjudication import Adjudication

    return Adjudication(
        resign_cp=args.resign_score,
        resign_moves=args.resign_moves,
        draw_cp=args.draw_score,
        draw_moves=args.draw_moves,
        draw_after_ply=args.draw_after,
        max_plies=args.max_plies,
    )


# --- match ------------------------------------------------------------------------------


def add_match(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder match``."""
    p = sub.add_parser(
        "match",
        help="play a match between two players (resumable, SPRT, PGN)",
        description="Play game pairs (each opening twice, colours reversed) between "
        "player A and player B; figures are A's. Running the same command "
        "again resumes the match from its database.",
        epilog=f"players: {_PLAYERS_HELP}",
    )
    p.add_argument("player_a", help="player A")
    p.add_argument("player_b", help="player B")
    p.add_argument("--variant", required=True, choices=VARIANT_IDS)
    p.add_argument(
        "--games",
        type=int,
        default=100,
        help="games to play, rounded up to whole pairs (default 100)",
    )
    p.add_argument(
        "--openings",
        type=Path,
        default=None,
        help="opening suite (default: ladder/openings/<variant>.txt)",
    )
    p.add_argument(
        "--db",
        type=Path,
        default=Path("match.sqlite"),
        help="results database (default match.sqlite); resumes from it",
    )
    p.add_argument("--pgn", type=Path, default=None, help="write the games here (PGN)")
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
        "Elo, pentanomial) and stop when it is decided",
    )
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    _add_common(p)
    p.set_defaults(func=_cmd_match)


def _cmd_match(args: argparse.Namespace) -> int:
    from ladder.match.openings import OpeningError, load_openings
    from ladder.match.players import PlayerSpec, PlayerSpecError
    from ladder.match.runner import MatchConfig, MatchError, run_match
    from ladder.match.sprt import Sprt

    try:
        a, b = PlayerSpec.parse(args.player_a), PlayerSpec.parse(args.player_b)
        if a.name == b.name:
            a, b = a.with_name(f"{a.name}#A"), b.with_name(f"{b.name}#B")
        openings = load_openings(args.variant, args.openings)
        sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
        config = MatchConfig(
            variant=args.variant,
            player_a=a,
            player_b=b,
            openings=openings,
            games=args.games,
            seed=args.seed,
            adjudication=_adjudication(args),
            sprt=sprt,
            name=args.name,
        )
    except (PlayerSpecError, OpeningError, ValueError) as exc:
        print(f"ladder match: {exc}", file=sys.stderr)
        return 2
    try:
        stats, result = run_match(
            config,
            db=args.db,
            pgn=args.pgn,
            concurrency=args.concurrency,
            ray_address=args.ray_address,
        )
    except MatchError as exc:
        print(
            f"ladder match: {exc} (the games stored so far are kept: run the same "
            "command to resume)",
            file=sys.stderr,
        )
        return 3
    except KeyboardInterrupt:
        print("ladder match: interrupted; run the same command to resume", file=sys.stderr)
        return 130
    print(
        f"match {config.match_id}: played {result.played}, resumed past "
        f"{result.skipped}" + (" (stopped: SPRT decided)" if stats.decided else "")
    )
    print(stats.report())
    return 0
