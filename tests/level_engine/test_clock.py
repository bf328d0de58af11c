"""The clock rule (ladder.level_engine.clock): the limits it gives, and that a game played on them
never runs out of time."""

from __future__ import annotations

import pytest

from ladder.level_engine.clock import (
    MAX_LIMIT_MS,
    fixed_move_limit_ms,
    move_time_limit_ms,
    reserve_ms,
)


@pytest.mark.parametrize(
    ("remaining", "increment", "to_go", "limit"),
    [
        (60_000, 0, None, 1965),  # (60000 - 1050) / 30
        (60_000, 1000, None, 2715),  # + 3/4 of the increment
        (300_000, 0, None, 9965),  # the reserve stops growing at 1 s + 50 ms
        (10_000, 0, 1, 4475),  # one move to go: half of the usable time, not all
        (10_000, 0, 4, 2237),
        (2_000, 5_000, None, 875),  # a big increment: still half of what is usable
        (500, 0, None, 13),  # (500 - 100) / 30
        (0, 0, None, 1),  # nothing left: the shortest search there is
        (40, 0, None, 1),
        (10**20, 0, 1, 86_400_000),  # an absurd clock: at most a day
    ],
)
def test_limits(remaining: int, increment: int, to_go: int | None, limit: int) -> None:
    assert move_time_limit_ms(remaining, increment, to_go) == limit


def test_a_fixed_time_is_at_most_a_day_too() -> None:
    assert fixed_move_limit_ms(10**20) == MAX_LIMIT_MS == 86_400_000
    assert fixed_move_limit_ms(2_000) == 1_750


def test_reserve() -> None:
    assert reserve_ms(0) == 50
    assert reserve_ms(5_000) == 550
    assert reserve_ms(10_000_000) == 1050


def test_one_move_never_spends_the_reserve() -> None:
    """With more than the 56 ms a search needs at the least, the limit and the reserve
    together fit in what is left."""
    for remaining in range(56, 200_000, 7):
        for increment in (0, 100, 5_000):
            assert move_time_limit_ms(remaining, increment) + reserve_ms(remaining) <= remaining


#: What a move costs beyond its search on its way to the clock (ms), in these games.
LAG_MS = 20


@pytest.mark.parametrize(
    ("start", "increment", "to_go", "moves"),
    [
        (60_000, 0, None, 140),  # sudden death: 140 moves each (it flags at 149)
        (5_000, 0, None, 70),
        (1_000, 100, None, 1000),  # an increment above the lag: never
        (3_000, 2_000, None, 1000),
        (120_000, 0, 40, 1000),  # 40 moves in 2 minutes, repeating
    ],
)
def test_a_game_on_the_limits_does_not_run_out(
    start: int, increment: int, to_go: int | None, moves: int
) -> None:
    """Every move uses its whole limit plus LAG_MS: the clock lasts `moves` moves."""
    clock = start
    for ply in range(moves):
        moves_to_go = None if to_go is None else to_go - ply % to_go
        clock -= move_time_limit_ms(clock, increment, moves_to_go) + LAG_MS
        assert clock > 0, ply
        clock += increment
        if moves_to_go == 1:
            clock += start  # the next control's time


def test_more_time_never_gives_a_shorter_limit() -> None:
    last = 0
    for remaining in range(0, 400_000, 997):
        limit = move_time_limit_ms(remaining, 500)
        assert limit >= last
        last = limit


@pytest.mark.parametrize(
    "args",
    [
        (-1, 0, None),
        (1000, -5, None),
        (1000, 0, 0),
        (1.5, 0, None),
        (True, 0, None),
        (1000, 0, True),
    ],
)
def test_bad_clocks_are_refused(args: tuple[object, object, object]) -> None:
    with pytest.raises(ValueError, match="must be a whole number"):
        move_time_limit_ms(*args)  # type: ignore[arg-type]
