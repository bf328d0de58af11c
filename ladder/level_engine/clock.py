"""The clock rule: how long a level's search may take when its side plays on a clock.

A level is a node count (:mod:`ladder.levels`); on a clock it keeps that count, and its
search also stops at :func:`move_time_limit_ms`, a share of the remaining time that can
never lose on time. Both the move service (``clock`` in ``POST /v1/move``) and the engine
bridge (a GUI's ``go wtime … btime …``) use this one rule, so a level plays the same on
a site's clock and in a GUI.

The rule (docs/service.md, "Timed games"), for the side to move::

    usable = remaining - reserve         reserve = min(1000, remaining / 10) + 50 ms
    share  = usable / moves_to_go + 3/4 increment      moves_to_go: 30 when not given
    limit  = max(1, min(share, usable / 2))           whole milliseconds

* the *reserve* is never spent: the time the answer needs to reach the clock (network,
  queue, process start), a tenth of the clock up to a second, plus 50 ms;
* *moves_to_go* spreads what is left over the moves to the next control; without one
  (sudden death, Fischer) the clock is spread over 30 more moves, as if every game
  were only ever 30 moves from its end, so the share shrinks as the clock runs down;
* three quarters of the *increment* is spent on each move (it comes back after it);
* never more than half of what is usable on one move, even with ``moves_to_go=1``;
* at least 1 ms: the engine always answers with a move (a 1 ms search still
  completes its first iteration).

A fixed time per move (a GUI's UCI ``movetime`` or XBoard ``st``) does not carry over
to the next move, so all of it may be spent but the same reserve
(:func:`fixed_move_limit_ms`): ``limit = max(1, movetime - reserve)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = [
    "DEFAULT_MOVES_TO_GO",
    "MAX_LIMIT_MS",
    "MAX_SHARE",
    "MIN_LIMIT_MS",
    "RESERVE_FIXED_MS",
    "RESERVE_MAX_MS",
    "MoveClock",
    "deadline_after",
    "fixed_move_limit_ms",
    "move_time_limit_ms",
    "reserve_ms",
]

#: Moves the remaining time is spread over when the clock gives no ``moves_to_go``.
DEFAULT_MOVES_TO_GO = 30
#: The reserve is a tenth of the clock, at most this (ms), ...
RESERVE_MAX_MS = 1000
#: ... plus this (ms): the answer's way back to the clock.
RESERVE_FIXED_MS = 50
#: The largest share of the usable time one move may take.
MAX_SHARE = 0.5
#: The shortest limit given (ms).
MIN_LIMIT_MS = 1
#: The longest limit given (ms): a day. No level searches that long; a GUI's absurd
#: clock (`go wtime 99999999999999999999`) must not reach the engine as a time.
MAX_LIMIT_MS = 86_400_000
#: The share of the increment spent on each move.
INCREMENT_SHARE = 0.75


def reserve_ms(remaining_ms: int) -> int:
    """Time of the clock never spent on searching (ms): see the module docstring."""
    return min(RESERVE_MAX_MS, remaining_ms // 10) + RESERVE_FIXED_MS


def move_time_limit_ms(
    remaining_ms: int, increment_ms: int = 0, moves_to_go: int | None = None
) -> int:
    """The longest a search may take (ms) with `remaining_ms` on the mover's clock,
    `increment_ms` added after each move and `moves_to_go` moves to the next time
    control (None: sudden death or increment only). ValueError for a negative time or
    a `moves_to_go` below 1."""
    for name, value in (("remaining_ms", remaining_ms), ("increment_ms", increment_ms)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number of milliseconds >= 0, not {value!r}")
    if moves_to_go is not None and (
        isinstance(moves_to_go, bool) or not isinstance(moves_to_go, int) or moves_to_go < 1
    ):
        raise ValueError(f"moves_to_go must be a whole number >= 1, not {moves_to_go!r}")
    usable = max(0, remaining_ms - reserve_ms(remaining_ms))
    share = usable / (moves_to_go or DEFAULT_MOVES_TO_GO) + INCREMENT_SHARE * increment_ms
    return max(MIN_LIMIT_MS, min(MAX_LIMIT_MS, int(min(share, MAX_SHARE * usable))))


def fixed_move_limit_ms(movetime_ms: int) -> int:
    """The longest a search may take (ms) when each move has `movetime_ms` of its own
    (UCI ``movetime``, XBoard ``st``): all of it but the reserve. ValueError for a
    negative time."""
    if isinstance(movetime_ms, bool) or not isinstance(movetime_ms, int) or movetime_ms < 0:
        raise ValueError(
            f"movetime_ms must be a whole number of milliseconds >= 0, not {movetime_ms!r}"
        )
    return max(MIN_LIMIT_MS, min(MAX_LIMIT_MS, movetime_ms - reserve_ms(movetime_ms)))


def deadline_after(limit_ms: int | None, started: float | None = None) -> float | None:
    """When a search limited to ``limit_ms`` must end, on ``time.monotonic()``'s clock:
    ``limit_ms`` after ``started`` (when the move was asked for; default: now). None
    without a limit."""
    if limit_ms is None:
        return None
    return (time.monotonic() if started is None else started) + limit_ms / 1000


@dataclass(frozen=True)
class MoveClock:
    """A move's time on a clock: at most ``limit_ms`` (:func:`move_time_limit_ms`),
    counted from ``started`` (``time.monotonic()`` when the move was asked for), so that
    what comes before the search (a queue, new engine options) is taken out of it."""

    limit_ms: int
    started: float = field(default_factory=time.monotonic)
