"""The HTTP API: the FastAPI application over :class:`ladder.service.domain.mover.MoveService`,
assembled from its pieces.

    uvicorn --factory ladder.service.http.app:create_app      (or `ladder serve`)

The endpoints are :mod:`ladder.service.http.routes`, the answers to failures
:mod:`ladder.service.http.handlers`, the one middleware :mod:`ladder.service.http.middleware`
(with the rules of :mod:`ladder.service.http.access`, :mod:`ladder.service.http.observe`,
:mod:`ladder.service.http.version_pin` and :mod:`ladder.service.http.docs_policy`), the schema
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

from ladder.engine_binary import engine_build_key
from ladder.service.domain.analyser import Analyser
from ladder.service.domain.mover import MoveService
from ladder.service.http.access import Access, KeyRing, RateLimit
from ladder.service.http.handlers import add_exception_handlers
from ladder.service.http.middleware import ServiceGate
from ladder.service.http.openapi import openapi_schema
from ladder.service.http.play_page import add_play_page
from ladder.service.http.routes import MOVE_PATH, router
from ladder.service.http.version_pin import ENGINE_BUILD_HEADER, LEVELS_VERSION_HEADER, VersionPin
from ladder.service.operations.config import ServiceConfig


def create_app(
    config: ServiceConfig | None = None, *, service: MoveService | None = None
) -> FastAPI:
    """The FastAPI application; its lifespan starts and stops the engine pool.

    With ``config.move_fast_path`` (the default) valid ``POST /v1/move`` requests are
    answered by :class:`~ladder.service.http.middleware.ServiceGate`'s fast path; without it every
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
    """The service's one middleware (:class:`ServiceGate`), with the access rules, the
    version pins, CORS and the host check as configured."""
    cfg, metrics = svc.config, svc.metrics
    cors = None
    if cfg.cors_origins:
        cors = {
            "allow_origins": list(cfg.cors_origins),
            "allow_methods": ["GET", "HEAD", "POST"],
            "allow_headers": [
                "Authorization",
                "Content-Type",
                "X-Request-ID",
                ENGINE_BUILD_HEADER,
                LEVELS_VERSION_HEADER,
            ],
            "expose_headers": [
                "Retry-After",
                "X-Request-ID",
                ENGINE_BUILD_HEADER,
                LEVELS_VERSION_HEADER,
            ],
            "max_age": 600,
        }
    app.add_middleware(
        ServiceGate,
        service=svc,
        metrics=metrics,
        access=Access(
            keys,
            RateLimit(cfg.rate_limit_per_minute) if cfg.rate_limit_per_minute else None,
            on_unauthorized=metrics.unauthorized.inc,
            on_rate_limited=metrics.rate_limited.inc,
            bad_key_limit=RateLimit(cfg.bad_key_limit_per_minute),
        ),
        pin=VersionPin(engine_build_key(cfg.engine_path), svc.levels_version, cfg.retry_after_s),
        body_limit=cfg.max_body_bytes,
        allowed_hosts=cfg.allowed_hosts or None,
        cors=cors,
        fast_path=_route(MOVE_PATH, "POST") if cfg.move_fast_path else None,
    )


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
