"""Whole-ladder ratings: a Bradley-Terry fit with a first-move (Red) advantage.

Model
-----
Every player ``i`` has a strength ``beta_i`` and Red has an extra ``h``; in a game with
``i`` as Red and ``j`` as Black, Red's expected score is::

    mu_ij = sigma(beta_i - beta_j + h),      sigma(x) = 1 / (1 + e^-x)

which is the logistic Elo curve ``1 / (1 + 10^(-d/400))`` with ``d = x * 400 / ln 10``;
ratings are reported on that Elo scale.  Draws count as half points: a game with Red
score ``r`` in {1, 1/2, 0} contributes the (quasi-)log-likelihood::

    r * ln mu_ij + (1 - r) * ln(1 - mu_ij)

(the "draws as half a win and half a loss" treatment; Ordo does the same, BayesElo
instead models draws with an extra ``drawelo`` parameter).  The log-likelihood is
concave, so we maximise it by Newton's method with step halving, working with per-
(Red, Black) totals of games and points
(:mod:`~ladder.match.statistics.bradley_terry_newton`).  The scale has no origin, so
the ``anchor`` player's rating is fixed at 0.

Perfect scores and the prior
----------------------------
A player who won (or lost) every game has no finite maximum-likelihood rating, and a
Red side that won everything has no finite ``h``.  Following BayesElo's "virtual draws"
prior, each *pair of players who met* gets ``prior_draws`` extra drawn games (half with
each colour; default 1).  That pulls ratings of opponents slightly towards each other --
by roughly ``prior_draws / (games between them)`` of a draw's worth, negligible for real
samples -- and keeps every estimate finite.  ``prior_draws=0`` gives the plain MLE (and
an error if it does not exist).  The comparison graph (who played whom) must be
connected, otherwise the relative ratings of the parts are undetermined: that is an
error too.

Uncertainty
-----------
``stderr`` is the asymptotic standard error from the inverse observed information
(Bernoulli variance ``mu (1 - mu)`` per game -- conservative when there are draws, which
have less variance).  :func:`fit_ladder` with ``bootstrap=B`` also resamples the games in
*units* -- game pairs (games sharing a ``GameResult.pair`` key), or single games without
a key -- with replacement, refits ``B`` times (seeded) and reports percentile intervals.
Resampling pairs rather than games keeps the within-pair correlation (same opening,
colours reversed) in the bootstrap world.  The prior's virtual draws are part of the
model and stay fixed across replicates.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict, deque
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ladder.match.statistics.bradley_terry_newton import Cells, covariance, log_likelihood, newton
from ladder.match.statistics.elo import normal_quantile

__all__ = [
    "ELO_PER_LOGIT",
    "Difference",
    "GameResult",
    "LadderFit",
    "PlayerRating",
    "fit_ladder",
]

#: Elo points per natural-log-odds unit: 400 / ln(10) = 173.7178...
ELO_PER_LOGIT: float = 400.0 / math.log(10.0)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: Red player, Black player, Red's score (1, 0.5 or 0).

    ``pair`` groups the games of a game pair (same opening, colours reversed) for the
    bootstrap; any hashable key works (e.g. ``(match_id, opening_index)``).
    """

    red: str
    black: str
    result: float
    pair: Hashable | None = None

    def __post_init__(self) -> None:
        if self.result not in (0.0, 0.5, 1.0):
            raise ValueError(f"result must be 1, 0.5 or 0 (Red's score), got {self.result!r}")
        if self.red == self.black:
            raise ValueError(f"player {self.red!r} cannot play itself")


@dataclass(frozen=True, slots=True)
class PlayerRating:
    name: str
    elo: float
    lo: float
    hi: float
    stderr: float
    games: int


