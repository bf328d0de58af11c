"""Match statistics: result counting, Elo with error bars, GSPRT, ladder fits.

Pure functions of game results (no engine, no I/O), behind the figures of matches,
tournaments, studies and the calibration.

* :mod:`ladder.match.statistics.results` -- trinomial (W/D/L) and pentanomial (game-pair) counts.
* :mod:`ladder.match.statistics.elo` -- logistic Elo, 95 % intervals, normalised Elo, LOS.
* :mod:`ladder.match.statistics.sprt` -- generalised SPRT as in fishtest / fastchess.
* :mod:`ladder.match.statistics.bradley_terry` -- whole-ladder ratings with a Red advantage;
  :mod:`ladder.match.statistics.bradley_terry_newton` -- its likelihood maximised.
"""

from ladder.match.statistics.bradley_terry import GameResult, LadderFit, PlayerRating, fit_ladder
from ladder.match.statistics.elo import (
    EloEstimate,
    elo_to_score,
    los,
    pentanomial_elo,
    score_to_elo,
    trinomial_elo,
    wilson,
)
from ladder.match.statistics.results import (
    Pentanomial,
    Trinomial,
    pair_score,
    pentanomial_from_pair_scores,
    pentanomial_from_results,
    trinomial_from_results,
)
from ladder.match.statistics.sprt import (
    Sprt,
    SprtDecision,
    SprtResult,
    llr_logistic,
    llr_logistic_approx,
    llr_normalized,
    sprt,
    sprt_bounds,
)

__all__ = [
    "EloEstimate",
    "GameResult",
    "LadderFit",
    "Pentanomial",
    "PlayerRating",
    "Sprt",
    "SprtDecision",
    "SprtResult",
    "Trinomial",
    "elo_to_score",
    "fit_ladder",
    "llr_logistic",
    "llr_logistic_approx",
    "llr_normalized",
    "los",
    "pair_score",
    "pentanomial_elo",
    "pentanomial_from_pair_scores",
    "pentanomial_from_results",
    "score_to_elo",
    "sprt",
    "sprt_bounds",
    "trinomial_elo",
    "trinomial_from_results",
    "wilson",
]
