"""The options ``ladder match`` and ``ladder tournament`` share, each group added to a
parser and read back from the parsed arguments: the players (the ladder's specs and
cutechess's ``-engine``/``-each``), the run (variant, seed, concurrency, Ray, database,
JSON, recovery), the opening book, the PGN output, adjudication, ``--games`` and
``--repeat``. Their numbers are read by :mod:`ladder.arg_types`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypedDict

from ladder.arg_types import non_negative_int, positive_int
from ladder.cli_options import add_json_file, add_pgn_notation
from ladder.match.exit_codes import ExitCode
from ladder.variants import VARIANT_IDS

if TYPE_CHECKING:  # loaded when the options are read back
    from ladder.match.game.adjudication import Adjudication
    from ladder.match.openings import Opening

__all__ = [
    "PLAYERS_HELP",
    "GameSettings",
    "add_command",
    "add_games",
    "add_match_options",
    "add_players",
    "game_settings",
    "player_specs",
    "run_options",
]

#: The epilog of ``ladder match --help`` and ``ladder tournament --help``.
PLAYERS_HELP = (
    "players: level:N | elo:N | engine:PATH,protocol=uci|ucci|xboard,[ranks=0-9|1-10,]"
    "nodes=N|depth=N|movetime=MS|"
    'st=S|tc=[M/]S[+I],args="...",Option=value,... | random | greedy | novice; '
    "or cutechess's form "
    "-engine cmd=PATH proto=uci|ucci|xboard option.Hash=16 tc=40/60+0.6 name=N ... (with -each "
    "KEY=VALUE ... for every -engine). Exit codes: "
    + ", ".join(f"{int(c)} {c.name.lower().replace('_', '-')}" for c in ExitCode)
    + " (docs/match.md)."
)


# --- the command and its players ---------------------------------------------------------


def add_command(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    *,
    help: str,
    description: str,
    players: str,
) -> argparse.ArgumentParser:
    """The parser of ``ladder match`` or ``ladder tournament``: the players first (their
    forms and the exit codes in the epilog)."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=description, epilog=PLAYERS_HELP
    )
    add_players(p, players)
    return p


def add_players(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("players", nargs="*", metavar="PLAYER", help=what)
    p.add_argument(
        "-engine",
        "--engine",
        dest="engines",
        nargs="+",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help='a player in cutechess-cli\'s form: cmd=PATH [args="..."] [dir=DIR] '
        "[name=N] [proto=uci|ucci|xboard] [ranks=0-9|1-10] [option.NAME=VALUE ...] "
        "[nodes=N] [depth=N] [st=S] "
        "[tc=[MOVES/]SECONDS[+INC]] [timemargin=MS] (after the positional players)",
    )
    p.add_argument(
        "-each",
        "--each",
        dest="each",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="keys applied to every -engine player (its own keys win), as cutechess's -each",
    )


def player_specs(args: argparse.Namespace) -> list[Any]:
    """The players: the positional specs, then the ``-engine`` ones."""
    from ladder.match.players.cutechess_form import parse_engine_arguments
    from ladder.match.players.specs import PlayerSpecError, parse_player

    specs = [parse_player(text) for text in args.players]
    if args.each and not args.engines:
        raise PlayerSpecError("-each applies to -engine players, and there is none")
    specs += [parse_engine_arguments([*args.each, *tokens]) for tokens in args.engines]
    for spec in specs:  # a levels file that fails, an Elo the variant has not: now, not mid-run
        if spec.kind == "level":
            spec.level_settings(args.variant)
    return [spec.with_patched_engine(args.engine_path) for spec in specs]


# --- the options every match and tournament takes ---------------------------------------


def add_match_options(p: argparse.ArgumentParser) -> None:
    """The run, the opening book, the PGN output and adjudication."""
    _add_run(p)
    _add_openings(p)
    _add_pgn(p)
    _add_adjudication(p)


def _add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", required=True, choices=VARIANT_IDS)
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed for the opening order and the players' choices (default 1)",
    )
    p.add_argument(
        "--concurrency",
        "-j",
        type=positive_int,
        default=None,
        help="games at once (default: one per core; with Ray: the cluster's CPUs)",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        help="run games as Ray tasks: a cluster address, 'auto', or 'local' "
        "(a Ray instance on this machine)",
    )
    p.add_argument(
        "--db",
        type=Path,
        default=Path("match.sqlite"),
        help="results database (default match.sqlite); resumes from it",
    )
    add_json_file(
        p,
        "write the result as JSON to FILE every --json-interval games and at the end "
        "('-': standard output, at the end; the report then goes to standard error)",
    )
    p.add_argument(
        "--json-interval",
        type=positive_int,
        default=None,
        metavar="N",
        help="games between two writes of the --json file (default 100; fastchess: "
        "-autosaveinterval)",
    )
    p.add_argument(
        "--recover",
        action="store_true",
        help="a game lost to an engine failure (crash, hang, no move) counts as a loss and "
        "the match goes on, the engine restarted; without it the first failure stops the "
        "match (exit 3) and that game is not stored",
    )
    p.add_argument(
        "--max-engine-failures",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="with --recover: stop (exit 3) at the failure after N (default: no limit)",
    )


