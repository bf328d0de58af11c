"""Elo, normalised Elo, confidence intervals and LOS for a head-to-head match.

Logistic Elo
------------
An Elo difference ``d`` predicts the expected score ``s`` of the stronger side::

    s = L(d) = 1 / (1 + 10^(-d/400))        d = L^-1(s) = -400 * log10(1/s - 1)

(e.g. s = 0.7 gives d = 147.19).  This is the "logistic Elo" of fishtest
(``stat_util.elo`` / ``L``) and fastchess (``scoreToEloDiff``).

Error bars
----------
The match score is a mean of i.i.d. samples, so by the CLT its standard error is
``sqrt(var / n)``.  What a "sample" is depends on the model:

* **trinomial** -- a sample is one game with value 1, 1/2 or 0; ``n`` is the number of
  games and ``var = W(1-s)^2 + D(1/2-s)^2 + L(0-s)^2`` with W, D, L the empirical
  frequencies (fastchess ``EloWDL::calcVariance``).
* **pentanomial** -- a sample is one game *pair*, valued at its mean score per game,
  i.e. 0, 1/4, 1/2, 3/4 or 1; ``n`` is the number of pairs and
  ``var = sum_i p_i (a_i - s)^2`` over the five buckets (fastchess
  ``EloPentanomial::calcVariance``; fishtest ``stat_util.stats`` gives the same standard
  error).  Correlation between the two games of a pair is thereby accounted for.

The plain interval ``s +- z * sqrt(var/n)`` (``z = Phi^-1(0.975) = 1.96`` for 95 %;
fishtest's and fastchess's) collapses on small or lopsided samples: two pairs that split
their wins have ``var = 0`` and print ``+0.0 +- 0.0``, and a short sweep has no width
either; simulated, it covers the true score in 12-50 % of such matches. So the interval
here is Agresti-Coull's: ``z^2 / 2`` pseudo-samples are added, half at each extreme
(value 0 and value 1: ``z^2 / 4`` = 0.96 of a sample each), and the interval is the
plain one of the counts so padded, widened to hold the observed score. Simulated over
scores 50-97 %, draw rates 0 and 50 % and 2-100 pairs, sweeps included, it covers 89-100 %
(95 % from about 30 pairs on; wider than needed, never collapsed, on the smallest
samples): ``tests/match/statistics/test_elo.py``. ``small_sample`` says when fewer than
:data:`SMALL_SAMPLE` samples stand behind it. The score interval is mapped through
``L^-1``; because ``L^-1`` is non-linear the Elo interval is asymmetric. The
conventional "+-" figure is half its width, ``(L^-1(s_hi) - L^-1(s_lo)) / 2`` (fishtest
``get_elo``'s ``elo95``, fastchess ``error_``). A bound at a score of 0 or 1 is infinite.
The point estimate, ``var`` and ``stderr`` (and so LOS) are those of the counts.

Normalised Elo
--------------
Normalised Elo measures the score excess in units of its per-game standard deviation
(Van den Bergh, "Normalized Elo", https://www.cantate.be/Fishtest/normalized_elo_practical.pdf)::

    nElo = (s - 1/2) / sigma_game * 800 / ln(10)

with ``sigma_game = sqrt(var)`` for the trinomial model and
``sigma_game = sqrt(2 * var_pair)`` for the pentanomial one (``var_pair`` being the
variance of a pair's *mean* score, so ``2 * var_pair`` is the per-game variance that
would give the same standard error for ``2n`` independent games).  The factor
``800/ln 10 = 347.44`` makes nElo agree with logistic Elo at small differences when
games are never drawn.  This is exactly fastchess's ``scoreToNeloDiff`` (``(score -
0.5) / sqrt(2 * variance) * (800 / log(10))`` for pairs) and fishtest's
``LLRcalc.nelo_divided_by_nt`` / ``LLR_normalized_alt`` convention (``sigma_pg =
sqrt(2 * var)`` for pentanomial results).  Its 95 % "+-" is ``z / sqrt(games) *
800/ln 10`` (``games = 2 * pairs`` for pentanomial) -- independent of the data.

LOS
---
Likelihood of superiority: the (approximate, Bayesian flat-prior) probability that A is
really the stronger player.  Two variants are provided:

* :func:`los` -- the classical cutechess/BayesElo formula from wins and losses only
  (draws carry no information about who is stronger)::

      LOS = Phi((W - L) / sqrt(W + L)) = 1/2 * (1 + erf((W - L) / sqrt(2 (W + L))))

* :attr:`EloEstimate.los` -- fishtest/fastchess's score-based version
  ``Phi((s - 1/2) / stderr)`` using the model's standard error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from ladder.match.statistics.results import PAIR_SCORES, Pentanomial, Trinomial

__all__ = [
    "NELO_PER_T",
    "SMALL_SAMPLE",
    "EloEstimate",
    "elo_to_score",
    "los",
    "normal_cdf",
    "normal_quantile",
    "pentanomial_elo",
    "score_to_elo",
    "trinomial_elo",
    "wilson",
]

#: Fewer samples (games, or pairs) than this: the estimate is flagged ``small_sample``.
SMALL_SAMPLE = 10

#: 800 / ln(10) = 347.4355855...: converts a t-value (score excess / sigma) to nElo.
NELO_PER_T: float = 800.0 / math.log(10.0)

_STD_NORMAL = NormalDist()


def normal_cdf(x: float) -> float:
    """Standard normal CDF ``Phi(x) = (1 + erf(x / sqrt 2)) / 2``."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def normal_quantile(p: float) -> float:
    """Inverse standard normal CDF, ``Phi^-1(p)`` (``Phi^-1(0.975) = 1.95996...``)."""
    return _STD_NORMAL.inv_cdf(p)


