"""What an operator sees of `ladder serve` (a subprocess): one structured log line per
request and per engine incident, Prometheus metrics from prometheus_client, liveness
and readiness."""

from __future__ import annotations

import json
import os
import signal
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from ladder.service.operations.launch import ladder_command
from protocol.errors import INCIDENT_KINDS

from .helpers import OUT_OF_BOOK, Server, samples, start_server

MOVE = {"variant": "atomic-xiangqi", "moves": OUT_OF_BOOK, "level": 2, "seed": 9}


def records(server: Server, **fields: Any) -> list[dict[str, Any]]:
    out = []
    for line in server.log_lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if all(record.get(k) == v for k, v in fields.items()):
            out.append(record)
    return out


def test_one_line_per_request() -> None:
    server = start_server(engines=1)
    try:
        with server.client() as client:
            assert client.post("/v1/move", json=MOVE).status_code == 200
            assert client.post("/v1/move", json={**MOVE, "level": 0}).status_code == 422
            position = {"variant": "crazyhouse-xiangqi", "moves": ["h3e3"]}
            assert client.post("/v1/position", json=position).status_code == 200
            analysis = {"variant": "xiangqi", "moves": ["h3e3"], "nodes": 100}
            assert client.post("/v1/analysis", json=analysis).status_code == 200
            assert client.get("/v1/levels").status_code == 200
        # a request's line is written once its answer is out: wait for the last one
        server.wait_for_log(lambda line: '"path": "/v1/levels"' in line)
        moves = records(server, event="request", path="/v1/move")
        ok = next(r for r in moves if r["status"] == 200)
        assert ok["variant"] == "atomic-xiangqi" and ok["level"] == 2
        assert ok["engine"] == 0 and ok["attempts"] == 1
        assert ok["latency_ms"] > 0 and ok["queue_wait_ms"] >= 0
        assert ok["client"] == "127.0.0.1" and ok["logger"] == "ladder.access"
        assert ok["severity"] == "INFO" and ok["method"] == "POST"
        refused = next(r for r in moves if r["status"] == 422)
        assert refused["engine"] is None  # never reached an engine
        assert records(server, event="request", path="/v1/levels", status=200)
        # the start-up check's engine is not logged as the pool's engine 0
        assert len(records(server, event="engine_checked")) == 1
        assert not records(server, event="engine_unpatched")  # our build: no warning
        assert [r["engine"] for r in records(server, event="engine_started")] == [0]
        # the variant is named on every line of a request that has one, not only a move's
        (checked,) = records(server, event="request", path="/v1/position")
        (analysed,) = records(server, event="request", path="/v1/analysis")
        assert (checked["variant"], analysed["variant"]) == ("crazyhouse-xiangqi", "xiangqi")
        assert not records(server, logger="uvicorn.access")  # replaced, not doubled
        # every line's time has its zone (UTC), the service's own lines an event
        for record in records(server):
            stamp = datetime.fromisoformat(record["time"])
            assert stamp.utcoffset() == timedelta(0), record
            assert "event" in record or record["logger"].startswith("uvicorn"), record
    finally:
        server.stop()


def test_a_stock_engine_is_served_with_a_warning(unpatched_engine_exe: Path) -> None:
    """An engine without our patches plays other atomic and crazyhouse rules: `ladder
    serve` says so at start (it served it without a word, where `ladder doctor` fails
    it), and still serves (an operator may mean it)."""
    server = start_server(engines=1, env={"LADDER_ENGINE": str(unpatched_engine_exe)})
    try:
        (warning,) = records(server, event="engine_unpatched")
        assert warning["severity"] == "WARNING" and "ladder doctor" in warning["message"]
        assert warning["engine_path"] == str(unpatched_engine_exe)
    finally:
        server.stop()


def test_text_log_format() -> None:
    """One line a record, whatever the client sends: a path whose escaped newline would
    start a forged line (the reviewer's reproduction) and a terminal escape are written
    escaped, on the request's own line."""
    text = Server(["--engines", "1", "--log-format", "text"])
    forged = "2026-12-05 11:00:00,000 INFO ladder.access: FAKE event=request status=200"
    with text:
        httpx.get(text.url + "/healthz", timeout=30)
        line = text.wait_for_log(lambda x: "ladder.access" in x)
        path = "/x%0a" + forged.replace(" ", "%20") + "%1b[2J"
        assert httpx.get(text.url + path, timeout=30).status_code == 404
        attack = text.wait_for_log(lambda x: " 404 " in x and "ladder.access" in x)
    assert "GET /healthz 200" in line and "event=request" in line and not line.startswith("{")
    assert datetime.fromisoformat(line.split()[0]).utcoffset() == timedelta(0), line
    assert "/x\\n2026-12-05" in attack and "\\x1b[2J" in attack, attack
    assert not [x for x in text.log_lines if x.startswith("2026-12-05 11:00:00")]
    assert not [x for x in text.log_lines if "\x1b" in x]


def test_the_global_log_level_reaches_serve() -> None:
    """`ladder --log-level debug serve` logs every line to and from the engine, as
    `ladder --help` says (serve's own --log-level, at its default, used to win); serve's
    own flag, given too, still decides."""
    command = [*ladder_command(), "--log-level", "debug", "serve", "--port", "0"]
    loud, quiet = Server(command=command), Server(command=[*command, "--log-level", "info"])
    for server in (loud, quiet):
        with server:
            body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 2, "seed": 1}
            assert httpx.post(server.url + "/v1/move", json=body, timeout=60).status_code == 200
            server.wait_for_log(lambda x: '"path": "/v1/move"' in x)
    assert [line for line in loud.log_lines if "> go nodes" in line]
    assert not [line for line in quiet.log_lines if "> go nodes" in line]


