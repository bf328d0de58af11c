"""Prometheus metrics in the text exposition format (no client library needed).

Counters and histograms live in a :class:`Metrics` registry; gauges are read from
callbacks at scrape time (queue depth, busy engines), so they are never stale.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable

LabelValues = tuple[str, ...]

#: Search time buckets, seconds: level 1 takes milliseconds, level 8 tens of seconds.
SEARCH_BUCKETS: tuple[float, ...] = (
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
    25.0,
    60.0,
)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: Iterable[str], values: Iterable[str], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


class Counter:
    """A monotonically increasing count per label set."""

    def __init__(self, name: str, help_: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.help, self.label_names = name, help_, labels
        self._values: dict[LabelValues, float] = {}
        self._lock = threading.Lock()

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add `amount` to the series with these label values."""
        with self._lock:
            self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        """The current value of one series (0 if never incremented)."""
        return self._values.get(labels, 0.0)

    def render(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        with self._lock:
            items = sorted(self._values.items())
        out += [f"{self.name}{_labels(self.label_names, k)} {_num(v)}" for k, v in items]
        return out


class Histogram:
    """Observations in cumulative buckets, per label set."""

    def __init__(
        self,
        name: str,
        help_: str,
        labels: tuple[str, ...] = (),
        buckets: tuple[float, ...] = SEARCH_BUCKETS,
    ) -> None:
        self.name, self.help, self.label_names = name, help_, labels
        self.buckets = tuple(sorted(buckets))
        self._series: dict[LabelValues, tuple[list[int], list[float]]] = {}
        self._lock = threading.Lock()

    def observe(self, value: float, *labels: str) -> None:
        """Record one observation."""
        with self._lock:
            counts, sums = self._series.setdefault(labels, ([0] * (len(self.buckets) + 1), [0.0]))
            counts[bisect.bisect_left(self.buckets, value)] += 1
            sums[0] += value

    def render(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        with self._lock:
            items = sorted((k, (list(c), s[0])) for k, (c, s) in self._series.items())
        for key, (counts, total) in items:
            running = 0
            for bound, n in zip(self.buckets, counts, strict=False):
                running += n
                le = _labels(self.label_names, key, f'le="{_num(bound)}"')
                out.append(f"{self.name}_bucket{le} {running}")
            running += counts[-1]
            inf = _labels(self.label_names, key, 'le="+Inf"')
            out.append(f"{self.name}_bucket{inf} {running}")
            out.append(f"{self.name}_sum{_labels(self.label_names, key)} {_num(total)}")
            out.append(f"{self.name}_count{_labels(self.label_names, key)} {running}")
        return out


class Gauge:
    """A value read from a callback at scrape time."""

    def __init__(self, name: str, help_: str, read: Callable[[], float]) -> None:
        self.name, self.help, self.read = name, help_, read

    def render(self) -> list[str]:
        return [
            f"# HELP {self.name} {self.help}",
            f"# TYPE {self.name} gauge",
            f"{self.name} {_num(self.read())}",
        ]


class Metrics:
    """The service's metrics registry."""

    def __init__(self) -> None:
        self.requests = Counter(
            "ladder_http_requests_total",
            "HTTP requests answered, by route and status code.",
            ("route", "status"),
        )
        self.moves = Counter(
            "ladder_moves_total", "Moves answered, by variant and level.", ("variant", "level")
        )
        self.engine_failures = Counter(
            "ladder_engine_failures_total",
            "Failed engine attempts, by kind (crash, timeout, illegal, none, protocol).",
            ("kind",),
        )
        self.busy = Counter("ladder_busy_total", "Requests refused because the queue was full.")
        self.search_seconds = Histogram(
            "ladder_search_seconds",
            "Engine search wall time, by variant and level.",
            ("variant", "level"),
        )
        self.gauges: list[Gauge] = []
        self.restart_counter: Callable[[], float] = lambda: 0.0

    def add_gauge(self, name: str, help_: str, read: Callable[[], float]) -> None:
        """Register a gauge read at scrape time."""
        self.gauges.append(Gauge(name, help_, read))

    def render(self) -> str:
        """The whole registry in the Prometheus text format (version 0.0.4)."""
        lines: list[str] = []
        for metric in (
            self.requests,
            self.moves,
            self.engine_failures,
            self.busy,
            self.search_seconds,
        ):
            lines += metric.render()
        lines += [
            "# HELP ladder_engine_restarts_total Engine processes restarted.",
            "# TYPE ladder_engine_restarts_total counter",
            f"ladder_engine_restarts_total {_num(self.restart_counter())}",
        ]
        for gauge in self.gauges:
            lines += gauge.render()
        return "\n".join(lines) + "\n"
