"""Per side: how many inaccuracies, mistakes and blunders, the mean loss and the
accuracy (lichess's game accuracy, :func:`ladder.analysis.winchance.game_accuracy`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ladder.analysis.judgement import Judgement
from ladder.analysis.plies import PlyAnalysis
from ladder.analysis.winchance import game_accuracy

__all__ = ["SideSummary", "summarise"]


@dataclass(frozen=True)
class SideSummary:
    """One side's figures over the plies analysed."""

    side: str
    moves: int
    inaccuracies: int
    mistakes: int
    blunders: int
    mean_loss_cp: float | None  #: the average centipawn loss (ACPL)
    accuracy: float | None  #: 0..100

    def to_dict(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "mean_loss_cp": None if self.mean_loss_cp is None else round(self.mean_loss_cp, 1),
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
        }


def summarise(plies: Sequence[PlyAnalysis]) -> dict[str, SideSummary]:
    """Red's and Black's summaries over ``plies`` (consecutive, in order)."""
    if plies:
        chances = [plies[0].win_chance_before, *(p.win_chance for p in plies)]
        accuracy = game_accuracy(chances, plies[0].side == "red")
    else:
        accuracy = {"red": None, "black": None}
    out = {}
    for side in ("red", "black"):
        mine = [p for p in plies if p.side == side]
        counts = {j: sum(1 for p in mine if p.judgement is j) for j in Judgement}
        out[side] = SideSummary(
            side=side,
            moves=len(mine),
            inaccuracies=counts[Judgement.INACCURACY],
            mistakes=counts[Judgement.MISTAKE],
            blunders=counts[Judgement.BLUNDER],
            mean_loss_cp=sum(p.loss_cp for p in mine) / len(mine) if mine else None,
            accuracy=accuracy[side],
        )
    return out
