"""A GUI's clock, as the bridge reads it: the longest the level's search may take.

The level stays a node count; on a clock its search also stops at the limit the move
service gives a clocked ``/v1/move`` (:func:`ladder.level_engine.clock.move_time_limit_ms`: one rule
for both), and with a fixed time per move (UCI ``movetime``, XBoard ``st``) at that
time less the same reserve (:func:`ladder.level_engine.clock.fixed_move_limit_ms`). Each dialect
reads its own commands into a :class:`GuiClock` (UCI ``wtime``/``btime``/``winc``/
``binc``/``movestogo``/``movetime``, UCCI ``time``/``increment``/``movestogo``,
XBoard ``level``/``st``/``time``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ladder.bridge.session import SessionError
from ladder.level_engine.clock import fixed_move_limit_ms, move_time_limit_ms

__all__ = ["GuiClock", "XBoardTimeControl"]


@dataclass(frozen=True)
class GuiClock:
    """The mover's side of a GUI's clock, in milliseconds (None: not given)."""

    remaining_ms: int | None = None
    increment_ms: int = 0
    moves_to_go: int | None = None  #: moves to the next time control
    movetime_ms: int | None = None  #: a fixed time for this move

    def time_limit_ms(self) -> int | None:
        """The search's time limit (ms), None without a clock: the node count alone."""
        limits: list[int] = []
        if self.remaining_ms is not None:
            moves_to_go = self.moves_to_go if self.moves_to_go and self.moves_to_go > 0 else None
            limits.append(
                move_time_limit_ms(
                    max(0, self.remaining_ms), max(0, self.increment_ms), moves_to_go
                )
            )
        if self.movetime_ms is not None:
            limits.append(fixed_move_limit_ms(max(0, self.movetime_ms)))
        return min(limits) if limits else None


#: The longest time a GUI may give (a day): a larger one is a typo, not a clock.
MAX_SECONDS = 86_400.0


def _milliseconds(seconds: str, least_ms: int) -> int:
    """``seconds`` (a decimal) as whole milliseconds, at least ``least_ms`` and at most a
    day; ValueError otherwise (``inf``, ``nan``, a negative time)."""
    value = float(seconds)
    if not 0 <= value <= MAX_SECONDS:  # (false for nan too)
        raise ValueError(seconds)
    ms = round(value * 1000)
    if ms < least_ms:
        raise ValueError(seconds)
    return ms


class XBoardTimeControl:
    """XBoard's time control (``level MPS BASE INC`` or ``st SECONDS``) and the engine's
    clock (``time CENTISECONDS``, sent before each of its moves). A bad command raises
    :class:`~ladder.bridge.session.SessionError` naming it."""

    def __init__(self) -> None:
        self.moves_per_control = 0
        self.base_ms: int | None = None
        self.increment_ms = 0
        self.per_move_ms: int | None = None
        self.clock_ms: int | None = None

    def level(self, args: list[str]) -> None:
        """``level MPS BASE INC``: MPS moves in BASE minutes (``M`` or ``M:SS``), or the
        whole game when MPS is 0, INC seconds added after each move."""
        try:
            moves, base, increment = args
            minutes, _, seconds = base.partition(":")
            if int(minutes) < 0 or not 0 <= int(seconds or 0) <= 59 or int(moves) < 0:
                raise ValueError
            base_ms = _milliseconds(str(int(minutes) * 60 + int(seconds or 0)), 0)
            moves_per_control, increment_ms = int(moves), _milliseconds(increment, 0)
        except ValueError:
            raise SessionError(f"level needs MPS BASE INC, not {' '.join(args)[:40]!r}") from None
        self.moves_per_control = moves_per_control
        self.base_ms, self.increment_ms = base_ms, increment_ms
        self.per_move_ms = self.clock_ms = None

    def st(self, args: list[str]) -> None:
        """``st SECONDS``: a fixed time for every move."""
        try:
            self.per_move_ms = _milliseconds(args[0], 1)
        except (IndexError, ValueError):
            raise SessionError(
                f"st needs a positive number of seconds, not {' '.join(args)[:40]!r}"
            ) from None

    def time(self, args: list[str]) -> None:
        """``time CENTISECONDS``: the engine's clock, sent before each of its moves."""
        try:
            self.clock_ms = int(args[0]) * 10
        except (IndexError, ValueError):
            raise SessionError(f"time needs centiseconds, not {' '.join(args)[:40]!r}") from None

    def clock(self, game_ply: int) -> GuiClock:
        """The engine's clock for its move at ``game_ply``."""
        if self.per_move_ms is not None:
            return GuiClock(movetime_ms=self.per_move_ms)
        remaining = self.clock_ms if self.clock_ms is not None else self.base_ms
        if remaining is None:
            return GuiClock()
        moves_to_go = None
        if self.moves_per_control:  # the moves this side has made since the start
            moves_to_go = self.moves_per_control - (game_ply // 2 % self.moves_per_control)
        return GuiClock(remaining, self.increment_ms, moves_to_go)
