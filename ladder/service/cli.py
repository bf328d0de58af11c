"""The ``ladder move``, ``ladder serve`` and ``ladder levels`` subcommands (registered by
ladder/cli.py)."""

from __future__ import annotations

import argparse
import sys

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
    p.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    p.set_defaults(func=_cmd_move)


def _cmd_move(args: argparse.Namespace) -> int:
    from ladder.client import LadderSync
    from ladder.service.config import ServiceConfig
    from ladder.service.errors import ServiceError

    kwargs = {} if args.url else {"config": ServiceConfig(engines=1, max_queue=1)}
    try:
        with LadderSync(args.url, **kwargs) as ladder:
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
    if args.json:
        print(reply.model_dump_json(indent=2))
    else:
        score = (
            f"mate {reply.score.mate}" if reply.score.mate is not None else f"cp {reply.score.cp}"
        )
        extra = f" ({reply.outcome.reason}, {reply.outcome.result})" if reply.outcome else ""
        print(f"{reply.move}  {score}  depth {reply.depth}  seed {reply.seed}{extra}")
    return 0


def add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ladder.service.config import ServiceConfig

    defaults = ServiceConfig()
    p = sub.add_parser(
        "serve",
        help="run the HTTP move service (uvicorn)",
        description="Serve the move API (OpenAPI at /docs).",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--engines",
        type=int,
        default=defaults.engines,
        help=f"engine processes (default: cores = {defaults.engines})",
    )
    p.add_argument(
        "--max-queue",
        type=int,
        default=defaults.max_queue,
        help="requests that may wait for an engine before 503 busy",
    )
    p.add_argument("--log-level", default="info")
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ladder.service.app import create_app
    from ladder.service.config import ServiceConfig

    app = create_app(ServiceConfig(engines=args.engines, max_queue=args.max_queue))
    # The stock asyncio loop: the engine client (protocol/) is built and tested on it.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        loop="asyncio",
        timeout_graceful_shutdown=10,
    )
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
