"""The level's choice (:func:`ladder.level_engine.level_move.choose`): the old random move, the
mistake rule, the window, without engines."""

from __future__ import annotations

import math
from dataclasses import replace

from chess.engine import Cp, Mate

from ladder.level_engine.engine_lines import Line, SearchResult
from ladder.level_engine.level_move import SearchJob, choose
from ladder.levels import Level, Variety

LEGAL = frozenset({"h3e3", "b3e3", "h1g3", "c4c5", "a4a5", "i4i5"})


def _result() -> SearchResult:
    lines = {
        1: Line(1, ("h3e3", "h10g8"), Cp(50), 5, 1000),
        2: Line(2, ("b3e3", "b10c8"), Cp(20), 5, 1000),
    }
    return SearchResult(bestmove="h3e3", ponder="h10g8", lines=lines)


def _picks(variety: Variety, seeds: range) -> list[str]:
    picks = []
    for seed in seeds:
        choice = choose(_result(), variety, seed, LEGAL)
        assert choice is not None
        picks.append(choice.move)
    return picks


def test_random_move_rate_follows_the_percentage() -> None:
    picks = _picks(Variety(random_move_pct=30), range(3000))
    # A random move is h3e3 one time in six, so the best move shows up
    # 70% + 30%/6 = 75% of the time.
    share = picks.count("h3e3") / len(picks)
    assert 0.72 < share < 0.78
    assert set(picks) == LEGAL


def test_random_move_is_seeded_and_always_legal() -> None:
    v = Variety(random_move_pct=100)
    assert _picks(v, range(50)) == _picks(v, range(50))
    assert len(set(_picks(v, range(200)))) == len(LEGAL)
    only = frozenset({"h3e3"})
    assert {choose(_result(), v, s, only).move for s in range(20)} == {"h3e3"}  # type: ignore[union-attr]


def test_random_move_keeps_the_line_when_it_has_one() -> None:
    v = Variety(random_move_pct=100)
    for seed in range(100):
        choice = choose(_result(), v, seed, LEGAL)
        assert choice is not None
        if choice.move == "b3e3":
            assert choice.line is not None and choice.line.score == Cp(20)
            assert choice.ponder == "b10c8"
        elif choice.move not in ("h3e3",):
            assert choice.line is None and choice.ponder is None


def test_zero_percent_never_plays_a_random_move() -> None:
    assert set(_picks(Variety(random_move_pct=0), range(200))) == {"h3e3"}
    # With a window rule, a 0 % random rate leaves the seeded picks exactly as before.
    with_window = Variety(multipv=4, window_cp=60)
    assert _picks(with_window, range(100)) == _picks(
        Variety(multipv=4, window_cp=60, random_move_pct=0), range(100)
    )
    assert set(_picks(with_window, range(100))) == {"h3e3", "b3e3"}


def _lines(*scores: int) -> SearchResult:
    moves = ["h3e3", "b3e3", "h1g3", "c4c5", "a4a5", "i4i5"]
    lines = {
        k: Line(k, (moves[k - 1], "h10g8"), Cp(cp), 3, 1000) for k, cp in enumerate(scores, start=1)
    }
    return SearchResult(bestmove="h3e3", ponder="h10g8", lines=lines)


def test_the_mistake_rule_prefers_small_losses() -> None:
    # losses 0, 50, 150, 400: weights 1, e^-0.5, e^-1.5, e^-4 at T = 100
    result = _lines(100, 50, -50, -300)
    v = Variety(multipv=4, temperature_cp=100)
    picks = [choose(result, v, seed, LEGAL).move for seed in range(6000)]  # type: ignore[union-attr]
    weights = [1.0, math.exp(-0.5), math.exp(-1.5), math.exp(-4)]
    for move, w in zip(["h3e3", "b3e3", "h1g3", "c4c5"], weights, strict=True):
        expected = w / sum(weights)
        assert abs(picks.count(move) / len(picks) - expected) < 0.02, move
    assert not {"a4a5", "i4i5"} & set(picks)  # only the lines searched


def test_the_window_makes_near_equal_moves_equally_likely() -> None:
    result = _lines(30, 20, 16, -100)
    v = Variety(multipv=4, window_cp=15)
    picks = [choose(result, v, seed, LEGAL).move for seed in range(3000)]  # type: ignore[union-attr]
    assert set(picks) == {"h3e3", "b3e3", "h1g3"}
    assert all(900 < picks.count(m) < 1100 for m in ("h3e3", "b3e3", "h1g3"))
    # with a temperature too, a line past the window is rarer the further it is
    warm = Variety(multipv=4, window_cp=15, temperature_cp=40)
    picks = [choose(result, warm, seed, LEGAL).move for seed in range(3000)]  # type: ignore[union-attr]
    assert 0 < picks.count("c4c5") < picks.count("h1g3") / 10


