"""The ``ladder match``, ``ladder tournament`` and ``ladder study`` subcommands
(registered by ladder/cli.py). Exit codes: :class:`ladder.match.exit_codes.ExitCode`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, TypeVar

from ladder.match.exit_codes import ExitCode
from ladder.variants import VARIANT_IDS

__all__ = ["add_match", "add_study", "add_tournament"]

_PLAYERS_HELP = (
    "players: level:N | elo:N | engine:PATH,protocol=uci|ucci|xboard,[ranks=0-9|1-10,]"
    "nodes=N|depth=N|movetime=MS|"
    'st=S|tc=[M/]S[+I],args="...",Option=value,... | random | greedy; or cutechess\'s form '
    "-engine cmd=PATH proto=uci|ucci|xboard option.Hash=16 tc=40/60+0.6 name=N ... (with -each "
    "KEY=VALUE ... for every -engine). Exit codes: "
    + ", ".join(f"{int(c)} {c.name.lower().replace('_', '-')}" for c in ExitCode)
    + " (docs/match.md)."
)


def _number(kind: type[int] | type[float], low: float, inclusive: bool) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < low or (value == low and not inclusive):
            bound = f">= {low:g}" if inclusive else f"> {low:g}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


positive_int = _number(int, 1, True)
non_negative_int = _number(int, 0, True)


def probability(text: str) -> float:
    value = _number(float, 0, False)(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must be < 1, got {text}")
    return float(value)


def _add_players(p: argparse.ArgumentParser, what: str) -> None:
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


def _add_common(p: argparse.ArgumentParser) -> None:
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
    p.add_argument(
        "--json",
        dest="json_path",
        default=None,
        metavar="FILE",
        help="write the full result as JSON to FILE after every game and at the end "
        "('-': standard output, at the end; the report then goes to standard error)",
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
    o = p.add_argument_group("PGN output")
    o.add_argument("--pgn", type=Path, default=None, metavar="FILE", help="write the games here")
    o.add_argument(
        "--pgn-notation",
        choices=("wxf", "iccs"),
        default="wxf",
        help="move notation: WXF (C2=5, the default) or ICCS (H2-E2); the Format tag says which",
    )
    o.add_argument(
        "--pgn-min",
        action="store_true",
        help="minimal PGN: the standard tags and the moves, no comments",
    )
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
        "--max-plies",
        type=positive_int,
        default=500,
        metavar="N",
        help="a game reaching N plies is drawn (default 500)",
    )


def _add_repeat(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--repeat",
        type=int,
        choices=(1, 2),
        default=2,
        help="2 (default): each opening twice, colours swapped (game pairs); 1: a new "
        "opening every game, colours alternating (cutechess without -repeat)",
    )


def _adjudication(args: argparse.Namespace) -> Any:
    from ladder.match.game.adjudication import Adjudication

    return Adjudication(
        resign_cp=args.resign_score,
        resign_moves=args.resign_moves,
        draw_cp=args.draw_score,
        draw_moves=args.draw_moves,
        draw_after_ply=args.draw_after,
        max_plies=args.max_plies,
    )


def _player_specs(args: argparse.Namespace) -> list[Any]:
    from ladder.match.players.cutechess_form import parse_engine_arguments
    from ladder.match.players.specs import PlayerSpecError, parse_player

    specs = [parse_player(text) for text in args.players]
    if args.each and not args.engines:
        raise PlayerSpecError("-each applies to -engine players, and there is none")
    specs += [parse_engine_arguments([*args.each, *tokens]) for tokens in args.engines]
    return specs


def _openings(args: argparse.Namespace) -> Any:
    from ladder.match.openings import load_openings

    return load_openings(
        args.variant, args.openings, fmt=args.openings_format, plies=args.openings_plies
    )


def _pgn_options(args: argparse.Namespace) -> Any:
    from ladder.match.output.pgn_file import PgnOptions

    if args.pgn is None:
        if args.pgn_min or args.pgn_notation != "wxf":
            raise ValueError("--pgn-notation and --pgn-min need --pgn FILE")
        return None
    return PgnOptions(args.pgn, args.pgn_notation, args.pgn_min)


def _failure_limit(args: argparse.Namespace) -> int | None:
    if args.max_engine_failures is not None and not args.recover:
        raise ValueError("--max-engine-failures needs --recover")
    return args.max_engine_failures if args.recover else 0


def _setup_errors() -> tuple[type[BaseException], ...]:
    from ladder.match.openings import OpeningError
    from ladder.match.output.pgn import PgnError
    from ladder.match.players.specs import PlayerSpecError

    return (PlayerSpecError, OpeningError, PgnError, ValueError, OSError)


def _run_options(args: argparse.Namespace, pgn: Any, limit: int | None, report: TextIO) -> Any:
    from ladder.match.runner.match_run import RunOptions

    return RunOptions(
        db=args.db,
        pgn=pgn,
        concurrency=args.concurrency,
        ray_address=args.ray_address,
        json_path=args.json_path,
        max_engine_failures=limit,
        out=report,
    )


RunT = TypeVar("RunT", bound=Any)


def _play(command: str, play: Callable[[], RunT]) -> RunT | int:
    """Run a match or tournament: the run, or the exit code of one that failed (its
    one-line reason said on standard error)."""
    from ladder.match.runner.backends import abandon_workers, interrupts_raise

    try:
        with interrupts_raise():
            run = play()
    except KeyboardInterrupt:
        abandon_workers()
        print(f"ladder {command}: interrupted; run the same command to resume", file=sys.stderr)
        return ExitCode.INTERRUPTED
    from ladder.match.output.summary import engine_restarts, restart_text

    restarts = run.stats.engine_restarts if hasattr(run, "stats") else engine_restarts(run.records)
    if restarts:  # also when stdout is the report: a recovered fault is not silent
        print(f"ladder {command}: {restart_text(restarts)}", file=sys.stderr)
    if run.error is not None:
        print(f"ladder {command}: {run.error}", file=sys.stderr)
        if run.result.played or run.result.skipped:
            print(
                f"ladder {command}: the games stored are kept: the same command resumes",
                file=sys.stderr,
            )
        return int(run.code)
    return run


# --- match ------------------------------------------------------------------------------


def add_match(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder match``."""
    p = sub.add_parser(
        "match",
        help="play a match between two players (resumable, SPRT, PGN, JSON)",
        description="Play game pairs (each opening twice, colours reversed) between "
        "player A and player B; figures are A's. Running the same command "
        "again resumes the match from its database.",
        epilog=_PLAYERS_HELP,
    )
    _add_players(p, "player A, then player B (or give them with -engine)")
    p.add_argument(
        "--games",
        type=positive_int,
        default=100,
        help="games to play (default 100): pairs, an odd count ending with the first game "
        "of a pair",
    )
    _add_repeat(p)
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
    _add_common(p)
    p.set_defaults(func=_cmd_match)


