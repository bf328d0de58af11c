"""The line ``elo = a + b ln(nodes)`` through the strongest measured searching levels:
what a level without games yet is expected to rate (Elo grows about linearly in the log
of the node count at a fixed rule), with an interval that covers the line's uncertainty
and the measured levels' spread around it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ladder.levels import Level, Rating
from ladder.match.statistics.elo import normal_quantile

__all__ = ["EXTRAPOLATION_POINTS", "LogNodesLine", "extrapolate"]

#: How many of the strongest measured searching levels the extrapolation line goes through.
EXTRAPOLATION_POINTS = 3


@dataclass(frozen=True)
class LogNodesLine:
    """``elo = a + b ln(nodes)``, weighted least squares, with what its predictions need."""

    intercept: float
    slope: float
    x_bar: float
    sum_weights: float
    sxx: float
    residual_sd: float

    @classmethod
    def fit(cls, points: Sequence[tuple[float, float, float]]) -> LogNodesLine:
        """Fit to (nodes, elo, weight) points at two or more node counts."""
        xs = [math.log(n) for n, _, _ in points]
        ys = [e for _, e, _ in points]
        ws = [w for _, _, w in points]
        if len(set(xs)) < 2:
            raise ValueError("need measured levels at two or more node counts")
        sw = sum(ws)
        x_bar = sum(w * x for w, x in zip(ws, xs, strict=True)) / sw
        y_bar = sum(w * y for w, y in zip(ws, ys, strict=True)) / sw
        sxx = sum(w * (x - x_bar) ** 2 for w, x in zip(ws, xs, strict=True))
        sxy = sum(w * (x - x_bar) * (y - y_bar) for w, x, y in zip(ws, xs, ys, strict=True))
        slope = sxy / sxx
        intercept = y_bar - slope * x_bar
        resid = 0.0
        if len(points) > 2:
            rss = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
            resid = math.sqrt(rss / (len(points) - 2))
        return cls(intercept, slope, x_bar, sw, sxx, resid)

    def predict(self, nodes: float, z: float) -> tuple[float, float, float]:
        """(elo, lo, hi) at ``nodes``, the interval covering the line's uncertainty and its
        residual spread."""
        x = math.log(nodes)
        sd = math.sqrt(1.0 / self.sum_weights + (x - self.x_bar) ** 2 / self.sxx + self.resid2)
        elo = self.intercept + self.slope * x
        return elo, elo - z * sd, elo + z * sd

    @property
    def resid2(self) -> float:
        return self.residual_sd**2


def _searches(level: Level) -> bool:
    """Whether a level plays its search's best move (no mistake rule): the levels the
    line goes through."""
    v = level.variety
    return v is None or (v.temperature_cp == 0 and v.random_move_pct == 0)


def extrapolate(
    levels: dict[int, Level], measured: dict[int, tuple[float, float]], confidence: float
) -> dict[int, Rating]:
    """The ratings of the levels without games (not in ``measured``: level -> (elo,
    half-width)), on the line through the strongest measured searching levels, with
    ``confidence`` intervals."""
    plain = sorted((n for n in measured if _searches(levels[n])), key=lambda n: levels[n].nodes)
    use = plain[-EXTRAPOLATION_POINTS:]
    if len({levels[n].nodes for n in use}) < 2:
        use = list(measured)
    if len({levels[n].nodes for n in use}) < 2:
        return {}
    line = LogNodesLine.fit(
        [(levels[n].nodes, measured[n][0], 1.0 / max(measured[n][1], 1.0) ** 2) for n in use]
    )
    z = normal_quantile(0.5 + confidence / 2)
    out = {}
    for n, lv in levels.items():
        if n not in measured:
            elo, lo, hi = line.predict(lv.nodes, z)
            out[n] = Rating(elo, lo, hi, 0, extrapolated=True)
    return out
