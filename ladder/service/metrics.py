"""Every Prometheus metric of the service, defined here and nowhere else (prometheus_client).

One :class:`Metrics` object per service holds them in its own registry. Counters that
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
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

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

from ladder.levels import LEVEL_NUMBERS
from ladder.service.config import LONG_LANE, SHORT_LANE
from ladder.variants import VARIANT_IDS

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

#: Engine incident kinds (protocol.managed.IncidentKind, plus the service's own
#: judgements of an answer: ``none`` for ``bestmove (none)`` with legal moves left,
#: ``illegal`` for a move the rules checker refuses).
INCIDENT_KINDS: tuple[str, ...] = (
    "crash",
    "timeout",
    "protocol",
    "start-failed",
    "memory",
    "died-idle",
    "none",
    "illegal",
)

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

#: Why the server closed a connection on its own (ladder.service.http_protocol).
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

#: Levels of the ladder (series are created for each).
LEVELS: tuple[int, ...] = tuple(LEVEL_NUMBERS)
#: The pool's lanes of move requests (ladder.service.config).
LANES: tuple[str, ...] = (SHORT_LANE, LONG_LANE)


def _package_version() -> str:
    try:
        return version("mistboard-ladder")
    except PackageNotFoundError:
        return "unknown"


def engine_build_key(exe: Path | None) -> str:
    """The engine build's cache key (scripts/build_engine.py names the build's folder
    after it), or ``unknown`` for an engine that did not come from that cache."""
    if exe is None:
        return "unknown"
    folder = exe.resolve().parent.name
    return folder if folder.startswith("engine-") else "unknown"


class Metrics:
    """The service's metrics, in their own registry (several services may live in one
    process, e.g. in the tests)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "ladder_http_requests",
            "HTTP requests answered, by route and status code.",
            ("route", "status"),
            registry=r,
        )
        self.request_seconds = Histogram(
            "ladder_http_request_duration_seconds",
            "Time from a request's arrival to its answer, by route.",
            ("route",),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.queue_wait_seconds = Histogram(
            "ladder_queue_wait_seconds",
            "Time a move request waited for an engine, by level (`elo` for a move asked by Elo).",
            ("level",),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.search_seconds = Histogram(
            "ladder_search_seconds",
            "Engine search wall time, by variant and level.",
            ("variant", "level"),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.moves = Counter(
            "ladder_moves",
            "Moves answered, by variant and level.",
            ("variant", "level"),
            registry=r,
        )
        self.engine_incidents = Counter(
            "ladder_engine_incidents",
            "Engine faults, by kind: crash, timeout, protocol, start-failed, memory "
            "(recycled over its RSS bound), died-idle, none, illegal.",
            ("kind",),
            registry=r,
        )
        self.engine_restarts = Counter(
            "ladder_engine_restarts", "Engine processes started after the first.", registry=r
        )
        self.busy = Counter(
            "ladder_busy",
            "Move requests refused for want of an engine (queue full, pushed out of it by "
            "a fairer share, or no engine within the queue timeout).",
            registry=r,
        )
        self.rate_limited = Counter(
            "ladder_rate_limited", "Requests refused by the rate limit (429).", registry=r
        )
        self.unauthorized = Counter(
            "ladder_unauthorized",
            "Requests refused for a missing or unknown key (401).",
            registry=r,
        )
        self.connections_closed = Counter(
            "ladder_connections_closed",
            "Connections the server closed on its own, by reason.",
            ("reason",),
            registry=r,
        )
        # Gauges: set on change; `livesum` adds the live processes' values up.
        self.queue_depth = Gauge(
            "ladder_queue_depth",
            "Move requests waiting for an engine.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.engines = Gauge(
            "ladder_engines", "Engines in the pool.", registry=r, multiprocess_mode="livesum"
        )
        self.engines_alive = Gauge(
            "ladder_engines_alive",
            "Engine processes running.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.engines_live = Gauge(
            "ladder_engines_live",
            "Engines running that answered their last search or readiness check.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.queued_moves = Gauge(
            "ladder_queued_moves",
            "Move requests waiting for an engine, by level.",
            ("level",),
            registry=r,
            multiprocess_mode="livesum",
        )
        self.searches_in_flight = Gauge(
            "ladder_searches_in_flight",
            "Move requests holding an engine (searching), by level.",
            ("level",),
            registry=r,
            multiprocess_mode="livesum",
        )
        self.lane_in_flight = Gauge(
            "ladder_lane_in_flight",
            "Engines held by each lane of jobs (short, long).",
            ("lane",),
            registry=r,
            multiprocess_mode="livesum",
        )
        self.engines_busy = Gauge(
            "ladder_engines_busy",
            "Engines searching or recovering.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.connections = Gauge(
            "ladder_http_connections",
            "Open HTTP connections.",
            registry=r,
            multiprocess_mode="livesum",
        )
        # Sampled (Metrics.sample): per process, so `liveall` (one series per pid).
        self.process_cpu_seconds = Gauge(
            "ladder_process_cpu_seconds",
            "CPU time (user + system) of the server process.",
            registry=r,
            multiprocess_mode="liveall",
        )
        self.process_rss_bytes = Gauge(
            "ladder_process_resident_memory_bytes",
            "Resident memory of the server process.",
            registry=r,
            multiprocess_mode="liveall",
        )
        self.engine_rss_bytes = Gauge(
            "ladder_engine_resident_memory_bytes",
            "Resident memory of each engine process, by pool slot.",
            ("engine",),
            registry=r,
            multiprocess_mode="liveall",
        )
        self.engine_cpu_seconds = Gauge(
            "ladder_engine_cpu_seconds",
            "CPU time of each engine process since it started, by pool slot.",
            ("engine",),
            registry=r,
            multiprocess_mode="liveall",
        )
        self.analyses = Counter(
            "ladder_analyses",
            "Game analyses (POST /v1/analysis), by how they ended: done (searched), cached "
            "(answered from the cache), cancelled (the client closed the stream), failed "
            "(an error line ended the stream), refused (a limit).",
            ("outcome",),
            registry=r,
        )
        self.analyses_running = Gauge(
            "ladder_analyses_running",
            "Game analyses streaming now.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.analysis_plies = Counter(
            "ladder_analysis_plies",
            "Positions searched for game analyses, by variant.",
            ("variant",),
            registry=r,
        )
        self.analysis_search_seconds = Histogram(
            "ladder_analysis_search_seconds",
            "Wall time of one analysis search (one position), queueing excluded.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.analysis_queue_wait_seconds = Histogram(
            "ladder_analysis_queue_wait_seconds",
            "Time an analysis position waited for an engine (the long lane).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.build_info = Gauge(
            "ladder_build_info",
            "Always 1; the labels say what runs.",
            ("version", "engine_build_key", "python"),
            registry=r,
            multiprocess_mode="livemax",
        )
        self._process = psutil.Process()
        self._init_series()

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

    def set_build(self, engine: Path | None) -> None:
        """Record what runs: the package version and the engine build key."""
        self.build_info.labels(
            _package_version(), engine_build_key(engine), platform.python_version()
        ).set(1)

    def count_request(self, route: str, status: int, seconds: float) -> None:
        """One answered request (routes outside :data:`ROUTES` count as ``other``)."""
        name = route if route in ROUTES else "other"
        self.requests.labels(name, str(status)).inc()
        self.request_seconds.labels(name).observe(seconds)

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
