"""The HTTP API: the FastAPI application over :class:`ladder.service.domain.mover.MoveService`,
assembled from its pieces.

    uvicorn --factory ladder.service.http.app:create_app      (or `ladder serve`)

The endpoints are :mod:`ladder.service.http.routes`, the answers to failures
:mod:`ladder.service.http.handlers`, the middlewares :mod:`ladder.service.http.middleware`,
:mod:`ladder.service.http.access` and :mod:`ladder.service.http.observe`, the schema
:mod:`ladder.service.http.openapi` (OpenAPI at /docs and /openapi.json). Every failure is a
JSON ``{"error": {...}}`` with a 4xx for a bad request (naming the field and, for
moves, the ply) and a 502/503 for an engine that could not answer; 503s carry
Retry-After.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from ladder.service.domain.analyser import Analyser
from ladder.service.domain.mover import MoveService
from ladder.service.http.access import AccessControl, HostCheck, JsonCors, KeyRing, RateLimit
from ladder.service.http.docs_policy import DocsPolicy
from ladder.service.http.handlers import add_exception_handlers
from ladder.service.http.middleware import BodyLimit, HeadAsGet, MoveFastPath
from ladder.service.http.observe import ObserveRequests
from ladder.service.http.openapi import openapi_schema
from ladder.service.http.play_page import add_play_page
from ladder.service.http.routes import MOVE_PATH, router
from ladder.service.http.version_pin import ENGINE_BUILD_HEADER, LEVELS_VERSION_HEADER, VersionPin
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.metrics import engine_build_key


def create_app(
    config: ServiceConfig | None = None, *, service: MoveService | None = None
) -> FastAPI:
    """The FastAPI application; its lifespan starts and stops the engine pool.

    With ``config.move_fast_path`` (the default) valid ``POST /v1/move`` requests are
    answered by :class:`~ladder.service.http.middleware.MoveFastPath`; without it every
    request goes through FastAPI (tests/service/test_fast_path.py checks that both give
    the same answers)."""
    svc = service or MoveService(config)
    cfg = svc.config
    keys = KeyRing(cfg.api_keys_file) if cfg.api_keys_file is not None else None
    app = FastAPIOffline(
        title="Mistboard ladder",
        version="1.0",
        summary="The computer opponent: an engine move at a strength level, and the "
        "rules checker, for xiangqi, atomic-xiangqi and crazyhouse-xiangqi.",
        lifespan=_lifespan(svc),
        # `POST /v1/move/` is a 404, not a redirect built from the Host header.
        redirect_slashes=False,
        # The docs work offline: no online validator badge either.
        swagger_ui_parameters={"validatorUrl": None},
    )
    app.state.service = svc  # what the routes get (ladder.service.http.routes.get_service)
    app.state.analyser = Analyser(svc)  # the analysis job on the same engines
    app.state.keys = keys  # what SIGHUP reloads (ladder.service.operations.server)
    add_exception_handlers(app, cfg.retry_after_s)
    app.include_router(router)
    app.openapi = lambda: openapi_schema(app, secured=keys is not None)  # type: ignore[method-assign]
    if cfg.play_page:
        add_play_page(app)
    _add_middlewares(app, svc, keys)
    return app


def _add_middlewares(app: FastAPI, svc: MoveService, keys: KeyRing | None) -> None:
    """add_middleware puts each one outside the previous ones, so from the inside out:
    the /v1/move fast path (innermost: the body limit, the keys and the request log
    apply to it too), a request's pin of the engine build or ladder, the body limit,
    keys and rate limit, CORS, the host check, HEAD served as GET with the docs pages'
    policy, and the request log and metrics (outermost: they see every answer)."""
    cfg, metrics = svc.config, svc.metrics
    if cfg.move_fast_path:
        app.add_middleware(MoveFastPath, service=svc, route=_route(MOVE_PATH, "POST"))
    app.add_middleware(
        VersionPin,
        engine_build=engine_build_key(cfg.engine_path),
        levels_version=svc.levels_version,
        retry_after=cfg.retry_after_s,
    )
    app.add_middleware(BodyLimit, limit=cfg.max_body_bytes)
    app.add_middleware(
        AccessControl,
        keys=keys,
        rate_limit=RateLimit(cfg.rate_limit_per_minute) if cfg.rate_limit_per_minute else None,
        on_unauthorized=metrics.unauthorized.inc,
        on_rate_limited=metrics.rate_limited.inc,
        bad_key_limit=RateLimit(cfg.bad_key_limit_per_minute),
    )
    if cfg.cors_origins:
        app.add_middleware(
            JsonCors,
            allow_origins=list(cfg.cors_origins),
            allow_methods=["GET", "HEAD", "POST"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "X-Request-ID",
                ENGINE_BUILD_HEADER,
                LEVELS_VERSION_HEADER,
            ],
            expose_headers=[
                "Retry-After",
                "X-Request-ID",
                ENGINE_BUILD_HEADER,
                LEVELS_VERSION_HEADER,
            ],
            max_age=600,
        )
    if cfg.allowed_hosts:
        app.add_middleware(HostCheck, allowed=cfg.allowed_hosts)
    app.add_middleware(DocsPolicy)
    app.add_middleware(HeadAsGet)
    app.add_middleware(ObserveRequests, metrics=metrics)


def _lifespan(svc: MoveService) -> Any:
    """The application's lifespan: the engine pool and the metrics sampler run while it
    serves."""

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

    return lifespan


async def _sample(svc: MoveService) -> None:
    """Refresh the sampled metrics now and then (a scrape refreshes them too)."""
    while True:
        svc.sample_metrics()
        await asyncio.sleep(max(svc.config.watch_interval_s, 1.0))


def _route(path: str, method: str) -> Any:
    """The router's route object for `method path` (what FastAPI's routing would put in
    the request's scope)."""
    return next(
        r
        for r in router.routes
        if getattr(r, "path", None) == path and method in getattr(r, "methods", ())
    )


__all__ = ["create_app"]