def _cmd_match(args: argparse.Namespace) -> int:
    from ladder.match.config import MatchConfig
    from ladder.match.output.store import check_db_path
    from ladder.match.runner.match_run import play_match
    from ladder.match.statistics.sprt import Sprt

    report = sys.stderr if args.json_path == "-" else sys.stdout
    try:
        specs = _player_specs(args)
        if len(specs) != 2:
            raise ValueError(f"a match needs two players, got {len(specs)}")
        a, b = specs
        if a.name == b.name:
            a, b = a.with_name(f"{a.name}#A"), b.with_name(f"{b.name}#B")
        sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
        config = MatchConfig(
            variant=args.variant,
            player_a=a,
            player_b=b,
            openings=_openings(args),
            games=args.games,
            seed=args.seed,
            adjudication=_adjudication(args),
            sprt=sprt,
            name=args.name,
            openings_order=args.openings_order,
            repeat=args.repeat,
        )
        pgn, limit = _pgn_options(args), _failure_limit(args)
        check_db_path(args.db)  # a typo must not leave a database where nobody looks
    except _setup_errors() as exc:
        print(f"ladder match: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    run = _play(
        "match",
        lambda: play_match(config, _run_options(args, pgn, limit, report)),
    )
    if isinstance(run, int):
        return run
    decided = {
        ExitCode.SPRT_H0: " (stopped: SPRT accepted H0)",
        ExitCode.SPRT_H1: " (stopped: SPRT accepted H1)",
    }.get(run.code, "")
    print(
        f"match {config.match_id}: played {run.result.played}, resumed past "
        f"{run.result.skipped}{decided}",
        file=report,
    )
    print(run.stats.report(), file=report)
    return run.code


