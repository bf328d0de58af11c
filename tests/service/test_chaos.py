"""Chaos: engines SIGKILLed during a burst of requests, and one engine hung (SIGSTOP).
Every request completes correctly or fails cleanly (502/503 JSON; the server bounds
each by its deadline), and no engine process outlives the server."""

from __future__ import annotations

import asyncio
import os
import random
import signal

import httpx
import psutil

from .helpers import OUT_OF_BOOK, check_move_reply, start_server

MOVES = OUT_OF_BOOK


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
                health = (await client.get("/healthz")).json()
                assert health["engines_alive"] == 2
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