def test_metrics_from_prometheus_client() -> None:
    server = start_server(engines=2)
    try:
        first = samples(server)
        # every counter exists from the start, at 0
        for kind in INCIDENT_KINDS:
            assert first[f'ladder_engine_incidents_total{{kind="{kind}"}}'] == 0
        for variant in ("xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"):
            for level in range(1, 9):
                assert first[f'ladder_moves_total{{level="{level}",variant="{variant}"}}'] == 0
        for name in (
            "ladder_busy_total",
            "ladder_engine_restarts_total",
            "ladder_rate_limited_total",
        ):
            assert first[name] == 0
        assert first['ladder_http_requests_total{route="/v1/move",status="503"}'] == 0
        # process, engines, build
        assert first["ladder_process_resident_memory_bytes"] > 10 * 2**20
        assert first["ladder_process_cpu_seconds"] > 0
        assert first['ladder_engine_resident_memory_bytes{engine="0"}'] > 1 * 2**20
        assert first['ladder_engine_resident_memory_bytes{engine="1"}'] > 1 * 2**20
        build = [k for k, v in first.items() if k.startswith("ladder_build_info{") and v == 1]
        assert len(build) == 1 and 'version="' in build[0] and "engine_build_key=" in build[0]
        assert first["ladder_engines"] == 2 and first["ladder_engines_alive"] == 2
        assert first["ladder_engines_live"] == 2
        with server.client() as client:
            for seed in range(3):
                assert client.post("/v1/move", json={**MOVE, "seed": seed}).status_code == 200
        after = samples(server)
        assert after['ladder_moves_total{level="2",variant="atomic-xiangqi"}'] == 3
        assert after['ladder_http_requests_total{route="/v1/move",status="200"}'] == 3
        assert after['ladder_queue_wait_seconds_count{level="2"}'] == 3
        assert after['ladder_searches_in_flight{level="2"}'] == 0
        assert after['ladder_queued_moves{level="2"}'] == 0
        assert after['ladder_http_request_duration_seconds_count{route="/v1/move"}'] == 3
        # sub-millisecond buckets exist (a level-1 search takes well under 1 ms)
        assert (
            'ladder_search_seconds_bucket{le="0.0005",level="2",variant="atomic-xiangqi"}' in after
        )
        content_type = httpx.get(server.url + "/metrics", timeout=30).headers["content-type"]
        assert content_type.startswith("text/plain")
    finally:
        server.stop()


def test_engine_incidents_are_logged_and_readiness_follows(
    flaky_engine: tuple[Path, Path],
) -> None:
    """An engine that dies is logged (with its stderr tail) and replaced; while none can
    run, /readyz answers 503 and /healthz stays 200 (the server itself is alive)."""
    wrapper, flag = flaky_engine
    server = start_server(engines=1, env={"LADDER_ENGINE": str(wrapper)})
    try:
        (engine,) = server.engine_pids()
        assert httpx.get(server.url + "/readyz", timeout=30).status_code == 200
        os.kill(engine, signal.SIGKILL)  # dies while idle: the watchdog replaces it
        line = server.wait_for_log(lambda x: '"engine_restarted"' in x)
        assert json.loads(line)["previous_pid"] == engine
        incident = json.loads(server.wait_for_log(lambda x: '"engine_incident"' in x))
        assert incident["kind"] == "died-idle" and incident["engine"] == 0
        assert incident["severity"] == "ERROR"
        # now it cannot start again: not ready, but alive
        flag.touch()
        (engine,) = server.engine_pids()
        start = len(server.log_lines)
        os.kill(engine, signal.SIGKILL)
        failed = server.wait_for_log(lambda x: '"start-failed"' in x, start=start)
        assert "wrapper: refusing to start" in json.loads(failed)["stderr_tail"]
        server.wait_health(lambda h: not h["ready"])
        not_ready = httpx.get(server.url + "/readyz", timeout=30)
        assert not_ready.status_code == 503
        assert not_ready.json()["error"]["code"] == "not_ready"
        assert httpx.get(server.url + "/healthz", timeout=30).status_code == 200
        metrics = samples(server)
        assert metrics['ladder_engine_incidents_total{kind="start-failed"}'] >= 1
        assert metrics['ladder_engine_incidents_total{kind="died-idle"}'] >= 1
        assert metrics["ladder_engines_alive"] == 0
        # it can start again: ready again, and it plays
        flag.unlink()
        server.wait_health(lambda h: h["ready"])
        with server.client() as client:
            assert client.post("/v1/move", json=MOVE).status_code == 200
        assert samples(server)["ladder_engine_restarts_total"] >= 2
    finally:
        server.stop()


def test_memory_recycle_is_logged() -> None:
    """--engine-max-rss: an engine over the bound is replaced between searches, and the
    recycle is an incident of its own (here every search, with a 1 MiB bound)."""
    server = start_server("--engine-max-rss", "1", engines=1)
    try:
        (first,) = server.engine_pids()
        with server.client() as client:
            assert client.post("/v1/move", json=MOVE).status_code == 200
        incident = json.loads(server.wait_for_log(lambda x: '"kind": "memory"' in x))
        assert incident["pid"] == first and "RSS" in incident["message"]
        restarted = json.loads(server.wait_for_log(lambda x: '"engine_restarted"' in x))
        assert restarted["previous_pid"] == first
        assert samples(server)['ladder_engine_incidents_total{kind="memory"}'] >= 1
    finally:
        server.stop()
