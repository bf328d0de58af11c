"""One position's evaluation: a search at a node budget, its line checked by the rules.

:meth:`ladder.level_engine.engine.LevelEngine.evaluate` runs the level engine's own
search (``ucinewgame``, ``Threads`` 1, a fixed Hash, ``go nodes N``), so an
evaluation depends only on the position, the budget and the engine build: the same on
any machine, any engine process, any instance of the service, in any order. That is what
lets an analysis run plies in parallel, resume from any ply, and be cached.

The engine's best move is checked against the rules checker's legal moves (a move
outside them is an engine fault: the engine is killed and the search retried); its
principal variation is replayed through the rules checker and cut at the first move
that is not legal there (logged). A finished game's position is not searched: its
evaluation is the rules' result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ladder.level_engine.engine_lines import SearchResult
from ladder.rules import Game, RulesError
from protocol.errors import Incident

log = logging.getLogger("ladder.analysis")

__all__ = [
    "HASH_MB",
    "PV_PLIES",
    "Evaluation",
    "Searched",
    "checked_line",
    "evaluate_outcome",
    "evaluation_of",
]

#: The Hash every analysis search runs with (the levels' default): part of what makes
#: an evaluation reproducible.
HASH_MB = 16
#: Plies of the principal variation kept.
PV_PLIES = 8


@dataclass(frozen=True)
class Evaluation:
    """A position's evaluation, from Red's side (positive: good for Red).

    ``cp`` or ``mate`` (moves to mate: positive when Red mates, negative or 0 when Red
    is mated); for a finished game ``result`` (``1-0``, ``0-1``, ``1/2-1/2``), with
    ``mate`` 0 for the loser's side (``mate`` = 0 and ``result`` ``0-1``: Red is mated)
    or ``cp`` 0 for a draw. ``best`` and ``pv`` are the engine's, canonical and legal.
    """

    cp: int | None
    mate: int | None
    best: str | None = None
    pv: tuple[str, ...] = ()
    depth: int = 0
    nodes: int = 0
    result: str | None = None

    def for_side(self, red: bool) -> tuple[int | None, int | None]:
        """(cp, mate) from one side's view (a finished game's mate 0: the side that lost
        has -0, i.e. is mated; the winner gets +1 so that it counts as mating)."""
        if self.result is not None and self.mate is not None:
            red_won = self.result == "1-0"
            return None, (1 if red_won == red else 0)
        sign = 1 if red else -1
        cp = None if self.cp is None else sign * self.cp
        mate = None if self.mate is None else sign * self.mate
        return cp, mate


@dataclass(frozen=True)
class Searched:
    """What one search gave: the evaluation and the engine faults recovered from."""

    evaluation: Evaluation
    incidents: list[Incident]


def evaluate_outcome(game: Game) -> Evaluation | None:
    """The evaluation of a finished game (None while it goes on)."""
    outcome = game.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return Evaluation(cp=0, mate=None, result=outcome.result)
    return Evaluation(cp=None, mate=0, result=outcome.result)


def checked_line(game: Game, pv: tuple[str, ...], limit: int = PV_PLIES) -> tuple[str, ...]:
    """``pv`` up to its first move the rules checker refuses (and at most ``limit``)."""
    board = game.copy()
    out: list[str] = []
    for move in pv[:limit]:
        try:
            board.push(move)
        except RulesError as exc:
            log.warning(
                "engine line cut at ply %d: %s (%s)",
                len(out) + 1,
                move,
                exc.reason,
                extra={"event": "analysis_bad_pv", "fen": game.fen(), "move": move},
            )
            break
        out.append(move)
    return tuple(out)


def evaluation_of(game: Game, result: SearchResult) -> Evaluation:
    """A search's result in ``game``'s position as Red's :class:`Evaluation` (the
    engine scores from the side to move)."""
    line = result.lines.get(1)
    best = result.bestmove
    pv: tuple[str, ...] = ()
    cp = mate = None
    depth = result.depth
    if line is not None:
        pv = line.pv if line.pv and line.pv[0] == best else ((best,) if best else ())
        cp, mate, depth = line.score.score(), line.score.mate(), line.depth or depth
    elif best is not None:
        pv = (best,)
    sign = 1 if game.turn == "red" else -1
    return Evaluation(
        cp=None if cp is None else sign * cp,
        mate=None if mate is None else sign * mate,
        best=best,
        pv=checked_line(game, pv),
        depth=depth,
        nodes=result.nodes,
    )
