"""``ladder capacity``: the instances, engines and cores a site needs for a target wait
(registered by ladder/cli.py; the model: :mod:`ladder.capacity.model`)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when the command runs
    from ladder.capacity.model import LevelCost, Prediction, Workload
    from ladder.level_times import LevelTimes
    from ladder.levels import Level
    from ladder.service.operations.config import ServiceConfig

__all__ = ["add_capacity"]

#: A move's cost around its level's median: the log-normal's sigma
#: (scripts/validate_capacity.py measures it on the serving machine; docs/operations.md).
COST_SPREAD = 0.5
#: The path's own time a request (HTTP, the balancer), no engine held, in ms.
OVERHEAD_MS = 3.0
#: Simulated requests at the least (more when the slowest level needs them).
REQUESTS = 50_000


def add_capacity(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "capacity",
        help="the instances, engines and cores a site needs (a simulation)",
        description="The instances, engines and cores N games need for a target p99 wait "
        "for an engine: the levels' costs measured on this machine (`ladder levels "
        "--measure`) or a stated file, and a simulation of the instances behind a "
        "least-connections balancer with the service's lanes and queues. Its figures are "
        "the model's output (docs/operations.md, 'Sizing a site').",
    )
    _add_site(p.add_argument_group("the site"))
    _add_instance(p.add_argument_group("an instance (ladder serve's options of the same names)"))
    _add_costs(p.add_argument_group("the costs"))
    _add_simulation(p.add_argument_group("the simulation"))
    p.add_argument("--json", action="store_true", help="the figures as JSON")
    p.set_defaults(func=_cmd_capacity)


def _add_site(site: argparse._ArgumentGroup) -> None:
    from ladder.arg_types import non_negative_float, positive_float, positive_int

    site.add_argument("--games", type=positive_int, required=True, help="concurrent games")
    site.add_argument(
        "--mix",
        required=True,
        metavar="LEVEL:SHARE,...",
        help="the levels played and each one's share of the moves, e.g. 1:0.3,4:0.4,8:0.3",
    )
    site.add_argument(
        "--variants",
        default="xiangqi",
        metavar="VARIANT[:SHARE],...",
        help="the variants played (default xiangqi), e.g. xiangqi:0.7,atomic-xiangqi:0.3; "
        "without shares, equal ones",
    )
    site.add_argument(
        "--book-share",
        type=_share,
        default=0.0,
        metavar="SHARE",
        help="share of the moves from the opening book, no engine (default 0)",
    )
    site.add_argument(
        "--move-interval",
        type=positive_float,
        default=15.0,
        metavar="SECONDS",
        help="one computer move a game every this many seconds (default 15)",
    )
    site.add_argument(
        "--target-p99-wait",
        type=non_negative_float,
        default=0.5,
        metavar="SECONDS",
        help="the p99 of a searched move's wait for an engine, at most (default 0.5; a "
        "move refused 503 counts as an endless wait)",
    )


def _add_instance(inst: argparse._ArgumentGroup) -> None:
    from ladder.arg_types import non_negative_int, positive_float, positive_int

    inst.add_argument(
        "--engines",
        type=positive_int,
        default=2,
        help="engines (and cores) an instance (default 2, as deploy/kubernetes)",
    )
    inst.add_argument(
        "--short-engines",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="engines a slow level never takes (default: ladder serve's)",
    )
    inst.add_argument(
        "--max-queue",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="requests waiting an instance, at most (default: ladder serve's)",
    )
    inst.add_argument(
        "--queue-timeout",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="longest wait for an engine before 503 (default: ladder serve's)",
    )
    inst.add_argument(
        "--instances",
        type=positive_int,
        default=None,
        metavar="N",
        help="simulate this many instances rather than find the fewest for the target",
    )


def _add_costs(costs: argparse._ArgumentGroup) -> None:
    from ladder.arg_types import non_negative_float
    from ladder.cli_options import add_level_times_file, add_levels_file

    add_levels_file(costs, "levels file (default: the shipped ladder)")
    add_level_times_file(
        costs,
        "each level's measured time a move (default: the per-user cache's, which "
        "`ladder levels --measure` writes; without one, calibrated or estimated times)",
    )
    costs.add_argument(
        "--cost-spread",
        type=non_negative_float,
        default=COST_SPREAD,
        metavar="SIGMA",
        help=f"a move's cost around its level's median, log-normal (default {COST_SPREAD})",
    )
    costs.add_argument(
        "--overhead-ms",
        type=non_negative_float,
        default=OVERHEAD_MS,
        metavar="MS",
        help="a request's own time beside its search: HTTP, the balancer "
        f"(default {OVERHEAD_MS:g})",
    )


def _add_simulation(sim: argparse._ArgumentGroup) -> None:
    from ladder.arg_types import positive_int

    sim.add_argument(
        "--requests",
        type=positive_int,
        default=REQUESTS,
        metavar="N",
        help=f"requests simulated, at the least (default {REQUESTS:,}; more when the "
        "slowest level needs them to reach a steady state)",
    )
    sim.add_argument("--seed", type=int, default=1, help="the simulation's random draws")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be 0 or more and below 1, got {text}")
    return value


def _cmd_capacity(args: argparse.Namespace) -> int:
    from ladder.capacity.model import level_costs, predict, request_kinds, shape_of, size
    from ladder.capacity.simulation import Draw
    from ladder.engine_binary import EngineNotBuilt

    try:
        table, workload, times, config = _read_site(args)
    except (ValueError, EngineNotBuilt) as exc:
        print(f"ladder capacity: {exc}", file=sys.stderr)
        return 2
    costs = level_costs(table, workload, times, config)
    kinds = request_kinds(workload, costs)
    shape = shape_of(config)
    slowest = max(c.seconds for c in costs)
    # enough simulated time for the slowest level's searches to come and go many times
    requests = max(args.requests, math.ceil(workload.rate * 40 * slowest))
    draw = Draw(
        requests=requests,
        sigma=args.cost_spread,
        overhead_s=args.overhead_ms / 1000,
        clients=args.games,
        seed=args.seed,
    )
    if args.instances is not None:
        result = predict(kinds, workload.rate, args.instances, shape, draw)
    else:
        try:
            result = size(kinds, workload.rate, shape, args.target_p99_wait, draw)
        except ValueError as exc:
            print(f"ladder capacity: {exc}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(_finite(_figures(args, workload, costs, config, result))))
    else:
        _print(args, workload, costs, config, times, result)
    return 0


def _read_site(
    args: argparse.Namespace,
) -> tuple[dict[str, dict[int, Level]], Workload, LevelTimes | None, ServiceConfig]:
    """The levels, the workload, the levels' measured times (None: not measured here)
    and an instance's configuration that ``args`` describe. Raises ValueError (or
    EngineNotBuilt for a stated times file without an engine) for what cannot be used."""
    from ladder.capacity.mix import parse_levels, parse_variants
    from ladder.capacity.model import Workload
    from ladder.level_times import level_times_here
    from ladder.levels import checked_levels_file, load_levels
    from ladder.service.operations.config import ServiceConfig
    from ladder.variants import VARIANT_IDS

    levels_file = checked_levels_file(args.levels)
    table = load_levels(levels_file)
    variants = parse_variants(args.variants, VARIANT_IDS)
    mix = parse_levels(args.mix, set.intersection(*(set(table[v]) for v in variants)))
    times = level_times_here(args.level_times, levels_file)
    stated = {"max_queue": args.max_queue, "queue_timeout_s": args.queue_timeout}
    config = ServiceConfig(
        engines=args.engines,
        short_engines=args.short_engines,
        **{name: value for name, value in stated.items() if value is not None},
    )
    workload = Workload(args.games, args.move_interval, mix, variants, args.book_share)
    return table, workload, times, config


def _figures(
    args: argparse.Namespace,
    workload: Workload,
    costs: list[LevelCost],
    config: ServiceConfig,
    result: Prediction,
) -> dict[str, object]:
    """The run's figures as ``--json`` prints them."""
    return {
        "model_output": True,
        "workload": asdict(workload) | {"rate": workload.rate},
        "instance": {
            "engines": config.engines,
            "lanes": config.lane_caps,
            "max_queue": config.max_queue,
            "queue_timeout_s": config.queue_timeout_s,
        },
        "costs": [asdict(c) for c in costs],
        "cost_spread": args.cost_spread,
        "overhead_ms": args.overhead_ms,
        "target_p99_wait_s": args.target_p99_wait,
        "cores": result.engines,
        **asdict(result),
    }


