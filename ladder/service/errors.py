"""The service's errors: each one an HTTP status, a stable code and a clear message."""

from __future__ import annotations

from typing import Any


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


def invalid(
    message: str, *, field: str, ply: int | None = None, code: str = "invalid_request"
) -> ServiceError:
    """A 422: the request is well-formed JSON but names something that cannot be."""
    return ServiceError(422, code, message, field=field, ply=ply)


def busy(message: str, retry_after: int) -> ServiceError:
    """A 503 with Retry-After: every engine is taken and the queue is full."""
    return ServiceError(503, "busy", message, retry_after=retry_after)


def engine_failed(message: str, retry_after: int) -> ServiceError:
    """A 502: the engine gave no usable answer, on every attempt."""
    return ServiceError(502, "engine_failed", message, retry_after=retry_after)


def deadline_exceeded(message: str, retry_after: int) -> ServiceError:
    """A 503: the request's deadline passed before a usable answer."""
    return ServiceError(503, "deadline_exceeded", message, retry_after=retry_after)
