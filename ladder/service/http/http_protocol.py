"""uvicorn's httptools protocol with the limits uvicorn does not enforce.

uvicorn (0.54) with httptools has no bound on a request's head (llhttp buffers a header
of any size: a 64 MiB header was read, parsed and handed to the app), no deadline for a
request to arrive (its keep-alive timer runs only *between* requests and is reset by
every byte, so one byte every few seconds holds a connection forever), and its
connection cap (``limit_concurrency``) answers in plain text. Its
``h11_max_incomplete_event_size`` applies to h11 only. So this subclass of
:class:`uvicorn.protocols.http.httptools_impl.HttpToolsProtocol` adds, per connection:

* **a head limit**: at most ``max_header_bytes`` of request line and headers; the bytes
  are fed to the parser in slices no larger than what is left of that budget, so no
  more is ever buffered, and over it the answer is ``431`` and the connection closed;
* **a request deadline**: a request must arrive complete (head and body) within
  ``request_timeout_s`` of the connection opening or of the previous answer; else
  ``408`` (if part of one came) and the connection is closed. The timer is off while
  the app works on a request;
* **a connection cap**: past ``max_connections`` open connections, a new connection's
  request is answered ``503`` (``too_many_connections``, ``Retry-After``) and closed;
* **stalled readers**: an answer the client does not read (a half-open connection, a
  client that stopped reading) is not buffered for ever: when its unsent bytes have
  not gone down for ``request_timeout_s``, the connection is aborted. (A client that
  shuts down its sending side counts as gone, as with nginx: its search is cancelled.)
* **a client gone**: the connection's future under :data:`CLIENT_GONE` in each
  request's scope, resolved when the connection is lost (the client closed it, or shut
  down its sending side): what :func:`ladder.service.http.routes.cancel_on_disconnect`
  waits on, without a task of its own a request;
* every answer it writes itself, uvicorn's "Invalid HTTP request" 400 included, is the
  service's JSON error envelope.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from ladder.service.domain.errors import ErrorCode, ServiceError

#: Default bound on a request's line and headers together (bytes).
MAX_HEADER_BYTES = 16 * 1024
#: Default time a client has to send a complete request (seconds).
REQUEST_TIMEOUT_S = 10.0
#: Default cap on open connections.
MAX_CONNECTIONS = 512
#: The scope key of the connection's "client gone" future (see the module docstring).
CLIENT_GONE = "ladder.client_gone"


@dataclass(frozen=True)
class ConnectionLimits:
    """What one connection may do (see the module docstring)."""

    max_header_bytes: int = MAX_HEADER_BYTES
    request_timeout_s: float = REQUEST_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS

    def __post_init__(self) -> None:
        if self.max_header_bytes < 1024:
            raise ValueError(
                f"max header bytes must be at least 1024 (got {self.max_header_bytes})"
            )
        if self.request_timeout_s <= 0:
            raise ValueError(f"request timeout must be positive (got {self.request_timeout_s})")
        if self.max_connections < 1:
            raise ValueError(f"max connections must be at least 1 (got {self.max_connections})")


def error_bytes(
    err: ServiceError, default_headers: list[tuple[bytes, bytes]] | None = None
) -> bytes:
    """A whole HTTP/1.1 answer carrying `err`'s JSON envelope, closing the connection."""
    body = json.dumps(err.to_dict()).encode()
    lines = [STATUS_LINE[err.status]]
    for name, value in default_headers or []:
        lines += [name, b": ", value, b"\r\n"]
    lines.append(
        b"content-type: application/json\r\ncache-control: no-store\r\n"
        b"x-content-type-options: nosniff\r\n"
    )
    if err.retry_after is not None:
        lines.append(b"retry-after: %d\r\n" % err.retry_after)
    lines += [b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n", body]
    return b"".join(lines)


async def _too_many_connections(scope: Any, receive: Any, send: Any) -> None:
    """The app an over-cap connection's request gets instead of the service."""
    err = ServiceError(
        503,
        ErrorCode.TOO_MANY_CONNECTIONS,
        "too many open connections; try again shortly",
        retry_after=1,
    )
    body = json.dumps(err.to_dict()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"cache-control", b"no-store"),
                (b"x-content-type-options", b"nosniff"),
                (b"content-length", b"%d" % len(body)),
                (b"retry-after", b"1"),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class ProtocolSettings:
    """The limits, and whom to tell when connections close or their number changes."""

    limits: ConnectionLimits
    #: Called with the reason whenever the server closes a connection on its own.
    on_close: Callable[[str], None] | None = None
    #: Called with the number of open connections when it changes.
    on_connections: Callable[[int], None] | None = None


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """See the module docstring. Configure with :func:`guarded_protocol`."""

    settings: ClassVar[ProtocolSettings] = ProtocolSettings(ConnectionLimits())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0  # bytes of the current request head fed so far
        self._in_head = True  # the next bytes belong to a request head
        self._unanswered = 0  # complete requests not yet answered
        self._request_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._unsent = 0  # bytes not yet sent at the last look
        self._answered_any = False  # a response completed on this connection
        self._gone: asyncio.Future[None] | None = None  # resolved when the client goes

    # -- connection -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._gone = self.loop.create_future()
        if len(self.connections) > self.settings.limits.max_connections:
            self.app = _too_many_connections
            self._closed_by_server("connection_cap")
        self._arm()
        self._count_connections()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._gone is not None and not self._gone.done():
            self._gone.set_result(None)
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        super().connection_lost(exc)
        self._count_connections()

    # -- bytes in ---------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        limit = self.settings.limits.max_header_bytes
        while data and self.parser is not None and not self.transport.is_closing():
            if not self._in_head:
                super().data_received(data)
                return
            room = limit - self._head_bytes
            if room <= 0:
                self._reject_head()
                return
            piece, data = data[:room], data[room:]
            self._head_bytes += len(piece)
            super().data_received(piece)
            if self._in_head and self._head_bytes >= limit:
                self._reject_head()
                return

    def on_headers_complete(self) -> None:
        self._in_head = False
        self.scope[CLIENT_GONE] = self._gone  # type: ignore[literal-required]
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        if self.cycle is not None and not self.cycle.response_complete:
            self._unanswered += 1
        super().on_message_complete()
        self._in_head = True
        self._head_bytes = 0
        self._disarm()

    def on_response_complete(self) -> None:
        self._unanswered = max(0, self._unanswered - 1)
        self._answered_any = True
        super().on_response_complete()
        if not self.transport.is_closing() and self._unanswered == 0:
            self._arm()
        self._watch_unsent()

    def pause_writing(self) -> None:
        """The transport's buffer is full (the app now waits for it to drain)."""
        super().pause_writing()
        self._watch_unsent()

    def _watch_unsent(self) -> None:
        if self._write_timer is None and self.transport.get_write_buffer_size():
            self._unsent = self.transport.get_write_buffer_size()
            self._write_timer = self.loop.call_later(
                self.settings.limits.request_timeout_s, self._check_unsent
            )

    def _check_unsent(self) -> None:
        """Abort the connection if its unsent answer has not gone down since the last
        look (the client stopped reading, or is gone without a word)."""
        self._write_timer = None
        unsent = self.transport.get_write_buffer_size()
        if not unsent or self.parser is None:
            return
        if unsent >= self._unsent:
            self._closed_by_server("write_stalled")
            self.transport.abort()
            return
        self._unsent = unsent
        self._write_timer = self.loop.call_later(
            self.settings.limits.request_timeout_s, self._check_unsent
        )

    # -- answers of its own -----------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        self._closed_by_server("bad_http")
        err = ServiceError(400, ErrorCode.BAD_HTTP, f"not a valid HTTP/1.1 request: {msg}")
        self._answer_and_close(err)

    def _reject_head(self) -> None:
        self._closed_by_server("header_too_large")
        err = ServiceError(
            431,
            ErrorCode.HEADER_TOO_LARGE,
            f"request line and headers exceed {self.settings.limits.max_header_bytes} bytes",
        )
        self._answer_and_close(err)

    def _answer_and_close(self, err: ServiceError) -> None:
        if not self.transport.is_closing():
            if self.cycle is None or not self.cycle.response_started:
                self.transport.write(error_bytes(err, self.server_state.default_headers))
            self.transport.close()

    # -- the request deadline ---------------------------------------------------------

    def _arm(self) -> None:
        self._disarm()
        self._request_timer = self.loop.call_later(
            self.settings.limits.request_timeout_s, self._request_timed_out
        )

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _request_timed_out(self) -> None:
        self._request_timer = None
        if self.transport.is_closing():
            return
        partial = self._head_bytes or not self._in_head  # part of a request came
        self._closed_by_server("request_timeout" if partial or not self._answered_any else "idle")
        if partial:
            err = ServiceError(
                408,
                ErrorCode.REQUEST_TIMEOUT,
                f"no complete request within {self.settings.limits.request_timeout_s:g} s",
            )
            self._answer_and_close(err)
        else:
            self.transport.close()

    # -- accounting -------------------------------------------------------------------

    def _closed_by_server(self, reason: str) -> None:
        if self.settings.on_close is not None:
            self.settings.on_close(reason)

    def _count_connections(self) -> None:
        if self.settings.on_connections is not None:
            self.settings.on_connections(len(self.connections))


def guarded_protocol(
    limits: ConnectionLimits,
    on_close: Callable[[str], None] | None = None,
    on_connections: Callable[[int], None] | None = None,
) -> type[GuardedHttpToolsProtocol]:
    """The protocol class uvicorn is given (``uvicorn.Config(http=...)``)."""
    settings = ProtocolSettings(limits, on_close, on_connections)
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,), {"settings": settings})