# --- tournament -------------------------------------------------------------------------


def add_tournament(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``ladder tournament``."""
    p = sub.add_parser(
        "tournament",
        help="a gauntlet or round-robin of matches, with a crosstable and rating list",
        description="Play a match (game pairs, colours reversed) between the first player "
        "and each other (gauntlet) or between every two players (round-robin), then print "
        "the crosstable and a Bradley-Terry rating list. Resumes from its database.",
        epilog=_PLAYERS_HELP,
    )
    _add_players(p, "the players (gauntlet: the first meets every other)")
    p.add_argument("--format", choices=("gauntlet", "round-robin"), default="round-robin")
    p.add_argument(
        "--games",
        type=positive_int,
        default=2,
        help="games per pairing (default 2)",
    )
    _add_repeat(p)
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
    _add_common(p)
    p.set_defaults(func=_cmd_tournament)


def _cmd_tournament(args: argparse.Namespace) -> int:
    from ladder.match.output.store import check_db_path
    from ladder.match.tournament.run import TournamentConfig, play_tournament

    report = sys.stderr if args.json_path == "-" else sys.stdout
    try:
        config = TournamentConfig(
            variant=args.variant,
            players=_player_specs(args),
            openings=_openings(args),
            format=args.format,
            games=args.games,
            seed=args.seed,
            adjudication=_adjudication(args),
            openings_order=args.openings_order,
            repeat=args.repeat,
        )
        pgn, limit = _pgn_options(args), _failure_limit(args)
        check_db_path(args.db)  # a typo must not leave a database where nobody looks
        if args.anchor is not None and args.anchor not in [p.name for p in config.players]:
            raise ValueError(f"--anchor {args.anchor!r} is not one of the players' names")
    except _setup_errors() as exc:
        print(f"ladder tournament: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    run = _play(
        "tournament",
        lambda: play_tournament(
            config,
            _run_options(args, pgn, limit, report),
            anchor=args.anchor,
            bootstrap=args.bootstrap,
        ),
    )
    if isinstance(run, int):
        return run
    print(
        f"tournament ({config.format}, {len(config.players)} players): played "
        f"{run.result.played}, resumed past {run.result.skipped}",
        file=report,
    )
    print(run.report(), file=report)
    return run.code


# --- study ------------------------------------------------------------------------------


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
    p.add_argument(
        "--json",
        dest="json_path",
        default=None,
        metavar="FILE",
        help="the summary and the notes as JSON ('-': standard output)",
    )
    p.add_argument("--pgn-notation", choices=("wxf", "iccs"), default="wxf", help="move notation")
    p.set_defaults(func=_cmd_study)


def _cmd_study(args: argparse.Namespace) -> int:
    from ladder.match.output.store import check_db_path
    from ladder.match.output.study import StudyError, run_study
    from ladder.match.runner.backends import abandon_workers, interrupts_raise

    report = sys.stderr if args.json_path == "-" else sys.stdout
    try:
        check_db_path(args.db)
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
            )
    except StudyError as exc:
        print(f"ladder study: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        abandon_workers()
        print("ladder study: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
