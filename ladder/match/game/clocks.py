"""Time controls and game clocks, as cutechess-cli and fastchess count them.

A time control is written ``[MOVES/]TIME[+INCREMENT]`` (``tc=40/60+0.6``: 60 seconds for
every 40 moves, plus 0.6 s after each move; ``tc=10+0.1``: 10 s for the whole game;
``TIME`` may also be ``M:SS``). A player's clock starts at ``TIME``; after each of its
moves the time the move took is taken off, the increment is added, and after every
``MOVES`` moves ``TIME`` is added again. A player whose clock falls below minus its
time margin (``timemargin=MS``, default 0) has lost on time (ending ``timeout``).

The time a move took is the engine's search time: from writing ``go`` to reading
``bestmove`` (:attr:`protocol.PlayResult.elapsed`), as a GUI measures it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from protocol import Limit

__all__ = ["Clock", "MoveClocks", "TimeControl", "TimeControlError", "format_clock"]

_TC_RE = re.compile(
    r"^(?:(?P<moves>\d+)/)?(?P<time>\d+(?:\.\d+)?|\d+:\d{1,2}(?:\.\d+)?)(?:\+(?P<inc>\d+(?:\.\d+)?))?$"
)


class TimeControlError(ValueError):
    """A time control that cannot be understood."""


@dataclass(frozen=True)
class TimeControl:
    """``moves`` per period (None: the whole game), ``seconds`` per period, ``increment``
    seconds after every move."""

    moves: int | None
    seconds: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``[MOVES/]TIME[+INC]`` (TIME in seconds or ``M:SS``)."""
        m = _TC_RE.match(text.strip())
        if m is None:
            raise TimeControlError(
                f"time control must be [MOVES/]SECONDS[+INCREMENT] (e.g. 40/60+0.6), got {text!r}"
            )
        minutes, _, secs = m["time"].rpartition(":")
        seconds = float(secs) + 60 * int(minutes or 0)
        moves = None if m["moves"] is None else int(m["moves"])
        if seconds <= 0 or moves == 0:
            raise TimeControlError(f"time control needs time > 0 and moves > 0: {text!r}")
        return cls(moves, seconds, float(m["inc"] or 0))

    def text(self) -> str:
        """The ``tc=`` form of this control."""
        out = f"{self.moves}/" if self.moves is not None else ""
        out += f"{self.seconds:g}"
        return out + (f"+{self.increment:g}" if self.increment else "")


@dataclass
class Clock:
    """One player's clock during a game."""

    control: TimeControl
    margin: float = 0.0  #: seconds a move may overrun the clock before the flag falls
    remaining: float = 0.0
    moves_left: int | None = None  #: moves to the next time control (None: no more)

    def __post_init__(self) -> None:
        self.remaining = self.control.seconds
        self.moves_left = self.control.moves

    def spend(self, seconds: float) -> bool:
        """Take a move's time off the clock; False when the flag fell (the clock was
        overrun by more than the margin), else add the increment and, at the end of a
        period, the next period's time."""
        self.remaining -= seconds
        if self.remaining < -self.margin:
            return False
        self.remaining = max(self.remaining, 0.0) + self.control.increment
        if self.moves_left is not None:
            self.moves_left -= 1
            if self.moves_left == 0:
                self.remaining += self.control.seconds
                self.moves_left = self.control.moves
        return True


@dataclass(frozen=True)
class MoveClocks:
    """The clocks a player sees when it is asked for a move: its own, and its
    opponent's (None when the opponent plays without a clock)."""

    own: Clock
    opponent: Clock | None = None

    def limit(self, red_to_move: bool, base: Limit) -> Limit:
        """``base`` (nodes, depth, movetime) plus both clocks (an opponent without a
        clock is shown the mover's own clock: engines expect both)."""
        other = self.opponent or self.own
        red, black = (self.own, other) if red_to_move else (other, self.own)
        return replace(
            base,
            white_clock=red.remaining,
            black_clock=black.remaining,
            white_inc=red.control.increment,
            black_inc=black.control.increment,
            remaining_moves=self.own.moves_left,
        )


def format_clock(seconds: float) -> str:
    """``H:MM:SS`` (with tenths below a minute), as PGN ``[%clk]`` comments write it."""
    seconds = max(seconds, 0.0)
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    text = f"{h}:{m:02d}:{s:02d}"
    if seconds < 60:
        text += f".{int((seconds - whole) * 10)}"
    return text
