"""The HTTP API's one ASGI middleware, :class:`ServiceGate`: every request passes it once,
and it applies, in this order, what every answer and every request of the service needs:

1. the request's id, trace, log line and metrics, and the headers every answer carries
   (:mod:`ladder.service.http.observe`): first and last, so they see every answer;
2. ``HEAD`` answered as ``GET`` without the body, on every path;
3. the docs pages' policy (:mod:`ladder.service.http.docs_policy`): ReDoc's bundle
   without its CDN address, the pages' Content-Security-Policy;
4. the host check, when hosts are configured (:func:`ladder.service.http.access.host_refusal`);
5. CORS, when origins are configured (:class:`ladder.service.http.access.JsonCors`,
   Starlette's, around the rest);
6. on ``/v1/*``: API keys and the rate limit (:class:`ladder.service.http.access.Access`);
7. the body: read up to the limit (413 beyond), JSON with a key given twice or that
   Python cannot read refused (400, :mod:`ladder.service.http.strict_json`);
8. a request's pin of the engine build or ladder (:mod:`ladder.service.http.version_pin`);
9. the ``/v1/move`` fast path: a valid ``POST /v1/move`` answered by the route's own
   work, model and error answers, without FastAPI's generic request handling.

Everything else goes on to FastAPI (the body replayed). One middleware rather than one
per concern: each layer of ASGI calls and ``send`` wrappers cost every request its
share of the server's CPU, and the body is read and parsed once.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import TypeAdapter
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.domain.models import MoveRequest, MoveResponse
from ladder.service.domain.mover import MoveService, MoveTrace
from ladder.service.domain.status import FAILURES
from ladder.service.http.access import Access, JsonCors, host_refusal
from ladder.service.http.docs_policy import DOCS_PATHS, POLICY_HEADER, REDOC_JS, redoc_bundle
from ladder.service.http.handlers import error_response, failure_response
from ladder.service.http.observe import log_request, observed_headers, request_id_of
from ladder.service.http.routes import MOVE_PATH, play_move
from ladder.service.http.strict_json import UNREAD, read
from ladder.service.http.version_pin import VersionPin
from ladder.service.operations.logs import REQUEST_ID
from ladder.service.operations.metrics import Metrics

#: An oversized body up to this size is read and dropped before the 413 is sent.
DRAIN_LIMIT = 1 << 20

#: The answer's JSON, exactly as FastAPI writes a `response_model=MoveResponse` answer.
_MOVE_RESPONSE = TypeAdapter(MoveResponse)

#: The answer's content type, as Starlette writes it.
_JSON_CONTENT_TYPE = (b"content-type", b"application/json")

#: Content types the fast path takes (FastAPI reads all of them as JSON too).
_JSON_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8"})


class ServiceGate:
    """Pure ASGI middleware: the service's HTTP concerns, in the order of the module
    docstring. ``cors``: Starlette ``CORSMiddleware`` options (None: no CORS);
    ``allowed_hosts``: None for any host; ``fast_path``: the ``/v1/move`` route object
    (what the router would put in the request's scope), or None to leave every move
    request to FastAPI."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        service: MoveService,
        metrics: Metrics,
        access: Access,
        pin: VersionPin,
        body_limit: int,
        allowed_hosts: tuple[str, ...] | None = None,
        cors: dict[str, Any] | None = None,
        fast_path: Any = None,
    ) -> None:
        self.app, self.service, self.metrics = app, service, metrics
        self.access, self.pin, self.limit = access, pin, body_limit
        self.hosts = tuple(h.lower() for h in allowed_hosts) if allowed_hosts else None
        self.route = fast_path
        self.retry_after = service.config.retry_after_s
        self._guarded: ASGIApp = self._checked
        if cors is not None:
            self._guarded = JsonCors(self._checked, **cors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        trace = MoveTrace(client="-")
        scope.setdefault("state", {})["trace"] = trace
        status = 0
        request_id = request_id_of(scope)
        # this task's context: its log lines carry it until the request's own line
        named = REQUEST_ID.set(request_id)
        head = scope["method"] == "HEAD"
        policy = scope["path"] in DOCS_PATHS

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = message.get("headers", [])
                if policy:
                    headers = [*headers, POLICY_HEADER]
                message = {**message, "headers": observed_headers(headers, request_id)}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        try:
            # HEAD as GET: a copy, as the server reads the original scope's method to
            # leave the body out
            await self._serve({**scope, "method": "GET"} if head else scope, receive, answer)
        except BaseException:
            status = status or 500
            raise
        finally:
            log_request(self.metrics, scope, status, time.perf_counter() - start, trace, request_id)
            REQUEST_ID.reset(named)  # lines after the request (same task) are not its

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The docs bundle, the host check, then CORS around the rest."""
        if scope["path"] == REDOC_JS and scope["method"] == "GET":
            response = Response(
                redoc_bundle(),
                media_type="text/javascript",
                headers={"cache-control": "public, max-age=86400"},
            )
            await response(scope, receive, send)
            return
        if self.hosts is not None:
            refused = host_refusal(scope, self.hosts)
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self._guarded(scope, receive, send)

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Access, the body, the pin; then the fast path or FastAPI."""
        if scope["path"].startswith("/v1/"):
            refused = self.access.refusal(scope)
            if refused is not None:
                await refused(scope, receive, send)
                return
        if scope["method"] in ("GET", "HEAD"):
            error = self.pin.refusal(scope)
            if error is not None:
                await error_response(error)(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        body = await self._body(scope, receive, send)
        if body is None:  # answered (413), or the client went away
            return
        # JSON by its content type or its first byte (a form is the route's to refuse)
        value = UNREAD
        if _json_body(scope, body):
            value, problem = read(body)
            if problem is not None:
                err = ServiceError(
                    400,
                    ErrorCode.MALFORMED_JSON,
                    f"body is not valid JSON: {problem}",
                    field="body",
                )
                await error_response(err)(scope, receive, send)
                return
        error = self.pin.refusal(scope)
        if error is not None:
            await error_response(error)(scope, receive, send)
            return
        if (
            self.route is not None
            and value is not UNREAD
            and scope["path"] == MOVE_PATH
            and scope["method"] == "POST"
            and not scope.get("root_path")
            and _header(scope, b"content-type") in _JSON_TYPES
        ):
            try:
                req = MoveRequest.model_validate(value)
            except Exception:  # not ours to answer: FastAPI says what is wrong
                pass
            else:
                await self._move(scope, receive, send, req)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The request's body, read up to the limit; None when a 413 was answered
        instead, or the client went away."""
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            if length.isdigit() and int(length) <= DRAIN_LIMIT:
                await _drain(receive, 0)
            await self._too_large(send)
            return None
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            size += len(chunk)
            if size > self.limit:
                if more:
                    await _drain(receive, size)
                await self._too_large(send)
                return None
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def _too_large(self, send: Send) -> None:
        err = ServiceError(
            413, ErrorCode.BODY_TOO_LARGE, f"request body exceeds {self.limit} bytes"
        )
        response = error_response(err)
        response.headers["Connection"] = "close"
        await response({"type": "http"}, _no_receive, send)

    async def _move(self, scope: Scope, receive: Receive, send: Send, req: MoveRequest) -> None:
        """The fast path: ``POST /v1/move`` answered by the route's own work
        (:func:`ladder.service.http.routes.play_move`), byte for byte as the route answers
        (same serializer, headers and error answers), without FastAPI's routing,
        dependency solving and response re-validation."""
        scope["route"] = self.route  # what the router would set (request metrics use it)
        try:
            reply = await play_move(self.service, req, scope, receive, scope["state"]["trace"])
        except ServiceError as err:
            response: Response = error_response(err)
        except FAILURES as exc:
            response = failure_response(exc, self.retry_after)
        else:
            # the two messages Starlette's Response(content, media_type=JSON) sends, its
            # headers in its order, without the Response object's making
            body = _MOVE_RESPONSE.dump_json(reply, by_alias=True)
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", b"%d" % len(body)), _JSON_CONTENT_TYPE],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await response(scope, receive, send)


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


def _json_body(scope: Scope, body: bytes) -> bool:
    """Whether ``body`` is meant as JSON: it starts like a JSON document, or is sent with
    a JSON content type (``application/json``, ``…+json``)."""
    if body.lstrip()[:1] in (b"{", b"["):
        return True
    media = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
    return media == b"application/json" or media.endswith(b"+json")


def _header(scope: Scope, name: bytes) -> bytes | None:
    """The request's first header `name` (lower case)."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


__all__ = ["ServiceGate"]
