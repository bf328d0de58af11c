"""deploy/'s nginx and haproxy configurations with the real balancers (Debian's) in
front of two `ladder serve` instances: an overload burst gives only JSON answers and
never refuses a request while an instance is idle (nginx's `max_fails` marked both
instances down for 10 s after a one-second burst), a SIGKILLed instance loses no
request the balancer may retry, and the per-client limits see the real client."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.service.helpers import OUT_OF_BOOK, Server, start_server, wait_until

from .balancers import Balancer

BALANCERS = ["nginx", "haproxy"]


def move(level: int, seed: int) -> dict[str, Any]:
    return {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": level, "seed": seed}


def address(server: Server) -> str:
    return server.url.removeprefix("http://")


@pytest.fixture
def instances() -> Iterator[Callable[..., tuple[Server, Server]]]:
    """Starts two instances with one engine each and the given arguments."""
    started: list[Server] = []

    def start(*args: str) -> tuple[Server, Server]:
        for _ in range(2):
            started.append(start_server(*args, engines=1))
        return started[-2], started[-1]

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def in_front(kind: str, pair: tuple[Server, Server], tmp_path: Path) -> Balancer:
    return Balancer(kind, [address(s) for s in pair], tmp_path)


def assert_json(r: httpx.Response) -> None:
    """An answer of the service (or the balancer's own, in the service's JSON)."""
    assert r.headers.get("content-type", "").startswith("application/json"), (
        r.status_code,
        r.headers,
        r.text[:200],
    )
    if r.status_code != 200:
        assert r.json()["error"]["code"], r.text
    if r.status_code == 503:
        assert int(r.headers["retry-after"]) >= 1, r.headers


@pytest.mark.slow
@pytest.mark.parametrize("kind", BALANCERS)
def test_an_overload_burst_gives_json_and_no_idle_instance_is_refused(
    kind: str, instances: Callable[..., tuple[Server, Server]], tmp_path: Path
) -> None:
    """The issue's burst: 24 level-6 moves at once on two instances with one engine and
    a queue of 2 each, then a level-1 move every 0.3 s. Every answer is the service's
    JSON (a move, or 503 `busy` with Retry-After once both are full); once the burst is
    answered and both instances are idle, every level-1 move is played."""
    balancer = in_front(kind, instances("--max-queue", "2"), tmp_path)

    async def run() -> tuple[list[httpx.Response], list[tuple[float, httpx.Response]], float]:
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(base_url=balancer.url, timeout=90, limits=limits) as c:
            burst_done = 0.0

            async def burst() -> list[httpx.Response]:
                nonlocal burst_done
                answers = await asyncio.gather(
                    *(c.post("/v1/move", json=move(6, seed)) for seed in range(24))
                )
                burst_done = time.monotonic()
                return list(answers)

            async def ticks() -> list[tuple[float, httpx.Response]]:
                out = []
                for seed in range(40):
                    sent = time.monotonic()
                    out.append((sent, await c.post("/v1/move", json=move(1, seed))))
                    await asyncio.sleep(max(0.0, 0.3 - (time.monotonic() - sent)))
                    if burst_done and len(out) >= 10 and sent > burst_done + 3:
                        break
                return out

            task = asyncio.create_task(burst())
            await asyncio.sleep(0.05)  # the burst first, then the level-1 moves
            level1 = await ticks()
            return await task, level1, burst_done

    try:
        burst, level1, burst_done = asyncio.run(run())
    finally:
        balancer.stop()
    for r in [*burst, *(r for _, r in level1)]:
        assert_json(r)  # no HTML 502 "no live upstreams"
    codes = sorted(r.status_code for r in burst)
    assert set(codes) <= {200, 503} and 200 in codes, codes
    assert all(r.json()["error"]["code"] == "busy" for r in burst if r.status_code == 503)
    # once the burst is answered, both instances are idle: nothing is refused
    after = [r.status_code for sent, r in level1 if sent > burst_done + 0.5]
    assert after and set(after) == {200}, [r.status_code for _, r in level1]


@pytest.mark.parametrize("kind", BALANCERS)
def test_a_sigkilled_instance_loses_no_request(
    kind: str, instances: Callable[..., tuple[Server, Server]], tmp_path: Path
) -> None:
    """Moves from 3 clients at once; one instance SIGKILLed (its engines go with it)
    after 10 answers: every move is played, by the other instance if need be (a move
    changes nothing on the server: the balancer sends it again, even mid-request)."""
    pair = instances()
    balancer = in_front(kind, pair, tmp_path)
    victim = psutil.Process(pair[0].server_pid())

    cut: list[httpx.RemoteProtocolError] = []

    async def run() -> list[httpx.Response]:
        answers: list[httpx.Response] = []
        async with httpx.AsyncClient(base_url=balancer.url, timeout=90) as c:

            async def client(first: int) -> None:
                for seed in range(first, first + 15):
                    try:
                        answers.append(await c.post("/v1/move", json=move(3, seed)))
                    except httpx.RemoteProtocolError as exc:
                        # an answer already on its way when the instance died (its head
                        # passed on): no balancer may send the request again then
                        assert "complete message body" in str(exc), exc
                        cut.append(exc)

            async def killer() -> None:
                while len(answers) + len(cut) < 10:
                    await asyncio.sleep(0.01)
                victim.kill()

            await asyncio.gather(client(0), client(100), client(200), killer())
        return answers

    try:
        answers = asyncio.run(run())
    finally:
        balancer.stop()
    assert not victim.is_running() or victim.status() == psutil.STATUS_ZOMBIE
    for r in answers:
        assert_json(r)
    # at most the one answer each client had in transit at the kill is cut
    assert len(cut) <= 3 and len(answers) + len(cut) == 45
    assert [r.status_code for r in answers] == [200] * len(answers), [
        r.text for r in answers if r.status_code != 200
    ]


@pytest.mark.parametrize("kind", BALANCERS)
def test_the_per_client_limits_see_the_real_client(
    kind: str, instances: Callable[..., tuple[Server, Server]], tmp_path: Path
) -> None:
    """Two players behind the balancer (two loopback addresses): one over the rate
    limit is refused, the other still plays, and each instance logs the player's
    address (the balancer's X-Forwarded-For, trusted from 127.0.0.1 by default). With
    the README's old nginx example both were the balancer's address: one client."""
    pair = instances("--rate-limit", "3")
    balancer = in_front(kind, pair, tmp_path)
    position = {"variant": "xiangqi", "moves": ["h3e3"]}

    def player(source: str) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=source)
        return httpx.Client(base_url=balancer.url, transport=transport, timeout=30)

    try:
        with player("127.0.0.2") as greedy, player("127.0.0.3") as other:
            # 3 a minute per instance: the 8th of greedy's requests is over on both
            codes = [greedy.post("/v1/position", json=position).status_code for _ in range(8)]
            assert codes[-1] == 429 and 200 in codes, codes
            assert other.post("/v1/position", json=position).status_code == 200
    finally:
        balancer.stop()

    def addresses(server: Server) -> set[str]:
        lines = [json.loads(x) for x in server.log_lines if '"event": "request"' in x]
        return {r["address"] for r in lines if r["path"] == "/v1/position"}

    wait_until(lambda: addresses(pair[0]) | addresses(pair[1]) >= {"127.0.0.2", "127.0.0.3"})
    assert addresses(pair[0]) | addresses(pair[1]) == {"127.0.0.2", "127.0.0.3"}
