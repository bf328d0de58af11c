"""One log line and the metrics of every HTTP request, and the headers every answer
carries (applied by :class:`ladder.service.http.middleware.ServiceGate`, first and last).

Every request has an id: the client's ``X-Request-ID`` (a load balancer's, a game
server's), or a new one; it is sent back in the answer's ``X-Request-ID`` and set for
the request's task (:data:`ladder.service.operations.logs.REQUEST_ID`), so its ``request`` line and
any engine incident while it is served carry ``request_id``.

The request's :class:`~ladder.service.domain.mover.MoveTrace` is put in
``scope["state"]["trace"]``: :class:`~ladder.service.http.access.Access` names its
client there and :meth:`~ladder.service.domain.mover.MoveService.move` its variant, level,
queue wait, engine and attempts; when the answer has gone, :func:`log_request` writes the
``request`` line (logger ``ladder.access``) and counts it.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterable

from starlette.types import Scope

from ladder.service.domain.mover import MoveTrace
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
    """The request's ``X-Request-ID`` if it is a sane one, else a new random one (32 hex
    digits, as a UUID's: 128 random bits, without a UUID object's cost a request)."""
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = bytes(value).decode("latin-1")
            if _REQUEST_ID.fullmatch(text):
                return text
            break
    return secrets.token_hex(16)


def observed_headers(
    headers: Iterable[tuple[bytes, bytes]], request_id: str
) -> list[tuple[bytes, bytes]]:
    """An answer's headers as sent: its own but any ``X-Request-ID``, then the request's
    id, ``Cache-Control: no-store`` on a JSON answer without a cache policy (an answer
    for this request only) and ``nosniff`` unless it says so itself (a browser takes the
    type sent, never guesses)."""
    out = []
    cached = is_json = typed = False
    for k, v in headers:
        name = k.lower()
        if name == b"x-request-id":
            continue
        cached = cached or name == b"cache-control"
        typed = typed or name == NOSNIFF[0]
        is_json = is_json or (name == b"content-type" and v.startswith(JSON_TYPE))
        out.append((k, v))
    out.append((b"x-request-id", request_id.encode()))
    if is_json and not cached:
        out.append(NO_STORE)
    if not typed:
        out.append(NOSNIFF)
    return out


def log_request(
    metrics: Metrics,
    scope: Scope,
    status: int,
    seconds: float,
    trace: MoveTrace,
    request_id: str,
) -> None:
    """Count the request and write its ``request`` line (``status`` 0: the client went
    away before any answer)."""
    status = status or CLIENT_GONE
    # the router's template, else the path (answers given before routing);
    # Metrics.count_request files paths that are not routes under `other`
    route = getattr(scope.get("route"), "path", None) or scope["path"]
    metrics.count_request(route, status, seconds)
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
