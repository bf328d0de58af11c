"""A discrete-event simulation of `ladder serve` instances behind a least-connections
balancer: what a move request waits, given the levels' costs and the load.

Each instance is what ``ladder serve`` runs (:class:`~ladder.service.engines.pool.EnginePool`):
K engines; the move lanes and their caps (a slow level's search never takes the
``short_engines``; :attr:`ServiceConfig.lane_caps`); at most ``max_queue`` requests
waiting, in the order of the service's own :class:`~ladder.service.engines.fair_queue.FairQueue`
(the client holding the fewest engines first, a flood's newest request pushed out when
the queue is full); each waiting at most ``queue_timeout_s``, then 503. The rules that
give an engine to a request are the pool's (its ``acquire``, ``release`` and
``_dispatch``), restated here on simulated time.

The balancer is deploy/'s (haproxy ``balance leastconn``, nginx ``least_conn``): a
request goes to the instance with the fewest requests in flight (waiting or searching),
ties in turn; a 503 (queue full, pushed out, or timed out) is sent again to an instance
not yet tried, ``retries`` times (haproxy ``retries 1`` with ``retry-on 503``, nginx
``proxy_next_upstream_tries 2``), and the last 503 reaches the client.

A request's time is the path's own ``overhead_s`` (HTTP and the balancer, no engine
held), its waits, and its level's cost: the median measured on the serving machine
(:mod:`ladder.level_times`) times a log-normal factor of spread ``sigma``. A move from
the opening book needs no engine: its time is the overhead alone.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count

from ladder.service.engines.fair_queue import FairQueue, Waiter

__all__ = [
    "Instance",
    "Kind",
    "LeastConnections",
    "Outcome",
    "Shape",
    "Simulation",
    "percentile",
    "simulate",
]


@dataclass(frozen=True)
class Kind:
    """A kind of move request: its share of the requests, the lane it queues in (None:
    a book move, no engine), and its cost's median in seconds."""

    name: str
    share: float
    lane: str | None
    median_s: float


@dataclass(frozen=True)
class Shape:
    """One instance: its engines, its lanes' caps, its queue bound and timeout."""

    engines: int
    lane_caps: dict[str, int | None]
    max_queue: int
    queue_timeout_s: float


@dataclass
class Request:
    kind: int
    client: str
    arrived: float
    cost: float
    tried: list[int] = field(default_factory=list)
    #: Its waiter while it waits in an instance's queue (None: not waiting).
    waiter: Waiter[Request] | None = None
    queued_at: float = 0.0
    waited: float = 0.0


@dataclass
class Outcome:
    """What happened to one request: its kind, whether it was played, its time at the
    client (overhead + waits + cost), its time waiting for an engine, whether it
    arrived after the warm-up, and when it arrived."""

    kind: int
    played: bool
    seconds: float
    waited: float
    counted: bool
    arrived: float


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (0-100) of `values`, nearest rank (inf if they hold inf
    beyond it; nan if empty)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


class LeastConnections:
    """Instances by requests in flight: the one with the fewest, ties in turn (the
    longest at its count first), in constant time for thousands of instances."""

    def __init__(self, instances: int) -> None:
        self.count = [0] * instances
        # instances by their count; a dict keeps the order they reached it
        self._at: list[dict[int, None]] = [dict.fromkeys(range(instances))]
        self._low = 0

    def pick(self, exclude: Sequence[int]) -> int | None:
        """The instance to send to, among those not in `exclude` (None: no other)."""
        for bucket in self._at[self._low :]:
            for index in bucket:
                if index not in exclude:
                    return index
        return None

    def add(self, index: int, delta: int) -> None:
        """`index` has `delta` more requests in flight."""
        was = self.count[index]
        now = was + delta
        del self._at[was][index]
        while len(self._at) <= now:
            self._at.append({})
        self._at[now][index] = None
        self.count[index] = now
        self._low = min(self._low, now)
        while not self._at[self._low]:
            self._low += 1


class Instance:
    """One simulated ``ladder serve``: idle engines, lanes, the fair queue."""

    def __init__(self, index: int, shape: Shape, sim: Simulation) -> None:
        self.index, self.shape, self.sim = index, shape, sim
        self.idle = shape.engines
        self.in_lane = dict.fromkeys(shape.lane_caps, 0)
        self.waiting: FairQueue[Request] = FairQueue()

    def has_room(self, lane: str) -> bool:
        cap = self.shape.lane_caps[lane]
        return cap is None or self.in_lane[lane] < cap

    def submit(self, req: Request, lane: str) -> None:
        """The pool's ``acquire``: an engine at once if one is idle and nobody waits,
        else a place in the queue (making room by pushing out a flood's newest request),
        else refused."""
        if self.idle and not len(self.waiting) and self.has_room(lane):
            self._start(req, lane)
            return
        if len(self.waiting) >= self.shape.max_queue:
            pushed = self.waiting.pop_to_push_out(req.client)
            if pushed is None:
                self.sim.refused(req, self.index)
                return
            self._stop_waiting(pushed)
            self.sim.refused(pushed.future.result(), self.index)
        req.waiter = self.waiting.add(req.client, lane, self.sim.carrier(req))
        req.queued_at = self.sim.now
        self.sim.at(self.sim.now + self.shape.queue_timeout_s, self._timeout, req, req.waiter)
        self._dispatch()

    def _start(self, req: Request, lane: str) -> None:
        self.idle -= 1
        self.in_lane[lane] += 1
        self.waiting.took(req.client)
        self.sim.at(self.sim.now + req.cost, self._done, req, lane)

    def _stop_waiting(self, waiter: Waiter[Request]) -> None:
        req = waiter.future.result()
        req.waited += self.sim.now - req.queued_at
        req.waiter = None

    def _done(self, req: Request, lane: str) -> None:
        """The pool's ``release``: the engine goes to the next waiting request."""
        self.idle += 1
        self.in_lane[lane] -= 1
        self.waiting.gave_back(req.client)
        self.sim.played(req, self.index)
        self._dispatch()

    def _timeout(self, req: Request, waiter: Waiter[Request]) -> None:
        if req.waiter is not waiter:  # served or pushed out meanwhile
            return
        self.waiting.forget(waiter)
        self._stop_waiting(waiter)
        self.sim.refused(req, self.index)

    def _dispatch(self) -> None:
        """The pool's ``_dispatch``: idle engines to waiting requests whose lane has room."""
        while self.idle:
            waiter = self.waiting.pop_next(self.has_room)
            if waiter is None:
                return
            self._stop_waiting(waiter)
            self._start(waiter.future.result(), waiter.lane)


