"""Concurrency, the bounded queue (503 + Retry-After), and clients that go away."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import httpx

from .helpers import OUT_OF_BOOK, Server, check_move_reply, start_server

MOVES = OUT_OF_BOOK


async def _move(
    client: httpx.AsyncClient, level: int, seed: int, moves: list[str] = MOVES
) -> httpx.Response:
    return await client.post(
        "/v1/move", json={"variant": "xiangqi", "moves": moves, "level": level, "seed": seed}
    )


async def test_more_requests_than_engines(server: Server) -> None:
    """12 concurrent requests on 2 engines: all answered, each the same as alone."""
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
        replies = await asyncio.gather(*(_move(client, 1 + i % 3, i) for i in range(12)))
        assert all(r.status_code == 200 for r in replies), [r.text for r in replies]
        for r in replies:
            check_move_reply("xiangqi", MOVES, r.json())
        # Reproducible under load too: the same requests one at a time.
        for i in (0, 4, 8):
            alone = await _move(client, 1 + i % 3, i)
            assert alone.json()["move"] == replies[i].json()["move"]


async def test_queue_full_is_503_at_once() -> None:
    """One engine (frozen meanwhile, so that nothing finishes), a queue of one: the
    third request onwards is refused with 503 + Retry-After while the first two are
    still waiting, i.e. at once; both of those are answered afterwards."""
    srv = start_server("--max-queue", "1", engines=1)
    try:
        (engine,) = srv.engine_pids()
        async with httpx.AsyncClient(base_url=srv.url, timeout=120) as client:
            os.kill(engine, signal.SIGSTOP)
            try:
                first = asyncio.create_task(_move(client, 5, 0))
                await asyncio.to_thread(srv.wait_health, lambda h: h["engines_busy"] == 1)
                second = asyncio.create_task(_move(client, 5, 1))
                await asyncio.to_thread(srv.wait_health, lambda h: h["queue_depth"] == 1)
                busy = await asyncio.gather(*(_move(client, 5, i) for i in range(2, 6)))
                assert not first.done() and not second.done()  # refused while they wait
            finally:
                os.kill(engine, signal.SIGCONT)
            for r in busy:
                assert r.status_code == 503
                assert r.headers["retry-after"].isdigit()
                assert r.json()["error"]["code"] == "busy"
            for r in await asyncio.gather(first, second):
                assert r.status_code == 200, r.text
                check_move_reply("xiangqi", MOVES, r.json())
            metrics = (await client.get("/metrics")).text
            assert 'ladder_http_requests_total{route="/v1/move",status="503"} 4.0' in metrics
            assert "ladder_busy_total 4.0" in metrics
    finally:
        srv.stop()


async def test_client_disconnect_frees_engine() -> None:
    """Clients that give up mid-search: each search is cancelled (logged as 499), the
    engine is stopped and brought back in sync, and the next request on the single
    engine gets the same answer as on a fresh server."""
    srv = start_server(engines=1)
    try:
        async with httpx.AsyncClient(base_url=srv.url, timeout=60) as client:
            reference = (await _move(client, 2, 7)).json()
            (engine,) = srv.engine_pids()
            for level in (8, 7):
                os.kill(engine, signal.SIGSTOP)  # the search certainly runs when the client goes
                try:
                    async with httpx.AsyncClient(base_url=srv.url, timeout=60) as impatient:
                        request = asyncio.create_task(
                            _move(impatient, level, 1, [*OUT_OF_BOOK, "h1g3"])
                        )
                        await asyncio.to_thread(srv.wait_health, lambda h: h["engines_busy"] == 1)
                        request.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await request
                    cancelled = f'"level": {level}'

                    def gone(line: str, cancelled: str = cancelled) -> bool:
                        return cancelled in line and '"status": 499' in line

                    await asyncio.to_thread(srv.wait_for_log, gone)
                finally:
                    os.kill(engine, signal.SIGCONT)
                await asyncio.to_thread(
                    srv.wait_health, lambda h: h["engines_busy"] == 0 and h["queue_depth"] == 0
                )
            r = await _move(client, 2, 7)
            assert r.status_code == 200, r.text
            assert {**r.json(), "time_ms": 0} == {**reference, "time_ms": 0}
            check_move_reply("xiangqi", MOVES, r.json())
    finally:
        srv.stop()