def elo_to_score(elo: float) -> float:
    """Expected score for an Elo advantage: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


#: How far outside [0, 1] a score may be by floating-point rounding alone.
_ROUNDING = 1e-9


def score_to_elo(score: float) -> float:
    """Logistic Elo for a mean score: ``-400 * log10(1/score - 1)``.

    Returns ``-inf`` / ``+inf`` for a score of exactly 0 / 1; raises ``ValueError``
    outside [0, 1].
    """
    if not -_ROUNDING <= score <= 1.0 + _ROUNDING or math.isnan(score):
        raise ValueError(f"score must be in [0, 1], got {score!r}")
    # a mean or a bound computed in floating point can land a rounding error outside
    score = min(1.0, max(0.0, score))
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from wins and losses: ``Phi((W - L) / sqrt(W + L))``.

    Draws are ignored (they say nothing about which side is stronger).  With no decisive
    games the answer is 1/2.  Example: W=10, L=5 gives ``Phi(5/sqrt(15)) = 0.9016``.
    """
    if wins < 0 or losses < 0:
        raise ValueError("counts must be non-negative")
    if wins + losses == 0:
        return 0.5
    return normal_cdf((wins - losses) / math.sqrt(wins + losses))


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95 % interval of a score over ``games`` games (draws as half points:
    conservative, a draw has less variance than a win or a loss)."""
    if games == 0:
        return 0.0, 1.0
    d = 1 + z * z / games
    c = score + z * z / (2 * games)
    h = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games))
    return (c - h) / d, (c + h) / d


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """Elo estimate for one side of a match, with confidence bounds.

    ``samples`` is the number of i.i.d. samples behind the estimate (games for the
    trinomial model, game pairs for the pentanomial one) and ``variance`` the per-sample
    variance of the score (see the module docstring).
    """

    model: Literal["trinomial", "pentanomial"]
    samples: int
    games: int
    confidence: float
    score: float
    variance: float
    stderr: float
    score_lo: float
    score_hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    elo_error: float
    """Half-width ``(elo_hi - elo_lo) / 2`` -- the conventional "+-" figure."""
    nelo: float
    nelo_error: float
    los: float
    """Score-based LOS ``Phi((score - 1/2) / stderr)`` (fishtest/fastchess)."""
    draw_ratio: float | None
    """``D / N`` for the trinomial model; ``None`` for pentanomial counts (which merge
    DD with WL and so do not determine the number of drawn games)."""
    small_sample: bool = False
    """Fewer than :data:`SMALL_SAMPLE` samples: the interval is wide and rough."""


def _estimate(
    model: Literal["trinomial", "pentanomial"],
    values: tuple[float, ...],
    counts: list[int],
    games: int,
    confidence: float,
    draw_ratio: float | None,
) -> EloEstimate:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    n = sum(counts)
    if n == 0:
        raise ValueError("no results")
    freqs = [c / n for c in counts]
    score = sum(p * a for p, a in zip(freqs, values, strict=True))
    variance = sum(p * (a - score) ** 2 for p, a in zip(freqs, values, strict=True))
    stderr = math.sqrt(variance / n)
    z = normal_quantile(0.5 + confidence / 2.0)
    score_lo, score_hi = _padded_interval(values, counts, z, score)
    elo_lo, elo_hi = score_to_elo(score_lo), score_to_elo(score_hi)

    # Per-game sigma: sqrt(var) per game, or sqrt(2 var) for the mean of a pair.
    sigma_game = math.sqrt(variance if model == "trinomial" else 2.0 * variance)
    if sigma_game > 0.0:
        nelo = (score - 0.5) / sigma_game * NELO_PER_T
        nelo_error = z / math.sqrt(games) * NELO_PER_T
        los_value = normal_cdf((score - 0.5) / stderr)
    else:  # every sample identical: no spread to normalise by
        nelo = math.nan
        nelo_error = math.nan
        los_value = 0.5 if score == 0.5 else float(score > 0.5)
    return EloEstimate(
        model=model,
        samples=n,
        games=games,
        confidence=confidence,
        score=score,
        variance=variance,
        stderr=stderr,
        score_lo=score_lo,
        score_hi=score_hi,
        elo=score_to_elo(score),
        elo_lo=elo_lo,
        elo_hi=elo_hi,
        elo_error=(elo_hi - elo_lo) / 2.0,
        nelo=nelo,
        nelo_error=nelo_error,
        los=los_value,
        draw_ratio=draw_ratio,
        small_sample=n < SMALL_SAMPLE,
    )


def _padded_interval(
    values: tuple[float, ...], counts: list[int], z: float, score: float
) -> tuple[float, float]:
    """Agresti-Coull's score interval: the plain one with ``z^2 / 4`` pseudo-samples at
    value 0 and as many at value 1 (see the module docstring), holding ``score``."""
    pad = z * z / 4.0
    n = sum(counts) + 2.0 * pad
    mean = (sum(c * a for c, a in zip(counts, values, strict=True)) + pad) / n
    spread = sum(c * (a - mean) ** 2 for c, a in zip(counts, values, strict=True))
    variance = (spread + pad * mean**2 + pad * (1.0 - mean) ** 2) / n
    half = z * math.sqrt(variance / n)
    return max(0.0, min(score, mean - half)), min(1.0, max(score, mean + half))


def trinomial_elo(counts: Trinomial, confidence: float = 0.95) -> EloEstimate:
    """Elo, CI, nElo and LOS treating every game as an independent sample.

    Example: 60 W, 20 D, 20 L gives score 0.7, Elo 147.19, per-game variance 0.16,
    stderr 0.04, nElo ``0.2 / 0.4 * 347.44 = 173.72``.
    """
    if counts.games == 0:
        raise ValueError("no games")
    return _estimate(
        "trinomial",
        (0.0, 0.5, 1.0),
        counts.as_list(),
        counts.games,
        confidence,
        counts.draw_ratio,
    )


def pentanomial_elo(counts: Pentanomial, confidence: float = 0.95) -> EloEstimate:
    """Elo, CI, nElo and LOS treating every game *pair* as an independent sample.

    The pair's value is its mean score per game (``PAIR_SCORES / 2``), so ``score`` is
    directly comparable with the trinomial one.
    """
    if counts.pairs == 0:
        raise ValueError("no pairs")
    return _estimate(
        "pentanomial",
        tuple(s / 2.0 for s in PAIR_SCORES),
        counts.as_list(),
        counts.games,
        confidence,
        None,
    )
