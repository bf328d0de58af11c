"""The HTTP API: FastAPI over :class:`ladder.service.mover.MoveService`.

    uvicorn --factory ladder.service.app:create_app      (or `ladder serve`)

OpenAPI at /docs and /openapi.json. Every failure is a JSON ``{"error": {...}}`` with a
4xx for a bad request (naming the field and, for moves, the ply) and a 502/503 for an
engine that could not answer; 503s carry Retry-After.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi_offline import FastAPIOffline
from pydantic import TypeAdapter
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.service.access import AccessControl, HostCheck, JsonCors, KeyRing, RateLimit
from ladder.service.config import MAX_SEED, ServiceConfig
from ladder.service.docs_policy import DocsPolicy
from ladder.service.drain import Drain
from ladder.service.errors import ErrorCode, ServiceError
from ladder.service.handlers import add_exception_handlers, error_response, failure_response
from ladder.service.models import (
    ErrorResponse,
    Health,
    LevelsResponse,
    MoveRequest,
    MoveResponse,
    PositionRequest,
    PositionResponse,
    VariantsResponse,
)
from ladder.service.mover import MoveService, MoveTrace
from ladder.service.observe import ObserveRequests
from ladder.service.play_page import add_play_page
from ladder.service.status import FAILURES
from ladder.service.strict_json import duplicate_key

log = logging.getLogger(__name__)
T = TypeVar("T")

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": desc}
    for code, desc in {
        400: "Malformed JSON",
        401: "No API key, or an unknown one (when the service has keys)",
        409: "The game is already over",
        413: "Body too large",
        422: "Invalid field, FEN or move",
        429: "Over the rate limit; see Retry-After",
        502: "The engine gave no usable answer",
        503: "Busy (queue full) or deadline passed; see Retry-After",
    }.items()
}
#: What the GET endpoints can answer besides 200.
GET_ERRORS: dict[int | str, dict[str, Any]] = {code: ERRORS[code] for code in (401, 429)}


#: An oversized body up to this size is read and dropped before the 413 is sent.
DRAIN_LIMIT = 1 << 20


class BodyLimit:
    """Pure ASGI middleware: read the request body up to `limit` bytes (413 beyond),
    refuse JSON with a key given twice (400, :mod:`ladder.service.strict_json`), then
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
        twice = duplicate_key(body) if body.lstrip()[:1] in (b"{", b"[") else None
        if twice is not None:
            err = ServiceError(
                400,
                ErrorCode.MALFORMED_JSON,
                f"body is not valid JSON: duplicate key {twice!r} (give each key once)",
                field="body",
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


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


async def _until_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def cancel_on_disconnect(
    receive: Receive, work: Awaitable[T], drain: Drain, retry_after: int
) -> T:
    """Run `work` in this task, cancelling it if the client goes away first (the pool
    then brings its engine back in sync before anyone else uses it): 499
    ``client_disconnected``; or if the server's drain ends first
    (:class:`~ladder.service.drain.Drain`): 503 ``shutting_down``. `receive` is the
    request's ASGI receive, its body read.

    A small task listens for the disconnect meanwhile and, if it comes while `work`
    runs, cancels this task; the cancellation is taken back (``uncancel``) and turned
    into the 499, or the drain's into the 503. Any other cancellation goes on as it is.
    """
    task = asyncio.current_task()
    assert task is not None
    running = True
    gone = False

    def on_disconnect(watcher: asyncio.Task[None]) -> None:
        nonlocal gone
        if running and not watcher.cancelled() and watcher.exception() is None:
            gone = True
            task.cancel()

    watcher = asyncio.get_running_loop().create_task(_until_disconnect(receive))
    watcher.add_done_callback(on_disconnect)
    try:
        with drain.tracked():
            return await work
    except asyncio.CancelledError:
        if gone and task.uncancel() == 0:
            raise ServiceError(499, ErrorCode.CLIENT_DISCONNECTED, "the client went away") from None
        if drain.cut and task.uncancel() == 0:
            raise ServiceError(
                503,
                ErrorCode.SHUTTING_DOWN,
                "the service stopped before this move was found; ask again (another "
                "instance will answer)",
                retry_after=retry_after,
            ) from None
        raise
    finally:
        running = False
        watcher.remove_done_callback(on_disconnect)
        watcher.cancel()


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

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != "/v1/move"
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
            svc = self.service
            reply = await cancel_on_disconnect(
                receive, svc.move(req, trace), svc.drain, svc.config.retry_after_s
            )
        except ServiceError as err:
            response: Response = error_response(err)
        except FAILURES as exc:
            response = failure_response(exc, self.service.config.retry_after_s)
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
    for name, value in scope["headers"]:
        if name == b"content-type":
            return value in _JSON_TYPES
    return False


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive` that first gives back the messages already read."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def create_app(
    config: ServiceConfig | None = None, *, service: MoveService | None = None
) -> FastAPI:
    """The FastAPI application; its lifespan starts and stops the engine pool.

    With ``config.move_fast_path`` (the default) valid ``POST /v1/move`` requests are
    answered by :class:`MoveFastPath`; without it every request goes through FastAPI
    (tests/service/test_fast_path.py checks that both give the same answers)."""
    svc = service or MoveService(config)
    cfg = svc.config
    metrics = svc.metrics
    keys = KeyRing(cfg.api_keys_file) if cfg.api_keys_file is not None else None
    rate_limit = RateLimit(cfg.rate_limit_per_minute) if cfg.rate_limit_per_minute else None

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await svc.start()
        sampler = asyncio.get_running_loop().create_task(_sample(svc))
        try:
            yield
        finally:
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
            await svc.close()

    app = FastAPIOffline(
        title="Mistboard ladder",
        version="1.0",
        summary="The computer opponent: an engine move at a strength level, and the "
        "rules checker, for xiangqi, atomic-xiangqi and crazyhouse-xiangqi.",
        lifespan=lifespan,
        # `POST /v1/move/` is a 404, not a redirect built from the Host header.
        redirect_slashes=False,
        # The docs work offline: no online validator badge either.
        swagger_ui_parameters={"validatorUrl": None},
    )
    app.state.service = svc
    app.state.keys = keys

    add_exception_handlers(app, cfg.retry_after_s)

    @app.post("/v1/move", response_model=MoveResponse, responses=ERRORS, tags=["play"])
    async def move(req: MoveRequest, request: Request) -> MoveResponse:
        """The computer's move at a level, in a game given as start FEN + moves.

        Reproducible: the same variant, position, moves, level and seed always give the
        same move. Without a seed a random one is used and returned.
        """
        trace: MoveTrace | None = getattr(request.state, "trace", None)
        return await cancel_on_disconnect(
            request.receive, svc.move(req, trace), svc.drain, cfg.retry_after_s
        )

    @app.post("/v1/position", response_model=PositionResponse, responses=ERRORS, tags=["rules"])
    async def position(req: PositionRequest) -> PositionResponse:
        """The rules checker: FEN, legal moves, check and outcome of a position."""
        return await svc.position(req)

    @app.get(
        "/v1/levels",
        response_model=LevelsResponse,
        responses=GET_ERRORS,
        tags=["info"],
    )
    async def levels() -> LevelsResponse:
        """Every level of every variant: node limit, variety rule, measured rating."""
        return svc.level_table()

    @app.get(
        "/v1/variants",
        response_model=VariantsResponse,
        responses=GET_ERRORS,
        tags=["info"],
    )
    async def variants() -> VariantsResponse:
        """The rule sets this service plays."""
        return svc.variants()

    @app.get("/healthz", response_model=Health, tags=["ops"])
    async def healthz() -> Health:
        """Liveness: the server answers. Engines running, busy, and the queue."""
        return svc.health()

    @app.get(
        "/readyz",
        response_model=Health,
        responses={503: {"model": ErrorResponse, "description": "No engine answers"}},
        tags=["ops"],
    )
    async def readyz() -> Health:
        """Readiness: 200 while at least one engine is live (runs, and answered its last
        search or readiness check; `engines_live` says how many), else 503
        (``not_ready``), so a load balancer stops sending requests here."""
        health = svc.health()
        if health.draining:
            raise ServiceError(
                503,
                ErrorCode.SHUTTING_DOWN,
                f"the service is stopping: finishing {svc.drain.running} request(s)",
                retry_after=cfg.retry_after_s,
            )
        if not health.ready:
            raise ServiceError(
                503,
                ErrorCode.NOT_READY,
                f"no engine answers ({health.engines_live} of {health.engines} live, "
                f"{health.engines_alive} running)",
                retry_after=cfg.retry_after_s,
            )
        return health

    @app.get(
        "/metrics",
        response_class=Response,
        responses={200: {"content": {"text/plain": {}}}},
        tags=["ops"],
    )
    async def prometheus() -> Response:
        """Prometheus metrics (text exposition format)."""
        svc.sample_metrics()
        return Response(metrics.render(), media_type=metrics.content_type)

    app.openapi = lambda: _openapi(app, secured=keys is not None)  # type: ignore[method-assign]

    if cfg.play_page:
        add_play_page(app)

    # add_middleware puts each one outside the previous ones, so from the inside out:
    # the /v1/move fast path (innermost: the body limit, the keys and the request log
    # apply to it too), the body limit, keys and rate limit, CORS, the host check, HEAD
    # served as GET, and the request log and metrics (outermost: they see every answer).
    if cfg.move_fast_path:
        app.add_middleware(MoveFastPath, service=svc, route=_route(app, "/v1/move", "POST"))
    app.add_middleware(BodyLimit, limit=cfg.max_body_bytes)
    app.add_middleware(
        AccessControl,
        keys=keys,
        rate_limit=rate_limit,
        bad_key_limit=RateLimit(cfg.bad_key_limit_per_minute),
        on_unauthorized=metrics.unauthorized.inc,
        on_rate_limited=metrics.rate_limited.inc,
    )
    if cfg.cors_origins:
        app.add_middleware(
            JsonCors,
            allow_origins=list(cfg.cors_origins),
            allow_methods=["GET", "HEAD", "POST"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            expose_headers=["Retry-After", "X-Request-ID"],
            max_age=600,
        )
    if cfg.allowed_hosts:
        app.add_middleware(HostCheck, allowed=cfg.allowed_hosts)
    app.add_middleware(DocsPolicy)
    app.add_middleware(HeadAsGet)
    app.add_middleware(ObserveRequests, metrics=metrics)
    return app


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


async def _sample(svc: MoveService) -> None:
    """Refresh the sampled metrics now and then (a scrape refreshes them too)."""
    while True:
        svc.sample_metrics()
        await asyncio.sleep(max(svc.config.watch_interval_s, 1.0))


def _openapi(app: FastAPI, *, secured: bool) -> dict[str, Any]:
    """FastAPI's schema, with the bearer scheme declared (and required on ``/v1/*`` when
    the service has keys) and integer bounds written as integers: FastAPI's schema
    models hold them as floats (the seed's maximum, 2^63-1, became 9.223372036854776e18,
    which is out of range)."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        routes=app.routes,
    )
    _integer_bounds(schema)
    schema.setdefault("components", {})["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from the server's key file (`ladder serve "
            "--api-keys FILE`); required on /v1/* when the server has keys.",
        }
    }
    if secured:
        for path, operations in schema["paths"].items():
            if path.startswith("/v1/"):
                for operation in operations.values():
                    operation["security"] = [{"bearer": []}]
    app.openapi_schema = schema
    return schema


def _integer_bounds(node: Any) -> None:
    """Write the bounds of integer schemas as integers (exact for the seed's)."""
    if isinstance(node, dict):
        if node.get("type") == "integer":
            for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                value = node.get(key)
                if isinstance(value, float):
                    node[key] = MAX_SEED if value == float(MAX_SEED) else int(value)
        for child in node.values():
            _integer_bounds(child)
    elif isinstance(node, list):
        for child in node:
            _integer_bounds(child)


def _route(app: FastAPI, path: str, method: str) -> Any:
    """The app's route object for `method path`."""
    return next(
        r
        for r in app.routes
        if getattr(r, "path", None) == path and method in getattr(r, "methods", ())
    )