@dataclass(frozen=True, slots=True)
class Draw:
    """How a simulation draws its traffic, beside the load and the instances: `requests`
    simulated requests from `clients` clients (each game a client), each search's cost
    its kind's median times a log-normal factor of spread `sigma`, `overhead_s` of its
    own path, a refused request sent `retries` more times to another instance, the
    random draws from `seed`."""

    requests: int
    sigma: float
    overhead_s: float
    clients: int
    retries: int = 1
    seed: int = 1


class Simulation:
    """N instances of one shape behind a least-connections balancer, fed Poisson
    arrivals at `rate` a second as `draw` says."""

    def __init__(
        self, kinds: Sequence[Kind], rate: float, instances: int, shape: Shape, draw: Draw
    ) -> None:
        if instances < 1 or rate <= 0 or not kinds:
            raise ValueError("a simulation needs an instance, a positive rate and a request kind")
        self.kinds, self.rate, self.shape = list(kinds), rate, shape
        self.sigma, self.overhead_s, self.clients, self.retries = (
            draw.sigma,
            draw.overhead_s,
            draw.clients,
            draw.retries,
        )
        self.rng = random.Random(draw.seed)
        self.now = 0.0
        self._events: list[tuple[float, int, object, tuple[object, ...]]] = []
        self._serial = count()
        self.balancer = LeastConnections(instances)
        self.instances = [Instance(i, shape, self) for i in range(instances)]
        self.outcomes: list[Outcome] = []
        self._warmup_until = 0.0
        # The fair queue's waiters carry an asyncio future; this loop only makes them
        # (it never runs): each future holds its request as its result.
        self._loop = asyncio.new_event_loop()

    def carrier(self, req: Request) -> asyncio.Future[Request]:
        future: asyncio.Future[Request] = self._loop.create_future()
        future.set_result(req)
        return future

    def at(self, when: float, action: object, *args: object) -> None:
        heapq.heappush(self._events, (when, next(self._serial), action, args))

    # -- the balancer -----------------------------------------------------------------

    def _send(self, req: Request) -> None:
        kind = self.kinds[req.kind]
        assert kind.lane is not None
        index = self.balancer.pick(req.tried)
        assert index is not None
        req.tried.append(index)
        self.balancer.add(index, 1)
        self.instances[index].submit(req, kind.lane)

    def refused(self, req: Request, index: int) -> None:
        """A 503 from instance `index`: sent again to another instance while the
        balancer may, else the client's answer."""
        self.balancer.add(index, -1)
        if len(req.tried) <= self.retries and len(req.tried) < len(self.instances):
            self._send(req)
            return
        self._finish(req, played=False)

    def played(self, req: Request, index: int) -> None:
        self.balancer.add(index, -1)
        self._finish(req, played=True)

    def _finish(self, req: Request, played: bool) -> None:
        self.outcomes.append(
            Outcome(
                req.kind,
                played,
                self.now - req.arrived + self.overhead_s,
                req.waited,
                req.arrived >= self._warmup_until,
                req.arrived,
            )
        )

    # -- the run ----------------------------------------------------------------------

    def run(self, requests: int, warmup: float = 0.1) -> list[Outcome]:
        """Simulate `requests` arrivals; the outcomes of those after the first
        `warmup` share of them are ``counted`` (the queues start empty)."""
        weights = [k.share for k in self.kinds]
        t = 0.0
        arrivals = []
        for _ in range(requests):
            t += self.rng.expovariate(self.rate)
            arrivals.append(t)
        self._warmup_until = arrivals[int(warmup * requests)] if requests else 0.0
        picks = self.rng.choices(range(len(self.kinds)), weights, k=requests)
        for when, kind_index in zip(arrivals, picks, strict=True):
            kind = self.kinds[kind_index]
            cost = kind.median_s * math.exp(self.sigma * self.rng.gauss(0.0, 1.0))
            req = Request(kind_index, f"c{self.rng.randrange(self.clients)}", when, cost)
            self.at(when, self._arrive, req)
        try:
            while self._events:
                when, _, action, args = heapq.heappop(self._events)
                self.now = when
                action(*args)  # type: ignore[operator]
        finally:
            self._loop.close()
        return self.outcomes

    def _arrive(self, req: Request) -> None:
        if self.kinds[req.kind].lane is None:  # from the book: no engine
            self._finish(req, played=True)
        else:
            self._send(req)


def simulate(
    kinds: Sequence[Kind], rate: float, instances: int, shape: Shape, draw: Draw
) -> list[Outcome]:
    """The outcomes of `draw.requests` simulated requests (see :class:`Simulation`)."""
    return Simulation(kinds, rate, instances, shape, draw).run(draw.requests)
