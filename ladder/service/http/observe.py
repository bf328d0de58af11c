"""One log line and the metrics of every HTTP request (the outermost ASGI middleware).

Every request has an id: the client's ``X-Request-ID`` (a load balancer's, a game
server's), or a new one; it is sent back in the answer's ``X-Request-ID`` and set for
the request's task (:data:`ladder.service.operations.logs.REQUEST_ID`), so its ``request`` line and
any engine incident while it is served carry ``request_id``.

The request's :class:`~ladder.service.domain.mover.MoveTrace` is put in
``scope["state"]["trace"]``: :class:`~ladder.service.http.access.AccessControl` names its
client there and :meth:`~ladder.service.domain.mover.MoveService.move` its variant, level,
queue wait, engine and attempts; when the answer has gone, this middleware writes the
``request`` line (logger ``ladder.access``) and counts it.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ladder.service.domain.mover import MoveTrace
from ladder.service.operations.logs import REQUEST_ID
from ladder.service.operations.metrics import Metrics

log = logging.getLogger("ladder.access")

#: Status logged for a request whose client went away before any answer.
CLIENT_GONE = 499


#: The content type of the API's answers (an error's included), and what a JSON answer
#: without a cache policy of its own gets: a move or an error is for one request, never
#: to be stored or served again by a cache.
JSON_TYPE = b"application/json"
NO_STORE = (b"cache-control", b"no-store")
#: What every answer says about its type (unless it says so itself).
NOSNIFF = (b"x-content-type-options", b"nosniff")


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


#: An ``X-Request-ID`` a client may send: up to 128 of these characters (else one is
#: made up, so that nothing odd reaches the logs).
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def request_id_of(scope: Scope) -> str:
    """The request's ``X-Request-ID`` if it is a sane one, else a new random one."""
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = bytes(value).decode("latin-1")
            if _REQUEST_ID.fullmatch(text):
                return text
            break
    return uuid.uuid4().hex


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
        request_id = request_id_of(scope)
        # this task's context: its log lines carry it until the request's own line
        named = REQUEST_ID.set(request_id)

        async def observe(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = []
                cached = is_json = typed = False
                for k, v in message.get("headers", []):
                    name = k.lower()
                    if name == b"x-request-id":
                        continue
                    cached = cached or name == b"cache-control"
                    typed = typed or name == NOSNIFF[0]
                    is_json = is_json or (name == b"content-type" and v.startswith(JSON_TYPE))
                    headers.append((k, v))
                headers.append((b"x-request-id", request_id.encode()))
                if is_json and not cached:
                    headers.append(NO_STORE)  # an answer for this request only
                if not typed:
                    headers.append(NOSNIFF)  # a browser takes the type sent, never guesses
                message = {**message, "headers": headers}
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
                    "elo": trace.elo,
                    "engine": trace.engine,
                    "attempts": trace.attempts or None,
                    "client": trace.client,
                    "address": address[0] if address else None,
                    "request_id": request_id,
                },
            )
            REQUEST_ID.reset(named)  # lines after the request (same task) are not its
