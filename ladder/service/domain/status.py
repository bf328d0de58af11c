"""The answer each failure gets: the service's exceptions as the API's errors.

The rules checker's refusals and the mover's
(:class:`~ladder.service.domain.errors.RequestRejected`),
the pool's (:class:`~ladder.service.engines.pool.PoolError`) and the mover's engine failures
(:class:`~ladder.service.domain.errors.MoveFailed`) know nothing of HTTP; this is the one place
that says which status, code and ``Retry-After`` each of them is, and how a request
model's validation errors read. The HTTP layer (:mod:`ladder.service.http.handlers`) and the
in-process client (:mod:`ladder.client`) both use it, so a failure looks the same
whichever way the service is called (tests/service/test_error_paths.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ladder.service.domain.errors import (
    DeadlineExceeded,
    ErrorCode,
    GameOver,
    InvalidRequest,
    MoveFailed,
    NoEngineAnswer,
    RequestRejected,
    ServiceError,
    TooManyAnalyses,
)
from ladder.service.domain.models import STRENGTH_ERROR
from ladder.service.engines.pool import PoolClosed, PoolError, QueueFull, QueueTimeout

M = TypeVar("M", bound=BaseModel)

#: Each failure's status, and its code where the exception does not carry one.
_STATUS: tuple[tuple[type[Exception], int, ErrorCode | None], ...] = (
    (GameOver, 409, None),
    (InvalidRequest, 422, None),
    (TooManyAnalyses, 429, None),
    (QueueFull, 503, ErrorCode.BUSY),
    (QueueTimeout, 503, ErrorCode.BUSY),
    (PoolClosed, 503, ErrorCode.SHUTTING_DOWN),
    (DeadlineExceeded, 503, ErrorCode.DEADLINE_EXCEEDED),
    (NoEngineAnswer, 502, ErrorCode.ENGINE_FAILED),
)

#: Every exception the service raises for a request it does not answer.
FAILURES: tuple[type[Exception], ...] = (RequestRejected, PoolError, MoveFailed)


def as_service_error(exc: Exception, retry_after: int) -> ServiceError:
    """The API's error for a request that failed with ``exc`` (one of :data:`FAILURES`);
    the engines' failures (5xx) carry ``Retry-After``."""
    status, code = 503, ErrorCode.BUSY
    for kind, kind_status, kind_code in _STATUS:
        if isinstance(exc, kind):
            status, code = kind_status, kind_code or code
            break
    if isinstance(exc, RequestRejected):
        return ServiceError(
            status,
            exc.code,
            exc.message,
            field=exc.field,
            ply=exc.ply,
            outcome=exc.outcome,
            retry_after=retry_after if status == 429 else None,
        )
    return ServiceError(status, code, str(exc), retry_after=retry_after)


def request_model(model: type[M], **fields: Any) -> M:
    """A request model built in-process (the client's, ``ladder move``'s); pydantic's
    complaint is the :class:`ServiceError` the server would give for the same request."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise as_service_error(invalid_request(exc.errors()), 0) from None


def as_list(moves: Sequence[str]) -> Any:
    """The moves as a request's list; a string stays one (the request refuses it by
    name, as the server does) instead of becoming a list of its letters."""
    return moves if isinstance(moves, str) else list(moves)


def invalid_request(errors: Sequence[Any]) -> InvalidRequest:
    """A request model's validation errors (pydantic's, FastAPI's with ``body`` first in
    each location) as one :class:`InvalidRequest`: the first problem's field path
    (``moves[3]``) and ply, and how many more there are."""
    first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
    loc = tuple(p for p in first.get("loc", ()) if p != "body")
    field = field_name(loc)
    if first.get("type") == STRENGTH_ERROR:
        field = "level"
    message = f"{field}: {first.get('msg', 'invalid')}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem(s))"
    ply = loc[-1] + 1 if len(loc) >= 2 and loc[-2] == "moves" and isinstance(loc[-1], int) else None
    code = ErrorCode.INVALID_REQUEST
    if field == "variant" and first.get("type") == "literal_error":
        code = ErrorCode.UNKNOWN_VARIANT  # a rule set this service does not play
    return InvalidRequest(code, message, field=field, ply=ply)


def field_name(loc: tuple[Any, ...]) -> str:
    """``("moves", 3)`` -> ``moves[3]``; ``body`` for the whole request."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


__all__ = [
    "FAILURES",
    "as_list",
    "as_service_error",
    "field_name",
    "invalid_request",
    "request_model",
]
