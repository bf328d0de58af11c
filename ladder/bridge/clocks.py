"""A GUI's clock, as the bridge reads it: the longest the level's search may take.

The level stays a node count; on a clock its search also stops at the limit the move
service gives a clocked ``/v1/move`` (:func:`ladder.clock.move_time_limit_ms`: one rule
for both), and with a fixed time per move (UCI ``movetime``, XBoard ``st``) at that
time less the same reserve (:func:`ladder.clock.fixed_move_limit_ms`). Each dialect
reads its own commands into a :class:`GuiClock` (UCI ``wtime``/``btime``/``winc``/
``binc``/``movestogo``/``movetime``, UCCI ``time``/``increment``/``movestogo``,
XBoard ``level``/``st``/``time``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ladder.clock import fixed_move_limit_ms, move_time_limit_ms

__all__ = ["GuiClock"]


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
