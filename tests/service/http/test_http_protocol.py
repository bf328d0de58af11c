"""The guarded protocol on its own, with a scripted transport: what the HTTP tests
cannot provoke on loopback (the kernel absorbs any answer of ours, so an answer never
stays unsent in the server), and the head limit fed in one read."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState

from ladder.service.http.http_protocol import ConnectionLimits, guarded_protocol


class ScriptedTransport(asyncio.Transport):
    """A transport whose unsent byte count the test sets."""

    def __init__(self) -> None:
        super().__init__()
        self.unsent = 0
        self.written = b""
        self.closing = False
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5555), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def get_write_buffer_size(self) -> int:
        return self.unsent

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.aborted = self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _protocol(limits: ConnectionLimits, reasons: list[str]) -> Any:
    cls = guarded_protocol(limits, on_close=reasons.append)
    config = Config(app=_app, http=cls, lifespan="off", log_config=None)
    config.load()
    return cls(config=config, server_state=ServerState(), app_state={})


async def test_an_answer_that_stops_draining_is_aborted() -> None:
    """Each look at the unsent bytes (what the timer does every request_timeout_s; here
    called by hand) leaves a draining answer alone and aborts a stalled one."""
    reasons: list[str] = []
    proto = _protocol(ConnectionLimits(request_timeout_s=600), reasons)
    transport = ScriptedTransport()
    proto.connection_made(transport)
    transport.unsent = 1_000_000
    proto.pause_writing()  # the transport's buffer is full: the watch starts
    assert proto._write_timer is not None
    for left in (900_000, 500_000, 100_000):  # draining: left alone, watched again
        transport.unsent = left
        proto._write_timer.cancel()
        proto._check_unsent()
        assert not transport.aborted and proto._write_timer is not None
    proto._write_timer.cancel()
    proto._check_unsent()  # stalled at 100,000 since the last look
    assert transport.aborted and reasons == ["write_stalled"]
    proto.connection_lost(None)


async def test_head_over_the_limit_in_one_read() -> None:
    reasons: list[str] = []
    proto = _protocol(ConnectionLimits(max_header_bytes=2048, request_timeout_s=60), reasons)
    transport = ScriptedTransport()
    proto.connection_made(transport)
    proto.data_received(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
    assert transport.written.startswith(b"HTTP/1.1 431 ")
    assert b'"code": "header_too_large"' in transport.written
    assert transport.closing and reasons == ["header_too_large"]
    proto.connection_lost(None)
