"""A frozen idle engine is noticed: `ladder serve` pings its idle engines (isready)
and replaces one that does not answer in time; /readyz counts the live engines and
says not ready when none answers. Real engines, real signals (SIGSTOP)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import httpx

from .helpers import samples, start_server

MOVE = {"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "seed": 3}


def test_a_frozen_idle_engine_is_replaced() -> None:
    server = start_server(engines=1)
    try:
        (frozen,) = server.engine_pids()
        ready = httpx.get(server.url + "/readyz", timeout=30).json()
        assert ready["engines_live"] == 1
        start = len(server.log_lines)
        os.kill(frozen, signal.SIGSTOP)
        incident = json.loads(
            server.wait_for_log(lambda x: '"idle check"' in x, timeout=30, start=start)
        )
        assert incident["event"] == "engine_incident" and incident["kind"] == "timeout"
        assert incident["pid"] == frozen and "frozen" in incident["message"]
        restarted = json.loads(
            server.wait_for_log(lambda x: '"engine_restarted"' in x, timeout=30, start=start)
        )
        assert restarted["previous_pid"] == frozen
        assert server.engine_pids() == [restarted["pid"]]  # the frozen one is gone
        server.wait_health(lambda h: h["engines_live"] == 1)
        with server.client() as client:
            reply = client.post("/v1/move", json=MOVE)
        assert reply.status_code == 200, reply.text
        # one fault, one incident: not also a "died-idle" one for the process the
        # service killed itself (the reviewer saw both, and the counter rose by 2)
        incidents = [x for x in server.log_lines[start:] if '"engine_incident"' in x]
        assert [json.loads(x)["kind"] for x in incidents] == ["timeout"], incidents
        counted = samples(server)
        assert counted['ladder_engine_incidents_total{kind="timeout"}'] == 1
        assert counted['ladder_engine_incidents_total{kind="died-idle"}'] == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(frozen, signal.SIGCONT)
        server.stop()


def test_readyz_is_503_while_no_engine_answers(flaky_engine: tuple[Path, Path]) -> None:
    """The only engine freezes and its replacement cannot start: /readyz 503 naming
    the live count, /healthz still 200; once one starts again, ready."""
    wrapper, flag = flaky_engine
    server = start_server(engines=1, env={"LADDER_ENGINE": str(wrapper)})
    try:
        (frozen,) = server.engine_pids()
        flag.touch()
        os.kill(frozen, signal.SIGSTOP)
        server.wait_health(lambda h: h["engines_live"] == 0, timeout=30)
        not_ready = httpx.get(server.url + "/readyz", timeout=30)
        assert not_ready.status_code == 503
        error = not_ready.json()["error"]
        assert error["code"] == "not_ready"
        assert error["message"].startswith("no engine answers (0 of 1 live")
        health = httpx.get(server.url + "/healthz", timeout=30)
        assert health.status_code == 200 and health.json()["status"] == "degraded"
        flag.unlink()
        server.wait_health(lambda h: h["ready"] and h["engines_live"] == 1, timeout=30)
        assert httpx.get(server.url + "/readyz", timeout=30).json()["engines_live"] == 1
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(frozen, signal.SIGCONT)
        server.stop()
