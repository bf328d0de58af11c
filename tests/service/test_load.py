"""Concurrency, the bounded queue (503 + Retry-After), and clients that go away."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx

from .helpers import Server, check_move_reply, start_server

MOVES = ["h3e3", "h10g8"]


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
    srv = start_server("--max-queue", "1", engines=1)
    try:
        async with httpx.AsyncClient(base_url=srv.url, timeout=120) as client:
            t0 = time.monotonic()
            replies = await asyncio.gather(*(_move(client, 5, i) for i in range(6)))
            codes = sorted(r.status_code for r in replies)
            assert codes.count(200) >= 2, codes  # one searching, one queued
            busy = [r for r in replies if r.status_code == 503]
            assert busy, codes
            assert set(codes) <= {200, 503}
            for r in busy:
                assert r.headers["retry-after"].isdigit()
                assert r.json()["error"]["code"] == "busy"
                assert r.elapsed.total_seconds() < 1.0, "busy must be answered at once"
            assert time.monotonic() - t0 < 60
            metrics = (await client.get("/metrics")).text
            assert 'ladder_http_requests_total{route="/v1/move",status="503"}' in metrics
            assert "ladder_busy_total" in metrics
    finally:
        srv.stop()


async def test_client_disconnect_frees_engine() -> None:
    """A client that gives up mid-search: its engine is stopped and resynchronised, and
    the next request on the single engine gets a correct, prompt answer."""
    srv = start_server(engines=1)
    try:
        async with httpx.AsyncClient(base_url=srv.url, timeout=0.3) as impatient:
            for level in (7, 7, 6):  # seconds of search each, if not stopped
                with contextlib.suppress(httpx.TimeoutException):
                    await _move(impatient, level, 1, ["h3e3"])
        async with httpx.AsyncClient(base_url=srv.url, timeout=60) as client:
            t0 = time.monotonic()
            r = await _move(client, 2, 7)
            assert r.status_code == 200, r.text
            check_move_reply("xiangqi", MOVES, r.json())
            assert time.monotonic() - t0 < 4, "the engine was left busy with the old search"
            again = (await _move(client, 2, 7)).json()
            assert {**again, "time_ms": 0} == {**r.json(), "time_ms": 0}
            health = (await client.get("/healthz")).json()
            assert health["engines_busy"] == 0 and health["queue_depth"] == 0
    finally:
        srv.stop()
