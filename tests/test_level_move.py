"""The variety rule's random move (:func:`ladder.level_move.choose`), without engines."""

from __future__ import annotations

from ladder.level_move import Line, SearchResult, choose
from ladder.levels import Variety

LEGAL = frozenset({"h3e3", "b3e3", "h1g3", "c4c5", "a4a5", "i4i5"})


def _result() -> SearchResult:
    lines = {
        1: Line(1, ("h3e3", "h10g8"), 50, None, 5, 1000),
        2: Line(2, ("b3e3", "b10c8"), 20, None, 5, 1000),
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
            assert choice.line is not None and choice.line.cp == 20
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