@dataclass(frozen=True, slots=True)
class LadderFit:
    """Result of :func:`fit_ladder`.  All figures are logistic Elo, anchor = 0."""

    anchor: str
    ratings: dict[str, PlayerRating]
    red_advantage: float
    red_advantage_lo: float
    red_advantage_hi: float
    red_advantage_stderr: float
    games: int
    confidence: float
    interval: Literal["wald", "bootstrap"]
    bootstrap_samples: int
    prior_draws: float
    log_likelihood: float
    newton_iterations: int
    #: Covariance of two players' ratings (Elo squared), from the inverse information.
    covariance: dict[tuple[str, str], float] = field(default_factory=dict)
    #: Each player's rating in every bootstrap replicate (empty without a bootstrap).
    replicates: dict[str, tuple[float, ...]] = field(default_factory=dict)

    def ranking(self) -> list[PlayerRating]:
        """Players from strongest to weakest."""
        return sorted(self.ratings.values(), key=lambda r: r.elo, reverse=True)

    def difference(self, a: str, b: str) -> Difference:
        """``a``'s rating minus ``b``'s, with its interval: from the bootstrap replicates
        when there are any (the same replicate for both), else Wald from the covariance
        (adjacent ladder levels share games, so their ratings are correlated and the
        difference is known better than either rating)."""
        ra, rb = self.ratings[a], self.ratings[b]
        var = (
            self.covariance.get((a, a), ra.stderr**2)
            + self.covariance.get((b, b), rb.stderr**2)
            - 2 * self.covariance.get((a, b), 0.0)
        )
        stderr = math.sqrt(max(var, 0.0))
        diff = ra.elo - rb.elo
        if self.replicates:
            values = sorted(
                x - y for x, y in zip(self.replicates[a], self.replicates[b], strict=True)
            )
            tail = (1.0 - self.confidence) / 2.0
            lo, hi = _percentile(values, tail), _percentile(values, 1.0 - tail)
        else:
            z = normal_quantile(0.5 + self.confidence / 2.0)
            lo, hi = diff - z * stderr, diff + z * stderr
        return Difference(diff, lo, hi, stderr)


@dataclass(frozen=True, slots=True)
class Difference:
    """One rating minus another, with its interval (Elo)."""

    elo: float
    lo: float
    hi: float
    stderr: float


# --------------------------------------------------------------------------------------
# Public entry point


def _check_connected(n_players: int, edges: Iterable[tuple[int, int]], names: list[str]) -> None:
    adjacent: dict[int, set[int]] = defaultdict(set)
    for i, j in edges:
        adjacent[i].add(j)
        adjacent[j].add(i)
    seen = {0}
    queue = deque([0])
    while queue:
        for nxt in adjacent[queue.popleft()] - seen:
            seen.add(nxt)
            queue.append(nxt)
    if len(seen) != n_players:
        missing = sorted(names[p] for p in range(n_players) if p not in seen)
        raise ValueError(f"comparison graph is not connected: {missing} not linked to {names[0]!r}")


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (``numpy.percentile``'s default)."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (pos - lo) * (sorted_values[hi] - sorted_values[lo])


def fit_ladder(
    games: Sequence[GameResult],
    anchor: str = "random",
    *,
    prior_draws: float = 1.0,
    confidence: float = 0.95,
    bootstrap: int = 0,
    seed: int = 0,
) -> LadderFit:
    """Fit Elo ratings (``anchor`` = 0) and the Red advantage to ``games``.

    With ``bootstrap=0`` the intervals are Wald intervals ``elo +- z * stderr``; with
    ``bootstrap=B > 0`` they are percentile intervals from ``B`` refits on game-pair
    resamples drawn with ``random.Random(seed)``.
    """
    if not games:
        raise ValueError("no games")
    if prior_draws < 0:
        raise ValueError("prior_draws must be >= 0")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")

    names = _players(games, anchor)
    index = {name: k for k, name in enumerate(names)}
    n_players = len(names)

    coded = [(index[g.red], index[g.black], g.result) for g in games]
    met = {(min(i, j), max(i, j)) for i, j, _ in coded}
    _check_connected(n_players, met, names)

    prior: Cells = {}
    if prior_draws > 0:
        for i, j in met:
            for red, black in ((i, j), (j, i)):
                prior[(red, black)] = [prior_draws / 2.0, prior_draws / 4.0]
    cells = _aggregate(prior, coded)
    beta, h, iterations = newton(cells, n_players, anchor=0)
    cov = covariance(cells, beta, h, n_players, anchor=0)
    elo = [b * ELO_PER_LOGIT for b in beta] + [h * ELO_PER_LOGIT]
    stderr = [math.sqrt(max(cov[p][p], 0.0)) * ELO_PER_LOGIT for p in range(n_players + 1)]
    stderr[0] = 0.0

    draws: list[list[float]] = []
    if bootstrap > 0:
        draws = _bootstrap_draws(games, coded, prior, [*beta, h], bootstrap, seed)
        tail = (1.0 - confidence) / 2.0
        bounds = []
        for values in draws:
            values.sort()
            bounds.append((_percentile(values, tail), _percentile(values, 1.0 - tail)))
        interval: Literal["wald", "bootstrap"] = "bootstrap"
    else:
        z = normal_quantile(0.5 + confidence / 2.0)
        bounds = [(e - z * s, e + z * s) for e, s in zip(elo, stderr, strict=True)]
        interval = "wald"

    return LadderFit(
        anchor=anchor,
        ratings=_ratings(names, coded, elo, bounds, stderr),
        red_advantage=elo[n_players],
        red_advantage_lo=bounds[n_players][0],
        red_advantage_hi=bounds[n_players][1],
        red_advantage_stderr=stderr[n_players],
        games=len(games),
        confidence=confidence,
        interval=interval,
        bootstrap_samples=bootstrap,
        prior_draws=prior_draws,
        log_likelihood=log_likelihood(cells, beta, h),
        newton_iterations=iterations,
        covariance={
            (names[p], names[q]): cov[p][q] * ELO_PER_LOGIT**2
            for p in range(n_players)
            for q in range(n_players)
        },
        replicates={names[p]: tuple(draws[p]) for p in range(n_players)} if draws else {},
    )


def _players(games: Sequence[GameResult], anchor: str) -> list[str]:
    """The players' names, sorted, the anchor first (index 0)."""
    names = sorted({g.red for g in games} | {g.black for g in games})
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} played no games")
    names.remove(anchor)
    names.insert(0, anchor)
    return names


