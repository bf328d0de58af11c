"""Requests, strictly: `elo` as strict as `level`, a JSON key given twice refused,
`X-Request-ID` taken (or made), echoed and logged (with engine incidents), the 503 line
with its queue wait, and wrong-key attempts throttled per client address. `ladder
serve` as a subprocess, real engines, real signals."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
from pathlib import Path

import pytest

from .helpers import OUT_OF_BOOK, Server, post_move, samples, start_server, wait_until

MOVE = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 1, "seed": 3}
JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("elo", ["1500", True, False, None, [1500], {"value": 1500}])
def test_elo_is_strict(server: Server, elo: object) -> None:
    body = {"variant": "xiangqi", "moves": [], "elo": elo}
    with server.client() as client:
        reply = client.post("/v1/move", json=body)
    assert reply.status_code == 422, reply.text
    assert reply.json()["error"]["field"] in ("elo", "level")  # None: neither given


@pytest.mark.parametrize(
    ("path", "body", "key"),
    [
        ("/v1/move", '{"variant": "xiangqi", "level": 1, "level": 8}', "level"),
        ("/v1/move", '{"variant": "xiangqi", "level": 1, "seed": 1, "seed": 2}', "seed"),
        (
            "/v1/move",
            '{"variant": "xiangqi", "level": 1, "clock": {"remaining_ms": 1, "remaining_ms": 9}}',
            "remaining_ms",
        ),
        ("/v1/position", '{"variant": "xiangqi", "variant": "atomic-xiangqi"}', "variant"),
    ],
)
def test_a_key_given_twice_is_refused(server: Server, path: str, body: str, key: str) -> None:
    with server.client() as client:
        reply = client.post(path, content=body, headers=JSON)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["code"] == "malformed_json" and error["field"] == "body"
    assert f"duplicate key {key!r}" in error["message"]


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/v1/move", '{"variant": "xiangqi", "level": 1, "seed": ' + "9" * 5000 + "}",
         "a number of over 4300 digits"),
        ("/v1/position", '{"variant": "xiangqi", "moves": ' + "[" * 30000 + "]" * 30000 + "}",
         "nested too deeply"),
        ("/v1/analysis", '{"variant": "xiangqi", "moves": ' + "[" * 30000 + "]" * 30000 + "}",
         "nested too deeply"),
        # where the syntax breaks, not "JSON decode error" (the reviewer's finding)
        ("/v1/move", '{"variant": "xiangqi", "level": 1,}',
         "Expecting property name enclosed in double quotes at line 1, column 35"),
        ("/v1/position", "{'variant': 'xiangqi'}", "at line 1, column 2"),
        ("/v1/move", 'not json', "Expecting value at line 1, column 1"),
        ("/v1/move", b'{"variant": "xiangqi", "fen": "caf\xe9"}',
         "not UTF-8 text (byte 0xe9 at offset 34)"),
        ("/v1/analysis", "", "the body is empty"),
        ("/v1/move", "  ", "the body is empty"),
    ],
)  # fmt: skip
def test_json_python_cannot_read_is_refused_naming_why(
    server: Server, path: str, body: str | bytes, says: str
) -> None:
    """Not FastAPI's "There was an error parsing the body", which names nothing."""
    with server.client() as client:
        reply = client.post(path, content=body, headers=JSON)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["code"] == "malformed_json" and error["field"] == "body"
    assert error["message"].startswith("body is not valid JSON: ") and says in error["message"]


def test_request_id_is_echoed_and_logged(server: Server) -> None:
    with server.client() as client:
        given = client.post("/v1/move", json=MOVE, headers={"x-request-id": "game-42:ply-7"})
        made = client.post("/v1/move", json=MOVE)
        odd = client.get("/healthz", headers={"x-request-id": "no spaces <allowed>"})
    assert given.headers["x-request-id"] == "game-42:ply-7"
    made_id = made.headers["x-request-id"]
    assert len(made_id) == 32 and int(made_id, 16) >= 0
    assert odd.headers["x-request-id"] != "no spaces <allowed>"
    for request_id in ("game-42:ply-7", made_id):
        quoted = f'"{request_id}"'
        line = json.loads(server.wait_for_log(lambda x: quoted in x))  # noqa: B023
        assert line["event"] == "request" and line["request_id"] == request_id


