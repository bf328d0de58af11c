"""The answer each failure gets: the pool's and the mover's exceptions as HTTP statuses.

The pool (:class:`~ladder.service.pool.PoolError`) and the mover
(:class:`~ladder.service.mover.MoveFailed`) know nothing of HTTP; this is the one place
that says which status, code and ``Retry-After`` each of them is. The HTTP layer
(:mod:`ladder.service.app`) and the in-process client (:mod:`ladder.client`) both use
it, so a failure looks the same whichever way the service is called.
"""

from __future__ import annotations

from ladder.service.errors import ErrorCode, ServiceError
from ladder.service.mover import DeadlineExceeded, MoveFailed, NoEngineAnswer
from ladder.service.pool import PoolClosed, PoolError, QueueFull, QueueTimeout

#: The failures the engines can cause, and what each is over HTTP.
_STATUS: tuple[tuple[type[Exception], int, ErrorCode], ...] = (
    (QueueFull, 503, ErrorCode.BUSY),
    (QueueTimeout, 503, ErrorCode.BUSY),
    (PoolClosed, 503, ErrorCode.SHUTTING_DOWN),
    (DeadlineExceeded, 503, ErrorCode.DEADLINE_EXCEEDED),
    (NoEngineAnswer, 502, ErrorCode.ENGINE_FAILED),
)

#: The exceptions :func:`as_service_error` turns into answers.
UNAVAILABLE: tuple[type[Exception], ...] = (PoolError, MoveFailed)


def as_service_error(exc: PoolError | MoveFailed, retry_after: int) -> ServiceError:
    """The answer to a request that failed with `exc` (always with ``Retry-After``)."""
    for kind, status, code in _STATUS:
        if isinstance(exc, kind):
            return ServiceError(status, code, str(exc), retry_after=retry_after)
    return ServiceError(503, ErrorCode.BUSY, str(exc), retry_after=retry_after)
