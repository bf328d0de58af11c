"""The ``ladder move``, ``ladder serve`` and ``ladder levels`` subcommands (registered by
ladder/cli.py)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

#: Environment variable the CLI reads an API key from (``ladder move --url``).
API_KEY_ENV = "LADDER_API_KEY"

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
    p.add_argument("--level", required=True, type=int, help="strength, 1..8")
    p.add_argument("--seed", type=int, default=None, help="makes the answer reproducible")
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
    p.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    p.set_defaults(func=_cmd_move)


def _cmd_move(args: argparse.Namespace) -> int:
    from ladder.client import LadderSync
    from ladder.engine_binary import EngineNotBuilt
    from ladder.service.config import ServiceConfig
    from ladder.service.errors import ServiceError
    from protocol.errors import EngineError

    try:
        if args.url:
            ladder = LadderSync(args.url, api_key=args.api_key or os.environ.get(API_KEY_ENV))
        else:
            ladder = LadderSync(config=ServiceConfig(engines=1, max_queue=1))
        with ladder:
            reply = ladder.move(
                variant=args.variant,
                fen=args.fen,
                moves=args.moves.split(),
                level=args.level,
                seed=args.seed,
            )
    except ServiceError as exc:
        print(f"ladder move: {exc.message} [{exc.status} {exc.code}]", file=sys.stderr)
        return 2 if exc.status < 500 else 3
    except (EngineNotBuilt, EngineError) as exc:  # the in-process engine did not start
        print(f"ladder move: the engine did not start: {exc}", file=sys.stderr)
        return 3
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


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.service.config import ServiceConfig
    from ladder.service.http_protocol import ConnectionLimits
    from ladder.service.logs import default_format

    defaults = ServiceConfig()
    limits = ConnectionLimits()
    p = sub.add_parser(
        "serve",
        help="run the HTTP move service (uvicorn)",
        description="Serve the move API (OpenAPI at /docs). Prints the URL on stdout once "
        "it serves (with --port 0, the port chosen). See docs/service.md.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback)")
    p.add_argument("--port", type=_port, default=8000, help="0: any free port (printed)")
    p.add_argument(
        "--engines",
        type=_positive_int,
        default=defaults.engines,
        help=f"engine processes (default: cores = {defaults.engines})",
    )
    p.add_argument(
        "--max-queue",
        type=_non_negative_int,
        default=defaults.max_queue,
        help=f"requests that may wait for an engine before 503 busy (default {defaults.max_queue})",
    )
    p.add_argument(
        "--queue-timeout",
        type=_positive_float,
        default=defaults.queue_timeout_s,
        metavar="SECONDS",
        help=f"longest wait for an engine before 503 busy (default {defaults.queue_timeout_s:g})",
    )
    access = p.add_argument_group("access")
    access.add_argument(
        "--api-keys",
        metavar="FILE",
        type=Path,
        default=None,
        help="API keys, one per line (optional label after it, # comments); /v1/* then "
        "needs 'Authorization: Bearer KEY'; re-read on SIGHUP",
    )
    access.add_argument(
        "--no-auth",
        action="store_true",
        help="allow a non-loopback --host without --api-keys",
    )
    access.add_argument(
        "--rate-limit",
        type=_positive_int,
        metavar="N",
        default=None,
        help="requests per minute per key (per client address without keys); over it 429",
    )
    access.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser calls from this origin (repeatable), e.g. https://play.example.com",
    )
    access.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="accept only these Host headers (repeatable; *.example.com for subdomains)",
    )
    access.add_argument(
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="IPS",
        help="proxies trusted for X-Forwarded-For (comma-separated, * for any; default 127.0.0.1)",
    )
    conn = p.add_argument_group("connections")
    conn.add_argument(
        "--max-header-bytes",
        type=_positive_int,
        default=limits.max_header_bytes,
        help=f"request line + headers, at most (default {limits.max_header_bytes}); over: 431",
    )
    conn.add_argument(
        "--request-timeout",
        type=_positive_float,
        default=limits.request_timeout_s,
        metavar="SECONDS",
        help=f"time to send a complete request (default {limits.request_timeout_s:g}); "
        "then 408 and closed",
    )
    conn.add_argument(
        "--max-connections",
        type=_positive_int,
        default=limits.max_connections,
        help=f"open connections, at most (default {limits.max_connections}); over: 503",
    )
    conn.add_argument(
        "--keep-alive",
        type=_positive_int,
        default=5,
        metavar="SECONDS",
        help="idle time before a keep-alive connection is closed (default 5)",
    )
    ops = p.add_argument_group("operations")
    ops.add_argument(
        "--engine-max-rss",
        type=_positive_int,
        default=None,
        metavar="MIB",
        help="recycle an engine whose memory exceeds this, between searches (default: never)",
    )
    ops.add_argument(
        "--log-format",
        choices=["json", "text"],
        default=None,
        help=f"log lines on stderr (default: json unless stderr is a terminal; now "
        f"{default_format()})",
    )
    ops.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error", "critical"]
    )
    ops.add_argument(
        "--no-play",
        action="store_true",
        help="do not serve the /play page (the browser client)",
    )
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ladder.engine_binary import EngineNotBuilt, engine_path
    from ladder.service.access import KeyFileError, read_keys
    from ladder.service.config import ServiceConfig
    from ladder.service.http_protocol import ConnectionLimits
    from ladder.service.logs import default_format
    from ladder.service.server import ServeError, ServeOptions, serve

    try:
        if args.api_keys is not None:
            read_keys(args.api_keys)  # a bad file is a one-line error before anything starts
        config = ServiceConfig(
            engines=args.engines,
            max_queue=args.max_queue,
            queue_timeout_s=args.queue_timeout,
            engine_path=engine_path(),
            engine_max_rss_mb=args.engine_max_rss,
            api_keys_file=args.api_keys,
            rate_limit_per_minute=args.rate_limit,
            allowed_hosts=tuple(args.allowed_host),
            cors_origins=tuple(args.cors_origin),
            play_page=not args.no_play,
        )
        options = ServeOptions(
            host=args.host,
            port=args.port,
            limits=ConnectionLimits(
                max_header_bytes=args.max_header_bytes,
                request_timeout_s=args.request_timeout,
                max_connections=args.max_connections,
            ),
            keep_alive_s=args.keep_alive,
            no_auth=args.no_auth,
            log_format=args.log_format or default_format(),
            log_level=args.log_level,
            forwarded_allow_ips=args.forwarded_allow_ips,
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
    p.set_defaults(func=_cmd_levels)


def _cmd_levels(args: argparse.Namespace) -> int:
    from ladder.levels import level_table, load_levels

    table = load_levels()
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
    print(
        "(Elo: random = 0, 95% interval; * extrapolated; time/move: median on the "
        "calibration machine)"
    )
    return 0
