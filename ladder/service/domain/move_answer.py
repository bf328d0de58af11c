"""The answer to a move request: a :class:`~ladder.service.domain.models.MoveResponse` made of
the level's move (searched, from the book, or hurried) and the position after it."""

from __future__ import annotations

from ladder.level_engine.level_move import LevelMove
from ladder.notations import move_in
from ladder.rules import Game
from ladder.service.domain.models import MoveRequest, MoveResponse, Score
from ladder.service.domain.positions import Checked

__all__ = ["move_response"]


def move_response(
    req: MoveRequest,
    seed: int,
    before: Game,
    after: Checked,
    moved: LevelMove,
    elapsed: float,
    time_limit_ms: int | None,
    levels_version: str,
) -> MoveResponse:
    """``moved`` as the API answers it: ``before`` the position it is played in (its
    notations are written there), ``after`` the position it leads to (its ponder move
    kept only if legal there), ``elapsed`` the search's wall time (0 without one)."""
    choice, result = moved.choice, moved.result
    ponder = choice.ponder if choice.ponder in after.legal else None
    line = choice.line
    score = (
        Score(cp=line.score.score(), mate=line.score.mate())
        if line is not None
        else Score(cp=None, mate=None)
    )
    # Built from checked values (the request's, the rules checker's, the level move's):
    # not validated again on the way out of every move (tests/service check its shape).
    return MoveResponse.model_construct(
        variant=req.variant,
        level=req.level,
        elo=req.elo,
        move=choice.move,
        ponder=ponder,
        score=score,
        depth=line.depth if line is not None else result.depth,
        nodes=result.nodes,
        time_ms=round(elapsed * 1000),
        time_limit_ms=time_limit_ms,
        seed=seed,
        fen=after.fen,
        gives_check=after.check,
        outcome=after.outcome,
        book=moved.book,
        hurried=moved.hurried,
        levels_version=levels_version,
        notations={n: move_in(n, before, choice.move) for n in req.notations}
        if req.notations
        else None,
    )
