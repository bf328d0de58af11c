"""The ``ladder move``, ``ladder serve`` and ``ladder levels`` subcommands (registered by
ladder/cli.py)."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the service's modules load when a command runs, not at start
    from ladder.level_times import LevelTimes
    from ladder.levels import Level
    from ladder.service.domain.models import MoveResponse

#: Environment variable the CLI reads an API key from (``ladder move --url``).
API_KEY_ENV = "LADDER_API_KEY"
#: How long `ladder move --url` waits for an answer by default (seconds): a person's
#: patience, and more than a level-8 move on a busy server takes.
MOVE_TIMEOUT_S = 30.0

__all__ = ["add_levels", "add_move", "add_serve"]


def add_move(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.arg_types import positive_float
    from ladder.cli_options import add_levels_file
    from ladder.notation.by_name import NOTATIONS
    from ladder.rules.cli import add_position_options

    p = sub.add_parser(
        "move",
        help="the engine's move at a level (in-process or --url)",
        description="Ask the ladder for its move at a level.",
    )
    add_position_options(p)
    p.add_argument("--moves", default="", help='moves played, space-separated: "h3e3 h10g8"')
    strength = p.add_mutually_exclusive_group(required=True)
    strength.add_argument("--level", type=int, help="strength, 1..8")
    strength.add_argument(
        "--elo",
        type=float,
        help="strength as a rating: any Elo between level 1's and level 8's "
        "(`ladder levels` shows them)",
    )
    p.add_argument("--seed", type=int, default=None, help="makes the answer reproducible")
    clock = p.add_argument_group("clock (a timed game: the search also stops at a safe share)")
    clock.add_argument(
        "--remaining-ms",
        type=int,
        default=None,
        metavar="MS",
        help="time left on the mover's clock",
    )
    clock.add_argument(
        "--increment-ms", type=int, default=0, metavar="MS", help="added after each move"
    )
    clock.add_argument(
        "--moves-to-go", type=int, default=None, metavar="N", help="moves to the next control"
    )
    p.add_argument(
        "--url",
        default=None,
        help="ask a running server (e.g. http://127.0.0.1:8000) instead of "
        "starting an engine in-process",
    )
    p.add_argument(
        "--api-key",
        default=None,
        help=f"API key for a server that needs one (default: ${API_KEY_ENV})",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=MOVE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"with --url: give up when no answer has come within this (default "
        f"{MOVE_TIMEOUT_S:g}; exit status 3)",
    )
    p.add_argument(
        "--notation",
        action="append",
        default=[],
        choices=NOTATIONS,
        metavar="NAME",
        help=f"also write the move in this notation: {', '.join(NOTATIONS)} (C2=5, 炮二平五, "
        "馬８進７; repeat for several)",
    )
    p.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    add_levels_file(p)
    p.set_defaults(func=_cmd_move)


def _cmd_move(args: argparse.Namespace) -> int:
    # In-process, only what one move needs (ladder.service.local_move): not the client,
    # its HTTP library and the service's pool, which took most of the command's time.
    from ladder.engine_binary import EngineNotBuilt
    from ladder.service.domain.errors import ServiceError
    from ladder.service.domain.models import Clock
    from protocol.errors import EngineError

    if args.remaining_ms is None and (args.increment_ms or args.moves_to_go is not None):
        print("ladder move: --increment-ms and --moves-to-go need --remaining-ms", file=sys.stderr)
        return 2
    try:
        clock = (
            None
            if args.remaining_ms is None
            else Clock(
                remaining_ms=args.remaining_ms,
                increment_ms=args.increment_ms,
                moves_to_go=args.moves_to_go,
            )
        )
    except ValueError as exc:  # pydantic's ValidationError
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
        where = "--" + "-".join(str(p) for p in first["loc"]).replace("_", "-")
        print(f"ladder move: {where}: {first['msg']}", file=sys.stderr)
        return 2
    if args.url and (args.levels is not None or args.engine_path is not None):
        # the server plays its own levels on its own engine: a flag it cannot honour
        given = "--levels" if args.levels is not None else "--engine"
        print(f"ladder move: {given} applies in-process, not with --url", file=sys.stderr)
        return 2
    request = {
        "variant": args.variant,
        "fen": args.fen,
        "moves": args.moves.split(),
        "level": args.level,
        "elo": args.elo,
        "seed": args.seed,
        "clock": clock,
        "notations": args.notation,
    }
    try:
        reply = _move_asked(args, request) if args.url else _move_here(args, request)
    except ServiceError as exc:
        print(f"ladder move: {exc.message} [{exc.status} {exc.code}]", file=sys.stderr)
        return 2 if exc.status < 500 else 3
    except (EngineNotBuilt, EngineError) as exc:  # the in-process engine did not start
        print(f"ladder move: the engine did not start: {exc}", file=sys.stderr)
        return 3
    except ValueError as exc:  # a levels file that cannot be used
        print(f"ladder move: {exc}", file=sys.stderr)
        return 2
    print(reply.model_dump_json(indent=2) if args.json else _move_line(reply))
    return 0


def _move_asked(args: argparse.Namespace, request: dict[str, Any]) -> MoveResponse:
    """The move asked of the server at ``--url``."""
    from ladder.client import LadderSync

    ladder = LadderSync(
        args.url, api_key=args.api_key or os.environ.get(API_KEY_ENV), timeout=args.timeout
    )
    with ladder:
        return ladder.move(**request)


def _move_here(args: argparse.Namespace, request: dict[str, Any]) -> MoveResponse:
    """The move played in-process: on an engine of its own, started only past the book."""
    from ladder.engine_binary import engine_path
    from ladder.levels import checked_levels_file
    from ladder.service.domain.models import MoveRequest
    from ladder.service.domain.status import FAILURES, as_service_error, request_model
    from ladder.service.local_move import play_move
    from ladder.service.operations.config import ServiceConfig

    levels = checked_levels_file(args.levels)
    engine = args.engine_path or engine_path()  # a missing engine is an error, book or not
    req = request_model(MoveRequest, **request)
    try:
        return asyncio.run(play_move(req, levels, engine))
    except FAILURES as exc:
        raise as_service_error(exc, ServiceConfig.retry_after_s) from None


def _move_line(reply: MoveResponse) -> str:
    """`ladder move`'s answer as one line of text."""
    if reply.book:
        score = "book"
    elif reply.hurried:  # no score: moved at a glance, the clock running out
        score = "hurried (no engine free within the move's time)"
    elif reply.score.mate is not None:
        score = f"mate {reply.score.mate}"
    else:
        score = f"cp {reply.score.cp}"
    extra = f" ({reply.outcome.reason}, {reply.outcome.result})" if reply.outcome else ""
    # The ladder's version: a recalibrated ladder plays another move for the seed.
    written = "".join(f" {text}" for text in (reply.notations or {}).values())
    return (
        f"{reply.move}{written}  {score}  depth {reply.depth}  seed {reply.seed}  "
        f"ladder {reply.levels_version}{extra}"
    )


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.service.operations.option_sources import add_arguments

    p = sub.add_parser(
        "serve",
        help="run the HTTP move service (uvicorn)",
        description="Serve the move API (OpenAPI at /docs). Prints the URL on stdout once "
        "it serves (with --port 0, the port chosen). Every option can also come from a "
        "LADDER_<OPTION> environment variable (LADDER_PORT, LADDER_API_KEYS, ...) or a "
        "--config file; the command line wins, then the environment, then the file. "
        "See docs/service.md.",
    )
    add_arguments(p)  # every field of ladder.service.operations.settings.ServeSettings
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    # A reload asked before the server's own SIGHUP handler is in place (the engines are
    # still starting; systemd's `reload` is accepted from the first moment) is moot: not
    # the default action, which would end the process and, as a clean exit, for good.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    from ladder.engine_binary import EngineNotBuilt, find_engine
    from ladder.level_times import served_level_times
    from ladder.levels import checked_levels_file, levels_version
    from ladder.service.http.access import KeyFileError, read_keys
    from ladder.service.operations.option_sources import resolve
    from ladder.service.operations.server import ServeError
    from ladder.service.operations.startup import serve

    if getattr(args, "log_level", None) is None and args.ladder_log_level is not None:
        # `ladder --log-level L serve`: the command line's level, before any variable,
        # config file or default (serve's own --log-level, given too, wins)
        args.log_level = args.ladder_log_level
    try:
        settings = resolve(args, os.environ).settings
        if settings.workers > settings.engines:
            raise ValueError(
                f"--workers {settings.workers} needs at least as many engines (--engines is "
                f"{settings.engines}): each worker runs its own, at least one"
            )
        if settings.short_engines is not None and settings.short_engines >= settings.engines:
            raise ValueError(
                f"--short-engines {settings.short_engines} leaves no engine for the slow "
                f"levels (--engines is {settings.engines})"
            )
        if settings.api_keys is not None:
            read_keys(settings.api_keys)  # a bad file is a one-line error before anything starts
        engine = find_engine(settings.engine).path
        levels = checked_levels_file(settings.levels)
        if settings.levels_version is not None:
            found = levels_version(levels)
            if found != settings.levels_version:
                raise ValueError(
                    f"--levels-version {settings.levels_version}: {levels} is version {found}"
                )
        times = served_level_times(settings.level_times, engine, levels)
        serve(settings.service_config(engine, levels, times), settings)
    except (ServeError, KeyFileError, EngineNotBuilt, ValueError) as exc:
        print(f"ladder serve: {exc}", file=sys.stderr)
        return 2
    return 0


