"""No client behaviour stops the server, and HTTP is bounded: raw sockets against
`ladder serve` (a subprocess, real engines). Normal close, reset, close mid-search and
while queued, half-closed and silent sockets, slow requests, huge headers, too many
connections, a spoofed Host, HEAD, and uvicorn's own error answers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
from collections.abc import Iterator
from typing import Any

import httpx
import psutil
import pytest

from ladder.service.http.http_protocol import MAX_HEADER_BYTES, REQUEST_TIMEOUT_S, ConnectionLimits

from .helpers import OUT_OF_BOOK, Server, check_move_reply, start_server, wait_until

MOVE: dict[str, Any] = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 1, "seed": 3}


def request_bytes(
    method: str, path: str, body: dict[str, Any] | None = None, **headers: str
) -> bytes:
    data = json.dumps(body).encode() if body is not None else b""
    lines = [f"{method} {path} HTTP/1.1", "Host: test"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One whole HTTP response (status, headers, body) from a raw socket."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a whole head: {buf!r}")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def closed_by_server(sock: socket.socket) -> bytes:
    """Everything the server still sends until it closes the connection."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), as a crashed client or a scanner does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def assert_serving(srv: Server) -> None:
    """The server process runs and answers a move correctly."""
    assert srv.proc is not None and srv.proc.poll() is None, "the server died"
    r = httpx.post(srv.url + "/v1/move", json=MOVE, timeout=60)
    assert r.status_code == 200, r.text
    check_move_reply("xiangqi", MOVE["moves"], r.json())


@contextlib.contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The engine process frozen (SIGSTOP): its search cannot finish until SIGCONT."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    """One engine, a 2 s request deadline (the default is 10 s)."""
    server = start_server("--request-timeout", "2", engines=1)
    try:
        yield server
    finally:
        server.stop()
    assert not any("Traceback" in line for line in server.log_lines), server.log_lines


def test_defaults_are_the_documented_limits() -> None:
    limits = ConnectionLimits()
    assert (limits.max_header_bytes, limits.request_timeout_s) == (16 * 1024, 10.0)
    assert (MAX_HEADER_BYTES, REQUEST_TIMEOUT_S) == (16 * 1024, 10.0)


def test_normal_close_after_sending(srv: Server) -> None:
    """The issue's reproduction: a client sends a request and closes normally without
    reading (what load balancers and health checkers do); then the same with moves."""
    for _ in range(3):
        with srv.connect() as sock:
            sock.sendall(request_bytes("GET", "/healthz"))
    for _ in range(3):
        with srv.connect() as sock:
            sock.sendall(request_bytes("POST", "/v1/move", MOVE))
    srv.wait_health(lambda h: h["engines_busy"] == 0 and h["queue_depth"] == 0)
    assert_serving(srv)


def test_reset_idle_partial_and_after_request(srv: Server) -> None:
    sock = srv.connect()
    reset(sock)
    sock = srv.connect()
    sock.sendall(b"POST /v1/move HTTP/1.1\r\nHost: x\r\nContent-Le")
    reset(sock)
    sock = srv.connect()
    sock.sendall(request_bytes("POST", "/v1/move", MOVE))
    reset(sock)
    srv.wait_health(lambda h: h["engines_busy"] == 0 and h["queue_depth"] == 0)
    assert_serving(srv)


@pytest.mark.parametrize("how", ["close", "reset", "half-close"])
def test_gone_mid_search(srv: Server, how: str) -> None:
    """The client goes while its search runs (the engine is frozen, so the search is
    certainly running): the request is logged as 499, the engine is brought back in
    sync and serves the next request. A client that only shuts down its sending side
    counts as gone (as with nginx)."""
    (engine,) = srv.engine_pids()
    start = len(srv.log_lines)
    with stopped(engine):
        sock = srv.connect()
        sock.sendall(request_bytes("POST", "/v1/move", {**MOVE, "level": 8}))
        srv.wait_health(lambda h: h["engines_busy"] == 1)
        if how == "reset":
            reset(sock)
        elif how == "close":
            sock.close()
        else:
            sock.shutdown(socket.SHUT_WR)
        srv.wait_for_log(lambda line: '"status": 499' in line, start=start)
        if how == "half-close":
            assert closed_by_server(sock) == b""
            sock.close()
    srv.wait_health(lambda h: h["engines_busy"] == 0)
    assert_serving(srv)


def test_gone_while_queued(srv: Server) -> None:
    """A client that leaves while queued is taken out of the queue; the request ahead
    of it is answered."""
    (engine,) = srv.engine_pids()
    start = len(srv.log_lines)
    with stopped(engine):
        first = srv.connect()
        first.sendall(request_bytes("POST", "/v1/move", MOVE))
        srv.wait_health(lambda h: h["engines_busy"] == 1)
        second = srv.connect()
        second.sendall(request_bytes("POST", "/v1/move", {**MOVE, "seed": 4}))
        srv.wait_health(lambda h: h["queue_depth"] == 1)
        second.close()
        srv.wait_health(lambda h: h["queue_depth"] == 0)
    status, _, body = read_response(first)
    first.close()
    assert status == 200, body
    check_move_reply("xiangqi", MOVE["moves"], json.loads(body))
    gone = srv.wait_for_log(
        lambda line: '"status": 499' in line and '"engine": null' in line, start=start
    )
    assert json.loads(gone)["path"] == "/v1/move"
    assert json.loads(gone)["queue_wait_ms"] > 0  # how long it waited before it left
    assert_serving(srv)


def test_partial_request_then_half_close_is_closed(srv: Server) -> None:
    with srv.connect() as sock:
        sock.sendall(b"POST /v1/move HTTP/1.1\r\nHost: x\r\n")
        sock.shutdown(socket.SHUT_WR)
        assert closed_by_server(sock) == b""
    assert_serving(srv)


def test_client_that_never_reads_is_closed(srv: Server) -> None:
    """A client that asks for a large answer (the 1.5 MB Swagger bundle) and never
    reads it (or is gone without a word: a half-open connection) does not keep its
    connection: the server closes it (the kernel delivers or drops what is left)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(srv.host_port)
    sock.sendall(request_bytes("GET", "/static-offline-docs/swagger-ui-bundle.js"))

    def open_connections() -> float:  # the scrape's own connection included
        text = httpx.get(srv.url + "/metrics", timeout=30).text
        line = next(x for x in text.splitlines() if x.startswith("ladder_http_connections "))
        return float(line.split()[-1])

    assert sock.recv(12) == b"HTTP/1.1 200"  # the answer has started; read no more
    wait_until(lambda: open_connections() == 1)
    sock.close()
    assert_serving(srv)