def _add_openings(p: argparse.ArgumentParser) -> None:
    b = p.add_argument_group("opening book")
    b.add_argument(
        "--openings",
        type=Path,
        default=None,
        metavar="FILE",
        help="opening book: the ladder's suite format, .epd or .pgn "
        "(default: ladder/openings/<variant>.txt)",
    )
    b.add_argument(
        "--openings-format",
        choices=("suite", "epd", "pgn"),
        default=None,
        help="the book's format (default: by the file's suffix)",
    )
    b.add_argument(
        "--openings-order",
        choices=("random", "sequential"),
        default="random",
        help="random (a seeded shuffle per pass, the default) or in the book's order",
    )
    b.add_argument(
        "--openings-plies",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="play at most N moves of each opening",
    )


def _add_pgn(p: argparse.ArgumentParser) -> None:
    from ladder.match.output.pgn import FEN_DIALECTS

    o = p.add_argument_group("PGN output")
    o.add_argument("--pgn", type=Path, default=None, metavar="FILE", help="write the games here")
    add_pgn_notation(
        o,
        "move notation: WXF (C2=5, the default), ICCS (H2-E2), xboard (h2e2, what "
        "XBoard reads), Chinese (炮二平五, traditional 馬８進７); the Format tag says which",
    )
    o.add_argument(
        "--pgn-fen",
        choices=FEN_DIALECTS,
        default=FEN_DIALECTS[0],
        help="the letters of the FEN tag of a game that does not start from the variant's "
        "start: XBoard's (h horse, e elephant: XBoard, Sjaak II, the default) or "
        "Fairy-Stockfish's (n, b)",
    )
    o.add_argument(
        "--epd",
        type=Path,
        default=None,
        metavar="FILE",
        help="append each game's end position to FILE, one FEN a line in XBoard's letters "
        "(cutechess: -epdout)",
    )
    o.add_argument(
        "--pgn-min",
        action="store_true",
        help="minimal PGN: the standard tags and the moves, no comments",
    )


def _add_adjudication(p: argparse.ArgumentParser) -> None:
    from ladder.match.game.adjudication import DRAW_STREAKS

    g = p.add_argument_group("adjudication (the rules endings always apply)")
    g.add_argument(
        "--resign-score",
        type=positive_int,
        default=None,
        metavar="CP",
        help="a player whose score is <= -CP for --resign-moves of its moves loses",
    )
    g.add_argument("--resign-moves", type=positive_int, default=4, metavar="N")
    g.add_argument(
        "--draw-score",
        type=non_negative_int,
        default=None,
        metavar="CP",
        help="both scores within +-CP for --draw-moves moves each: draw",
    )
    g.add_argument("--draw-moves", type=positive_int, default=8, metavar="N")
    g.add_argument(
        "--draw-after",
        type=non_negative_int,
        default=60,
        metavar="PLY",
        help="draw adjudication only after this ply (default 60)",
    )
    g.add_argument(
        "--draw-streak",
        choices=DRAW_STREAKS,
        default=DRAW_STREAKS[0],
        help="after: count the drawn scores after --draw-after only (default); start: "
        "count them from the start, adjudicate from --draw-after on (cutechess's "
        "-draw movenumber)",
    )
    g.add_argument(
        "--max-plies",
        type=positive_int,
        default=500,
        metavar="N",
        help="a game reaching N plies is drawn (default 500)",
    )


