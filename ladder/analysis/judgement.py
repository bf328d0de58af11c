"""A move's judgement: inaccuracy, mistake or blunder, as lichess judges one
(``Advice.scala``).

* Both evaluations centipawns: by the drop in the mover's win chance
  (:func:`ladder.analysis.winchance.win_chance`): 5 points an inaccuracy, 10 a mistake,
  15 a blunder. lichess states these as 0.1, 0.2 and 0.3 of its winning chances
  (-1..+1, twice our 0..1 scale). From an even position, at the fitted xiangqi
  constant, 15 points is about 270 cp (a horse or a cannon given away), 5 points about
  90 cp: less is within the analysis budget's own noise (docs/analysis.md).
* A mate appears or disappears: the opponent now mates where it did not, a blunder (a
  mistake when the mover was already down 7 pawns, an inaccuracy when down 10); the
  mover had a mate and no longer has one, a blunder (a mistake when it is still 7
  pawns up, an inaccuracy when 10). A slower mate is no judgement.
"""

from __future__ import annotations

from enum import StrEnum

from ladder.analysis.winchance import CHESS_K, win_chance

__all__ = ["THRESHOLDS", "Judgement", "judge"]


class Judgement(StrEnum):
    """How bad a move was; each has its PGN annotation (:attr:`nag`)."""

    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @property
    def nag(self) -> str:
        """The PGN suffix annotation: ``?!``, ``?``, ``??``."""
        return {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[self.value]

    @property
    def label(self) -> str:
        return self.value.capitalize()


#: The least drop in the mover's win chance (0..1) for each judgement, worst first.
THRESHOLDS: tuple[tuple[float, Judgement], ...] = (
    (0.15, Judgement.BLUNDER),
    (0.10, Judgement.MISTAKE),
    (0.05, Judgement.INACCURACY),
)


def _by_margin(value: int) -> Judgement:
    """A mate gained by the opponent or lost by the mover: a blunder unless the mover's
    centipawn score (``value``: how far it is ahead, or minus how far behind it was
    before) was already decisive, beyond 7 or 10 pawns."""
    if value > 999:
        return Judgement.INACCURACY
    if value > 700:
        return Judgement.MISTAKE
    return Judgement.BLUNDER


def judge(
    before_cp: int | None,
    before_mate: int | None,
    after_cp: int | None,
    after_mate: int | None,
    k: float = CHESS_K,
) -> Judgement | None:
    """The judgement of a move from the mover's evaluation before it and after it (both
    from the mover's side: cp, or mate in N, positive when the mover mates)."""
    if before_mate is None and after_mate is None:
        drop = win_chance(before_cp, None, k) - win_chance(after_cp, None, k)
        return next((j for least, j in THRESHOLDS if drop >= least), None)
    mated_now = after_mate is not None and after_mate <= 0
    mated_before = before_mate is not None and before_mate <= 0
    if mated_now and not mated_before:
        if before_mate is not None:  # it had a mate and now is mated: lost the mate
            return Judgement.BLUNDER
        return _by_margin(-(before_cp or 0))
    mating_before = before_mate is not None and before_mate > 0
    mating_now = after_mate is not None and after_mate > 0
    if mating_before and not mating_now:
        return _by_margin(after_cp or 0) if after_mate is None else Judgement.BLUNDER
    return None
