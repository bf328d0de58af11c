"""The service's errors, in two layers.

* **Below HTTP** (:class:`RequestRejected` and its kinds): what the rules checker and
  :class:`~ladder.service.domain.mover.MoveService` refuse, with a stable code, a clear message
  and, where there is one, the field (``moves[3]``) and the ply at fault. With the
  pool's (:class:`~ladder.service.engines.pool.PoolError`) and the engines' (:class:`MoveFailed`:
  no usable answer) failures these are all the service raises.
* **The API's error** (:class:`ServiceError`): the same with an HTTP status (and
  ``Retry-After``), what an HTTP answer carries and what :mod:`ladder.client` raises in
  both of its modes. :mod:`ladder.service.domain.status` is the one place that turns the
  first into the second.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Every ``error.code`` the service (or the Python client) gives, and nothing else."""

    MALFORMED_JSON = "malformed_json"  #: 400
    BAD_HTTP = "bad_http"  #: 400, the request is not valid HTTP/1.1
    INVALID_HOST = "invalid_host"  #: 400, ``Host`` not in the allowed hosts
    CORS_REJECTED = "cors_rejected"  #: 400, a CORS preflight from an origin not allowed
    UNAUTHORIZED = "unauthorized"  #: 401
    NOT_FOUND = "not_found"  #: 404
    METHOD_NOT_ALLOWED = "method_not_allowed"  #: 405
    REQUEST_TIMEOUT = "request_timeout"  #: 408, no complete request in time
    GAME_OVER = "game_over"  #: 409 (or 422 for a move after the end)
    BODY_TOO_LARGE = "body_too_large"  #: 413
    INVALID_REQUEST = "invalid_request"  #: 422
    UNKNOWN_VARIANT = "unknown_variant"  #: 422
    BAD_FEN = "bad_fen"  #: 422
    ILLEGAL_MOVE = "illegal_move"  #: 422
    RATE_LIMITED = "rate_limited"  #: 429
    TOO_MANY_ANALYSES = "too_many_analyses"  #: 429, a client's analyses at once
    HEADER_TOO_LARGE = "header_too_large"  #: 431
    CLIENT_DISCONNECTED = "client_disconnected"  #: 499 (logged; the client is gone)
    INTERNAL_ERROR = "internal_error"  #: 500
    ENGINE_FAILED = "engine_failed"  #: 502
    BUSY = "busy"  #: 503
    DEADLINE_EXCEEDED = "deadline_exceeded"  #: 503
    SHUTTING_DOWN = "shutting_down"  #: 503
    NOT_READY = "not_ready"  #: 503, no engine alive
    VERSION_MISMATCH = "version_mismatch"  #: 503, a pinned engine build or ladder not served here
    TOO_MANY_CONNECTIONS = "too_many_connections"  #: 503
    HTTP_ERROR = "http_error"  #: any other status
    # The Python client's own, when no HTTP answer came:
    UNREACHABLE = "unreachable"  #: 503, connection refused or lost
    TIMEOUT = "timeout"  #: 504, no answer within the client's timeout
    BAD_URL = "bad_url"  #: 400, the base URL is not an http(s) URL


class RequestRejected(Exception):
    """A request the service cannot answer as asked (the caller's to fix).

    ``code`` is the stable machine-readable name, ``message`` the human-readable reason;
    ``field`` and ``ply`` point at the offending input where there is one (``ply``
    counts from 1 for the first move of ``moves``); ``outcome`` is a finished game's.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        field: str | None = None,
        ply: int | None = None,
        outcome: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.ply = ply
        self.outcome = outcome


class InvalidRequest(RequestRejected):
    """A field, FEN or move that cannot be (a well-formed request naming the impossible)."""


class GameOver(RequestRejected):
    """The game asked about is already over: there is no move to make."""


class TooManyAnalyses(RequestRejected):
    """The client runs as many game analyses as it may at once."""


class ServiceError(Exception):
    """The API's error: a request the service did not answer with a move or a position.

    ``status`` is the HTTP status, ``code``, ``message``, ``field``, ``ply`` and
    ``outcome`` as in :class:`RequestRejected`, ``retry_after`` the seconds to wait
    before trying again (503s). What an HTTP error answer says, and what
    :mod:`ladder.client` raises whichever way it reaches the service.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        ply: int | None = None,
        retry_after: int | None = None,
        outcome: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.ply = ply
        self.retry_after = retry_after
        self.outcome = outcome

    def to_dict(self) -> dict[str, Any]:
        """The JSON error body: ``{"error": {...}}`` without empty entries."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        for key in ("field", "ply", "retry_after", "outcome"):
            value = getattr(self, key)
            if value is not None:
                body[key] = value
        return {"error": body}

    @classmethod
    def from_dict(cls, status: int, data: Any) -> ServiceError:
        """Rebuild an error from a response body (what :mod:`ladder.client` receives)."""
        err = data.get("error") if isinstance(data, dict) else None
        if not isinstance(err, dict):
            return cls(status, "http_error", f"HTTP {status}: {str(data)[:200]}")
        return cls(
            status,
            str(err.get("code", "http_error")),
            str(err.get("message", f"HTTP {status}")),
            field=err.get("field"),
            ply=err.get("ply"),
            retry_after=err.get("retry_after"),
            outcome=err.get("outcome"),
        )

    def __repr__(self) -> str:
        return f"ServiceError({self.status}, {self.code!r}, {self.message!r})"


class MoveFailed(Exception):
    """A move request got no usable answer (see the subclasses)."""


class NoEngineAnswer(MoveFailed):
    """Every attempt failed: the engine crashed, hung or answered nonsense each time."""


class DeadlineExceeded(MoveFailed):
    """The request's deadline passed before a usable answer."""
