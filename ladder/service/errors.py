"""The service's errors: each one an HTTP status, a stable code and a clear message."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from starlette.responses import JSONResponse


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
    HEADER_TOO_LARGE = "header_too_large"  #: 431
    CLIENT_DISCONNECTED = "client_disconnected"  #: 499 (logged; the client is gone)
    INTERNAL_ERROR = "internal_error"  #: 500
    ENGINE_FAILED = "engine_failed"  #: 502
    BUSY = "busy"  #: 503
    DEADLINE_EXCEEDED = "deadline_exceeded"  #: 503
    SHUTTING_DOWN = "shutting_down"  #: 503
    NOT_READY = "not_ready"  #: 503, no engine alive
    TOO_MANY_CONNECTIONS = "too_many_connections"  #: 503
    HTTP_ERROR = "http_error"  #: any other status
    # The Python client's own, when no HTTP answer came:
    UNREACHABLE = "unreachable"  #: 503, connection refused or lost
    TIMEOUT = "timeout"  #: 504, no answer within the client's timeout
    BAD_URL = "bad_url"  #: 400, the base URL is not an http(s) URL


class ServiceError(Exception):
    """A request the service cannot answer with a move or a position.

    ``status`` is the HTTP status, ``code`` a stable machine-readable name, ``message``
    the human-readable reason; ``field`` and ``ply`` point at the offending input where
    there is one (``ply`` counts from 1 for the first move of ``moves``).
    The same class is raised by the in-process API and by :mod:`ladder.client`.
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


def error_response(err: ServiceError) -> JSONResponse:
    """The HTTP answer to `err`: its status, the JSON envelope, ``Retry-After``."""
    headers = {"Retry-After": str(err.retry_after)} if err.retry_after is not None else None
    return JSONResponse(err.to_dict(), status_code=err.status, headers=headers)


def invalid(
    message: str, *, field: str, ply: int | None = None, code: str = ErrorCode.INVALID_REQUEST
) -> ServiceError:
    """A 422: the request is well-formed JSON but names something that cannot be."""
    return ServiceError(422, code, message, field=field, ply=ply)
