"""Search limits: what follows ``go``.

Shaped like :class:`chess.engine.Limit` (times in seconds, as floats). A limit with
several fields set stops at whichever comes first. An empty limit means ``go infinite``:
the search runs until :meth:`protocol.engine.Engine.stop`.

UCI (all times in milliseconds on the wire)::

    go nodes 100000
    go depth 12
    go movetime 500
    go wtime 60000 btime 58000 winc 1000 binc 1000 movestogo 30

UCCI words the clock from the side to move's point of view, and only uses
milliseconds when the engine has the ``usemillisec`` option switched on (Fairy-Stockfish
has it, default ``true``; otherwise the unit is the second)::

    go time 60000 increment 1000 opptime 58000 oppincrement 1000 movestogo 30

``nodes``, ``depth`` and ``movetime`` are written the same way in both.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import chess

from protocol.errors import EngineArgumentError

#: The shortest ``movetime`` a deadline leaves (seconds): an engine asked for 0 ms may
#: read it as no limit.
MIN_MOVETIME = 0.001


@dataclass(frozen=True, slots=True)
class Limit:
    """When to stop searching. Red is ``white`` (chess.WHITE), Black is ``black``."""

    time: float | None = None
    """Search exactly this long (seconds): ``movetime``."""
    depth: int | None = None
    """Search this many plies: ``depth``."""
    nodes: int | None = None
    """Search this many nodes: ``nodes`` (FSF may overshoot by a few hundred)."""
    mate: int | None = None
    """Search for a mate in this many moves: ``mate``."""
    white_clock: float | None = None
    """Red's (white's) remaining clock time, seconds: ``wtime``."""
    black_clock: float | None = None
    """Black's remaining clock time, seconds: ``btime``."""
    white_inc: float | None = None
    """Red's (white's) increment per move, seconds: ``winc``."""
    black_inc: float | None = None
    """Black's increment per move, seconds: ``binc``."""
    remaining_moves: int | None = None
    """Moves to the next time control: ``movestogo``."""
    root_moves: tuple[str, ...] | None = None
    """Search only these moves at the root: ``searchmoves`` (UCI; last on the line), in
    the engine's notation, each one checked legal by the caller's rules checker."""
    deadline: float | None = None
    """The search ends by this moment of ``time.monotonic()`` at the latest: what is
    left of it when the search is sent becomes its ``movetime`` (at least
    :data:`MIN_MOVETIME`; :meth:`resolved`), so whatever comes first (new options, a
    new variant, a restarted engine, a wait for the engine) is taken out of it: a clock
    runs from when the move was asked for, not from when the engine got to it."""

    def __post_init__(self) -> None:
        if self.root_moves is not None and (
            isinstance(self.root_moves, str)
            or not all(isinstance(m, str) and m.isalnum() for m in self.root_moves)
        ):
            raise EngineArgumentError(f"Limit.root_moves must be moves: {self.root_moves!r}")
        for name in ("depth", "nodes", "mate", "remaining_moves"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise EngineArgumentError(f"Limit.{name} must be a non-negative int: {value!r}")
        if self.deadline is not None and (
            isinstance(self.deadline, bool)
            or not isinstance(self.deadline, int | float)
            or not math.isfinite(self.deadline)
        ):
            raise EngineArgumentError(f"Limit.deadline must be a monotonic time: {self.deadline!r}")
        for name in ("time", "white_clock", "black_clock", "white_inc", "black_inc"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise EngineArgumentError(f"Limit.{name} must be seconds >= 0: {value!r}")

    @property
    def infinite(self) -> bool:
        """No field set: the search only ends on ``stop``."""
        return all(
            getattr(self, f) is None
            for f in ("time", "depth", "nodes", "mate", "white_clock", "black_clock", "deadline")
        )

    def resolved(self) -> Limit:
        """This limit as it stands now: a :attr:`deadline` turned into the ``movetime``
        left of it (the shorter of that and :attr:`time`). The dialects send this."""
        if self.deadline is None:
            return self
        left = max(MIN_MOVETIME, self.deadline - time.monotonic())
        return replace(
            self, time=left if self.time is None else min(self.time, left), deadline=None
        )

    def go_command(self, turn: chess.Color, *, ucci: bool = False, millis: bool = True) -> str:
        """The ``go …`` line for this limit.

        ``turn`` is the side to move in the searched position (UCCI's ``time`` is that
        side's clock). ``millis`` is False only for a UCCI engine without
        ``usemillisec``, whose clock fields are then whole seconds.
        """
        if self.deadline is not None:
            return self.resolved().go_command(turn, ucci=ucci, millis=millis)
        parts = ["go"]
        if self.infinite:
            parts.append("infinite")
        if ucci:
            own, opp = (
                (self.white_clock, self.black_clock)
                if turn == chess.WHITE
                else (self.black_clock, self.white_clock)
            )
            own_inc, opp_inc = (
                (self.white_inc, self.black_inc)
                if turn == chess.WHITE
                else (self.black_inc, self.white_inc)
            )

            def clock(seconds: float) -> int:
                return _ms(seconds) if millis else int(seconds)

            for word, value in (
                ("time", own),
                ("increment", own_inc),
                ("opptime", opp),
                ("oppincrement", opp_inc),
            ):
                if value is not None:
                    parts += [word, str(clock(value))]
        else:
            for word, value in (
                ("wtime", self.white_clock),
                ("btime", self.black_clock),
                ("winc", self.white_inc),
                ("binc", self.black_inc),
            ):
                if value is not None:
                    parts += [word, str(_ms(value))]
        if self.remaining_moves is not None:
            parts += ["movestogo", str(self.remaining_moves)]
        if self.depth is not None:
            parts += ["depth", str(self.depth)]
        if self.nodes is not None:
            parts += ["nodes", str(self.nodes)]
        if self.mate is not None:
            parts += ["mate", str(self.mate)]
        if self.time is not None:
            parts += ["movetime", str(_ms(self.time))]
        if self.root_moves:
            parts += ["searchmoves", *self.root_moves]
        return " ".join(parts)

    def budget(self, turn: chess.Color, worst_case_nps: float) -> float | None:
        """The longest a healthy engine may need for this limit, in seconds.

        ``movetime`` gives it directly; a node limit at the configured worst-case speed;
        a clock by the mover's remaining time plus increment. ``depth``/``mate``/infinite
        alone give no bound (None): the caller applies its own ceiling.
        """
        if self.deadline is not None:
            return self.resolved().budget(turn, worst_case_nps)
        candidates: list[float] = []
        if self.time is not None:
            candidates.append(self.time)
        if self.nodes is not None:
            candidates.append(self.nodes / worst_case_nps)
        clock = self.white_clock if turn == chess.WHITE else self.black_clock
        if clock is not None:
            inc = (self.white_inc if turn == chess.WHITE else self.black_inc) or 0.0
            candidates.append(clock + inc)
        return min(candidates) if candidates else None


def search_limit(limit: Limit | None) -> Limit:
    """The limit a search was given: None is no limit (``Limit()``), anything else that
    is not a :class:`Limit` an :class:`EngineArgumentError`."""
    if limit is None:
        return Limit()
    if not isinstance(limit, Limit):
        raise EngineArgumentError(f"limit must be a protocol.Limit, not {type(limit).__name__}")
    return limit


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))
