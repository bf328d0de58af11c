"""How the HTTP API answers a failure: always the JSON ``{"error": {...}}`` envelope of a
:class:`~ladder.service.domain.errors.ServiceError`, with its status (and ``Retry-After``).

The service's own failures go through :mod:`ladder.service.domain.status` (the one table of
statuses, shared with the in-process client); the rest are HTTP's: a body that is not
JSON, a model's validation errors, an unknown path or method, and anything unexpected
(a 500 that names the exception's type, never a traceback).
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.domain.status import FAILURES, as_service_error, invalid_request

log = logging.getLogger("ladder.service.http.app")

#: The codes of the HTTP errors Starlette raises itself.
_HTTP_CODES = {
    400: ErrorCode.MALFORMED_JSON,  # FastAPI's "There was an error parsing the body"
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
}


def error_response(err: ServiceError) -> JSONResponse:
    """The HTTP answer to `err`: its status, the JSON envelope, ``Retry-After``."""
    headers = {"Retry-After": str(err.retry_after)} if err.retry_after is not None else None
    return JSONResponse(err.to_dict(), status_code=err.status, headers=headers)


def failure_response(exc: Exception, retry_after: int) -> JSONResponse:
    """The HTTP answer to one of the service's failures (:data:`.status.FAILURES`)."""
    return error_response(as_service_error(exc, retry_after))


def validation_response(
    exc: RequestValidationError, retry_after: int, content_type: str | None = None
) -> JSONResponse:
    """A body that is not JSON (400), or one that does not fit the request model (422,
    as :func:`ladder.service.domain.status.invalid_request` says). A body sent as something
    else than JSON (``curl -d`` without ``-H 'Content-Type: application/json'``: a form)
    is not read as JSON, and the answer says so."""
    errors = exc.errors()
    if errors and errors[0].get("type") == "json_invalid":
        return error_response(
            ServiceError(
                400,
                ErrorCode.MALFORMED_JSON,
                f"body is not valid JSON: {errors[0].get('msg')}",
                field="body",
            )
        )
    media = (content_type or "").split(";")[0].strip().lower()
    if errors and tuple(errors[0].get("loc", ())) == ("body",) and media != "application/json":
        return error_response(
            ServiceError(
                400,
                ErrorCode.MALFORMED_JSON,
                "body is not read as JSON: send it with Content-Type: application/json "
                f"(got {content_type or 'none'!r})",
                field="body",
            )
        )
    return failure_response(invalid_request(errors), retry_after)


def add_exception_handlers(app: FastAPI, retry_after: int) -> None:
    """Install the answers above on ``app`` (``retry_after``: the seconds a 503 says)."""

    async def service_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServiceError)
        return error_response(exc)

    async def failure(request: Request, exc: Exception) -> JSONResponse:
        return failure_response(exc, retry_after)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return validation_response(exc, retry_after, request.headers.get("content-type"))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, ErrorCode.HTTP_ERROR)
        response = error_response(ServiceError(exc.status_code, code, str(exc.detail)))
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception(
            "unexpected error on %s",
            request.url.path,
            extra={"event": "unexpected_error", "path": request.url.path},
        )
        return error_response(
            ServiceError(500, ErrorCode.INTERNAL_ERROR, f"internal error: {type(exc).__name__}")
        )

    app.add_exception_handler(ServiceError, service_error)
    for kind in FAILURES:
        app.add_exception_handler(kind, failure)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)


__all__ = ["add_exception_handlers", "error_response", "failure_response", "validation_response"]
