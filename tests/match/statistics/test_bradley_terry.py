"""Whole-ladder Bradley-Terry fit with Red advantage."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings, strategies

from ladder.match.statistics.bradley_terry import GameResult, fit_ladder
from ladder.match.statistics.elo import elo_to_score, normal_quantile

TRUE_ELO = {"random": 0.0, "p200": 200.0, "p400": 400.0, "p600": 600.0, "p800": 800.0}
TRUE_RED = 30.0


def _simulate(seed: int, rounds: int) -> list[GameResult]:
    """Round robin in game pairs (each opening played with both colours).

    Red's expected score is L(R_red - R_black + 30); draws take 40 % of the games at
    equal strength, shrinking as 4 s (1 - s) for lopsided games.
    """
    rng = random.Random(seed)
    names = list(TRUE_ELO)

    def play(red: str, black: str) -> float:
        s = elo_to_score(TRUE_ELO[red] - TRUE_ELO[black] + TRUE_RED)
        draw = 0.4 * 4 * s * (1 - s)
        u = rng.random()
        return 1.0 if u < s - draw / 2 else 0.5 if u < s + draw / 2 else 0.0

    games = []
    pair = 0
    for _ in range(rounds):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                games.append(GameResult(a, b, play(a, b), pair=pair))
                games.append(GameResult(b, a, play(b, a), pair=pair))
                pair += 1
    return games


@pytest.fixture(scope="module")
def simulated() -> list[GameResult]:
    return _simulate(seed=20240607, rounds=150)  # 10 pairings x 150 pairs = 3000 games


def test_two_players_by_hand() -> None:
    # A as Red scores 7/10 (6 W, 2 D, 2 L); B as Red scores 4/10 (3 W, 2 D, 5 L).
    # With two players the MLE matches both observed means exactly:
    #   sigma(bA - bB + h) = .7,  sigma(bB - bA + h) = .4
    # so in Elo: d + h = elo(.7) = 147.1907, -d + h = elo(.4) = -400 log10(1.5) = -70.4365
    #   d = (147.1907 + 70.4365) / 2 = 108.8136,  h = (147.1907 - 70.4365) / 2 = 38.3771
    games = (
        [GameResult("A", "B", 1.0)] * 6
        + [GameResult("A", "B", 0.5)] * 2
        + [GameResult("A", "B", 0.0)] * 2
        + [GameResult("B", "A", 1.0)] * 3
        + [GameResult("B", "A", 0.5)] * 2
        + [GameResult("B", "A", 0.0)] * 5
    )
    fit = fit_ladder(games, anchor="B", prior_draws=0)
    assert fit.ratings["B"].elo == 0.0
    assert fit.ratings["A"].elo == pytest.approx(108.8136, abs=1e-3)
    assert fit.red_advantage == pytest.approx(38.3771, abs=1e-3)
    assert fit.ratings["A"].games == fit.ratings["B"].games == 20
    assert fit.games == 20
    # Wald interval by default: elo +- 1.96 stderr
    a = fit.ratings["A"]
    z = normal_quantile(0.975)
    assert (a.lo, a.hi) == pytest.approx((a.elo - z * a.stderr, a.elo + z * a.stderr))
    assert fit.interval == "wald"
    # a weak prior barely moves a 20-game estimate towards 0
    prior = fit_ladder(games, anchor="B", prior_draws=1.0)
    assert 95 < prior.ratings["A"].elo < 108.8136


def test_recovers_simulated_ratings(simulated: list[GameResult]) -> None:
    fit = fit_ladder(simulated, anchor="random")
    assert fit.ratings["random"].elo == 0.0
    for name, true in TRUE_ELO.items():
        rating = fit.ratings[name]
        assert rating.games == 1200
        # Tolerance from the sample: 4 asymptotic standard errors (inverse information,
        # ~20-28 Elo here for 1200 games per player; conservative since draws have less
        # variance than the Bernoulli model assumes).
        assert abs(rating.elo - true) <= 4 * rating.stderr + 1e-9, (name, rating)
    assert abs(fit.red_advantage - TRUE_RED) <= 4 * fit.red_advantage_stderr
    assert [r.name for r in fit.ranking()] == ["p800", "p600", "p400", "p200", "random"]


def test_bootstrap_ci_covers_truth(simulated: list[GameResult]) -> None:
    # 99 % intervals so that all five (4 ratings + Red advantage) cover with high
    # prior probability; the data and the resampling are seeded.
    fit = fit_ladder(simulated, anchor="random", bootstrap=200, seed=7, confidence=0.99)
    assert fit.interval == "bootstrap"
    assert fit.bootstrap_samples == 200
    for name, true in TRUE_ELO.items():
        r = fit.ratings[name]
        assert r.lo <= true <= r.hi, (name, r)
        assert r.lo <= r.elo <= r.hi
    assert fit.red_advantage_lo <= TRUE_RED <= fit.red_advantage_hi
    # the anchor is fixed in every replicate
    assert fit.ratings["random"].lo == fit.ratings["random"].hi == 0.0


def test_bootstrap_is_seeded() -> None:
    games = _simulate(seed=3, rounds=10)
    a = fit_ladder(games, bootstrap=30, seed=11)
    b = fit_ladder(games, bootstrap=30, seed=11)
    c = fit_ladder(games, bootstrap=30, seed=12)
    assert a == b
    assert a.ratings["p400"].lo != c.ratings["p400"].lo


def test_bootstrap_resamples_pairs_not_games() -> None:
    # Every pair is "each side wins with Red" (a lopsided opening): the two players are
    # equal, and any resample of whole pairs says so exactly.  Resampling single games
    # breaks the pairs and invents a difference.
    paired = []
    for k in range(40):
        paired += [GameResult("x", "y", 1.0, pair=k), GameResult("y", "x", 1.0, pair=k)]
    unpaired = [GameResult(g.red, g.black, g.result) for g in paired]
    by_pair = fit_ladder(paired, anchor="y", bootstrap=100, seed=1).ratings["x"]
    by_game = fit_ladder(unpaired, anchor="y", bootstrap=100, seed=1).ratings["x"]
    assert by_pair.elo == pytest.approx(0.0, abs=1e-9)
    assert by_pair.hi - by_pair.lo == pytest.approx(0.0, abs=1e-6)
    assert by_game.hi - by_game.lo > 10.0


def test_perfect_scores_stay_finite_with_the_prior() -> None:
    games = [GameResult("engine", "random", 1.0), GameResult("random", "engine", 0.0)] * 20
    games += [GameResult("engine", "mid", 0.5), GameResult("mid", "engine", 0.5)] * 5
    fit = fit_ladder(games, anchor="random")
    assert all(math.isfinite(r.elo) for r in fit.ratings.values())
    # 40 wins + 1 virtual draw: score 40.5/41 -> about 760 Elo above random
    assert 600 < fit.ratings["engine"].elo < 900
    with pytest.raises(ValueError, match="perfect score"):
        fit_ladder(games, anchor="random", prior_draws=0)


def test_input_errors() -> None:
    with pytest.raises(ValueError, match="not connected"):
        fit_ladder([GameResult("a", "b", 1.0), GameResult("c", "d", 0.0)], anchor="a")
    with pytest.raises(ValueError, match="anchor"):
        fit_ladder([GameResult("a", "b", 1.0)], anchor="random")
    with pytest.raises(ValueError):
        fit_ladder([], anchor="a")
    with pytest.raises(ValueError):
        GameResult("a", "a", 1.0)
    with pytest.raises(ValueError):
        GameResult("a", "b", 0.25)


game_lists = strategies.lists(
    strategies.tuples(
        strategies.sampled_from("abc"),
        strategies.sampled_from("abc"),
        strategies.sampled_from([0.0, 0.5, 1.0]),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(game_lists)
def test_flipping_every_result_negates_the_ratings(raw: list[tuple[str, str, float]]) -> None:
    # Red score r -> 1 - r is x -> -x in sigma(x): ratings and Red advantage change sign.
    games = [GameResult(r, b, res) for r, b, res in raw if r != b]
    if not games or "a" not in {g.red for g in games} | {g.black for g in games}:
        return
    try:
        fit = fit_ladder(games, anchor="a")
    except ValueError:  # comparison graph not connected
        return
    flipped = fit_ladder([GameResult(g.red, g.black, 1.0 - g.result) for g in games], anchor="a")
    for name, rating in fit.ratings.items():
        assert flipped.ratings[name].elo == pytest.approx(-rating.elo, abs=1e-6)
    assert flipped.red_advantage == pytest.approx(-fit.red_advantage, abs=1e-6)
