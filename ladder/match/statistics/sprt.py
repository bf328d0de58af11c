"""Generalised sequential probability ratio test (GSPRT), as fishtest and fastchess run it.

The test
--------
Two hypotheses about the true Elo difference: ``H0: elo = elo0`` against
``H1: elo = elo1`` (``elo0 < elo1``).  After each batch of games we compute the log
likelihood ratio ``LLR`` of H1 over H0 and stop when it leaves the interval::

    lower = ln(beta / (1 - alpha))      upper = ln((1 - beta) / alpha)

(Wald's bounds; ``alpha`` = P(accept H1 | H0), ``beta`` = P(accept H0 | H1)).
``LLR >= upper`` accepts H1, ``LLR <= lower`` accepts H0, otherwise we continue.  For
``alpha = beta = 0.05`` the bounds are ``+-ln(19) = +-2.944``.  (fishtest additionally
corrects the bounds for the expected overshoot of the last batch; fastchess and this
module do not.)

The *generalised* LLR
---------------------
The outcome distribution (trinomial: L/D/W; pentanomial: the five pair buckets) has
more parameters than the Elo difference, so the hypotheses are composite.  The GSPRT
replaces each by its *maximum-likelihood* member given the data ``p_hat`` (empirical
frequencies over ``N`` samples, outcome values ``a_i`` scaled to [0, 1] -- 0, 1/2, 1
for games; 0, 1/4, 1/2, 3/4, 1 for pairs)::

    LLR = N * sum_i p_hat_i * (ln p1_i - ln p0_i)

where ``pK`` maximises ``sum_i p_hat_i ln p_i`` subject to the hypothesis.

``model="logistic"`` (default) -- fishtest ``LLRcalc.LLR_logistic``, fastchess
``getLLR_logistic``.  The hypothesis fixes the expected score, ``E_p[a] = sK = L(eloK)``
with ``L(d) = 1/(1 + 10^(-d/400))``.  By Lagrange multipliers (Van den Bergh,
https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf, Prop. 1.1) the maximiser
is ``p_i = p_hat_i / (1 + theta (a_i - s))`` where ``theta`` is the root of the
"secular equation" ``sum_i p_hat_i (a_i - s) / (1 + theta (a_i - s)) = 0`` on
``(-1/(1-s), 1/s)``, on which the left side decreases monotonically; we find it by
bisection (fishtest uses Brent, fastchess ITP: same root).

``model="normalized"`` -- fishtest ``LLRcalc.LLR_normalized``, fastchess
``getLLR_normalized``.  The hypothesis fixes the t-value ``(E_p[a] - 1/2) / sd_p(a) =
tK`` with ``tK = neloK / (800/ln 10)`` for games and ``sqrt(2) * neloK / (800/ln 10)``
for pairs (a pair mean has half the per-game variance).  The maximiser is found by the
fixed-point iteration of Van den Bergh, "Normalized Elo"
(https://www.cantate.be/Fishtest/normalized_elo_practical.pdf, Sec. 4.1), started from
the uniform distribution, each step solving a secular equation in
``phi_i = a_i - 1/2 - t * sigma * (1 + ((mu - a_i)/sigma)^2) / 2``.  We iterate to
convergence (1e-12) rather than fishtest's 10 steps / fastchess's 1e-4.

Both programs *regularise* first: an empty bucket is given a count of 1e-3 (fishtest
``LLRcalc.regularize``; fastchess ``regularize``), and ``N`` is the regularised total.
We do the same.  Unlike fastchess (ITP with tolerances 1e-7 / 1e-4), we
solve to machine precision; the results agree with fastchess's published test values to
their 2 decimals except in degenerate samples (e.g. all draws), where the regularised
buckets of mass ``1e-3/N`` make loose root-finding inaccurate.

:func:`llr_logistic_approx` is the closed-form Brownian approximation
(fishtest ``LLR_alt2``, Van den Bergh https://www.cantate.be/Fishtest/GSPRT_approximation.pdf)::

    LLR ~= N * (s1 - s0) * (2 s_hat - s0 - s1) / (2 var_hat)

which agrees with the exact logistic LLR to first order for small Elo differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ladder.match.statistics.elo import NELO_PER_T, elo_to_score
from ladder.match.statistics.results import Pentanomial, Trinomial

__all__ = [
    "REGULARIZATION",
    "Sprt",
    "SprtDecision",
    "SprtModel",
    "SprtResult",
    "llr_logistic",
    "llr_logistic_approx",
    "llr_normalized",
    "mle_with_expectation",
    "mle_with_t_value",
    "sprt",
    "sprt_bounds",
]

SprtModel = Literal["logistic", "normalized"]
Counts = Pentanomial | Trinomial | Sequence[float]

#: Count given to empty buckets before computing an LLR (fishtest / fastchess: 1e-3).
REGULARIZATION: float = 1e-3


class SprtDecision(StrEnum):
    H0 = "H0"
    """LLR <= lower bound: accept H0 (elo = elo0), i.e. "rejected" in fishtest."""
    H1 = "H1"
    """LLR >= upper bound: accept H1 (elo = elo1), i.e. "accepted" in fishtest."""
    CONTINUE = "continue"


# --------------------------------------------------------------------------------------
# Empirical distributions


def _counts_list(counts: Counts) -> list[float]:
    if isinstance(counts, Pentanomial | Trinomial):
        values = [float(c) for c in counts.as_list()]
    else:
        values = [float(c) for c in counts]
    if len(values) not in (3, 5):
        raise ValueError(
            "need trinomial [L, D, W] or pentanomial [LL, LD, DD+WL, WD, WW] counts, "
            f"got {len(values)} numbers"
        )
    if min(values) < 0:
        raise ValueError("counts must be non-negative")
    return values


def _regularized_pdf(counts: Counts) -> tuple[float, list[float], list[float]]:
    """fishtest ``results_to_pdf``: ``(N, values a_i in [0,1], frequencies p_hat_i)``."""
    raw = _counts_list(counts)
    reg = [c if c != 0 else REGULARIZATION for c in raw]
    total = sum(reg)
    k = len(reg)
    return total, [i / (k - 1) for i in range(k)], [c / total for c in reg]


def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * a for a, p in zip(values, probs, strict=True))
    var = sum(p * (a - mu) ** 2 for a, p in zip(values, probs, strict=True))
    return mu, var


def _solve_secular(probs: Sequence[float], shifts: Sequence[float]) -> float:
    """Root ``x`` of ``f(x) = sum_i p_i c_i / (1 + x c_i)`` with ``c = shifts``.

    ``f`` is strictly decreasing on ``(-1/max c, -1/min c)`` (``f' = -sum p c^2/(1+xc)^2``)
    and runs from +inf to -inf there, provided ``min c < 0 < max c``.  Plain bisection on
    the open interval, to machine precision.
    """
    lo_c, hi_c = min(shifts), max(shifts)
    if not lo_c < 0.0 < hi_c:
        raise ValueError("secular equation has no root: shifts do not straddle 0")
    lo, hi = -1.0 / hi_c, -1.0 / lo_c

    def f(x: float) -> float:
        return sum(p * c / (1.0 + x * c) for p, c in zip(probs, shifts, strict=True))

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):  # interval no longer representable: converged
            break
        value = f(mid)
        if value > 0.0:
            lo = mid
        elif value < 0.0:
            hi = mid
        else:
            return mid
    return 0.5 * (lo + hi)


def mle_with_expectation(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """Most likely distribution on ``values`` with mean ``s``, given frequencies ``probs``.

    fishtest ``LLRcalc.MLE_expected``: ``p_i = p_hat_i / (1 + theta (a_i - s))``.
    """
    shifts = [a - s for a in values]
    theta = _solve_secular(probs, shifts)
    return [p / (1.0 + theta * c) for p, c in zip(probs, shifts, strict=True)]


def mle_with_t_value(
    values: Sequence[float],
    probs: Sequence[float],
    t: float,
    ref: float = 0.5,
    tol: float = 1e-12,
    max_iter: int = 1000,
) -> list[float]:
    """Most likely distribution with ``(mean - ref) / sd = t``, given frequencies ``probs``.

    fishtest ``LLRcalc.MLE_t_value`` (Van den Bergh, "Normalized Elo", Sec. 4.1).
    """
    k = len(values)
    p = [1.0 / k] * k
    for _ in range(max_iter):
        mu, var = _mean_var(values, p)
        sigma = math.sqrt(var)
        phi = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in values]
        theta = _solve_secular(probs, phi)
        new = [ph / (1.0 + theta * c) for ph, c in zip(probs, phi, strict=True)]
        change = max(abs(x - y) for x, y in zip(new, p, strict=True))
        p = new
        if change < tol:
            break
    return p


def _llr(total: float, probs: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> float:
    return total * sum(
        ph * (math.log(b) - math.log(a)) for ph, a, b in zip(probs, p0, p1, strict=True)
    )


# --------------------------------------------------------------------------------------
# LLRs


def llr_logistic(counts: Counts, elo0: float, elo1: float) -> float:
    """Generalised LLR of ``elo = elo1`` vs ``elo = elo0`` (logistic Elo), exact MLE.

    fishtest ``LLRcalc.LLR_logistic`` / fastchess ``SPRT::getLLR_logistic``.
    """
    total, values, probs = _regularized_pdf(counts)
    p0 = mle_with_expectation(values, probs, elo_to_score(elo0))
    p1 = mle_with_expectation(values, probs, elo_to_score(elo1))
    return _llr(total, probs, p0, p1)


def llr_normalized(counts: Counts, nelo0: float, nelo1: float) -> float:
    """Generalised LLR of ``nelo = nelo1`` vs ``nelo = nelo0`` (normalised Elo).

    fishtest ``LLRcalc.LLR_normalized`` / fastchess ``SPRT::getLLR_normalized``.
    """
    total, values, probs = _regularized_pdf(counts)
    scale = 1.0 if len(values) == 3 else math.sqrt(2.0)
    t0, t1 = (scale * nelo / NELO_PER_T for nelo in (nelo0, nelo1))
    p0 = mle_with_t_value(values, probs, t0)
    p1 = mle_with_t_value(values, probs, t1)
    return _llr(total, probs, p0, p1)


def llr_logistic_approx(counts: Counts, elo0: float, elo1: float) -> float:
    """Brownian approximation ``N (s1 - s0)(2 s_hat - s0 - s1) / (2 var_hat)`` (fishtest
    ``LLR_alt2``), on the same regularised counts as :func:`llr_logistic`."""
    total, values, probs = _regularized_pdf(counts)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    s_hat, var_hat = _mean_var(values, probs)
    return total * (s1 - s0) * (2.0 * s_hat - s0 - s1) / (2.0 * var_hat)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(beta/(1-alpha)), ln((1-beta)/alpha))``."""
    _check_error_rates(alpha, beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _check_error_rates(alpha: float, beta: float) -> None:
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError(f"alpha and beta must lie in (0, 1), got {alpha!r}, {beta!r}")
    if alpha + beta >= 1.0:
        raise ValueError("alpha + beta must be < 1")


# --------------------------------------------------------------------------------------
# The test


@dataclass(frozen=True, slots=True)
class SprtResult:
    llr: float
    lower_bound: float
    upper_bound: float
    decision: SprtDecision
    samples: int
    """Pairs (pentanomial counts) or games (trinomial counts) behind the LLR."""


@dataclass(frozen=True, slots=True)
class Sprt:
    """A GSPRT configuration; :meth:`evaluate` applies it to the counts so far.

    ``elo0``/``elo1`` are logistic Elo for ``model="logistic"`` and normalised Elo for
    ``model="normalized"``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: SprtModel = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"need elo0 < elo1, got {self.elo0!r}, {self.elo1!r}")
        _check_error_rates(self.alpha, self.beta)
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"unknown SPRT model {self.model!r}")

    @property
    def lower_bound(self) -> float:
        return sprt_bounds(self.alpha, self.beta)[0]

    @property
    def upper_bound(self) -> float:
        return sprt_bounds(self.alpha, self.beta)[1]

    def llr(self, counts: Counts) -> float:
        fn: Callable[[Counts, float, float], float] = (
            llr_logistic if self.model == "logistic" else llr_normalized
        )
        return fn(counts, self.elo0, self.elo1)

    def evaluate(self, counts: Counts) -> SprtResult:
        samples = int(sum(_counts_list(counts)))
        lower, upper = sprt_bounds(self.alpha, self.beta)
        llr = 0.0 if samples == 0 else self.llr(counts)
        if llr >= upper:
            decision = SprtDecision.H1
        elif llr <= lower:
            decision = SprtDecision.H0
        else:
            decision = SprtDecision.CONTINUE
        return SprtResult(
            llr=llr, lower_bound=lower, upper_bound=upper, decision=decision, samples=samples
        )


def sprt(
    counts: Counts,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: SprtModel = "logistic",
) -> SprtResult:
    """One-shot GSPRT evaluation: ``Sprt(elo0, elo1, alpha, beta, model).evaluate(counts)``."""
    return Sprt(elo0, elo1, alpha, beta, model).evaluate(counts)
