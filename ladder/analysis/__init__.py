"""Game analysis: every ply of a game evaluated, judged and summed up per side.

The one core that ``ladder analyse`` (:mod:`ladder.analysis.cli`), the service's
``POST /v1/analysis`` (:mod:`ladder.service.domain.analyser`) and ``ladder study`` use:

* :mod:`ladder.analysis.search`: one position's evaluation, a reproducible search;
* :mod:`ladder.analysis.winchance`: win chance, move and game accuracy (lichess's);
* :mod:`ladder.analysis.judgement`: inaccuracy, mistake, blunder;
* :mod:`ladder.analysis.plies`: one ply assembled (loss, line in WXF, rules notes);
* :mod:`ladder.analysis.summary`: per side counts, mean loss, accuracy;
* :mod:`ladder.analysis.runner`: a whole game, on one engine or several;
* :mod:`ladder.analysis.pgn`: the annotated PGN, as lichess exports one.
"""

from ladder.analysis.judgement import Judgement
from ladder.analysis.plies import PlyAnalysis
from ladder.analysis.runner import (
    AnalysisInputError,
    Evaluator,
    GameAnalysis,
    GamePositions,
    analyse,
)
from ladder.analysis.search import Evaluation
from ladder.analysis.summary import SideSummary, summarise

__all__ = [
    "AnalysisInputError",
    "Evaluation",
    "Evaluator",
    "GameAnalysis",
    "GamePositions",
    "Judgement",
    "PlyAnalysis",
    "SideSummary",
    "analyse",
    "summarise",
]
