"""A move request's settings and its answer: the strength asked for, the game checked to
be still going on, the move's time on the clock, and the
:class:`~ladder.service.domain.models.MoveResponse` made of the level's move (searched,
from the book, or hurried) and the position after it.

Every door that answers a move request uses these: the service
(:class:`ladder.service.domain.mover.MoveService`) and ``ladder move`` in-process
(:mod:`ladder.service.local_move`)."""

from __future__ import annotations

from ladder.level_engine.clock import move_time_limit_ms
from ladder.level_engine.level_move import LevelMove
from ladder.level_engine.strength import strength
from ladder.levels import Level, LevelsError
from ladder.notation.by_name import move_in
from ladder.rules import Game
from ladder.service.domain.errors import ErrorCode, GameOver, InvalidRequest
from ladder.service.domain.models import MoveRequest, MoveResponse
from ladder.service.domain.positions import Checked

__all__ = ["check_not_over", "move_response", "move_strength", "request_time_limit_ms"]


def move_strength(
    levels: dict[str, dict[int, Level]], variant: str, level: int | None, elo: float | None
) -> Level:
    """The settings a request asks for: a level's, or those interpolated at an Elo
    (:class:`InvalidRequest` when the Elo is off the measured curve)."""
    try:
        return strength(levels[variant], level, elo)
    except LevelsError as exc:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, f"elo: {variant}: {exc}", field="elo"
        ) from None


def check_not_over(checked: Checked) -> None:
    """Raise :class:`GameOver` when the checked game is already over: no move to play."""
    if checked.outcome is not None:
        o = checked.outcome
        raise GameOver(
            ErrorCode.GAME_OVER,
            f"the game is already over: {o.reason} ({o.result})",
            outcome=o.model_dump(mode="json"),
        )


def request_time_limit_ms(req: MoveRequest) -> int | None:
    """The move's time on the request's clock (None without one)."""
    clock = req.clock
    if clock is None:
        return None
    return move_time_limit_ms(clock.remaining_ms, clock.increment_ms, clock.moves_to_go)


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
        {"cp": line.score.score(), "mate": line.score.mate()}
        if line is not None
        else {"cp": None, "mate": None}
    )
    # One validation in pydantic-core (Rust) of the whole answer: cheaper than
    # model_construct's Python loop over the fields, and the answer's shape checked too.
    return MoveResponse.model_validate(
        {
            "variant": req.variant,
            "level": req.level,
            "elo": req.elo,
            "move": choice.move,
            "ponder": ponder,
            "score": score,
            "depth": line.depth if line is not None else result.depth,
            "nodes": result.nodes,
            "time_ms": round(elapsed * 1000),
            "time_limit_ms": time_limit_ms,
            "seed": seed,
            "fen": after.fen,
            "gives_check": after.check,
            "outcome": after.outcome,
            "book": moved.book,
            "hurried": moved.hurried,
            "levels_version": levels_version,
            "notations": {n: move_in(n, before, choice.move) for n in req.notations}
            if req.notations
            else None,
        }
    )