def _aggregate(prior: Cells, sample: Iterable[tuple[int, int, float]]) -> Cells:
    """The cells of ``sample`` (red, black, Red's score), on top of a copy of ``prior``."""
    cells: Cells = {key: value[:] for key, value in prior.items()}
    for i, j, r in sample:
        cell = cells.setdefault((i, j), [0.0, 0.0])
        cell[0] += 1.0
        cell[1] += r
    return cells


def _bootstrap_draws(
    games: Sequence[GameResult],
    coded: Sequence[tuple[int, int, float]],
    prior: Cells,
    start: list[float],
    bootstrap: int,
    seed: int,
) -> list[list[float]]:
    """Each player's Elo (and last, the Red advantage) in ``bootstrap`` refits on game-pair
    resamples drawn with ``random.Random(seed)``, each refit starting from ``start``."""
    n_players = len(start) - 1
    units: dict[Hashable, list[tuple[int, int, float]]] = defaultdict(list)
    for k, (g, c) in enumerate(zip(games, coded, strict=True)):
        units[("pair", g.pair) if g.pair is not None else ("game", k)].append(c)
    unit_list = list(units.values())
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(n_players + 1)]
    for _ in range(bootstrap):
        picked = rng.choices(unit_list, k=len(unit_list))
        b_beta, b_h, _ = newton(
            _aggregate(prior, (c for unit in picked for c in unit)), n_players, 0, start
        )
        for p in range(n_players):
            draws[p].append(b_beta[p] * ELO_PER_LOGIT)
        draws[n_players].append(b_h * ELO_PER_LOGIT)
    return draws


def _ratings(
    names: list[str],
    coded: Sequence[tuple[int, int, float]],
    elo: list[float],
    bounds: list[tuple[float, float]],
    stderr: list[float],
) -> dict[str, PlayerRating]:
    """Each player's rating, interval and games."""
    game_counts = [0] * len(names)
    for i, j, _ in coded:
        game_counts[i] += 1
        game_counts[j] += 1
    return {
        name: PlayerRating(
            name=name,
            elo=elo[p],
            lo=bounds[p][0],
            hi=bounds[p][1],
            stderr=stderr[p],
            games=game_counts[p],
        )
        for p, name in enumerate(names)
    }
