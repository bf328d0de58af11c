"""The ``ladder move``, ``ladder serve`` and ``ladder levels`` subcommands (registered by
ladder/cli.py)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

#: Environment variable the CLI reads an API key from (``ladder move --url``).
API_KEY_ENV = "LADDER_API_KEY"
#: How long `ladder move --url` waits for an answer by default (seconds): a person's
#: patience, and more than a level-8 move on a busy server takes.
MOVE_TIMEOUT_S = 30.0

__all__ = ["add_levels", "add_move", "add_serve"]


def add_move(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "move",
        help="the engine's move at a level (in-process or --url)",
        description="Ask the ladder for its move at a level.",
    )
    p.add_argument("--variant", required=True, help="xiangqi, atomic-xiangqi or crazyhouse-xiangqi")
    p.add_argument("--fen", default=None, help="start position (default: the variant's)")
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
        type=_positive_float,
        default=MOVE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"with --url: give up when no answer has come within this (default "
        f"{MOVE_TIMEOUT_S:g}; exit status 3)",
    )
    p.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    _add_levels_option(p)
    p.set_defaults(func=_cmd_move)


def _cmd_move(args: argparse.Namespace) -> int:
    from ladder.client import LadderSync
    from ladder.engine_binary import EngineNotBuilt
    from ladder.service.config import ServiceConfig
    from ladder.service.errors import ServiceError
    from ladder.service.models import Clock
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
    try:
        if args.url:
            ladder = LadderSync(
                args.url,
                api_key=args.api_key or os.environ.get(API_KEY_ENV),
                timeout=args.timeout,
            )
        else:
            config = ServiceConfig(engines=1, max_queue=1, levels_file=_levels_file(args.levels))
            ladder = LadderSync(config=config)
        with ladder:
            reply = ladder.move(
                variant=args.variant,
                fen=args.fen,
                moves=args.moves.split(),
                level=args.level,
                elo=args.elo,
                seed=args.seed,
                clock=clock,
            )
    except ServiceError as exc:
        print(f"ladder move: {exc.message} [{exc.status} {exc.code}]", file=sys.stderr)
        return 2 if exc.status < 500 else 3
    except (EngineNotBuilt, EngineError) as exc:  # the in-process engine did not start
        print(f"ladder move: the engine did not start: {exc}", file=sys.stderr)
        return 3
    except ValueError as exc:  # a levels file that cannot be used
        print(f"ladder move: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(reply.model_dump_json(indent=2))
    else:
        score = (
            f"mate {reply.score.mate}" if reply.score.mate is not None else f"cp {reply.score.cp}"
        )
        extra = f" ({reply.outcome.reason}, {reply.outcome.result})" if reply.outcome else ""
        print(f"{reply.move}  {score}  depth {reply.depth}  seed {reply.seed}{extra}")
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.service.config import ServiceConfig
    from ladder.service.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S
    from ladder.service.http_protocol import ConnectionLimits
    from ladder.service.logs import default_format
    from ladder.service.settings import CONFIG_ENV

    defaults = ServiceConfig()
    limits = ConnectionLimits()
    p = sub.add_parser(
        "serve",
        help="run the HTTP move service (uvicorn)",
        description="Serve the move API (OpenAPI at /docs). Prints the URL on stdout once "
        "it serves (with --port 0, the port chosen). Every option can also come from a "
        "LADDER_<OPTION> environment variable (LADDER_PORT, LADDER_API_KEYS, ...) or a "
        "--config file; the command line wins, then the environment, then the file. "
        "See docs/service.md.",
    )
    # Every option's parser default is None ("not on the command line"): the value then
    # comes from the environment, the config file or these defaults (ladder.service.settings).
    serve_defaults: dict[str, object] = {}

    def option(group: Any, *flags: str, default: object = None, **kw: Any) -> None:
        action = group.add_argument(*flags, default=None, **kw)
        serve_defaults[action.dest] = default

    p.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"a TOML file of these options (keys as the option names: port = 8000, "
        f'api-keys = "keys.txt"); default: ${CONFIG_ENV}',
    )
    option(p, "--host", default="127.0.0.1", help="address to listen on (default: loopback)")
    _add_levels_option(p)  # default None: the shipped ladder
    option(p, "--port", type=_port, default=8000, help="0: any free port (printed)")
    option(
        p,
        "--engines",
        type=_positive_int,
        default=defaults.engines,
        help="engine processes in all (default: the CPUs this process may use, by its "
        f"CPU affinity and cgroup quota: {defaults.engines} here)",
    )
    option(
        p,
        "--short-engines",
        type=_non_negative_int,
        metavar="N",
        help="engines a slow level's search (over 100,000 nodes: levels 7 and 8) never "
        "takes, kept for the fast levels, per worker (default: 1 with 2 engines or more)",
    )
    option(
        p,
        "--workers",
        type=_positive_int,
        default=1,
        help="server processes behind the one port, each with its share of --engines "
        "(default 1; at most --engines)",
    )
    option(
        p,
        "--max-queue",
        type=_non_negative_int,
        default=defaults.max_queue,
        help=f"requests that may wait for an engine before 503 busy, per worker "
        f"(default {defaults.max_queue})",
    )
    option(
        p,
        "--queue-timeout",
        type=_positive_float,
        default=defaults.queue_timeout_s,
        metavar="SECONDS",
        help=f"longest wait for an engine before 503 busy (default {defaults.queue_timeout_s:g})",
    )
    access = p.add_argument_group("access")
    option(
        access,
        "--api-keys",
        metavar="FILE",
        type=Path,
        help="API keys, one per line (optional label after it, # comments); /v1/* then "
        "needs 'Authorization: Bearer KEY'; re-read on SIGHUP",
    )
    option(
        access,
        "--no-auth",
        action="store_true",
        default=False,
        help="allow a non-loopback --host without --api-keys",
    )
    option(
        access,
        "--rate-limit",
        type=_positive_int,
        metavar="N",
        help="requests per minute per key (per client address without keys), counted by "
        "each worker; over it 429",
    )
    option(
        access,
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser calls from this origin (repeatable), e.g. https://play.example.com",
    )
    option(
        access,
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="accept only these Host headers (repeatable; *.example.com for subdomains)",
    )
    option(
        access,
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="IPS",
        help="proxies trusted for X-Forwarded-For (comma-separated, * for any; default 127.0.0.1)",
    )
    conn = p.add_argument_group("connections")
    option(
        conn,
        "--max-header-bytes",
        type=_positive_int,
        default=limits.max_header_bytes,
        help=f"request line + headers, at most (default {limits.max_header_bytes}); over: 431",
    )
    option(
        conn,
        "--request-timeout",
        type=_positive_float,
        default=limits.request_timeout_s,
        metavar="SECONDS",
        help=f"time to send a complete request (default {limits.request_timeout_s:g}); "
        "then 408 and closed",
    )
    option(
        conn,
        "--max-connections",
        type=_positive_int,
        default=limits.max_connections,
        help=f"open connections, at most, per worker (default {limits.max_connections}); over: 503",
    )
    option(
        conn,
        "--keep-alive",
        type=_positive_int,
        default=5,
        metavar="SECONDS",
        help="idle time before a keep-alive connection is closed (default 5)",
    )
    ops = p.add_argument_group("operations")
    option(
        ops,
        "--drain-timeout",
        type=_positive_float,
        default=DRAIN_TIMEOUT_S,
        metavar="SECONDS",
        help=f"after SIGTERM, time the requests in flight get before they are answered "
        f"503 shutting_down (default {DRAIN_TIMEOUT_S:g}: a level-8 search, with a margin)",
    )
    option(
        ops,
        "--drain-delay",
        type=_non_negative_float,
        default=DRAIN_DELAY_S,
        metavar="SECONDS",
        help=f"after SIGTERM, time /readyz answers 503 while the port still accepts, so "
        f"that a load balancer stops sending first (default {DRAIN_DELAY_S:g})",
    )
    option(
        ops,
        "--engine-max-rss",
        type=_positive_int,
        metavar="MIB",
        help="recycle an engine whose memory exceeds this, between searches (default: never)",
    )
    option(
        ops,
        "--log-format",
        choices=["json", "text"],
        help=f"log lines on stderr (default: json unless stderr is a terminal; now "
        f"{default_format()})",
    )
    option(
        ops,
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error", "critical"],
    )
    option(
        ops,
        "--no-play",
        action="store_true",
        default=False,
        help="do not serve the /play page (the browser client)",
    )
    p.set_defaults(func=_cmd_serve, serve_parser=p, serve_defaults=serve_defaults)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ladder.engine_binary import (
        DEPRECATED_ENGINE_ENV,
        ENGINE_ENV,
        EngineNotBuilt,
        engine_path,
        find_engine,
    )
    from ladder.service.access import KeyFileError, read_keys
    from ladder.service.config import ServiceConfig
    from ladder.service.http_protocol import ConnectionLimits
    from ladder.service.logs import default_format
    from ladder.service.server import ServeError, ServeOptions, serve
    from ladder.service.settings import resolve

    try:
        resolved = resolve(args.serve_parser, args, args.serve_defaults, os.environ, args.config)
        opt = argparse.Namespace(**resolved.values)
        engine_named = args.engine is not None or any(
            os.environ.get(name) for name in (ENGINE_ENV, DEPRECATED_ENGINE_ENV)
        )
        if resolved.engine_from_file is not None and not engine_named:
            # The file's engine, last before the lookup's own defaults.
            os.environ[ENGINE_ENV] = str(find_engine(resolved.engine_from_file).path)
        if opt.workers > opt.engines:
            raise ValueError(
                f"--workers {opt.workers} needs at least as many engines (--engines is "
                f"{opt.engines}): each worker runs its own, at least one"
            )
        if opt.short_engines is not None and opt.short_engines >= opt.engines:
            raise ValueError(
                f"--short-engines {opt.short_engines} leaves no engine for the slow levels "
                f"(--engines is {opt.engines})"
            )
        if opt.api_keys is not None:
            read_keys(opt.api_keys)  # a bad file is a one-line error before anything starts
        config = ServiceConfig(
            engines=opt.engines,
            levels_file=_levels_file(opt.levels),
            max_queue=opt.max_queue,
            queue_timeout_s=opt.queue_timeout,
            engine_path=engine_path(),
            engine_max_rss_mb=opt.engine_max_rss,
            short_engines=opt.short_engines,
            api_keys_file=opt.api_keys,
            rate_limit_per_minute=opt.rate_limit,
            allowed_hosts=tuple(opt.allowed_host),
            cors_origins=tuple(opt.cors_origin),
            play_page=not opt.no_play,
        )
        options = ServeOptions(
            host=opt.host,
            port=opt.port,
            limits=ConnectionLimits(
                max_header_bytes=opt.max_header_bytes,
                request_timeout_s=opt.request_timeout,
                max_connections=opt.max_connections,
            ),
            keep_alive_s=opt.keep_alive,
            no_auth=opt.no_auth,
            log_format=opt.log_format or default_format(),
            log_level=opt.log_level,
            forwarded_allow_ips=opt.forwarded_allow_ips,
            drain_timeout_s=opt.drain_timeout,
            drain_delay_s=opt.drain_delay,
            workers=opt.workers,
        )
        serve(config, options)
    except (ServeError, KeyFileError, EngineNotBuilt, ValueError) as exc:
        print(f"ladder serve: {exc}", file=sys.stderr)
        return 2
    return 0


def add_levels(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "levels", help="print the strength levels", description="The eight levels of each variant."
    )
    p.add_argument("--json", action="store_true")
    _add_levels_option(p)
    p.set_defaults(func=_cmd_levels)


def _add_levels_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--levels",
        type=Path,
        default=None,
        metavar="FILE",
        help="levels file (default: the shipped ladder, `ladder/levels.toml`)",
    )


def _levels_file(given: Path | None) -> Path:
    """The levels file asked for, checked: a bad one is a one-line error (LevelsError)."""
    from ladder.levels import LEVELS_FILE, load_levels

    path = given or LEVELS_FILE
    try:
        load_levels(path)
    except OSError as exc:
        raise ValueError(f"levels file {path}: {exc.strerror}") from None
    return path


def _cmd_levels(args: argparse.Namespace) -> int:
    from ladder.levels import elo_range, level_table, load_levels

    try:
        table = load_levels(_levels_file(args.levels))
    except ValueError as exc:
        print(f"ladder levels: {exc}", file=sys.stderr)
        return 2
    if args.json:
        import json

        print(
            json.dumps(
                {v: [level_table(lv) for _, lv in sorted(t.items())] for v, t in table.items()},
                indent=2,
            )
        )
        return 0
    for variant, levels in table.items():
        print(variant)
        print(f"  {'level':>5} {'nodes':>11} {'choice':>36} {'elo':>18} {'time/move':>10}")
        for n, lv in sorted(levels.items()):
            variety = lv.variety.describe() if lv.variety else "best move"
            r = lv.rating
            elo = "-" if r is None else f"{r.elo:.0f} [{r.elo_lo:.0f},{r.elo_hi:.0f}]"
            if r is not None and r.extrapolated:
                elo += "*"
            secs = lv.seconds_per_move
            time = "-" if secs is None else f"{1000 * secs:.1f} ms" if secs < 1 else f"{secs:.2f} s"
            print(f"  {n:>5} {lv.nodes:>11,} {variety:>36} {elo:>18} {time:>10}")
        span = elo_range(levels)
        print(
            f"  any Elo from {span[0]:.0f} to {span[1]:.0f}: ladder move --elo"
            if span
            else "  (an Elo in between: not until every level is measured)"
        )
    print(
        "(Elo: random = 0, 95% interval; * extrapolated; time/move: median on the "
        "calibration machine)"
    )
    return 0
