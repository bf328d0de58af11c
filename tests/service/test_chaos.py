"""Chaos: engines SIGKILLed during a burst of requests, and one engine hung (SIGSTOP).
Every request completes correctly or fails cleanly (502/503 JSON; the server bounds
each by its deadline), and no engine process outlives the server."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil

from .helpers import OUT_OF_BOOK, check_move_reply, service_engine, start_server, wait_until

MOVES = OUT_OF_BOOK
FAULTY_ENGINE = Path(__file__).parents[1] / "faulty_engine.py"


def _gone(pid: int) -> bool:
    """The process is dead and reaped (or at least dead)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def _move(client: httpx.AsyncClient, level: int, seed: int) -> httpx.Response:
    return await client.post(
        "/v1/move", json={"variant": "xiangqi", "moves": MOVES, "level": level, "seed": seed}
    )


def _check(results: list[httpx.Response]) -> int:
    ok = 0
    for r in results:
        if r.status_code == 200:
            check_move_reply("xiangqi", MOVES, r.json())
            ok += 1
        else:
            assert r.status_code in (502, 503), r.text
            assert r.json()["error"]["code"] in ("engine_failed", "deadline_exceeded", "busy")
    return ok


async def test_sigkill_during_burst() -> None:
    srv = start_server(engines=2)
    rng = random.Random(1)
    killed: list[int] = []
    try:
        async with httpx.AsyncClient(base_url=srv.url, timeout=120) as client:
            levels = [rng.choice([2, 3, 4]) for _ in range(16)]
            burst = asyncio.gather(*(_move(client, lv, i) for i, lv in enumerate(levels)))

            async def killer() -> None:
                for _ in range(6):
                    await asyncio.sleep(rng.uniform(0.05, 0.3))
                    pids = srv.engine_pids()
                    if pids:
                        pid = rng.choice(pids)
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)

            results, _ = await asyncio.gather(burst, killer())
            ok = _check(results)
            assert ok >= len(levels) // 2, f"only {ok} of {len(levels)} answered"
            # Afterwards the pool is whole again and answers correctly.
            r = await _move(client, 1, 99)
            assert r.status_code == 200
            check_move_reply("xiangqi", MOVES, r.json())
            metrics = (await client.get("/metrics")).text
            restarts = next(
                line
                for line in metrics.splitlines()
                if line.startswith("ladder_engine_restarts_total ")
            )
            assert float(restarts.split()[1]) >= 1
        assert killed
        assert all(_gone(pid) for pid in killed)
    finally:
        srv.stop()


async def test_sigstop_hang() -> None:
    srv = start_server(engines=2)
    try:
        pids = srv.engine_pids()
        assert len(pids) == 2
        hung = pids[0]
        os.kill(hung, signal.SIGSTOP)
        try:
            async with httpx.AsyncClient(base_url=srv.url, timeout=120) as client:
                levels = [2, 3, 2, 3, 2, 3]
                results = await asyncio.gather(
                    *(_move(client, lv, i) for i, lv in enumerate(levels))
                )
                assert _check(results) == len(levels)
                # the hung engine's slot is replaced in the background (the retry ran on
                # another engine): both run again once it is
                srv.wait_health(lambda h: h["engines_alive"] == 2)
        finally:
            if psutil.pid_exists(hung):
                os.kill(hung, signal.SIGCONT)
        # The hung process was killed and reaped, not left stopped.
        assert _gone(hung), "the hung engine is still there"
        assert hung not in srv.engine_pids()
    finally:
        srv.stop()


def test_no_leak_after_stop() -> None:
    """Stopping a server leaves no engine behind (Server.stop asserts it)."""
    srv = start_server(engines=2)
    pids = srv.engine_pids()
    assert len(pids) == 2
    srv.stop()
    assert all(_gone(p) for p in pids)


def test_a_retry_runs_on_a_slot_that_answers(tmp_path: Path) -> None:
    """An engine crashes mid-search and its replacement dies during its `isready` (as
    under a SIGKILL every 2 s): the retry runs on the other, healthy slot, not on the
    failed one's replacement, and the move is played (it was a 502 `engine_failed`)."""
    wrapper = tmp_path / "engine.sh"
    wrapper.write_text(
        f"#!/bin/sh\nexec {sys.executable} {FAULTY_ENGINE} {service_engine()} "
        f"--crash-then-fail-restart {tmp_path}\n"
    )
    wrapper.chmod(0o755)
    server = start_server(engines=2, env={"LADDER_ENGINE": str(wrapper)})
    try:
        start = len(server.log_lines)
        body = {"variant": "xiangqi", "moves": MOVES, "level": 4, "seed": 1}
        r = httpx.post(server.url + "/v1/move", json=body, timeout=60)
        assert r.status_code == 200, r.text
        check_move_reply("xiangqi", MOVES, r.json())

        def requests() -> list[dict[str, Any]]:
            return [json.loads(x) for x in server.log_lines[start:] if '"event": "request"' in x]

        wait_until(lambda: len(requests()) == 1)  # the server's log is read as it comes
        (line,) = requests()
        assert line["attempts"] == 2, line
        crashed = [
            json.loads(x)["engine"] for x in server.log_lines[start:] if '"engine_incident"' in x
        ]
        assert crashed and line["engine"] not in crashed, (line, crashed)
    finally:
        server.stop()
