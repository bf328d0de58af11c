"""The HTTP API's endpoints (a FastAPI router): each one a call of
:class:`~ladder.service.domain.mover.MoveService`, which every route gets through a dependency
(:func:`get_service`: the service the application was made with).

What the routes can answer besides 200 is declared here, for the OpenAPI schema; how
each failure is answered is :mod:`ladder.service.http.handlers`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ladder.service.domain.analyser import Analyser
from ladder.service.domain.analysis_models import AnalysisLine, AnalysisRequest
from ladder.service.domain.errors import ErrorCode, ServiceError
from ladder.service.domain.models import (
    ErrorResponse,
    Health,
    LevelsResponse,
    MoveRequest,
    MoveResponse,
    PositionRequest,
    PositionResponse,
    VariantsResponse,
)
from ladder.service.domain.mover import MoveService, MoveTrace
from ladder.service.http.http_protocol import CLIENT_GONE
from ladder.service.http.version_pin import ENGINE_BUILD_HEADER, require_pin
from ladder.service.operations.drain import Drain

T = TypeVar("T")

#: The path of the move endpoint (the fast path, :mod:`ladder.service.http.middleware`, takes
#: valid requests to it).
MOVE_PATH = "/v1/move"

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
        503: "Busy (queue full), deadline passed, or a pinned engine build or ladder not "
        "served here (`version_mismatch`); see Retry-After",
    }.items()
}
#: An error body's schema, for a route whose answer is not JSON (the analysis stream).
ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorResponse"}
#: What the GET endpoints can answer besides 200.
GET_ERRORS: dict[int | str, dict[str, Any]] = {code: ERRORS[code] for code in (401, 429)}


def get_service(request: Request) -> MoveService:
    """The service behind the application (``app.state.service``, set by
    :func:`ladder.service.http.app.create_app`)."""
    service: MoveService = request.app.state.service
    return service


Service = Annotated[MoveService, Depends(get_service)]


def get_analyser(request: Request) -> Analyser:
    """The analysis job behind the application (``app.state.analyser``)."""
    analyser: Analyser = request.app.state.analyser
    return analyser


AnalysisJob = Annotated[Analyser, Depends(get_analyser)]


class NdjsonResponse(StreamingResponse):
    """A stream of JSON lines (``application/x-ndjson``), sent as they are made: no
    proxy buffering, no caching. Starlette cancels the stream when the client goes;
    ``on_close`` runs when the response ends, even if its stream never started (a
    stream that never started never runs its own ``finally``)."""

    media_type = "application/x-ndjson"

    def __init__(
        self,
        content: AsyncIterator[bytes],
        on_close: Callable[[], None],
        status_code: int = 200,  # FastAPI's OpenAPI reads the default status here
        **kw: Any,
    ) -> None:
        super().__init__(content, status_code, **kw)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


router = APIRouter()


async def _until_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def cancel_on_disconnect(
    receive: Receive,
    work: Awaitable[T],
    drain: Drain,
    retry_after: int,
    gone: asyncio.Future[None] | None = None,
) -> T:
    """Run `work` in this task, cancelling it if the client goes away first (the pool
    then brings its engine back in sync before anyone else uses it): 499
    ``client_disconnected``; or if the server's drain ends first
    (:class:`~ladder.service.operations.drain.Drain`): 503 ``shutting_down``.

    ``gone``: the server's signal that the client went away (``ladder serve``'s protocol
    gives one in the scope, :data:`~ladder.service.http.http_protocol.CLIENT_GONE`);
    under another server (None), a small task listens on `receive` (the request's ASGI
    receive, its body read) for the disconnect instead. If it comes while `work` runs,
    this task is cancelled; the cancellation is taken back (``uncancel``) and turned
    into the 499, or the drain's into the 503. Any other cancellation goes on as it is.
    """
    task = asyncio.current_task()
    assert task is not None
    running = True
    gone_first = False

    def on_disconnect(signal: asyncio.Future[None]) -> None:
        nonlocal gone_first
        if running and not signal.cancelled() and signal.exception() is None:
            gone_first = True
            task.cancel()

    watcher = gone
    if watcher is None:
        watcher = asyncio.get_running_loop().create_task(_until_disconnect(receive))
    watcher.add_done_callback(on_disconnect)
    try:
        with drain.tracked():
            return await work
    except asyncio.CancelledError:
        if gone_first and task.uncancel() == 0:
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
        if gone is None:
            watcher.cancel()


async def play_move(
    service: MoveService, req: MoveRequest, scope: Scope, receive: Receive, trace: MoveTrace | None
) -> MoveResponse:
    """The move endpoint's work, for the route and the fast path alike: the service's
    move, cancelled if the client goes away."""
    return await cancel_on_disconnect(
        receive,
        service.move(req, trace),
        service.drain,
        service.config.retry_after_s,
        scope.get(CLIENT_GONE),
    )


@router.post(MOVE_PATH, response_model=MoveResponse, responses=ERRORS, tags=["play"])
async def move(req: MoveRequest, request: Request, service: Service) -> MoveResponse:
    """The computer's move at a level, in a game given as start FEN + moves.

    Reproducible: the same variant, position, moves, level and seed always give the
    same move. Without a seed a random one is used and returned.
    """
    trace: MoveTrace | None = getattr(request.state, "trace", None)
    return await play_move(service, req, request.scope, request.receive, trace)


@router.post("/v1/position", response_model=PositionResponse, responses=ERRORS, tags=["rules"])
async def position(req: PositionRequest, request: Request, service: Service) -> PositionResponse:
    """The rules checker: FEN, legal moves, check and outcome of a position."""
    _log_variant(request, req.variant)
    return await service.position(req)


@router.post(
    "/v1/analysis",
    response_class=NdjsonResponse,
    responses={
        200: {
            "model": AnalysisLine,
            "description": "A stream of JSON lines: `start`, one `ply` a ply, `summary` "
            "(or a last `error` line to resume from).",
        },
        **{
            code: {
                "description": ERRORS[code]["description"],
                "content": {"application/json": {"schema": ERROR_SCHEMA}},
            }
            for code in (400, 401, 413, 422)
        },
        429: {
            "description": "Over the rate limit, or this client runs its most analyses "
            "at once (`too_many_analyses`); see Retry-After",
            "content": {"application/json": {"schema": ERROR_SCHEMA}},
        },
    },
    tags=["analysis"],
)
async def analysis(req: AnalysisRequest, request: Request, analyser: AnalysisJob) -> NdjsonResponse:
    """A game's computer analysis, streamed as NDJSON, ply by ply.

    Each position is searched at `nodes` (reproducibly: the same request gives the same
    lines on any instance), each ply judged (inaccuracy, mistake, blunder) with the
    engine's best line; the last line sums up each side (counts, mean loss, accuracy).
    Closing the stream cancels the analysis; `from_ply` resumes one anywhere. Finished
    analyses are cached per instance. A bad game is refused before the stream starts,
    as `/v1/move` refuses one (an illegal move names its ply).
    """
    client = str(getattr(request.state, "client", "local"))
    _log_variant(request, req.variant)
    require_pin(req.from_ply, request.headers.get(ENGINE_BUILD_HEADER))
    job = await analyser.prepare(req, client)
    return NdjsonResponse(
        analyser.stream(job),
        job.admission.release,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _log_variant(request: Request, variant: str) -> None:
    """Name the request's variant on its ``request`` log line (as a move's is)."""
    trace: MoveTrace | None = getattr(request.state, "trace", None)
    if trace is not None:
        trace.variant = variant


@router.get("/v1/levels", response_model=LevelsResponse, responses=GET_ERRORS, tags=["info"])
async def levels(service: Service) -> LevelsResponse:
    """Every level of every variant: node limit, variety rule, measured rating."""
    return service.level_table()


@router.get("/v1/variants", response_model=VariantsResponse, responses=GET_ERRORS, tags=["info"])
async def variants(service: Service) -> VariantsResponse:
    """The rule sets this service plays."""
    return service.variants()


@router.get("/healthz", response_model=Health, tags=["ops"])
async def healthz(service: Service) -> Health:
    """Liveness: the server answers. Engines running, busy, and the queue."""
    return service.health()


@router.get(
    "/readyz",
    response_model=Health,
    responses={503: {"model": ErrorResponse, "description": "No engine answers, or stopping"}},
    tags=["ops"],
)
async def readyz(service: Service) -> Health:
    """Readiness: 200 while at least one engine is live (runs, and answered its last
    search or readiness check; `engines_live` says how many), else 503 (``not_ready``);
    503 ``shutting_down`` from the moment the server is told to stop. A load balancer
    stops sending requests here."""
    health = service.health()
    if health.draining:
        raise ServiceError(
            503,
            ErrorCode.SHUTTING_DOWN,
            f"the service is stopping: finishing {service.drain.running} request(s)",
            retry_after=service.config.retry_after_s,
        )
    if not health.ready:
        raise ServiceError(
            503,
            ErrorCode.NOT_READY,
            f"no engine answers ({health.engines_live} of {health.engines} live, "
            f"{health.engines_alive} running)",
            retry_after=service.config.retry_after_s,
        )
    return health


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}},
    tags=["ops"],
)
async def prometheus(service: Service) -> Response:
    """Prometheus metrics (text exposition format)."""
    service.sample_metrics()
    return Response(service.metrics.render(), media_type=service.metrics.content_type)


__all__ = [
    "ERRORS",
    "GET_ERRORS",
    "MOVE_PATH",
    "NdjsonResponse",
    "Service",
    "cancel_on_disconnect",
    "get_analyser",
    "get_service",
    "play_move",
    "router",
]
