"""The win chance, accuracy and judgement formulas against lichess's published values."""

from __future__ import annotations

import math

import pytest

from ladder.analysis.judgement import Judgement, judge
from ladder.analysis.winchance import CHESS_K, game_accuracy, move_accuracy, win_chance


def test_win_chance_is_lichess_logistic_capped_at_ten_pawns() -> None:
    assert win_chance(0, None) == 0.5
    # lichess: +1 pawn ~ 59 %, +3 ~ 75 %
    assert win_chance(100, None) == pytest.approx(0.591, abs=0.001)
    assert win_chance(300, None) == pytest.approx(0.752, abs=0.001)
    assert (
        win_chance(5000, None)
        == win_chance(1000, None)
        == pytest.approx(1 / (1 + math.exp(-CHESS_K * 1000)))
    )
    assert win_chance(None, 3) == 1.0 and win_chance(None, -2) == 0.0 and win_chance(None, 0) == 0.0


def test_move_accuracy_follows_lichess() -> None:
    assert move_accuracy(0.5, 0.5) == move_accuracy(0.4, 0.6) == 100.0
    # a 10-point drop: 103.1668 * exp(-0.4354) - 3.1669 + 1
    assert move_accuracy(0.6, 0.5) == pytest.approx(
        103.1668100711649 * math.exp(-0.4354415386753951) - 2.166924740191411
    )
    assert move_accuracy(1.0, 0.0) == 0.0


def test_game_accuracy_of_a_flawless_and_a_blundering_side() -> None:
    # Red keeps 50 %, Black's every move drops its chance by 20 points then Red's wins back
    chances = [0.5, 0.5, 0.7, 0.7, 0.9, 0.9]
    acc = game_accuracy(chances, red_first=True)
    assert acc["red"] == 100.0
    assert acc["black"] is not None and acc["black"] < 60
    assert game_accuracy([0.5], True) == {"red": None, "black": None}
    # Black moving first: the first move is Black's
    assert game_accuracy([0.5, 0.7], red_first=False)["red"] is None


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ((0, None), (20, None), None),
        ((0, None), (-60, None), Judgement.INACCURACY),  # 50 % -> 44.5 %
        ((0, None), (-120, None), Judgement.MISTAKE),  # -> 39 %
        ((0, None), (-300, None), Judgement.BLUNDER),  # -> 25 %
        ((2000, None), (1200, None), None),  # both past the cap: nothing lost
        ((0, None), (None, -3), Judgement.BLUNDER),  # now mated
        ((-800, None), (None, -3), Judgement.MISTAKE),  # already lost
        ((-1200, None), (None, -3), Judgement.INACCURACY),
        ((None, 3), (200, None), Judgement.BLUNDER),  # a mate let go
        ((None, 3), (1500, None), Judgement.INACCURACY),
        ((None, 2), (None, 5), None),  # a slower mate
        ((None, 2), (None, -4), Judgement.BLUNDER),
    ],
)
def test_judgements(before: tuple[int | None, int | None], after: tuple[int | None, int | None],
                    expected: Judgement | None) -> None:  # fmt: skip
    assert judge(*before, *after) is expected