def test_a_line_into_mate_is_never_chosen() -> None:
    lines = {
        1: Line(1, ("h3e3",), Cp(20), 3, 1000),
        2: Line(2, ("b3e3",), Mate(-2), 3, 1000),
    }
    result = SearchResult(bestmove="h3e3", ponder=None, lines=lines)
    v = Variety(multipv=2, temperature_cp=10_000)
    assert {choose(result, v, seed, LEGAL).move for seed in range(500)} == {"h3e3"}  # type: ignore[union-attr]


def test_the_rule_applies_in_its_plies_only() -> None:
    lv = Level(5, 14000, variety=Variety(3, 15, plies=20))
    assert lv.variety_at(0) == lv.variety and lv.variety_at(19) == lv.variety
    assert lv.variety_at(20) is None and lv.variety_at(200) is None
    always = Level(1, 3000, variety=Variety(99, temperature_cp=300))
    assert always.variety_at(500) == always.variety
    job = SearchJob.for_level("mistboard-xiangqi", "fen", [], lv, 25)
    assert job.multipv == 1
    assert SearchJob.for_level("mistboard-xiangqi", "fen", [], lv, 3).multipv == 3


# ---------------------------------------------------------------------------------------
# The second-look rule (levels 1-3)

SECOND_LOOK_LEGAL = frozenset({"h3h10", "b3e3", "h1g3", "a4a5", "i4i5"})


def _looked_result() -> SearchResult:
    """A capture that hangs the cannon (h3h10 takes a horse but loses the cannon: the
    engine sees it), two quiet moves, and a quiet move that hangs a chariot."""
    lines = {
        1: Line(1, ("b3e3",), Cp(30), 3, 100),
        2: Line(2, ("h1g3",), Cp(20), 3, 100),
        3: Line(3, ("a4a5",), Cp(0), 3, 100),
        4: Line(4, ("h3h10", "i10h10"), Cp(-250), 3, 100),
        5: Line(5, ("i4i5", "i10i5"), Cp(-900), 3, 100),
    }
    return SearchResult(bestmove="b3e3", ponder=None, lines=lines)


def _looked_picks(variety: Variety, captures: dict[str, int], seeds: range) -> list[str]:
    out = []
    for seed in seeds:
        choice = choose(_looked_result(), variety, seed, SECOND_LOOK_LEGAL, captures)
        assert choice is not None and choice.move in SECOND_LOOK_LEGAL
        out.append(choice.move)
    return out


def test_a_capture_is_seen_first_and_played_without_a_second_look() -> None:
    blind = Variety(multipv=99, temperature_cp=100, second_look=0, reject_cp=200)
    assert set(_looked_picks(blind, {"h3h10": 400}, range(50))) == {"h3h10"}


def test_a_second_look_rejects_the_capture_that_loses_material() -> None:
    looked = Variety(multipv=99, temperature_cp=100, second_look=1, reject_cp=200)
    picks = _looked_picks(looked, {"h3h10": 400}, range(300))
    assert "h3h10" not in picks
    # The first quiet candidate after it is played unchecked: mostly good moves, the
    # chariot-hanging i4i5 only rarely (weight exp(-930/100)).
    assert picks.count("b3e3") > picks.count("a4a5") > picks.count("i4i5")


def test_a_free_capture_survives_the_second_look() -> None:
    looked = Variety(multipv=99, temperature_cp=100, second_look=3, reject_cp=200)
    free = SearchResult(
        bestmove="h3h10",
        ponder=None,
        lines={**_looked_result().lines, 4: Line(4, ("h3h10",), Cp(400), 3, 100)},
    )
    for seed in range(30):
        choice = choose(free, looked, seed, SECOND_LOOK_LEGAL, {"h3h10": 400})
        assert choice is not None and choice.move == "h3h10"


def test_fractional_second_looks_look_that_often() -> None:
    half = Variety(multipv=99, temperature_cp=100, second_look=0.5, reject_cp=200)
    picks = _looked_picks(half, {"h3h10": 400}, range(2000))
    share = picks.count("h3h10") / len(picks)
    assert 0.45 < share < 0.55
    assert _looked_picks(half, {"h3h10": 400}, range(50)) == _looked_picks(
        half, {"h3h10": 400}, range(50)
    )