def add_games(p: argparse.ArgumentParser, default: int, help: str) -> None:
    """``--games`` and ``--repeat``."""
    p.add_argument("--games", type=positive_int, default=default, help=help)
    p.add_argument(
        "--repeat",
        type=int,
        choices=(1, 2),
        default=2,
        help="2 (default): each opening twice, colours swapped (game pairs); 1: a new "
        "opening every game, colours alternating (cutechess without -repeat)",
    )


# --- read back --------------------------------------------------------------------------


def _adjudication(args: argparse.Namespace) -> Adjudication:
    from ladder.match.game.adjudication import Adjudication

    return Adjudication(
        resign_cp=args.resign_score,
        resign_moves=args.resign_moves,
        draw_cp=args.draw_score,
        draw_moves=args.draw_moves,
        draw_after_ply=args.draw_after,
        draw_streak=args.draw_streak,
        max_plies=args.max_plies,
    )


class GameSettings(TypedDict):
    """The fields :func:`game_settings` gives, typed as both configs take them."""

    variant: str
    openings: list[Opening]
    games: int
    seed: int
    adjudication: Adjudication
    openings_order: str
    repeat: int


def game_settings(args: argparse.Namespace) -> GameSettings:
    """The fields a :class:`~ladder.match.config.MatchConfig` and a
    :class:`~ladder.match.tournament.run.TournamentConfig` take alike from the options
    both commands share: the variant, the openings and their order, the games, the
    seed, adjudication and the repeat."""
    return {
        "variant": args.variant,
        "openings": _openings(args),
        "games": args.games,
        "seed": args.seed,
        "adjudication": _adjudication(args),
        "openings_order": args.openings_order,
        "repeat": args.repeat,
    }


def _openings(args: argparse.Namespace) -> list[Opening]:
    from ladder.match.openings import load_openings

    return load_openings(
        args.variant, args.openings, fmt=args.openings_format, plies=args.openings_plies
    )


def _pgn_options(args: argparse.Namespace) -> Any:
    from ladder.match.output.pgn import PgnOptions

    if args.pgn is None:  # a PGN form other than the default, for no PGN file
        given = (args.pgn_notation, args.pgn_min, args.pgn_fen)
        if given != (PgnOptions.notation, PgnOptions.minimal, PgnOptions.fen):
            raise ValueError("--pgn-notation, --pgn-fen and --pgn-min need --pgn FILE")
        return None
    return PgnOptions(args.pgn, args.pgn_notation, args.pgn_min, args.pgn_fen)


def _failure_limit(args: argparse.Namespace) -> int | None:
    if args.max_engine_failures is not None and not args.recover:
        raise ValueError("--max-engine-failures needs --recover")
    return args.max_engine_failures if args.recover else 0


def run_options(args: argparse.Namespace, report: TextIO) -> Any:
    """The run's :class:`~ladder.match.runner.run_loop.RunOptions` (the PGN options and
    the failure limit checked, the folders of the files it writes too)."""
    from ladder.match.output.json_document import JSON_INTERVAL
    from ladder.match.output.paths import check_output_path
    from ladder.match.output.store import check_db_path
    from ladder.match.runner.run_loop import RunOptions

    pgn, limit = _pgn_options(args), _failure_limit(args)
    check_db_path(args.db)  # a typo must not leave a database where nobody looks
    if args.pgn is not None and str(args.pgn) == "-":
        # (`-` is standard output for --json; the PGN is rewritten in game order at the end)
        raise ValueError("--pgn -: the PGN must be a file (it is rewritten at the end)")
    check_output_path("--pgn", args.pgn)  # nor cost the games played before the write
    check_output_path("--json", args.json_path)
    check_output_path("--epd", args.epd)
    return RunOptions(
        db=args.db,
        pgn=pgn,
        concurrency=args.concurrency,
        ray_address=args.ray_address,
        json_path=args.json_path,
        epd_path=args.epd,
        json_interval=args.json_interval or JSON_INTERVAL,
        max_engine_failures=limit,
        out=report,
    )