def add_levels(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.arg_types import positive_int
    from ladder.cli_options import add_level_times_file, add_levels_file

    p = sub.add_parser(
        "levels", help="print the strength levels", description="The eight levels of each variant."
    )
    p.add_argument("--json", action="store_true")
    add_levels_file(p)
    add_level_times_file(
        p, "each level's measured time a move (default: the per-user cache's, if there)"
    )
    p.add_argument(
        "--measure",
        action="store_true",
        help="play every level on this machine and write each one's median time a move "
        "(to --out, default the per-user cache's file, which `ladder serve` reads)",
    )
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="with --measure")
    p.add_argument(
        "--positions",
        type=positive_int,
        default=6,
        metavar="N",
        help="with --measure: positions a level plays (default 6)",
    )
    p.set_defaults(func=_cmd_levels)


def _cmd_levels(args: argparse.Namespace) -> int:
    from ladder.engine_binary import EngineNotBuilt
    from ladder.levels import checked_levels_file, levels_version, load_levels

    try:
        levels_file = checked_levels_file(args.levels)
        table = load_levels(levels_file)
        times = _levels_times(args, levels_file)
    except (ValueError, EngineNotBuilt) as exc:
        print(f"ladder levels: {exc}", file=sys.stderr)
        return 2
    version = levels_version(levels_file)
    if args.json:
        _print_levels_json(table, times, version)
    else:
        print(f"ladder version {version} ({levels_file})")
        _print_levels_table(table, times)
    return 0


