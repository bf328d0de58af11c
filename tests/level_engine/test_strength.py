"""One strength resolver for every door (:func:`ladder.level_engine.strength.strength`)."""

from __future__ import annotations

import pytest

from ladder.level_engine.strength import strength
from ladder.levels import LevelsError, at_elo, elo_range, load_levels


def test_a_level_is_its_row_and_an_elo_the_interpolated_settings() -> None:
    table = load_levels()["xiangqi"]
    assert strength(table, 3) == table[3]
    span = elo_range(table)
    assert span is not None
    middle = (span[0] + span[1]) / 2
    assert strength(table, elo=middle) == at_elo(table, middle)
    assert strength(table, 3, middle) == at_elo(table, middle)  # an Elo decides


def test_the_book_and_the_variety_can_be_left_out() -> None:
    table = load_levels()["xiangqi"]
    assert table[4].book and table[4].variety is not None
    no_book = strength(table, 4, book=False)
    assert not no_book.book and no_book.variety == table[4].variety
    plain = strength(table, 4, variety=False)
    assert not plain.book and plain.variety is None and plain.nodes == table[4].nodes


def test_an_elo_off_the_curve_and_no_strength_are_refused() -> None:
    table = load_levels()["xiangqi"]
    with pytest.raises(LevelsError):
        strength(table, elo=-5000)
    with pytest.raises(ValueError, match="a level or an Elo"):
        strength(table)
