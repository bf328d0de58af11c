"""SIGTERM drains: /readyz turns 503 while the port still accepts, a request still
running when the drain ends gets the JSON 503 `shutting_down` (one log line, no
traceback), and the exit status is 0 with one server process and with several. The
issue's reproduction: a level-8 move, its engine SIGSTOPped, SIGTERM to the server."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time

import httpx
import psutil
import pytest

from tests.service.helpers import OUT_OF_BOOK, Server, post_move, samples, wait_until
from tests.service.test_lanes import SLOW

DRAIN = ["--drain-timeout", "2", "--drain-delay", "1.5"]


def read_answer(sock: object) -> tuple[int, dict[str, str], dict[str, object]]:
    """(status, headers, JSON body) of the one answer on a raw socket."""
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        chunk = sock.recv(65536)  # type: ignore[attr-defined]
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


def _length(data: bytes) -> int:
    head = data.split(b"\r\n\r\n", 1)[0].decode().lower()
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            return int(line.split(":")[1])
    return 0


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_answers_a_frozen_search_with_a_json_503(workers: int) -> None:
    engines = 2 * workers - 1  # 1 engine with one worker; 3 (2 + 1) with two
    server = Server(
        ["--engines", str(engines), "--workers", str(workers), "--log-format", "json", *DRAIN]
    )
    server.start()
    stopped: list[int] = []
    try:
        sock = server.connect()
        post_move(sock, {**SLOW, "seed": 1})
        wait_until(lambda: samples(server)['ladder_searches_in_flight{level="8"}'] == 1)
        stopped = [p for p in server.engine_pids() if "stockfish" in psutil.Process(p).name()]
        assert len(stopped) == engines
        for pid in stopped:  # the search can never end now
            os.kill(pid, signal.SIGSTOP)
        start = len(server.log_lines)
        server.signal(signal.SIGTERM)  # the server process only, as systemd does
        # not ready at once, while the port still accepts
        wait_until(lambda: _readyz(server) == 503, timeout=10)
        ready = httpx.get(server.url + "/readyz", timeout=10)
        assert ready.json()["error"]["code"] == "shutting_down"
        status, headers, body = read_answer(sock)
        assert status == 503, body
        assert body["error"]["code"] == "shutting_down"  # type: ignore[index]
        assert headers["content-type"] == "application/json" and "retry-after" in headers
        assert server.proc is not None
        assert server.proc.wait(timeout=60) == 0
    finally:
        for pid in stopped:
            if psutil.pid_exists(pid):
                os.kill(pid, signal.SIGCONT)
        server.stop()
    log = server.log_lines[start:]
    assert not [line for line in log if "Traceback" in line or "Exception in ASGI" in line]
    cut = [json.loads(line) for line in log if '"drain_cut"' in line]
    assert len(cut) == 1 and cut[0]["requests"] == 1, log
    answered = [json.loads(line) for line in log if '"status": 503' in line and "/v1/move" in line]
    assert len(answered) == 1 and answered[0]["level"] == 8


def _readyz(server: Server) -> int:
    try:
        return httpx.get(server.url + "/readyz", timeout=10).status_code
    except httpx.TransportError:
        return 0


def test_a_request_that_ends_within_the_drain_is_answered() -> None:
    """Nothing cut when the search ends in time: a level-8 move sent just before
    SIGTERM is answered 200, and the server exits 0."""
    server = Server(["--engines", "1", "--log-format", "json", "--drain-timeout", "30"])
    server.start()
    try:
        sock = server.connect()
        post_move(sock, {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 8, "seed": 2})
        wait_until(lambda: samples(server)['ladder_searches_in_flight{level="8"}'] == 1)
        server.signal(signal.SIGTERM)
        status, _, body = read_answer(sock)
        assert status == 200, body
        assert server.proc is not None and server.proc.wait(timeout=60) == 0
    finally:
        server.stop()
    assert not any('"drain_cut"' in line for line in server.log_lines)


@pytest.mark.parametrize(
    ("first", "delay", "second_when"),
    [
        (signal.SIGTERM, "60", '"event": "draining"'),  # in the drain's delay
        (signal.SIGTERM, "0", "Waiting for connections to close"),  # in uvicorn's wait
        (signal.SIGINT, "60", "Waiting for connections to close"),  # Ctrl-C twice
    ],
)
def test_a_second_stop_signal_cuts_the_requests_short_at_once(
    first: signal.Signals, delay: str, second_when: str
) -> None:
    """Ctrl-C during the drain (Ctrl-C twice, or SIGTERM then SIGINT):
    the requests still running, searching or waiting for the engine, are answered the
    JSON 503 at once, long before the drain's timeout, instead of uvicorn's forced exit
    (plain-text 500s, "Exception in ASGI application" tracebacks: the reviewer's
    reproduction, four level-8 moves on one engine); the engine is quit and the exit
    status is 0."""
    server = Server(
        ["--engines", "1", "--log-format", "json", "--drain-timeout", "60", "--drain-delay", delay]
    )
    server.start()
    try:
        socks = [server.connect() for _ in range(4)]
        for seed, sock in enumerate(socks):  # one searching, three waiting for the engine
            post_move(sock, {**SLOW, "seed": seed})
        wait_until(lambda: server.health()["queue_depth"] == 3)
        start = len(server.log_lines)
        server.signal(first)
        wait_until(lambda: any(second_when in line for line in server.log_lines[start:]))
        server.signal(signal.SIGINT)
        answers = [read_answer(sock) for sock in socks]
        assert server.proc is not None
        assert server.proc.wait(timeout=30) == 0  # well within the drain's 60 s
    finally:
        server.stop()
    for status, headers, body in answers:
        assert headers["content-type"] == "application/json", body
        assert status == 200 or (status, body["error"]["code"]) == (503, "shutting_down")  # type: ignore[index]
    cut_short = sum(status == 503 for status, _, _ in answers)
    assert cut_short >= 1  # four searches outlast the signals
    log = server.log_lines[start:]
    assert not [line for line in log if "Traceback" in line or "Exception in ASGI" in line]
    cut = [json.loads(line) for line in log if '"drain_cut"' in line]
    assert [(c["requests"], c["reason"]) for c in cut] == [(cut_short, "a second stop signal")]


def test_a_second_sigterm_changes_nothing() -> None:
    """A service manager may send SIGTERM to every process, or twice: the drain goes on
    (only Ctrl-C says "now"), and the searches in flight are answered."""
    server = Server(["--engines", "1", "--log-format", "json", "--drain-timeout", "60"])
    server.start()
    try:
        socks = [server.connect() for _ in range(2)]
        for seed, sock in enumerate(socks):
            post_move(sock, {**SLOW, "seed": seed})
        wait_until(lambda: server.health()["queue_depth"] == 1)
        start = len(server.log_lines)
        server.signal(signal.SIGTERM)
        wait_until(lambda: any('"event": "draining"' in x for x in server.log_lines[start:]))
        server.signal(signal.SIGTERM)
        assert [read_answer(sock)[0] for sock in socks] == [200, 200]
        assert server.proc is not None and server.proc.wait(timeout=60) == 0
    finally:
        server.stop()
    assert not any('"drain_cut"' in line for line in server.log_lines)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_with_workers_is_one_stop_signal(presses: int) -> None:
    """`--workers 2` and a terminal's Ctrl-C, which reaches the whole process group: one
    press drains (a worker ignores its own SIGINT and gets the supervisor's SIGTERM, so
    it is not "a second signal": the reviewer saw it cut every request), two cut the
    requests short at once, through the supervisor; exit 0 either way."""
    server = Server(
        ["--engines", "2", "--workers", "2", "--log-format", "json", "--drain-timeout", "60"]
    )
    server.start()
    try:
        socks = [server.connect() for _ in range(6)]
        for seed, sock in enumerate(socks):
            post_move(sock, {**SLOW, "seed": seed})
        wait_until(lambda: sum(_in_flight(server).values()) >= 1)
        start = len(server.log_lines)
        assert server.proc is not None
        os.killpg(server.proc.pid, signal.SIGINT)
        if presses == 2:
            wait_until(lambda: sum('"draining"' in x for x in server.log_lines[start:]) == 2)
            os.killpg(server.proc.pid, signal.SIGINT)
        answers = [read_answer(sock)[0] for sock in socks]
        assert server.proc.wait(timeout=90) == 0
    finally:
        server.stop()
    cut = [json.loads(x) for x in server.log_lines[start:] if '"drain_cut"' in x]
    if presses == 1:
        assert answers == [200] * 6 and not cut, (answers, cut)
    else:
        assert 503 in answers and set(answers) <= {200, 503}, answers
        assert sum(c["requests"] for c in cut) == answers.count(503)
        assert {c["reason"] for c in cut} == {"a second stop signal"}


def _in_flight(server: Server) -> dict[str, float]:
    """The level-8 searches in flight, summed over the workers (multiprocess metrics)."""
    try:
        return {k: v for k, v in samples(server).items() if "searches_in_flight" in k}
    except httpx.TransportError:
        return {}


def test_ctrl_c_at_the_end_of_the_drain_still_exits_0() -> None:
    """SIGTERM, then SIGINT after SIGINT until the process ends: one of them comes after
    uvicorn gave its signal handlers back (the end of the drain), where Python's own
    Ctrl-C handler used to raise KeyboardInterrupt (exit -2). A stop asked for exits 0."""
    server = Server(["--engines", "1", "--log-format", "json", "--drain-delay", "0"])
    server.start()
    try:
        assert server.proc is not None
        server.signal(signal.SIGTERM)
        sent = 0
        while server.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                server.signal(signal.SIGINT)
                sent += 1
            time.sleep(0.002)
        assert server.proc.wait() == 0, (sent, server.log_lines[-5:])
    finally:
        server.stop()
    assert not [line for line in server.log_lines if "KeyboardInterrupt" in line]
