"""The HTTP API's own ASGI middlewares (pure ASGI: no per-request task or body copy
beyond what each needs). Access control is :mod:`ladder.service.http.access`, the request log
and metrics :mod:`ladder.service.http.observe`; :func:`ladder.service.http.app.create_app` says in
which order they all run.

* :class:`BodyLimit`: a request body over the limit is a 413, read before anything else
  sees it.
* :class:`HeadAsGet`: ``HEAD`` answered as ``GET`` without the body.
* :class:`MoveFastPath`: a valid ``POST /v1/move`` answered without FastAPI's generic
  request handling, by the route's own work, model and error answers.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.domain.models import MoveRequest, MoveResponse
from ladder.service.domain.mover import MoveService
from ladder.service.domain.status import FAILURES
from ladder.service.http.handlers import error_response, failure_response
from ladder.service.http.routes import MOVE_PATH, play_move
from ladder.service.http.strict_json import unreadable

#: An oversized body up to this size is read and dropped before the 413 is sent.
DRAIN_LIMIT = 1 << 20


class BodyLimit:
    """Pure ASGI middleware: read the request body up to `limit` bytes (413 beyond),
    refuse JSON with a key given twice, or that Python cannot read (400,
    :mod:`ladder.service.http.strict_json`), then
    replay it; later `receive` calls pass through (so disconnects are seen)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            if length.isdigit() and int(length) <= DRAIN_LIMIT:
                await self._drain(receive, 0)
            await self._too_large(scope, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            size += len(chunk)
            if size > self.limit:
                if more:
                    await self._drain(receive, size)
                await self._too_large(scope, send)
                return
            chunks.append(chunk)
        body = b"".join(chunks)
        # JSON by its content type or its first byte (a form is the route's to refuse)
        problem = unreadable(body) if _json_body(scope, body) else None
        if problem is not None:
            err = ServiceError(
                400, ErrorCode.MALFORMED_JSON, f"body is not valid JSON: {problem}", field="body"
            )
            await error_response(err)(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _drain(receive: Receive, size: int) -> None:
        """Read and drop the rest of an oversized body (up to DRAIN_LIMIT), so that the
        client sees the 413 instead of a connection reset."""
        while size <= DRAIN_LIMIT:
            message = await receive()
            if message["type"] != "http.request":
                return
            size += len(message.get("body", b""))
            if not message.get("more_body", False):
                return

    async def _too_large(self, scope: Scope, send: Send) -> None:
        err = ServiceError(
            413, ErrorCode.BODY_TOO_LARGE, f"request body exceeds {self.limit} bytes"
        )
        response = error_response(err)
        response.headers["Connection"] = "close"
        await response({"type": "http"}, _no_receive, send)


def _json_body(scope: Scope, body: bytes) -> bool:
    """Whether ``body`` is meant as JSON: it starts like a JSON document, or is sent with
    a JSON content type (``application/json``, ``…+json``)."""
    if body.lstrip()[:1] in (b"{", b"["):
        return True
    media = (_content_type(scope) or b"").split(b";")[0].strip().lower()
    return media == b"application/json" or media.endswith(b"+json")


def _content_type(scope: Scope) -> bytes | None:
    """The request's (first) content-type header."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bytes(value)
    return None


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


#: The answer's JSON, exactly as FastAPI writes a `response_model=MoveResponse` answer.
_MOVE_RESPONSE = TypeAdapter(MoveResponse)


class MoveFastPath:
    """Pure ASGI middleware: ``POST /v1/move`` with a valid JSON body is answered here,
    without FastAPI's generic request handling (routing, dependency solving, response
    re-validation), which was about a quarter of the server's CPU for a level-1 move.

    Only the common case is taken: a ``content-type`` of exactly ``application/json``
    (or with ``; charset=utf-8``), a body that parses (``json.loads``, as FastAPI does)
    and validates as a :class:`MoveRequest` (the same pydantic model, so the same
    checks). Everything else, every malformed or invalid request included, goes on to
    FastAPI untouched (the body replayed), so its error answers are FastAPI's. The
    answer is byte for byte what the FastAPI route gives (same serializer, headers and
    error handler); the route stays in the OpenAPI schema and serves whatever this does
    not take.
    """

    def __init__(self, app: ASGIApp, service: MoveService, route: Any) -> None:
        self.app, self.service, self.route = app, service, route
        self.retry_after = service.config.retry_after_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != MOVE_PATH
            or scope["method"] != "POST"
            or scope.get("root_path")
        ):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        chunks: list[bytes] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        req = None
        if message["type"] == "http.request" and _json_content_type(scope):
            try:
                req = MoveRequest.model_validate(json.loads(b"".join(chunks)))
            except Exception:  # not ours to answer: FastAPI says what is wrong
                req = None
        if req is None:
            await self.app(scope, _replay(messages, receive), send)
            return
        scope["route"] = self.route  # what the router would set (request metrics use it)
        trace = scope.get("state", {}).get("trace")
        try:
            reply = await play_move(self.service, req, receive, trace)
        except ServiceError as err:
            response: Response = error_response(err)
        except FAILURES as exc:
            response = failure_response(exc, self.retry_after)
        else:
            response = Response(
                content=_MOVE_RESPONSE.dump_json(reply, by_alias=True),
                media_type="application/json",
            )
        await response(scope, receive, send)


#: Content types the fast path takes (FastAPI reads all of them as JSON too).
_JSON_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8"})


def _json_content_type(scope: Scope) -> bool:
    """Whether the request's (first) content-type header is one of `_JSON_TYPES`."""
    return _content_type(scope) in _JSON_TYPES


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive` that first gives back the messages already read."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


class HeadAsGet:
    """Pure ASGI middleware: ``HEAD`` is answered as ``GET`` without the body, on every
    path (the API's GET endpoints and the docs alike); the schema lists the GETs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        # A copy: the server reads the original scope's method to leave the body out.
        await self.app({**scope, "method": "GET"}, receive, headers_only)


__all__ = ["BodyLimit", "HeadAsGet", "MoveFastPath"]
