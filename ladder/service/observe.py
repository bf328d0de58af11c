"""One log line and the metrics of every HTTP request (the outermost ASGI middleware).

The request's :class:`~ladder.service.mover.MoveTrace` is put in
``scope["state"]["trace"]``: :class:`~ladder.service.access.AccessControl` names its
client there and :meth:`~ladder.service.mover.MoveService.move` its variant, level,
queue wait, engine and attempts; when the answer has gone, this middleware writes the
``request`` line (logger ``ladder.access``) and counts it.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.service.metrics import Metrics
from ladder.service.mover import MoveTrace

log = logging.getLogger("ladder.access")

#: Status logged for a request whose client went away before any answer.
CLIENT_GONE = 499


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


class ObserveRequests:
    """Pure ASGI middleware: trace, log and count each request."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        trace = MoveTrace(client="-")
        scope.setdefault("state", {})["trace"] = trace
        status = 0

        async def observe(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, observe)
        except BaseException:
            status = status or 500
            raise
        finally:
            seconds = time.perf_counter() - start
            status = status or CLIENT_GONE
            # the router's template, else the path (answers given before routing);
            # Metrics.count_request files paths that are not routes under `other`
            route = getattr(scope.get("route"), "path", None) or scope["path"]
            self.metrics.count_request(route, status, seconds)
            address = scope.get("client")
            log.info(
                "%s %s %d %.1f ms",
                scope["method"],
                scope["path"],
                status,
                seconds * 1000,
                extra={
                    "event": "request",
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "latency_ms": _ms(seconds),
                    "queue_wait_ms": _ms(trace.queue_wait_s),
                    "variant": trace.variant,
                    "level": trace.level,
                    "engine": trace.engine,
                    "attempts": trace.attempts or None,
                    "client": trace.client,
                    "address": address[0] if address else None,
                },
            )
