"""GSPRT: bounds, LLRs (checked by independent routes and fastchess's reference values),
decisions.

The independent routes used here:

* **dual** -- for a mean constraint the maximised log-likelihood is, up to a constant,
  ``-max_theta g_s(theta)`` with ``g_s(theta) = sum_i p_hat_i ln(1 + theta (a_i - s))``
  (the Lagrangian dual; the module instead solves ``g_s' = 0`` by bisection and builds
  the MLE distribution).  We maximise ``g`` by golden-section search.
* **primal** -- for three outcomes the constraint set is one-dimensional, so we can
  maximise ``sum_i p_hat_i ln p_i`` along it directly, straight from the definition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings, strategies

from ladder.match.statistics.elo import NELO_PER_T, elo_to_score
from ladder.match.statistics.results import Pentanomial, Trinomial
from ladder.match.statistics.sprt import (
    Sprt,
    SprtDecision,
    SprtModel,
    llr_logistic,
    llr_logistic_approx,
    llr_normalized,
    sprt,
    sprt_bounds,
)

INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0


def _golden_max(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Maximum value of a unimodal ``f`` on ``[lo, hi]`` by golden-section search."""
    a, b = lo, hi
    c, d = b - INV_PHI * (b - a), a + INV_PHI * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(300):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - INV_PHI * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + INV_PHI * (b - a)
            fd = f(d)
    return max(fc, fd)