def _finite(value: object) -> object:
    """`value` for JSON: an endless time (a refused move) as null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _seconds(value: float) -> str:
    return "refused" if math.isinf(value) else f"{value:.3f} s"


def _print(
    args: argparse.Namespace,
    workload: Workload,
    costs: list[LevelCost],
    config: ServiceConfig,
    times: LevelTimes | None,
    result: Prediction,
) -> None:
    print(
        f"site: {workload.games:,} games, a move every {workload.move_interval_s:g} s each: "
        f"{workload.rate:,.1f} moves/s, {workload.book_share:.0%} from the book"
    )
    where = (
        f"measured on {times.machine} at {times.measured_at}"
        if times is not None
        else "not measured here (`ladder levels --measure`)"
    )
    print(f"costs (median a move, {where}):")
    for c in costs:
        share = workload.variants[c.variant] * workload.levels[c.level]
        print(
            f"  {c.variant} level {c.level}: {c.seconds * 1000:,.1f} ms ({c.source}, {c.lane} "
            f"lane), {share:.0%} of the searches"
        )
    caps = ", ".join(
        f"{lane} {cap if cap is not None else 'any'}" for lane, cap in config.lane_caps.items()
    )
    print(
        f"instance: {config.engines} engines (lanes: {caps}), queue {config.max_queue}, "
        f"queue timeout {config.queue_timeout_s:g} s; cost spread {args.cost_spread:g}, "
        f"overhead {args.overhead_ms:g} ms"
    )
    print(f"busy engines on average: {result.busy_engines:,.1f}")
    what = (
        f"{result.instances:,} instances (given)"
        if args.instances is not None
        else f"for a p99 wait of at most {args.target_p99_wait:g} s"
    )
    print(
        f"needed {what}: {result.instances:,} instances, {result.engines:,} engines, "
        f"{result.engines:,} cores"
    )
    print(
        f"model output ({result.requests:,} searched moves simulated): wait p50 "
        f"{_seconds(result.wait_p50_s)}, p99 {_seconds(result.wait_p99_s)} (last half "
        f"{_seconds(result.wait_p99_late_s)}); a move's time "
        f"p50 {_seconds(result.p50_s)}, p99 {_seconds(result.p99_s)}; refused {result.refused:.2%}"
    )
    for name, p99 in result.kind_p99_s.items():
        print(f"  {name}: p99 {_seconds(p99)}")