def _levels_times(args: argparse.Namespace, levels_file: Path) -> LevelTimes | None:
    """The levels' times a move: measured now (``--measure``, written to its file), or
    the ones served (a stated or cached file of this engine and ladder; None: none)."""
    from ladder.engine_binary import find_engine
    from ladder.level_times import default_path, level_times_here, write
    from ladder.service.operations.measure_levels import measure
    from ladder.variants import VARIANT_IDS

    if args.measure:
        out = args.out or default_path()
        times = asyncio.run(
            measure(find_engine().path, levels_file, list(VARIANT_IDS), args.positions)
        )
        write(times, out)
        print(f"level times measured ({args.positions} positions a level): {out}")
        return times
    return level_times_here(args.level_times, levels_file)


def _print_levels_json(
    table: dict[str, dict[int, Level]], times: LevelTimes | None, version: str
) -> None:
    import json

    from ladder.human_reference import human_reference
    from ladder.level_times import expected
    from ladder.levels import level_row

    print(
        json.dumps(
            {
                v: [
                    level_row(lv)
                    | {
                        "levels_version": version,
                        "human_reference": human_reference(v, lv),
                        "expected_seconds": when[0],
                        "expected_source": when[1],
                    }
                    for n, lv in sorted(t.items())
                    for when in [expected(v, lv, times)]
                ]
                for v, t in table.items()
            },
            indent=2,
        )
    )


def _print_levels_table(table: dict[str, dict[int, Level]], times: LevelTimes | None) -> None:
    from ladder.level_times import expected
    from ladder.levels import elo_range

    for variant, levels in table.items():
        rows = []
        for n, lv in sorted(levels.items()):
            variety = lv.variety.describe() if lv.variety else "best move"
            if lv.book:
                variety = f"book, {variety}"
            r = lv.rating
            elo = "-" if r is None else f"{r.elo:.0f} [{r.elo_lo:.0f},{r.elo_hi:.0f}]"
            if r is not None and r.extrapolated:
                elo += "*"
            secs, source = expected(variant, lv, times)
            time = f"{1000 * secs:.0f} ms" if secs < 1 else f"{secs:.2f} s"
            if source == "estimated":
                time = "~" + time  # neither measured here nor calibrated: an assumed speed
            rows.append((str(n), f"{lv.nodes:,}", elo, time, variety))
        print(variant)
        head = ("level", "nodes", "elo", "time/move", "choice")
        widths = [max(len(row[i]) for row in (head, *rows)) for i in range(4)]
        for row in (head, *rows):
            cells = [c.rjust(w) for c, w in zip(row, widths, strict=False)]
            print("  " + "  ".join(cells) + "  " + row[4])
        span = elo_range(levels)
        print(
            f"  any Elo from {span[0]:.0f} to {span[1]:.0f}: ladder move --elo"
            if span
            else "  (an Elo in between: not until every level is measured)"
        )
    print(
        "(Elo: random = 0, 95% interval; * extrapolated; time/move: "
        + (
            f"the median measured on {times.machine} at {times.measured_at}"
            if times is not None
            else "from the calibration games, ~ from the level's nodes at an assumed speed "
            "(`ladder levels --measure` measures them here)"
        )
        + ")"
    )
