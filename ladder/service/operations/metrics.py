"""Every Prometheus metric of the service, defined here and nowhere else (prometheus_client).

Each is declared once, a line of the table that is :class:`Metrics`'s body
(:func:`counter`, :func:`histogram`, :func:`gauge`); one :class:`Metrics` object per
service creates them in its own registry. Counters that
carry labels are created for every known label value at start, so every series exists
(at 0) before anything happened. Gauges are *set* (by the pool when its state changes,
and by :meth:`Metrics.sample` for CPU and memory) rather than computed by a callback at
scrape time: that is what prometheus_client's multiprocess mode can aggregate, so a
later ``ladder serve --workers N`` only has to set ``PROMETHEUS_MULTIPROC_DIR`` (each
gauge says how its values combine across processes); :meth:`Metrics.render` then
reads every process's values.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, overload

import psutil
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from ladder.engine_binary import engine_build_key
from ladder.levels import LEVEL_NUMBERS
from ladder.service.operations.config import LONG_LANE, SHORT_LANE
from ladder.variants import VARIANT_IDS
from protocol.errors import INCIDENT_KINDS

# No `*_created` series beside each counter and histogram: they double the exposition
# and say nothing a dashboard uses here.
disable_created_metrics()  # type: ignore[no-untyped-call]

#: Buckets (seconds) from 50 µs to a minute: a level-1 search takes well under a
#: millisecond, a queue wait may be zero, and the strongest level takes seconds.
LATENCY_BUCKETS: tuple[float, ...] = (
    0.00005,
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)


#: How many (path, status) pairs :meth:`Metrics.count_request` keeps its series of
#: (answers given before routing are counted by path: a scan of random paths must not
#: grow the table).
MAX_REQUEST_SERIES = 1024

#: Routes counted by name; anything else is ``other``.
ROUTES: tuple[str, ...] = (
    "/v1/move",
    "/v1/position",
    "/v1/levels",
    "/v1/variants",
    "/v1/analysis",
    "/healthz",
    "/readyz",
    "/metrics",
    "other",
)

#: Statuses the service answers with (each route's series starts at 0 for all of them).
STATUSES: tuple[int, ...] = (
    200,
    400,
    401,
    404,
    405,
    408,
    409,
    413,
    422,
    429,
    431,
    499,
    500,
    502,
    503,
)

#: Why the server closed a connection on its own (ladder.service.http.http_protocol).
CLOSE_REASONS: tuple[str, ...] = (
    "header_too_large",
    "request_timeout",
    "connection_cap",
    "bad_http",
    "write_stalled",
    "idle",
)

#: How a game analysis ended (``ladder_analyses``).
ANALYSIS_OUTCOMES: tuple[str, ...] = ("done", "cached", "cancelled", "failed", "refused")

#: How a worker process of ``ladder serve --workers N`` that was started again had died
#: (``ladder_worker_restarts``): killed by a signal (e.g. the OOM killer's SIGKILL), or
#: exited with an error code.
WORKER_DEATHS: tuple[str, ...] = ("signal", "exit")

#: Levels of the ladder (series are created for each).
LEVELS: tuple[int, ...] = tuple(LEVEL_NUMBERS)
#: The pool's lanes of move requests (ladder.service.operations.config).
LANES: tuple[str, ...] = (SHORT_LANE, LONG_LANE)


def _package_version() -> str:
    try:
        return version("mistboard-ladder")
    except PackageNotFoundError:
        return "unknown"


#: How a gauge's values combine across the processes of ``ladder serve --workers N``
#: (prometheus_client's ``multiprocess_mode``).
GaugeCombine = Literal["livesum", "liveall", "livemax"]

MetricT = TypeVar("MetricT", Counter, Gauge, Histogram)


class MetricDefinition(Generic[MetricT]):
    """One metric, declared in the body of :class:`Metrics` (:func:`counter`,
    :func:`histogram`, :func:`gauge`): its kind, name, help text, labels and options.
    Each :class:`Metrics` object creates it in its own registry as an instance attribute
    of the same name, which then hides the definition."""

    def __init__(
        self, kind: type[MetricT], name: str, help: str, labels: tuple[str, ...], **options: Any
    ) -> None:
        self.kind: type[MetricT] = kind
        self.name, self.help, self.labels, self.options = name, help, labels, options
        self.attribute = ""

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    @overload
    def __get__(self, obj: None, owner: type) -> MetricDefinition[MetricT]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> MetricT: ...
    def __get__(self, obj: object, owner: type) -> MetricDefinition[MetricT] | MetricT:
        if obj is None:
            return self
        raise AttributeError(f"{self.attribute}: Metrics.__init__ creates it")

    def create(self, registry: CollectorRegistry) -> MetricT:
        """The metric, registered in ``registry``."""
        metric: MetricT = self.kind(
            self.name, self.help, self.labels, registry=registry, **self.options
        )
        return metric


def counter(name: str, help: str, labels: tuple[str, ...] = ()) -> MetricDefinition[Counter]:
    return MetricDefinition(Counter, name, help, labels)


def histogram(name: str, help: str, labels: tuple[str, ...] = ()) -> MetricDefinition[Histogram]:
    """A histogram of seconds, in the :data:`LATENCY_BUCKETS`."""
    return MetricDefinition(Histogram, name, help, labels, buckets=LATENCY_BUCKETS)


def gauge(
    name: str, help: str, labels: tuple[str, ...] = (), *, combine: GaugeCombine
) -> MetricDefinition[Gauge]:
    """A gauge, and how its values combine across processes."""
    return MetricDefinition(Gauge, name, help, labels, multiprocess_mode=combine)


@dataclass(frozen=True, slots=True)
class MoveSeries:
    """The series one move request counts in (one variant, one level label): looked up
    once a request rather than once a series (``labels()`` validates its values and
    takes a lock on every call)."""

    queued: Gauge  #: ladder_queued_moves
    queue_wait: Histogram  #: ladder_queue_wait_seconds
    searching: Gauge  #: ladder_searches_in_flight
    search_seconds: Histogram  #: ladder_search_seconds
    moves: Counter  #: ladder_moves


class Metrics:
    """The service's metrics, in their own registry (several services may live in one
    process, e.g. in the tests). Each is declared once below, in the order of the
    exposition."""

    requests = counter(
        "ladder_http_requests",
        "HTTP requests answered, by route and status code.",
        labels=("route", "status"),
    )
    request_seconds = histogram(
        "ladder_http_request_duration_seconds",
        "Time from a request's arrival to its answer, by route.",
        labels=("route",),
    )
    queue_wait_seconds = histogram(
        "ladder_queue_wait_seconds",
        "Time a move request waited for an engine, by level (`elo` for a move asked by Elo).",
        labels=("level",),
    )
    search_seconds = histogram(
        "ladder_search_seconds",
        "Engine search wall time, by variant and level.",
        labels=("variant", "level"),
    )
    moves = counter(
        "ladder_moves", "Moves answered, by variant and level.", labels=("variant", "level")
    )
    engine_incidents = counter(
        "ladder_engine_incidents",
        "Engine faults, by kind: crash, timeout, protocol, start-failed, memory "
        "(recycled over its RSS bound), died-idle, none, illegal.",
        labels=("kind",),
    )
    engine_restarts = counter("ladder_engine_restarts", "Engine processes started after the first.")
    busy = counter(
        "ladder_busy",
        "Move requests refused for want of an engine (queue full, pushed out of it by "
        "a fairer share, or no engine within the queue timeout).",
    )
    hurried_moves = counter(
        "ladder_hurried_moves",
        "Clocked move requests answered without a search: no engine of their lane was "
        "free within the move's time on the clock (or the queue was full).",
    )
    rate_limited = counter("ladder_rate_limited", "Requests refused by the rate limit (429).")
    unauthorized = counter(
        "ladder_unauthorized", "Requests refused for a missing or unknown key (401)."
    )
    connections_closed = counter(
        "ladder_connections_closed",
        "Connections the server closed on its own, by reason.",
        labels=("reason",),
    )
    # Gauges: set on change; `livesum` adds the live processes' values up.
    queue_depth = gauge(
        "ladder_queue_depth", "Move requests waiting for an engine.", combine="livesum"
    )
    engines = gauge("ladder_engines", "Engines in the pool.", combine="livesum")
    engines_alive = gauge("ladder_engines_alive", "Engine processes running.", combine="livesum")
    engines_live = gauge(
        "ladder_engines_live",
        "Engines running that answered their last search or readiness check.",
        combine="livesum",
    )
    queued_moves = gauge(
        "ladder_queued_moves",
        "Move requests waiting for an engine, by level.",
        labels=("level",),
        combine="livesum",
    )
    searches_in_flight = gauge(
        "ladder_searches_in_flight",
        "Move requests holding an engine (searching), by level.",
        labels=("level",),
        combine="livesum",
    )
    lane_in_flight = gauge(
        "ladder_lane_in_flight",
        "Engines held by each lane of jobs (short, long).",
        labels=("lane",),
        combine="livesum",
    )
    engines_busy = gauge(
        "ladder_engines_busy", "Engines searching or recovering.", combine="livesum"
    )
    connections = gauge("ladder_http_connections", "Open HTTP connections.", combine="livesum")
    # Sampled (Metrics.sample): per process, so `liveall` (one series per pid).
    process_cpu_seconds = gauge(
        "ladder_process_cpu_seconds",
        "CPU time (user + system) of the server process.",
        combine="liveall",
    )
    process_rss_bytes = gauge(
        "ladder_process_resident_memory_bytes",
        "Resident memory of the server process.",
        combine="liveall",
    )
    engine_rss_bytes = gauge(
        "ladder_engine_resident_memory_bytes",
        "Resident memory of each engine process, by pool slot.",
        labels=("engine",),
        combine="liveall",
    )
    engine_cpu_seconds = gauge(
        "ladder_engine_cpu_seconds",
        "CPU time of each engine process since it started, by pool slot.",
        labels=("engine",),
        combine="liveall",
    )
    analyses = counter(
        "ladder_analyses",
        "Game analyses (POST /v1/analysis), by how they ended: done (searched), cached "
        "(answered from the cache), cancelled (the client closed the stream), failed "
        "(an error line ended the stream), refused (over a limit: nodes, plies, or the "
        "client's analyses at once; a bad game is not counted here).",
        labels=("outcome",),
    )
    analyses_running = gauge(
        "ladder_analyses_running", "Game analyses streaming now.", combine="livesum"
    )
    analysis_plies = counter(
        "ladder_analysis_plies",
        "Positions searched for game analyses, by variant.",
        labels=("variant",),
    )
    analysis_search_seconds = histogram(
        "ladder_analysis_search_seconds",
        "Wall time of one analysis search (one position), queueing excluded.",
    )
    analysis_queue_wait_seconds = histogram(
        "ladder_analysis_queue_wait_seconds",
        "Time an analysis position waited for an engine (the long lane).",
    )
    # A worker's death is counted by its successor once that serves: a worker's
    # counters outlive it in the multiprocess folder, the supervisor has no registry.
    worker_restarts = counter(
        "ladder_worker_restarts",
        "Worker processes (`--workers N`) started again after one died, by how it died: "
        "signal (killed, e.g. by the OOM killer) or exit (an error code).",
        labels=("death",),
    )
    workers = gauge(
        "ladder_workers", "Server processes serving (1 without --workers).", combine="livesum"
    )
    build_info = gauge(
        "ladder_build_info",
        "Always 1; the labels say what runs.",
        labels=("version", "engine_build_key", "python"),
        combine="livemax",
    )

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        for definition in vars(Metrics).values():
            if isinstance(definition, MetricDefinition):
                setattr(self, definition.attribute, definition.create(self.registry))
        self._process = psutil.Process()
        self._init_series()
        self._move_series: dict[tuple[str, int | None], MoveSeries] = {}
        self._request_series: dict[tuple[str, int], tuple[Counter, Histogram]] = {}

    def move_series(self, variant: str, level: int | None) -> MoveSeries:
        """The series of a move request in ``variant`` at ``level`` (None: at an Elo,
        the label ``elo``)."""
        series = self._move_series.get((variant, level))
        if series is None:
            label = "elo" if level is None else str(level)
            series = self._move_series[(variant, level)] = MoveSeries(
                self.queued_moves.labels(label),
                self.queue_wait_seconds.labels(label),
                self.searches_in_flight.labels(label),
                self.search_seconds.labels(variant, label),
                self.moves.labels(variant, label),
            )
        return series

    def _init_series(self) -> None:
        """Create every labelled series at 0, so that each exists from the start."""
        for route in ROUTES:
            self.request_seconds.labels(route)
            for status in STATUSES:
                self.requests.labels(route, str(status))
        for label in (*(str(level) for level in LEVELS), "elo"):
            self.queue_wait_seconds.labels(label)
            self.queued_moves.labels(label).set(0)
            self.searches_in_flight.labels(label).set(0)
        for lane in LANES:
            self.lane_in_flight.labels(lane).set(0)
        for variant in VARIANT_IDS:
            for level in LEVELS:
                self.moves.labels(variant, str(level))
                self.search_seconds.labels(variant, str(level))
        for kind in INCIDENT_KINDS:
            self.engine_incidents.labels(kind)
        for reason in CLOSE_REASONS:
            self.connections_closed.labels(reason)
        for outcome in ANALYSIS_OUTCOMES:
            self.analyses.labels(outcome)
        for variant in VARIANT_IDS:
            self.analysis_plies.labels(variant)
        for death in WORKER_DEATHS:
            self.worker_restarts.labels(death)

    def set_build(self, engine: Path | None) -> None:
        """Record what runs: the package version and the engine build key."""
        self.build_info.labels(
            _package_version(), engine_build_key(engine), platform.python_version()
        ).set(1)

    def worker_replaced(self, exit_code: int) -> None:
        """This worker serves in place of one that died with ``exit_code`` (negative:
        killed by that signal)."""
        self.worker_restarts.labels("signal" if exit_code < 0 else "exit").inc()

    def count_request(self, route: str, status: int, seconds: float) -> None:
        """One answered request (routes outside :data:`ROUTES` count as ``other``)."""
        series = self._request_series.get((route, status))
        if series is None:
            name = route if route in ROUTES else "other"
            series = (self.requests.labels(name, str(status)), self.request_seconds.labels(name))
            if len(self._request_series) < MAX_REQUEST_SERIES:  # a path per request: not kept
                self._request_series[(route, status)] = series
        series[0].inc()
        series[1].observe(seconds)

    def sample(self, engine_pids: Iterable[tuple[int, int | None]]) -> None:
        """Read this process's CPU and memory and each engine's (slot, pid), via psutil."""
        with self._process.oneshot():
            cpu = self._process.cpu_times()
            self.process_cpu_seconds.set(cpu.user + cpu.system)
            self.process_rss_bytes.set(self._process.memory_info().rss)
        for slot, pid in engine_pids:
            rss, cpu_s = 0.0, 0.0
            if pid is not None:
                try:
                    engine = psutil.Process(pid)
                    with engine.oneshot():
                        rss = float(engine.memory_info().rss)
                        times = engine.cpu_times()
                        cpu_s = times.user + times.system
                except psutil.Error:  # it died since: 0 until it is replaced
                    pass
            self.engine_rss_bytes.labels(str(slot)).set(rss)
            self.engine_cpu_seconds.labels(str(slot)).set(cpu_s)

    def render(self) -> bytes:
        """The exposition text: this registry, or with ``PROMETHEUS_MULTIPROC_DIR`` set,
        every process's values combined."""
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            combined = CollectorRegistry()
            MultiProcessCollector(combined)  # type: ignore[no-untyped-call]
            return generate_latest(combined)
        return generate_latest(self.registry)

    content_type = CONTENT_TYPE_LATEST
