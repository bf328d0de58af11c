"""Elo as a function of search effort: ``elo ~ a + b * ln(nodes)``.

Engine strength grows roughly linearly in the logarithm of the search effort (a constant
Elo gain per doubling of nodes, ``b * ln 2``) over a useful range.  We fit that line by
(optionally weighted) least squares to the levels whose Elo was measured on the ladder
and predict the others.  Every predicted figure is flagged ``extrapolated=True`` so that
it is never shown as if measured; ``outside_range`` additionally marks predictions at
node counts outside the measured range, where the straight-line assumption is least
trustworthy (the curve flattens towards the engine's ceiling, and nothing goes below
random play).

Least squares with weights ``w_i`` (e.g. ``1 / stderr_i^2`` from the ladder fit),
``x = ln(nodes)``::

    x_bar = sum w x / sum w,      y_bar = sum w y / sum w
    b = sum w (x - x_bar)(y - y_bar) / sum w (x - x_bar)^2,      a = y_bar - b x_bar
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["LevelElo", "LogNodesFit", "calibrate_levels", "fit_elo_vs_log_nodes"]


@dataclass(frozen=True, slots=True)
class LogNodesFit:
    intercept: float
    """``a``: the Elo predicted at one node (``ln 1 = 0``)."""
    slope: float
    """``b``: Elo per unit of ``ln(nodes)``."""
    points: int
    min_nodes: float
    max_nodes: float
    residual_sd: float | None
    """Unweighted ``sqrt(sum r^2 / (n - 2))``; ``None`` with only two points."""

    @property
    def elo_per_doubling(self) -> float:
        return self.slope * math.log(2.0)

    def predict(self, nodes: float) -> float:
        if nodes <= 0:
            raise ValueError(f"nodes must be positive, got {nodes!r}")
        return self.intercept + self.slope * math.log(nodes)

    def in_range(self, nodes: float) -> bool:
        return self.min_nodes <= nodes <= self.max_nodes


@dataclass(frozen=True, slots=True)
class LevelElo:
    name: str
    nodes: float
    elo: float
    """The measured Elo when there is one, else the fitted prediction."""
    predicted: float
    """The line's value at ``nodes`` (also for measured levels: compare with ``elo``)."""
    extrapolated: bool
    """True when ``elo`` comes from the fit rather than from games."""
    outside_range: bool
    """True when ``nodes`` lies outside the measured levels' node range."""


def fit_elo_vs_log_nodes(
    points: Sequence[tuple[float, float]], weights: Sequence[float] | None = None
) -> LogNodesFit:
    """Least-squares fit of ``elo = a + b ln(nodes)`` to ``(nodes, elo)`` points."""
    if weights is None:
        weights = [1.0] * len(points)
    if len(weights) != len(points):
        raise ValueError("need one weight per point")
    if any(w <= 0 for w in weights):
        raise ValueError("weights must be positive")
    if any(n <= 0 for n, _ in points):
        raise ValueError("nodes must be positive")
    xs = [math.log(n) for n, _ in points]
    ys = [e for _, e in points]
    if len(set(xs)) < 2:
        raise ValueError("need measured levels at two or more distinct node counts")
    sw = sum(weights)
    x_bar = sum(w * x for w, x in zip(weights, xs, strict=True)) / sw
    y_bar = sum(w * y for w, y in zip(weights, ys, strict=True)) / sw
    sxx = sum(w * (x - x_bar) ** 2 for w, x in zip(weights, xs, strict=True))
    sxy = sum(w * (x - x_bar) * (y - y_bar) for w, x, y in zip(weights, xs, ys, strict=True))
    slope = sxy / sxx
    intercept = y_bar - slope * x_bar
    residual_sd = None
    if len(points) > 2:
        rss = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
        residual_sd = math.sqrt(rss / (len(points) - 2))
    nodes = [n for n, _ in points]
    return LogNodesFit(
        intercept=intercept,
        slope=slope,
        points=len(points),
        min_nodes=min(nodes),
        max_nodes=max(nodes),
        residual_sd=residual_sd,
    )


def calibrate_levels(
    levels: Mapping[str, float],
    measured: Mapping[str, float],
    weights: Mapping[str, float] | None = None,
) -> tuple[LogNodesFit, list[LevelElo]]:
    """Fit on the measured levels and give every level an Elo.

    ``levels`` maps level name to node budget, ``measured`` maps (some of) those names
    to their ladder Elo, ``weights`` optionally maps measured names to fit weights.
    Returns the fit and one :class:`LevelElo` per level, in ``levels`` order.
    """
    unknown = set(measured) - set(levels)
    if unknown:
        raise ValueError(f"measured levels missing from levels: {sorted(unknown)}")
    names = [name for name in levels if name in measured]
    fit = fit_elo_vs_log_nodes(
        [(levels[name], measured[name]) for name in names],
        None if weights is None else [weights[name] for name in names],
    )
    out = []
    for name, nodes in levels.items():
        predicted = fit.predict(nodes)
        is_measured = name in measured
        out.append(
            LevelElo(
                name=name,
                nodes=nodes,
                elo=measured[name] if is_measured else predicted,
                predicted=predicted,
                extrapolated=not is_measured,
                outside_range=not fit.in_range(nodes),
            )
        )
    return fit, out
