"""Trinomial and pentanomial counting."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies

from ladder.match.statistics.results import (
    Pentanomial,
    Trinomial,
    pair_score,
    pentanomial_from_pair_scores,
    pentanomial_from_results,
    trinomial_from_results,
)

game_scores = strategies.sampled_from([0.0, 0.5, 1.0])


def test_pentanomial_of_known_sequence() -> None:
    # A's scores, consecutive games forming a pair (same opening, colours reversed):
    #   (1, 0)   -> 1   WL  -> middle bucket
    #   (1, 1)   -> 2   WW
    #   (.5, .5) -> 1   DD  -> middle bucket
    #   (0, .5)  -> .5  LD
    #   (1, .5)  -> 1.5 WD
    #   (0, 0)   -> 0   LL
    #   (.5, 1)  -> 1.5 DW
    # => [LL, LD, DD+WL, WD, WW] = [1, 1, 2, 2, 1], 7 pairs, 7.5 points.
    results = [1, 0, 1, 1, 0.5, 0.5, 0, 0.5, 1, 0.5, 0, 0, 0.5, 1]
    penta = pentanomial_from_results(results)
    assert penta.as_list() == [1, 1, 2, 2, 1]
    assert penta == Pentanomial(ll=1, ld=1, dd_wl=2, wd=2, ww=1)
    assert penta.pairs == 7
    assert penta.games == 14
    assert penta.points == 7.5
    assert penta.score == pytest.approx(7.5 / 14)
    # Same games as W/D/L: wins at 0,2,3,8,13; losses at 1,6,10,11; draws at 4,5,7,9,12.
    tri = trinomial_from_results(results)
    assert tri == Trinomial(wins=5, draws=5, losses=4)
    assert tri.as_list() == [4, 5, 5]  # fishtest order [L, D, W]
    assert tri.score == pytest.approx(7.5 / 14)
    assert tri.draw_ratio == pytest.approx(5 / 14)


def test_pair_score_and_validation() -> None:
    assert pair_score(1, 0.5) == 1.5
    with pytest.raises(ValueError):
        pair_score(1, 0.25)
    with pytest.raises(ValueError):
        pentanomial_from_results([1, 0, 1])  # unfinished pair
    with pytest.raises(ValueError):
        pentanomial_from_pair_scores([2.5])
    with pytest.raises(ValueError):
        Trinomial(wins=-1)
    with pytest.raises(ValueError):
        Pentanomial.from_list([1, 2, 3])
    with pytest.raises(ValueError):
        _ = Trinomial().score


def test_reverse_and_add() -> None:
    p = Pentanomial(1, 2, 3, 4, 5)
    assert p.reversed().as_list() == [5, 4, 3, 2, 1]
    assert (p + p).as_list() == [2, 4, 6, 8, 10]
    assert p.reversed().score == pytest.approx(1 - p.score)
    t = Trinomial(3, 2, 1)
    assert t.reversed() == Trinomial(1, 2, 3)
    assert t + t == Trinomial(6, 4, 2)


@given(strategies.lists(strategies.tuples(game_scores, game_scores), max_size=60))
def test_pentanomial_counts_sum_to_pairs(pairs: list[tuple[float, float]]) -> None:
    flat = [r for pair in pairs for r in pair]
    penta = pentanomial_from_results(flat)
    tri = trinomial_from_results(flat)
    assert penta.pairs == len(pairs)
    assert tri.games == len(flat)
    assert penta.points == pytest.approx(sum(flat))
    assert tri.points == pytest.approx(sum(flat))
    # Reversing the point of view reverses the buckets.
    assert pentanomial_from_results([1 - r for r in flat]) == penta.reversed()