def _searching_at_level_8(server: Server, request_id: str | None = None) -> socket.socket:
    """A level-8 move sent on a new connection, once the engine searches it; the engine
    is then frozen (SIGSTOP: the search lasts until the test lets it go, whatever level
    8's node count), and the connection returned, its answer unread. A search that ended
    before the engine stopped (on a loaded machine, between the metric's read and the
    signal) is answered within the second after it: then it is sent again."""
    for _ in range(5):
        sock = server.connect()
        post_move(sock, {**MOVE, "level": 8}, request_id)
        wait_until(lambda: samples(server)['ladder_searches_in_flight{level="8"}'] == 1)
        (engine,) = server.engine_pids()
        os.kill(engine, signal.SIGSTOP)
        answered, _, _ = select.select([sock], [], [], 1.0)
        if not answered:
            return sock
        os.kill(engine, signal.SIGCONT)
        sock.close()
    raise AssertionError("every level-8 search ended before its engine was stopped")


def test_an_engine_incident_carries_the_request_id() -> None:
    server = start_server(engines=1)
    try:
        sock = _searching_at_level_8(server, request_id="crash-me-1")
        (engine,) = server.engine_pids()
        os.kill(engine, signal.SIGKILL)  # mid-search: an incident, then a retry
        incident = json.loads(server.wait_for_log(lambda x: '"engine_incident"' in x))
        assert incident["request_id"] == "crash-me-1" and incident["pid"] == engine
        # the replacement is started in the background, after the request gave the
        # engine back: its line is not the request's (nor are later ones)
        restarted = json.loads(server.wait_for_log(lambda x: '"engine_restarted"' in x))
        assert restarted["previous_pid"] == engine and "request_id" not in restarted
        sock.close()
        server.wait_for_log(lambda x: '"crash-me-1"' in x and '"event": "request"' in x)
        with server.client() as client:
            assert client.get("/healthz").status_code == 200
        lines = [json.loads(x) for x in server.log_lines]
        last = max(i for i, r in enumerate(lines) if r.get("event") == "request")
        assert all(r.get("request_id") != "crash-me-1" for r in lines[last + 1 :])
    finally:
        server.stop()


def test_a_503_line_has_its_queue_wait() -> None:
    """The engine frozen mid-search: the next request waits out its queue timeout and
    is refused 503 busy; its log line says how long it waited and that no engine
    served it."""
    server = start_server("--queue-timeout", "0.5", engines=1)
    try:
        sock = _searching_at_level_8(server)
        with server.client() as client:
            busy = client.post("/v1/move", json=MOVE, headers={"x-request-id": "busy-1"})
        assert busy.status_code == 503 and busy.json()["error"]["code"] == "busy"
        line = json.loads(server.wait_for_log(lambda x: '"busy-1"' in x))
        assert line["status"] == 503 and line["engine"] is None
        assert line["queue_wait_ms"] >= 450 and line["level"] == 1
        sock.close()
    finally:
        for engine in server.engine_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(engine, signal.SIGCONT)
        server.stop()


def test_wrong_keys_are_throttled_per_address(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text("the-right-key-0123456789 site\n")
    server = start_server("--api-keys", str(keys), engines=1)
    try:
        wrong = {"authorization": "Bearer a-guess-0123456789abcdef"}
        with server.client() as client:
            statuses = [
                client.post("/v1/move", json=MOVE, headers=wrong).status_code for _ in range(31)
            ]
            assert statuses[:30] == [401] * 30 and statuses[30] == 429
            throttled = client.get("/v1/levels")  # no key at all counts as well
            assert throttled.status_code == 429
            assert int(throttled.headers["retry-after"]) >= 1
            assert "without a valid API key" in throttled.json()["error"]["message"]
            right = {"authorization": "Bearer the-right-key-0123456789"}
            assert client.post("/v1/move", json=MOVE, headers=right).status_code == 200
        server.wait_for_log(lambda line: '"bad_key_throttled"' in line)  # read as it comes
    finally:
        server.stop()
