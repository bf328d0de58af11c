"""Ending games early: by engine score (resign / draw) and by a maximum length.

Every rules ending (checkmate, stalemate, general-exploded, perpetual-check, repetition,
sixty-plies) is the rules checker's (:meth:`ladder.rules.Game.outcome`); this module adds
the match's own endings, all optional except the length cap:

* **resign**: a player whose own score (from its side) has been ``<= -resign_cp`` (or a
  mate against it) for ``resign_moves`` consecutive moves of its own loses.
* **draw**: both players' scores within ``+-draw_cp`` for ``draw_moves`` consecutive
  moves each (``2 * draw_moves`` plies) is a draw. A move without a score (a baseline
  player) breaks the streak. ``draw_streak`` says how it meets ``draw_after_ply``:
  ``after`` (the ladder's) counts only the moves after that ply; ``start`` (cutechess's
  ``-draw movenumber=N``, ``draw_after_ply`` = 2N: ``GameAdjudicator::addEval``) counts
  every scored move since the book and adjudicates once the game has that many plies.
* **max-plies**: a game that reaches ``max_plies`` plies is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chess.engine import Score

from ladder.level_engine.engine_lines import MATE_CP
from ladder.match.game.endings import Ending

__all__ = ["DRAW_STREAKS", "Adjudication", "Adjudicator", "Verdict"]

#: Where a draw streak may start (see the module).
DRAW_STREAKS = ("after", "start")


@dataclass(frozen=True)
class Adjudication:
    """Adjudication settings (None disables the rule)."""

    resign_cp: int | None = None
    resign_moves: int = 4
    draw_cp: int | None = None
    draw_moves: int = 8
    draw_after_ply: int = 60
    max_plies: int = 500
    draw_streak: str = "after"  #: see the module: "after" or "start"

    def __post_init__(self) -> None:
        if self.max_plies < 1 or self.resign_moves < 1 or self.draw_moves < 1:
            raise ValueError("max_plies, resign_moves and draw_moves must be >= 1")
        if (self.resign_cp is not None and self.resign_cp <= 0) or (
            self.draw_cp is not None and self.draw_cp < 0
        ):
            raise ValueError("resign_cp must be > 0 and draw_cp >= 0")
        if self.draw_streak not in DRAW_STREAKS:
            raise ValueError(f"draw_streak must be one of {DRAW_STREAKS}, not {self.draw_streak!r}")


@dataclass(frozen=True)
class Verdict:
    """An adjudicated end: PGN result, winner (None: draw), reason."""

    result: str
    winner: str | None
    reason: Ending


@dataclass
class Adjudicator:
    """Feeds on each move's score and says when the game is adjudicated."""

    rules: Adjudication
    _resign_streak: dict[str, int] = field(default_factory=lambda: {"red": 0, "black": 0})
    _draw_streak: int = 0

    def update(self, mover: str, ply: int, score: Score | None) -> Verdict | None:
        """Record the score the mover reported for its move (``ply`` = plies played
        after the move); return a verdict if the game ends here."""
        r = self.rules
        if r.resign_cp is not None or r.draw_cp is not None:  # (else the score is not read)
            verdict = self._by_score(mover, ply, score)
            if verdict is not None:
                return verdict
        if ply >= r.max_plies:
            return Verdict("1/2-1/2", None, Ending.MAX_PLIES)
        return None

    def _by_score(self, mover: str, ply: int, score: Score | None) -> Verdict | None:
        """The resign and draw rules' verdict on the mover's score, if any."""
        r = self.rules
        value = None if score is None else score.score(mate_score=MATE_CP)
        if r.resign_cp is not None:
            if value is not None and value <= -r.resign_cp:
                self._resign_streak[mover] += 1
            else:
                self._resign_streak[mover] = 0
            if self._resign_streak[mover] >= r.resign_moves:
                other = "black" if mover == "red" else "red"
                return Verdict(
                    "1-0" if other == "red" else "0-1", other, Ending.RESIGN_ADJUDICATION
                )
        if r.draw_cp is not None:
            from_start = r.draw_streak == "start"
            counted = from_start or ply > r.draw_after_ply
            if value is not None and abs(value) <= r.draw_cp and counted:
                self._draw_streak += 1
            else:
                self._draw_streak = 0
            if self._draw_streak >= 2 * r.draw_moves and (
                not from_start or ply >= r.draw_after_ply
            ):
                return Verdict("1/2-1/2", None, Ending.DRAW_ADJUDICATION)
        return None