def test_more_second_looks_hang_less() -> None:
    quiet: dict[str, int] = {}
    hot = dict(multipv=99, temperature_cp=2000, reject_cp=200)
    none = _looked_picks(Variety(**hot, second_look=0), quiet, range(1000))  # type: ignore[arg-type]
    two = _looked_picks(Variety(**hot, second_look=2), quiet, range(1000))  # type: ignore[arg-type]
    assert two.count("i4i5") < none.count("i4i5") / 3


def test_first_look_sees_captures_and_an_atomic_blast_that_wins() -> None:
    from ladder.level_engine.second_look import WINNING_CAPTURE_CP, first_look
    from ladder.rules import Game

    game = Game.from_fen("xiangqi", moves=["h3e3", "h8e8"])
    seen = first_look(game)
    # The cannon takes the central soldier, the other one the horse (over b8's cannon).
    assert seen == {"e3e7": 100, "b3b10": 400}
    # Atomic: a capture next to the general blows it up and wins at once.
    atomic = Game.from_fen("atomic-xiangqi", "4k4/4n4/9/9/9/9/9/4R4/9/3K5 w - - 0 1")
    assert first_look(atomic) == {"e3e9": WINNING_CAPTURE_CP}


def test_the_second_look_rule_weighs_mates_as_a_capped_loss() -> None:
    """A line into mate has a loss of about 100,000 cp: the intuition caps it (and the
    arithmetic must not overflow at a low temperature)."""
    lines = {
        1: Line(1, ("b3e3",), Cp(30), 3, 100),
        2: Line(2, ("i4i5",), Mate(-2), 3, 100),
    }
    result = SearchResult(bestmove="b3e3", ponder=None, lines=lines)
    cold = Variety(multipv=99, temperature_cp=1, second_look=0, reject_cp=200)
    hot = Variety(multipv=99, temperature_cp=100_000, second_look=0, reject_cp=200)
    legal = frozenset({"b3e3", "i4i5"})
    cold_picks = {choose(result, cold, s, legal, {}).move for s in range(30)}  # type: ignore[union-attr]
    hot_picks = [choose(result, hot, s, legal, {}).move for s in range(400)]  # type: ignore[union-attr]
    assert cold_picks == {"b3e3"}
    assert 0.35 < hot_picks.count("i4i5") / 400 < 0.65


def test_moves_without_a_line_are_considered_and_carry_no_score() -> None:
    hot = Variety(multipv=99, temperature_cp=100_000, second_look=0, reject_cp=200)
    legal = frozenset({"b3e3", "h1g3", "a4a5"})
    result = SearchResult(
        bestmove="b3e3", ponder=None, lines={1: Line(1, ("b3e3",), Cp(30), 3, 100)}
    )
    picks = [choose(result, hot, s, legal, {}) for s in range(300)]
    assert {p.move for p in picks if p is not None} == legal
    assert all(p.line is None for p in picks if p is not None and p.move != "b3e3")


def test_a_hurried_move_takes_the_most_at_a_glance_else_draws_a_legal_move() -> None:
    from ladder.level_engine.level_move import hurried_move
    from ladder.level_engine.second_look import first_look
    from ladder.levels import load_levels
    from ladder.rules import Game

    level = replace(load_levels()["xiangqi"][3], book=False)
    game = Game.from_fen("xiangqi", moves=["h3e3", "h8e8"])
    moved = hurried_move(game, level, seed=1)
    assert moved.hurried and not moved.book and moved.result.nodes == 0
    assert moved.move == "b3b10"  # the cannon takes the horse (400), not the soldier (100)
    # Nothing to take: a legal move drawn with the seed, the same for the same seed.
    quiet = Game.from_fen("xiangqi", "4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1")
    drawn = {hurried_move(quiet, level, seed).move for seed in range(40)}
    assert drawn == set(quiet.legal_moves())
    # Atomic: a blast that loses more than it takes is no bargain at a glance.
    atomic = Game.from_fen("atomic-xiangqi", "4k4/4n4/9/9/9/9/9/4R4/9/3K5 w - - 0 1")
    assert hurried_move(atomic, load_levels()["atomic-xiangqi"][3], 1).move == "e3e9"
    losing = Game.from_fen("atomic-xiangqi", "4k4/9/9/9/4n4/9/9/4R4/9/3K5 w - - 0 1")
    assert first_look(losing) == {"e3e6": -500}  # the rook goes up with the horse
    assert {hurried_move(losing, level, s).move for s in range(40)} == set(losing.legal_moves())
