"""Which choice rule a variety names (:func:`ladder.level_engine.choice_rules.rule_for`); the rules'
picks themselves are tests/level_engine/test_level_move.py's (through ``choose``) and the golden
move
answers' (tests/service/test_golden.py)."""

from __future__ import annotations

from ladder.level_engine.choice_rules import (
    BestMove,
    RandomMove,
    SecondLook,
    WeightedPick,
    rule_for,
)
from ladder.levels import Variety


def test_each_variety_names_one_rule() -> None:
    assert rule_for(None) == BestMove()
    assert rule_for(Variety(multipv=1)) == BestMove()
    assert rule_for(Variety(multipv=4, window_cp=10)) == WeightedPick(10, 0.0)
    second = Variety(multipv=99, temperature_cp=600, second_look=3, reject_cp=200)
    assert rule_for(second) == SecondLook(second)
    old = Variety(multipv=1, random_move_pct=20)
    assert rule_for(old) == RandomMove(20, BestMove())


def test_the_weight_is_one_in_the_window_and_decays_beyond() -> None:
    rule = WeightedPick(window_cp=10, temperature_cp=100)
    assert rule.weight(0) == rule.weight(10) == 1.0
    assert 0 < rule.weight(110) < rule.weight(60) < 1
    assert WeightedPick(10, 0).weight(11) == 0.0
