"""The capacity model: from a site's games to the instances, engines and cores it needs.

A game asks for a computer move every ``move_interval_s`` seconds, so G games send
G / interval moves a second (Poisson: many independent games). A share of them comes
from the opening book (no engine); the rest search at the mix's levels and variants,
each at its cost: the level's median time a move as served, **measured on the serving
machine** (``ladder levels --measure``, :mod:`ladder.level_times`), else its calibrated
or estimated time (:func:`ladder.level_times.expected`, which says which). The mean
busy engines are the arrival rate times the mean cost; what a target wait needs beyond
that comes from the simulation (:mod:`ladder.capacity.simulation`) of the instances
behind a least-connections balancer, with the service's own lanes and queue: the
smallest number of instances whose simulated p99 wait for an engine is within the
target, a refused request counting as an endless wait.

An instance is a ``ladder serve`` with K engines on K cores (deploy/kubernetes: 2 CPUs,
2 engines), the lanes and queue of :class:`~ladder.service.operations.config.ServiceConfig`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ladder.capacity.simulation import Draw, Kind, Outcome, Shape, percentile, simulate
from ladder.level_times import ExpectedSource, LevelTimes, expected
from ladder.levels import Level
from ladder.service.operations.config import ServiceConfig

__all__ = [
    "BOOK",
    "LevelCost",
    "Prediction",
    "Workload",
    "level_costs",
    "predict",
    "request_kinds",
    "shape_of",
    "size",
]

#: The request kind of a move from the opening book.
BOOK = "book"
#: The most instances :func:`size` tries.
MAX_INSTANCES = 1_000_000


@dataclass(frozen=True)
class Workload:
    """What a site serves: its games, how often each asks for a move, the level and
    variant mixes (shares summing to 1) and the book's share of the moves."""

    games: int
    move_interval_s: float
    levels: dict[int, float]
    variants: dict[str, float]
    book_share: float

    @property
    def rate(self) -> float:
        """Move requests a second."""
        return self.games / self.move_interval_s


@dataclass(frozen=True)
class LevelCost:
    """A level's median time a move, whence it came, and its lane."""

    variant: str
    level: int
    seconds: float
    source: ExpectedSource
    lane: str


def shape_of(config: ServiceConfig) -> Shape:
    """An instance as ``ladder serve`` runs one with `config`'s engines, lanes and queue."""
    return Shape(config.engines, config.lane_caps, config.max_queue, config.queue_timeout_s)


def level_costs(
    table: dict[str, dict[int, Level]],
    workload: Workload,
    times: LevelTimes | None,
    config: ServiceConfig,
) -> list[LevelCost]:
    """The cost of every (variant, level) of the workload's mixes."""
    return [
        LevelCost(
            variant, n, *expected(variant, table[variant][n], times), config.lane(table[variant][n])
        )
        for variant in workload.variants
        for n in workload.levels
    ]


def request_kinds(workload: Workload, costs: Sequence[LevelCost]) -> list[Kind]:
    """The simulation's request kinds: the book's moves, then each variant's levels."""
    kinds = [Kind(BOOK, workload.book_share, None, 0.0)] if workload.book_share > 0 else []
    searched = 1 - workload.book_share
    for c in costs:
        share = searched * workload.variants[c.variant] * workload.levels[c.level]
        kinds.append(Kind(f"{c.variant} {c.level}", share, c.lane, c.seconds))
    return kinds


def mean_cost(kinds: Sequence[Kind], sigma: float) -> float:
    """A request's mean engine time (a log-normal's mean is its median times exp(sigma^2 / 2))."""
    return sum(k.share * k.median_s for k in kinds if k.lane is not None) * math.exp(sigma**2 / 2)


@dataclass(frozen=True)
class Prediction:
    """The simulation's figures for `instances` instances: times at the client of the
    searched moves (p50, p99), their waits for an engine (mean, p50, p99; refused ones
    endless), the
    share refused, each kind's p99 time, and the mean busy engines."""

    instances: int
    engines: int
    requests: int
    p50_s: float
    p99_s: float
    wait_mean_s: float
    wait_p50_s: float
    wait_p99_s: float
    #: The p99 wait of the moves that arrived in the last half of the simulated time:
    #: above the whole run's, the queues were still growing (no steady state).
    wait_p99_late_s: float
    refused: float
    kind_p99_s: dict[str, float]
    busy_engines: float


def _summary(
    outcomes: list[Outcome], kinds: Sequence[Kind], instances: int, shape: Shape, busy: float
) -> Prediction:
    searched = [o for o in outcomes if o.counted and kinds[o.kind].lane is not None]
    times = [o.seconds if o.played else math.inf for o in searched]
    waits = [o.waited if o.played else math.inf for o in searched]
    half = (
        min((o.arrived for o in searched), default=0)
        + max((o.arrived for o in searched), default=0)
    ) / 2
    late = [o.waited if o.played else math.inf for o in searched if o.arrived >= half]
    refused = sum(1 for o in searched if not o.played) / max(1, len(searched))
    by_kind: dict[str, list[float]] = {k.name: [] for k in kinds if k.lane is not None}
    for o in searched:
        by_kind.setdefault(kinds[o.kind].name, []).append(o.seconds if o.played else math.inf)
    return Prediction(
        instances,
        instances * shape.engines,
        len(searched),
        percentile(times, 50),
        percentile(times, 99),
        sum(waits) / len(waits) if waits else math.nan,
        percentile(waits, 50),
        percentile(waits, 99),
        percentile(late, 99),
        refused,
        {name: percentile(v, 99) for name, v in by_kind.items() if v},
        busy,
    )


def predict(
    kinds: Sequence[Kind], rate: float, instances: int, shape: Shape, draw: Draw
) -> Prediction:
    """The simulated figures of `instances` instances at `rate` requests a second."""
    outcomes = simulate(kinds, rate, instances, shape, draw)
    return _summary(outcomes, kinds, instances, shape, rate * mean_cost(kinds, draw.sigma))


def size(
    kinds: Sequence[Kind], rate: float, shape: Shape, target_wait_s: float, draw: Draw
) -> Prediction:
    """The smallest number of instances whose simulated p99 wait is within
    `target_wait_s`, in the whole run and in its last half (a count near full load whose
    queues still grow fails the latter); the same random draws for every count tried,
    so that more instances never look worse by chance."""

    def meets(p: Prediction) -> bool:
        return max(p.wait_p99_s, p.wait_p99_late_s) <= target_wait_s

    def run(n: int) -> Prediction:
        return predict(kinds, rate, n, shape, draw)

    busy = rate * mean_cost(kinds, draw.sigma)
    low = max(1, math.ceil(busy / shape.engines))  # fewer cannot keep up at all
    best = run(low)
    if meets(best):
        return best
    failed = low
    n = low
    while True:  # grow until the target is met, then halve the gap back
        n = max(n + 1, math.ceil(n * 1.25))
        if n > MAX_INSTANCES:
            raise ValueError(f"no count of instances up to {MAX_INSTANCES:,} meets the target")
        best = run(n)
        if meets(best):
            break
        failed = n
    ok = n
    while ok - failed > 1:
        mid = (ok + failed) // 2
        trial = run(mid)
        if meets(trial):
            ok, best = mid, trial
        else:
            failed = mid
    return best