def _regularised(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    reg = [c if c else 1e-3 for c in counts]
    n = sum(reg)
    k = len(reg)
    return n, [i / (k - 1) for i in range(k)], [c / n for c in reg]


def _dual_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    n, a, p = _regularised(counts)

    def gmax(s: float) -> float:
        def g(theta: float) -> float:
            return sum(pi * math.log1p(theta * (ai - s)) for ai, pi in zip(a, p, strict=True))

        eps = 1e-12
        return _golden_max(g, -1.0 / (1.0 - s) + eps, 1.0 / s - eps)

    return n * (gmax(elo_to_score(elo0)) - gmax(elo_to_score(elo1)))


def _primal_trinomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Maximise sum p_hat ln p over {pW + pD/2 = s}, parametrised by pD = d."""
    n, _, (pl, pd, pw) = _regularised(counts)

    def best(s: float) -> float:
        def loglik(d: float) -> float:
            return pl * math.log(1 - s - d / 2) + pd * math.log(d) + pw * math.log(s - d / 2)

        return _golden_max(loglik, 1e-15, min(2 * s, 2 * (1 - s)) - 1e-15)

    return n * (best(elo_to_score(elo1)) - best(elo_to_score(elo0)))


def _primal_trinomial_normalized_llr(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """Maximise sum p_hat ln p over {(mu - 1/2)/sigma = t} for three outcomes.

    With m = pW + pL and d = pW - pL: mu - 1/2 = d/2, sigma^2 = (m - d^2)/4, so the
    constraint reads d = t sqrt(m / (1 + t^2)); m in (0, 1] is the free parameter.
    """
    n, _, (pl, pd, pw) = _regularised(counts)

    def best(t: float) -> float:
        def loglik(m: float) -> float:
            d = t * math.sqrt(m / (1 + t * t))
            return pl * math.log((m - d) / 2) + pd * math.log1p(-m) + pw * math.log((m + d) / 2)

        # m >= t^2 / (1 + t^2) keeps pL and pW non-negative
        return _golden_max(loglik, t * t / (1 + t * t) * (1 + 1e-9) + 1e-300, 1 - 1e-15)

    return n * (best(nelo1 / NELO_PER_T) - best(nelo0 / NELO_PER_T))


def test_bounds() -> None:
    # alpha = beta = .05: ln(.05/.95) = -ln 19 = -2.944439, ln(.95/.05) = ln 19
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    # alpha = .05, beta = .1: ln(.1/.95) = -2.251292, ln(.9/.05) = ln 18 = 2.890372
    assert sprt_bounds(0.05, 0.1) == pytest.approx((-2.251292, 2.890372), abs=1e-6)
    with pytest.raises(ValueError):
        sprt_bounds(0.6, 0.5)
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=0)


def test_small_pentanomial_llr_by_the_dual_route() -> None:
    counts = [3, 10, 20, 12, 5]  # 50 pairs, pair means 0, .25, .5, .75, 1
    ours = llr_logistic(Pentanomial.from_list(counts), 0.0, 5.0)
    assert ours == pytest.approx(_dual_llr(counts, 0.0, 5.0), abs=1e-9)
    # and it is close to the Brownian approximation N (s1-s0)(2s-s0-s1) / (2 var):
    # s = (10*.25 + 20*.5 + 12*.75 + 5*1) / 50 = 26.5 / 50 = .53, s0 = .5, s1 = L(5) = .5071945
    # var = (3*.53^2 + 10*.28^2 + 20*.03^2 + 12*.22^2 + 5*.47^2) / 50
    #     = (.8427 + .784 + .018 + .5808 + 1.1045) / 50 = 3.33 / 50 = .0666
    # -> 50 * .0071945 * (1.06 - .5 - .5071945) / (2 * .0666)
    #  = 50 * .0071945 * .0528055 / .1332 = 0.14261
    s1 = elo_to_score(5.0)
    approx = 50 * (s1 - 0.5) * (2 * 0.53 - 0.5 - s1) / (2 * 0.0666)
    assert approx == pytest.approx(0.14261, abs=1e-5)
    assert llr_logistic_approx(counts, 0.0, 5.0) == pytest.approx(approx)
    assert ours == pytest.approx(approx, rel=0.02)


def test_pentanomial_with_empty_buckets_by_the_dual_route() -> None:
    counts = [0, 7, 30, 9, 0]
    assert llr_logistic(counts, -1.0, 3.0) == pytest.approx(_dual_llr(counts, -1.0, 3.0), abs=1e-7)


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo0", "elo1"),
    [(21404, 21184, 40708, 0.5, 2.5), (57433, 57030, 106593, 0.0, 2.0), (12, 3, 9, 0, 5)],
)
def test_trinomial_logistic_llr_from_the_definition(
    wins: int, losses: int, draws: int, elo0: float, elo1: float
) -> None:
    counts = [losses, draws, wins]
    ours = llr_logistic(Trinomial(wins=wins, draws=draws, losses=losses), elo0, elo1)
    assert ours == pytest.approx(_primal_trinomial_llr(counts, elo0, elo1), abs=1e-6)
    assert ours == pytest.approx(_dual_llr(counts, elo0, elo1), abs=1e-6)


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "nelo0", "nelo1"),
    [
        (36433, 36027, 68692, 0.0, 2.0),
        (10871, 10650, 20431, -1.75, 0.25),
        (12, 3, 9, 0, 5),
        (0, 0, 16700, 0, 5),  # all draws
    ],
)
def test_trinomial_normalized_llr_from_the_definition(
    wins: int, losses: int, draws: int, nelo0: float, nelo1: float
) -> None:
    counts = [losses, draws, wins]
    ours = llr_normalized(counts, nelo0, nelo1)
    assert ours == pytest.approx(_primal_trinomial_normalized_llr(counts, nelo0, nelo1), abs=1e-5)


# fastchess app/tests/sprt_test.cpp; its Stats(ll, ld, wl, dd, wd, ww) / Stats(w, l, d).
@pytest.mark.parametrize(
    ("counts", "model", "elo0", "elo1", "expected"),
    [
        (Trinomial(wins=36433, losses=36027, draws=68692), "normalized", 0, 2, 0.92),
        (Trinomial(wins=10871, losses=10650, draws=20431), "normalized", -1.75, 0.25, 2.30),
        (Trinomial(wins=21404, losses=21184, draws=40708), "logistic", 0.5, 2.5, -1.57),
        (Trinomial(wins=57433, losses=57030, draws=106593), "logistic", 0, 2, -2.59),
        (Pentanomial(365, 16618, 36029 + 200, 16974, 390), "normalized", 0, 2, 2.25),
        (Pentanomial(127, 4883, 10311 + 401, 5150, 104), "normalized", -1.75, 0.25, 3.01),
        (Pentanomial(223, 9863, 20279 + 1000, 10037, 246), "logistic", 0.5, 2.5, -3.07),
        (Pentanomial(871, 26175, 55003 + 980, 26678, 821), "logistic", 0, 2, -4.98),
    ],
)
def test_matches_fastchess_reference_values(
    counts: Trinomial | Pentanomial, model: SprtModel, elo0: float, elo1: float, expected: float
) -> None:
    result = sprt(counts, elo0, elo1, model=model)
    # fastchess checks with doctest::Approx(expected).epsilon(0.01), i.e. 1 % relative
    assert result.llr == pytest.approx(expected, rel=0.01)


def test_degenerate_normalized_cases() -> None:
    # fastchess's suite also lists all-draws -> +2.97 and all-WW -> 2.94 for [0, 5]; those
    # are artefacts of its loose root-finding (1e-4 / 1e-7 tolerances) on regularised
    # buckets of mass 1e-3 / N.  The exact values:
    #
    # * 16700 draws: the data's t-value is exactly 0 = t0, so the H0 MLE is the empirical
    #   distribution and LLR = -N KL(p_hat || p1) <= 0; to leading order
    #   LLR ~= N ln(1 - t1^2), t1 = 5 / 347.4356 -> 16700 * ln(1 - 2.0711e-4) = -3.459
    #   (the primal route above confirms -3.4505 including the regularised W/L).
    assert llr_normalized(Trinomial(draws=16700), 0, 5) == pytest.approx(-3.459, abs=0.01)
    # * 104 WW pairs: the best distribution keeps its mass on WW and LL, q = P(WW):
    #   t = (q - 1/2)/sqrt(q(1-q)) -> q = 1/2 + t / (2 sqrt(1 + t^2)); t1 = sqrt2*5/347.4356
    #   = .0203522 -> q1 = .5101735, q0 = .5; LLR ~= 104 ln(q1/q0) = 2.0953
    t1 = math.sqrt(2) * 5 / NELO_PER_T
    q1 = 0.5 + t1 / (2 * math.sqrt(1 + t1 * t1))
    assert llr_normalized(Pentanomial(ww=104), 0, 5) == pytest.approx(
        104 * math.log(q1 / 0.5), rel=1e-3
    )


def test_strong_sample_accepts_h1() -> None:
    # 525 pairs scoring 66 %: far beyond +5 Elo
    result = sprt(Pentanomial(ll=15, ld=60, dd_wl=150, wd=180, ww=120), 0, 5)
    assert result.decision is SprtDecision.H1
    assert result.llr >= result.upper_bound
    assert result.samples == 525


def test_even_sample_accepts_h0() -> None:
    # 8000 pairs at exactly 50 %: var = .05 per pair;
    # Brownian estimate 8000 * .007195 * (-.007195) / (2 * .05) = -4.14 < -2.94
    counts = Pentanomial(ll=400, ld=1600, dd_wl=4000, wd=1600, ww=400)
    result = sprt(counts, 0, 5)
    assert result.decision is SprtDecision.H0
    assert result.llr == pytest.approx(-4.14, abs=0.05)


def test_small_sample_continues() -> None:
    result = Sprt(0, 5).evaluate(Pentanomial(ll=1, ld=2, dd_wl=4, wd=3, ww=1))
    assert result.decision is SprtDecision.CONTINUE
    assert Sprt(0, 5).evaluate(Pentanomial()).llr == 0.0


def test_rejects_wrong_length() -> None:
    with pytest.raises(ValueError):
        llr_logistic([1, 2, 3, 4], 0, 5)


small_counts = strategies.lists(
    strategies.integers(min_value=0, max_value=300), min_size=5, max_size=5
)
elos = strategies.floats(min_value=-20, max_value=20)


@settings(max_examples=60, deadline=None)
@given(small_counts, elos, elos)
def test_llr_is_antisymmetric(counts: list[int], e0: float, e1: float) -> None:
    forward = llr_logistic(counts, e0, e1)
    assert forward == pytest.approx(-llr_logistic(counts, e1, e0), abs=1e-9)
    if e0 == e1:
        assert forward == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(small_counts)
def test_more_wins_never_lower_the_llr(counts: list[int]) -> None:
    # Turning an LL pair into a WW pair raises the score; the LLR for elo1 > elo0 rises.
    if counts[0] == 0:
        return
    better = [counts[0] - 1, counts[1], counts[2], counts[3], counts[4] + 1]
    assert llr_logistic(better, 0, 5) >= llr_logistic(counts, 0, 5) - 1e-9


def test_a_sweep_moves_the_gsprt_slowly_as_docs_match_md_says() -> None:
    """fishtest's GSPRT on a 0 % / 100 % score (kept; docs/match.md): -0.0145 a lost
    pair with --sprt 0 5, H0 after 204 lost pairs, H1 after 207 won ones; the Elo
    interval excludes 0 after 4 lost pairs."""
    from ladder.match.statistics.elo import pentanomial_elo

    sprt = Sprt(0, 5, 0.05, 0.05)
    assert sprt.evaluate(Pentanomial(ll=10)).llr == pytest.approx(-0.145, abs=0.002)
    assert sprt.evaluate(Pentanomial(ll=203)).decision is SprtDecision.CONTINUE
    assert sprt.evaluate(Pentanomial(ll=204)).decision is SprtDecision.H0
    assert sprt.evaluate(Pentanomial(ww=206)).decision is SprtDecision.CONTINUE
    assert sprt.evaluate(Pentanomial(ww=207)).decision is SprtDecision.H1
    assert pentanomial_elo(Pentanomial(ll=3)).elo_hi > 0 > pentanomial_elo(Pentanomial(ll=4)).elo_hi