def test_silent_connection_is_closed(srv: Server) -> None:
    """A connection that never sends anything (a half-open socket, a port scanner)
    is closed after the request deadline, without an answer."""
    with srv.connect() as sock:
        assert closed_by_server(sock) == b""
    assert_serving(srv)


@pytest.mark.parametrize(
    "partial",
    [
        b"POST /v1/move HTTP/1.1\r\nHost: x\r\n",  # the head never ends (slow-loris)
        request_bytes("POST", "/v1/move", MOVE)[:-10],  # the body never ends
    ],
    ids=["head", "body"],
)
def test_slow_request_gets_408_and_is_closed(srv: Server, partial: bytes) -> None:
    with srv.connect() as sock:
        sock.sendall(partial)
        status, headers, body = read_response(sock)
        assert status == 408
        assert json.loads(body)["error"]["code"] == "request_timeout"
        assert headers["connection"] == "close"
        assert closed_by_server(sock) == b""
    assert_serving(srv)


def test_slow_loris_drip_does_not_keep_a_connection(srv: Server) -> None:
    """One byte at a time, each resetting nothing: the deadline is for the whole request."""
    with srv.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        answer = b""
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(10_000):
                sock.sendall(b"X")
                sock.settimeout(0.05)
                try:
                    answer += sock.recv(65536)
                except TimeoutError:
                    continue
                if answer:
                    break
        sock.settimeout(60)
        answer += closed_by_server(sock)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


def test_headers_over_the_bound_are_refused(srv: Server) -> None:
    with srv.connect() as sock:
        sock.sendall(request_bytes("GET", "/healthz", X_Filler="a" * 15_000))
        status, _, _ = read_response(sock)
        assert status == 200
    with srv.connect() as sock:
        sock.sendall(request_bytes("GET", "/healthz", X_Filler="a" * 17_000))
        status, _, body = read_response(sock)
        assert status == 431
        assert json.loads(body)["error"]["code"] == "header_too_large"
        assert closed_by_server(sock) == b""
    assert_serving(srv)


def test_a_64_mib_header_is_cut_off_early(srv: Server) -> None:
    """The issue's 64 MiB header: the server stops reading after 16 KiB and closes, so
    the client cannot even send most of it, and the server's memory does not grow."""
    server = psutil.Process(srv.server_pid())
    rss_before = server.memory_info().rss
    sent = 0
    answer = b""
    with srv.connect() as sock:
        sock.sendall(b"POST /v1/move HTTP/1.1\r\nHost: x\r\nX-Big: ")
        chunk = b"a" * 65536
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < 64 * 2**20:
                sock.sendall(chunk)
                sent += len(chunk)
        with contextlib.suppress(OSError):
            answer = closed_by_server(sock)
    assert sent < 16 * 2**20, f"the server read {sent} bytes of one header"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431"), answer[:100]
    assert server.memory_info().rss - rss_before < 16 * 2**20
    assert_serving(srv)


