"""The Bradley-Terry fit's numerical core (:mod:`ladder.match.statistics.bradley_terry`
has the model): the log-likelihood of Red's scores on aggregated cells, maximised by
Newton's method with step halving, and the covariance of the estimates from the inverse
observed information."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["Cells", "covariance", "log_likelihood", "newton"]

_MAX_NEWTON_STEPS = 200
_NO_MLE = (
    "no finite, unique maximum-likelihood ratings: a perfect score (a player or group "
    "winning or losing all its games) or a player seen with one colour only; "
    "use prior_draws > 0"
)

#: A cell is (red index, black index) -> [games, red points].
Cells = dict[tuple[int, int], list[float]]


def _log_sigmoid(x: float) -> float:
    """``ln sigma(x)`` without overflow."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def log_likelihood(cells: Cells, beta: Sequence[float], h: float) -> float:
    total = 0.0
    for (i, j), (n, s) in cells.items():
        x = beta[i] - beta[j] + h
        total += s * _log_sigmoid(x) + (n - s) * _log_sigmoid(-x)
    return total


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve ``A x = b`` by Gaussian elimination with partial pivoting."""
    n = len(rhs)
    a = [[*row, b] for row, b in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ValueError("singular information matrix: ratings are not identifiable")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def _information(
    cells: Cells, beta: Sequence[float], h: float, free: Sequence[int], n_players: int
) -> tuple[list[list[float]], list[float]]:
    """Observed information matrix and score vector over (free ratings..., h)."""
    pos = [-1] * n_players
    for k, p in enumerate(free):
        pos[p] = k
    m = len(free) + 1
    hk = m - 1
    info = [[0.0] * m for _ in range(m)]
    grad = [0.0] * m
    for (i, j), (n, s) in cells.items():
        mu = _sigmoid(beta[i] - beta[j] + h)
        g = s - n * mu
        w = n * mu * (1.0 - mu)
        # d x / d(beta_i, beta_j, h) = (+1, -1, +1)
        terms = [(pos[i], 1.0), (pos[j], -1.0), (hk, 1.0)]
        for a, sa in terms:
            if a < 0:
                continue
            grad[a] += sa * g
            for b, sb in terms:
                if b >= 0:
                    info[a][b] += sa * sb * w
    return info, grad


def newton(
    cells: Cells, n_players: int, anchor: int, start: Sequence[float] | None = None
) -> tuple[list[float], float, int]:
    """Maximise the log-likelihood; returns (beta, h, iterations)."""
    free = [p for p in range(n_players) if p != anchor]
    beta = [0.0] * n_players if start is None else list(start[:n_players])
    h = 0.0 if start is None else start[n_players]
    current = log_likelihood(cells, beta, h)
    for iteration in range(1, _MAX_NEWTON_STEPS + 1):
        info, grad = _information(cells, beta, h, free, n_players)
        try:
            step = _solve(info, grad)
        except ValueError:
            raise ValueError(_NO_MLE) from None
        scale = 1.0
        while True:
            trial = beta[:]
            for k, p in enumerate(free):
                trial[p] += scale * step[k]
            trial_h = h + scale * step[-1]
            value = log_likelihood(cells, trial, trial_h)
            if value >= current - 1e-12 * abs(current) or scale < 1e-12:
                break
            scale /= 2.0
        beta, h, current = trial, trial_h, value
        if max(abs(s) for s in step) * scale < 1e-10:
            return beta, h, iteration
    raise ValueError(_NO_MLE)


def covariance(
    cells: Cells, beta: Sequence[float], h: float, n_players: int, anchor: int
) -> list[list[float]]:
    """The inverse information: covariances of (beta_0..beta_{n-1}, h), the anchor's
    row and column 0."""
    free = [p for p in range(n_players) if p != anchor]
    info, _ = _information(cells, beta, h, free, n_players)
    m = len(info)
    target = [*free, n_players]
    cov = [[0.0] * (n_players + 1) for _ in range(n_players + 1)]
    for k in range(m):
        unit = [0.0] * m
        unit[k] = 1.0
        col = _solve(info, unit)
        for r in range(m):
            cov[target[r]][target[k]] = col[r]
    return cov
