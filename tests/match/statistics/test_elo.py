"""Elo, confidence intervals, normalised Elo and LOS.

Reference values marked "fastchess" come from fastchess's own test-suite
(app/tests/elo_test.cpp), which checks its EloWDL / EloPentanomial classes to 2 decimals.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, strategies

from ladder.match.statistics.elo import (
    NELO_PER_T,
    elo_to_score,
    los,
    normal_cdf,
    normal_quantile,
    pentanomial_elo,
    score_to_elo,
    trinomial_elo,
    wilson,
)
from ladder.match.statistics.results import Pentanomial, Trinomial

Z95 = 1.959963984540054  # Phi^-1(0.975)


def _elo_ln(s: float) -> float:
    """Independent route to logistic Elo: 400/ln10 * ln(s / (1 - s))."""
    return 400.0 / math.log(10.0) * math.log(s / (1.0 - s))


def test_normal_helpers() -> None:
    assert normal_quantile(0.975) == pytest.approx(Z95, abs=1e-12)
    assert normal_cdf(Z95) == pytest.approx(0.975, abs=1e-12)
    assert normal_cdf(0.0) == 0.5


def test_score_to_elo_hand_values() -> None:
    # 0.7: -400 * log10(1/0.7 - 1) = -400 * log10(0.428571...) = 400 * 0.367977 = 147.19
    assert score_to_elo(0.7) == pytest.approx(147.1907, abs=1e-4)
    assert score_to_elo(0.5) == 0.0
    # 10/11 = 0.9090...: odds 10 -> 400 * log10(10) = 400 exactly
    assert score_to_elo(10 / 11) == pytest.approx(400.0)
    assert elo_to_score(400.0) == pytest.approx(10 / 11)
    assert score_to_elo(1.0) == math.inf
    assert score_to_elo(0.0) == -math.inf
    with pytest.raises(ValueError):
        score_to_elo(1.2)
    # a sum of floats one rounding error past 1 (a calibration stopped on it) is 1
    assert score_to_elo(1.0 + 2**-52) == math.inf
    assert score_to_elo(-1e-17) == -math.inf


def test_trinomial_60_wins_20_draws_20_losses() -> None:
    est = trinomial_elo(Trinomial(wins=60, draws=20, losses=20))
    # score = (60 + 20/2) / 100 = 0.7 -> Elo 147.19
    assert est.score == pytest.approx(0.7)
    assert est.elo == pytest.approx(147.1907, abs=1e-4)
    # per-game variance: .6*(1-.7)^2 + .2*(.5-.7)^2 + .2*(0-.7)^2 = .054+.008+.098 = .16
    assert est.variance == pytest.approx(0.16)
    # stderr = sqrt(.16/100) = .04; the plain 95% interval .7 +- 1.96*.04 = [.6216, .7784]
    assert est.stderr == pytest.approx(0.04)
    # Agresti-Coull: 0.96 pseudo-games at 0 and at 1 -> n = 101.92, mean = 70.96/101.92
    pad = Z95**2 / 4
    n, mean = 100 + 2 * pad, (70 + pad) / (100 + 2 * pad)
    var = (
        60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 20 * mean**2
        + pad * mean**2 + pad * (1 - mean) ** 2
    ) / n  # fmt: skip
    half = Z95 * math.sqrt(var / n)
    assert est.score_lo == pytest.approx(mean - half)
    assert est.score_hi == pytest.approx(mean + half)
    # close to the plain interval at this size: [86.2, 218.3] -> about [83, 214]
    assert est.elo_lo == pytest.approx(_elo_ln(mean - half))
    assert est.elo_hi == pytest.approx(_elo_ln(mean + half))
    assert abs(est.elo_lo - 86.2250) < 5 and abs(est.elo_hi - 218.2518) < 5
    assert not est.small_sample
    # nElo = (.7 - .5) / sqrt(.16) * 800/ln10 = 0.5 * 347.4356 = 173.718
    assert est.nelo == pytest.approx(173.7178, abs=1e-3)
    # nElo +- = 1.96 / sqrt(100) * 347.4356 = 68.096
    assert est.nelo_error == pytest.approx(68.0961, abs=1e-3)
    # score-based LOS: Phi(.2 / .04) = Phi(5)
    assert est.los == pytest.approx(normal_cdf(5.0))
    assert est.draw_ratio == pytest.approx(0.2)
    assert est.samples == est.games == 100


def test_los_from_wins_and_losses() -> None:
    # W=10, L=5: z = (10 - 5) / sqrt(15) = 1.290994; Phi(z) = .5 * (1 + erf(z / sqrt 2))
    #          = .5 * (1 + erf(0.912871)) = 0.901647
    assert los(10, 5) == pytest.approx(0.901647, abs=1e-6)
    assert los(5, 10) == pytest.approx(1 - 0.901647, abs=1e-6)
    assert los(0, 0) == 0.5
    assert los(3, 3) == 0.5


def test_pentanomial_hand_values() -> None:
    # [LL, LD, DD+WL, WD, WW] = [1, 2, 3, 3, 1]: 10 pairs, pair means 0, .25, .5, .75, 1.
    # score = (0 + 2*.25 + 3*.5 + 3*.75 + 1) / 10 = 5.25 / 10 = .525
    # var = .1*.525^2 + .2*.275^2 + .3*.025^2 + .3*.225^2 + .1*.475^2
    #     = .0275625 + .015125 + .0001875 + .0151875 + .0225625 = .080625
    est = pentanomial_elo(Pentanomial(1, 2, 3, 3, 1))
    assert est.samples == 10
    assert est.games == 20
    assert est.score == pytest.approx(0.525)
    assert est.variance == pytest.approx(0.080625)
    assert est.stderr == pytest.approx(math.sqrt(0.080625 / 10))
    # Elo = -400 log10(1/.525 - 1) = -400 log10(.904762) = -400 * (-.0434658) = 17.386
    assert est.elo == pytest.approx(17.3863, abs=1e-3)
    # nElo = .025 / sqrt(2 * .080625) * 800/ln10 = .025 / .401559 * 347.4356 = 21.630
    assert est.nelo == pytest.approx(0.025 / math.sqrt(0.16125) * NELO_PER_T)
    assert est.nelo == pytest.approx(21.630, abs=1e-3)
    # nElo +- = 1.96 / sqrt(20 games) * 347.4356
    assert est.nelo_error == pytest.approx(Z95 / math.sqrt(20) * NELO_PER_T)
    assert est.draw_ratio is None


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "nelo", "nelo_err", "elo", "elo_err", "los_pct"),
    [
        (76, 89, 123, -20.76, 40.13, None, None, 15.53),
        (136, 96, 111, 49.77, 36.77, 40.70, 30.43, 99.60),
        (34, 356, 0, -508.44, 34.48, None, None, None),
    ],
)
def test_trinomial_matches_fastchess(
    wins: int,
    losses: int,
    draws: int,
    nelo: float,
    nelo_err: float,
    elo: float | None,
    elo_err: float | None,
    los_pct: float | None,
) -> None:
    est = trinomial_elo(Trinomial(wins=wins, draws=draws, losses=losses))
    assert est.nelo == pytest.approx(nelo, abs=0.01)
    assert est.nelo_error == pytest.approx(nelo_err, abs=0.01)
    if elo is not None:
        assert est.elo == pytest.approx(elo, abs=0.01)
        # the padded interval: within 1 % of fastchess's plain one at these sizes
        assert est.elo_error == pytest.approx(elo_err, rel=0.01)
    if los_pct is not None:
        assert round(100 * est.los, 2) == los_pct


@pytest.mark.parametrize(
    ("ll", "ld", "wl", "dd", "wd", "ww", "nelo", "nelo_err", "elo", "elo_err"),
    [
        (34, 54, 31, 32, 64, 75, 57.94, 28.28, 55.58, 27.65),
        (332, 433, 457, 41, 333, 334, -9.17, 10.96, -8.64, 10.33),
        (7895, 8757, 5485, 200, 568, 9999, -19.01, 2.65, -21.04, 2.95),
    ],
)
def test_pentanomial_matches_fastchess(
    ll: int,
    ld: int,
    wl: int,
    dd: int,
    wd: int,
    ww: int,
    nelo: float,
    nelo_err: float,
    elo: float,
    elo_err: float,
) -> None:
    est = pentanomial_elo(Pentanomial(ll=ll, ld=ld, dd_wl=wl + dd, wd=wd, ww=ww))
    assert est.nelo == pytest.approx(nelo, abs=0.01)
    assert est.nelo_error == pytest.approx(nelo_err, abs=0.01)
    assert est.elo == pytest.approx(elo, abs=0.01)
    assert est.elo_error == pytest.approx(elo_err, rel=0.01)  # padded: within 1 %


def test_pairing_narrows_the_interval_when_pairs_are_correlated() -> None:
    # 100 pairs, each won by whoever had the good side: all "WL" -> middle bucket.
    # Trinomial sees 100 W + 100 L (variance .25/game); pentanomial sees zero spread,
    # and only its padding keeps the interval open.
    tri = trinomial_elo(Trinomial(wins=100, losses=100))
    penta = pentanomial_elo(Pentanomial(dd_wl=100))
    assert tri.elo == penta.elo == 0.0
    assert 0 < penta.elo_error < tri.elo_error / 3
    assert math.isnan(penta.nelo)


def test_perfect_score_has_infinite_elo() -> None:
    est = trinomial_elo(Trinomial(wins=10))
    assert est.elo == math.inf
    assert est.los == 1.0


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        trinomial_elo(Trinomial())
    with pytest.raises(ValueError):
        pentanomial_elo(Pentanomial())
    with pytest.raises(ValueError):
        trinomial_elo(Trinomial(1, 1, 1), confidence=1.0)


scores = strategies.floats(min_value=1e-6, max_value=1 - 1e-6)


@given(scores, scores)
def test_elo_monotone_in_score(a: float, b: float) -> None:
    if a < b:
        assert score_to_elo(a) < score_to_elo(b)
    assert elo_to_score(score_to_elo(a)) == pytest.approx(a, rel=1e-9)
    assert score_to_elo(1 - a) == pytest.approx(-score_to_elo(a), abs=1e-6)


counts = strategies.integers(min_value=0, max_value=500)


@given(counts, counts, counts, counts, counts)
def test_pentanomial_estimate_properties(ll: int, ld: int, dd: int, wd: int, ww: int) -> None:
    p = Pentanomial(ll, ld, dd, wd, ww)
    if p.pairs == 0:
        return
    est = pentanomial_elo(p)
    rev = pentanomial_elo(p.reversed())
    assert est.score == pytest.approx(p.score)
    assert rev.elo == pytest.approx(-est.elo, abs=1e-6) or math.isinf(est.elo)
    assert est.elo_lo <= est.elo <= est.elo_hi
    assert 0.0 <= est.los <= 1.0
    assert est.los + rev.los == pytest.approx(1.0, abs=1e-9)


@given(counts, counts)
def test_los_symmetry(w: int, l_: int) -> None:
    assert los(w, l_) + los(l_, w) == pytest.approx(1.0)
    assert (los(w, l_) > 0.5) == (w > l_)


def _coverage(
    score: float, draws: float, pairs: int, reps: int, rng: random.Random
) -> tuple[float, float]:
    """How often the 95 % intervals (trinomial, pentanomial) of simulated matches of
    ``pairs`` game pairs hold the true ``score``; each game a win, draw or loss at random
    with ``draws`` of it drawn (as far as the score allows)."""
    drawn = min(draws, 2 * min(score, 1 - score))
    win = score - drawn / 2
    covered = [0, 0]
    for _ in range(reps):
        games = [0, 0, 0]
        pair_counts = [0] * 5
        for _ in range(pairs):
            pair = 0
            for _ in range(2):
                r = rng.random()
                value = 2 if r < win else 1 if r < win + drawn else 0
                games[value] += 1
                pair += value
            pair_counts[pair] += 1
        tri = trinomial_elo(Trinomial(wins=games[2], draws=games[1], losses=games[0]))
        penta = pentanomial_elo(Pentanomial(*pair_counts))
        covered[0] += tri.score_lo <= score <= tri.score_hi
        covered[1] += penta.score_lo <= score <= penta.score_hi
    return covered[0] / reps, covered[1] / reps


def test_the_interval_covers_the_true_score_about_95_percent_of_the_time() -> None:
    """Simulated matches of 2 to 100 pairs at true scores 50-97 % (the lopsided ones are
    mostly sweeps at 2-5 pairs), draw rates 0 and 50 %: every cell covers at least 88 %
    (the plain interval gets 12 % at 97 % and 2 pairs), about 95 % on average, and 93-97 %
    once there are 30 pairs at a score the sample can tell from a sweep."""
    rng = random.Random(95)
    cells = {}
    for pairs in (2, 5, 10, 30, 100):
        for score in (0.5, 0.65, 0.8, 0.9, 0.97):
            for draws in (0.0, 0.5):
                tri, penta = _coverage(score, draws, pairs, 300, rng)
                cells[(pairs, score, draws)] = (tri, penta)
    worst = min(min(c) for c in cells.values())
    mean = sum(sum(c) for c in cells.values()) / (2 * len(cells))
    assert worst >= 0.86, {k: v for k, v in cells.items() if min(v) < 0.86}
    assert 0.94 <= mean <= 0.985, mean
    settled = [c for (pairs, score, _), c in cells.items() if pairs >= 30 and score <= 0.9]
    assert all(0.91 <= x <= 0.99 for c in settled for x in c), settled


def test_wilson_interval() -> None:
    """Wilson's score interval (the calibration's and the error profile's): 50 % over
    100 games is 40.4-59.6 %, zero wins in ten still allow up to 27.8 %, no games say
    nothing."""
    lo, hi = wilson(0.5, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    lo, hi = wilson(0.0, 10)
    assert abs(lo) < 1e-12 and round(hi, 4) == 0.2775
    assert wilson(0.3, 0) == (0.0, 1.0)