def test_not_http_is_a_json_400(srv: Server) -> None:
    with srv.connect() as sock:
        sock.sendall(b"\x16\x03\x01\x02\x00garbage\r\n\r\n")
        status, headers, body = read_response(sock)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert (headers["x-content-type-options"], headers["cache-control"]) == ("nosniff", "no-store")
    assert json.loads(body)["error"]["code"] == "bad_http"
    assert_serving(srv)


def test_json_answers_are_neither_sniffed_nor_stored(srv: Server) -> None:
    """Every JSON answer, a move, an error or an endpoint's, says `nosniff` (a browser
    must not read it as another type) and `no-store` (an answer for one request: no
    cache keeps or serves it again); the page and the docs keep their own cache policy."""
    move = {**MOVE, "seed": 5}
    with srv.client() as client:
        answers = [
            client.post("/v1/move", json=move),  # the fast path
            client.post("/v1/move", json={**move, "level": 0}),  # FastAPI's 422
            client.post("/v1/position", json={"variant": "xiangqi", "moves": ["h3e3"]}),
            client.get("/v1/levels"),
            client.get("/healthz"),
            client.get("/nowhere"),
            client.post("/v1/move", content=b"{", headers={"content-type": "application/json"}),
        ]
        page = client.get("/docs")
    assert [r.status_code for r in answers] == [200, 422, 200, 200, 200, 404, 400]
    for r in answers:
        assert r.headers["content-type"].startswith("application/json"), r.headers
        assert r.headers["x-content-type-options"] == "nosniff", r.headers
        assert r.headers.get_list("cache-control") == ["no-store"], r.headers
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "no-store" not in page.headers.get("cache-control", "")


def test_no_redirect_echoing_the_host(srv: Server) -> None:
    r = httpx.post(srv.url + "/v1/move/", json=MOVE, headers={"Host": "evil.example"}, timeout=30)
    assert r.status_code == 404
    assert "location" not in r.headers
    assert r.json()["error"]["code"] == "not_found"
    r = httpx.get(srv.url + "/v1/move", timeout=30)
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    "path",
    ["/healthz", "/readyz", "/v1/levels", "/v1/variants", "/docs", "/redoc", "/openapi.json"],
)
def test_head_on_get_endpoints(srv: Server, path: str) -> None:
    get = httpx.get(srv.url + path, timeout=30)
    head = httpx.head(srv.url + path, timeout=30)
    assert get.status_code == head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(len(get.content))
    assert head.headers["content-type"] == get.headers["content-type"]


def test_survived_everything(srv: Server) -> None:
    """After every test above, the same server process is still serving."""
    assert_serving(srv)
    assert srv.proc is not None and srv.proc.poll() is None


def test_connection_cap() -> None:
    """Past --max-connections, a new connection's request gets a JSON 503 and is closed;
    once connections close, requests are served again."""
    server = start_server("--max-connections", "3", "--request-timeout", "60", engines=1)
    try:
        held = [server.connect() for _ in range(3)]
        with server.connect() as extra:
            extra.sendall(request_bytes("GET", "/healthz"))
            status, headers, body = read_response(extra)
            assert status == 503
            assert headers["retry-after"].isdigit()
            assert json.loads(body)["error"]["code"] == "too_many_connections"
            assert closed_by_server(extra) == b""
        for sock in held:
            sock.close()
        # once the server has seen them close, a slot is free again
        wait_until(lambda: httpx.get(server.url + "/healthz", timeout=30).status_code == 200)
        assert_serving(server)
        metrics = httpx.get(server.url + "/metrics", timeout=30).text
        assert 'ladder_connections_closed_total{reason="connection_cap"} 1.0' in metrics
    finally:
        server.stop()


def test_allowed_hosts() -> None:
    server = start_server("--allowed-host", "play.example.com", "--allowed-host", "127.0.0.1")
    try:
        ok = httpx.get(server.url + "/healthz", timeout=30)
        assert ok.status_code == 200
        named = httpx.get(server.url + "/v1/variants", headers={"Host": "play.example.com"})
        assert named.status_code == 200
        evil = httpx.get(server.url + "/v1/variants", headers={"Host": "evil.example"})
        assert evil.status_code == 400 and evil.json()["error"]["code"] == "invalid_host"
    finally:
        server.stop()
