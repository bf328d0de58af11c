"""Win chance, move accuracy and game accuracy: lichess's published formulas.

* **Win chance** (lichess ``WinPercent.scala``, https://lichess.org/page/accuracy): a
  logistic curve of the evaluation, ``1 / (1 + exp(-k * cp))``, with the evaluation
  capped at ±:data:`CP_CEILING` centipawns and a mate counted as the cap. lichess's
  ``k`` is 0.00368208 for chess; ours is fitted per variant on the ladder's own
  committed games (:data:`WIN_CHANCE_K`, ``scripts/fit_win_chance.py``, docs/analysis.md).
* **Move accuracy** (lichess ``AccuracyPercent.fromWinPercents``): from the mover's win
  percentage before and after the move, ``103.1668 * exp(-0.04354 * drop) - 3.1669``
  plus a one-point uncertainty bonus, within 0..100; a move that does not lose is 100.
* **Game accuracy** per side (lichess ``AccuracyPercent.gameAccuracy``): the mean of a
  volatility-weighted mean and the harmonic mean of the side's move accuracies; each
  move's weight is the standard deviation of the win percentages in a window around it
  (the window ``plies / 10`` positions, 2 to 8), within 0.5..12, so that moves in a
  sharp phase count more than moves in a dead-drawn one.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

__all__ = [
    "CHESS_K",
    "CP_CEILING",
    "WIN_CHANCE_K",
    "game_accuracy",
    "move_accuracy",
    "win_chance",
]

#: Evaluations beyond this many centipawns count as this much (and a mate as the cap),
#: as lichess does: past +10 a position is won, and further gains mean nothing.
CP_CEILING = 1000
#: lichess's constant for chess (centipawns to the logistic's argument).
CHESS_K = 0.00368208
#: The constant per variant, fitted by ``scripts/fit_win_chance.py`` on the committed
#: calibration games (calibration/games-*.jsonl.gz; the fit in calibration/win-chance.json):
#: positions from games between ladder levels evaluated at 10,000 nodes, Red's result
#: regressed on Red's evaluation (maximum likelihood, draws as half a win). Chess's
#: constant lies outside each variant's 90 % interval; docs/analysis.md has the table.
WIN_CHANCE_K: dict[str, float] = {
    "xiangqi": 0.00227,
    "atomic-xiangqi": 0.00212,
    "crazyhouse-xiangqi": 0.00138,
}


def win_chance(cp: int | None, mate: int | None, k: float = CHESS_K) -> float:
    """The side's chance to win (0..1, draws as half) for its evaluation: ``cp``
    centipawns, or ``mate`` in N moves (positive: it mates; 0 or negative: it is mated)."""
    if mate is not None:
        return 1.0 if mate > 0 else 0.0
    value = max(-CP_CEILING, min(CP_CEILING, cp or 0))
    return 1.0 / (1.0 + math.exp(-k * value))


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy (0..100) from the mover's win chance (0..1) before and after."""
    if after >= before:
        return 100.0
    drop = 100.0 * (before - after)
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1.0))


def game_accuracy(red_chances: Sequence[float], red_first: bool) -> dict[str, float | None]:
    """Each side's accuracy (0..100, None for a side that did not move) from Red's win
    chance at every position of the game, the start first (``len`` = plies + 1)."""
    plies = len(red_chances) - 1
    if plies < 1:
        return {"red": None, "black": None}
    percents = [100.0 * c for c in red_chances]
    window = max(2, min(8, plies // 10))
    # lichess's windows: the first (window - 2) are the opening window repeated, then
    # every window of that size in turn; one weight per move.
    windows = [percents[:window]] * max(0, min(window, len(percents)) - 2)
    windows += [percents[i : i + window] for i in range(len(percents) - window + 1)]
    weights = [max(0.5, min(12.0, statistics.pstdev(w) if len(w) > 1 else 0.0)) for w in windows]
    per_side: dict[str, list[tuple[float, float]]] = {"red": [], "black": []}
    for i in range(plies):
        red_moved = (i % 2 == 0) == red_first
        before, after = percents[i] / 100, percents[i + 1] / 100
        if red_moved:
            accuracy = move_accuracy(before, after)
        else:
            accuracy = move_accuracy(1 - before, 1 - after)
        weight = weights[i] if i < len(weights) else weights[-1]
        per_side["red" if red_moved else "black"].append((accuracy, weight))
    out: dict[str, float | None] = {}
    for side, moves in per_side.items():
        if not moves:
            out[side] = None
            continue
        weighted = sum(a * w for a, w in moves) / sum(w for _, w in moves)
        # a 0-accuracy move makes the harmonic mean 0 (as in lichess: a lost game's
        # blunder weighs fully); statistics.harmonic_mean returns 0 then
        harmonic = statistics.harmonic_mean([a for a, _ in moves])
        out[side] = (weighted + harmonic) / 2
    return out
