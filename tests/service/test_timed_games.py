"""Timed games: `/v1/move` with the mover's clock. The limit the engine is sent is read
from what reaches its stdin (the real engine behind `tee`), not timed: `go nodes N
movetime T` with T the clock rule's (ladder.level_engine.clock) less what the request spent before
the engine's `go` (it counts from the request's arrival), and `go nodes N` without a
clock.
The Python client and `ladder move` pass the clock the same way."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import stat
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from ladder.client import Clock, LadderSync
from ladder.level_engine.clock import move_time_limit_ms
from ladder.levels import load_levels
from ladder.service.operations.launch import ladder_command
from tests.bridge.helpers import CLOCK_SLACK_MS

from .helpers import (
    OUT_OF_BOOK,
    ROOT,
    Server,
    check_move_reply,
    samples,
    service_engine,
    start_server,
    wait_until,
)

LEVEL_2_NODES = load_levels()["xiangqi"][2].nodes
MOVE = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 2, "seed": 7}


@pytest.fixture(scope="module")
def teed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A server whose one engine's stdin is also written to a file."""
    folder = tmp_path_factory.mktemp("teed")
    wire = folder / "stdin.log"
    wrapper = folder / "engine.sh"
    wrapper.write_text(f"#!/bin/sh\ntee -a '{wire}' | '{service_engine()}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    server = start_server(engines=1, env={"LADDER_ENGINE": str(wrapper)})
    try:
        yield server, wire
    finally:
        server.stop()


def go_lines(wire: Path) -> list[str]:
    return [line for line in wire.read_text().splitlines() if line.startswith("go ")]


def next_go(wire: Path, before: int) -> str:
    """The first `go` line the engine got after the `before` it had."""
    wait_until(lambda: len(go_lines(wire)) > before)
    return go_lines(wire)[before]


@pytest.mark.parametrize(
    "clock",
    [
        {"remaining_ms": 60_000, "increment_ms": 1000},
        {"remaining_ms": 10_000, "moves_to_go": 1},
        {"remaining_ms": 300},
        {"remaining_ms": 0},
    ],
)
def test_the_clock_rule_reaches_the_engine(
    teed: tuple[Server, Path], clock: dict[str, int]
) -> None:
    server, wire = teed
    limit = move_time_limit_ms(
        clock["remaining_ms"], clock.get("increment_ms", 0), clock.get("moves_to_go")
    )
    before = len(go_lines(wire))
    with server.client() as client:
        reply = client.post("/v1/move", json={**MOVE, "clock": clock})
    assert reply.status_code == 200, reply.text
    assert reply.json()["time_limit_ms"] == limit
    # the limit counts from the request's arrival: the engine gets what is left of it
    # (the time spent before its `go` taken out; at least 1 ms), never more
    words = next_go(wire, before).split()
    assert words[:4] == ["go", "nodes", str(LEVEL_2_NODES), "movetime"], words
    assert max(1, limit - CLOCK_SLACK_MS) <= int(words[4]) <= limit, (limit, words)


def test_the_engine_starts_with_the_largest_hash_a_level_uses(teed: tuple[Server, Path]) -> None:
    """Its first table of that size (its page faults) is paid at start, not
    in the first clocked request of a level that needs it."""
    _, wire = teed
    wait_until(lambda: bool(go_lines(wire)))  # the start's one-node search
    lines = wire.read_text().splitlines()
    before_first_go = lines[: lines.index(go_lines(wire)[0])]
    largest = max(lv.hash_mb for levels in load_levels().values() for lv in levels.values())
    assert f"setoption name Hash value {largest}" in before_first_go, before_first_go


def test_no_clock_no_time_limit(teed: tuple[Server, Path]) -> None:
    server, wire = teed
    before = len(go_lines(wire))
    with server.client() as client:
        reply = client.post("/v1/move", json=MOVE)
    assert reply.status_code == 200 and reply.json()["time_limit_ms"] is None
    assert next_go(wire, before) == f"go nodes {LEVEL_2_NODES}"


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"remaining_ms": -1}, "clock.remaining_ms"),
        ({"remaining_ms": "60000"}, "clock.remaining_ms"),
        ({"remaining_ms": 1000.5}, "clock.remaining_ms"),
        ({"remaining_ms": 1000, "increment_ms": True}, "clock.increment_ms"),
        ({"remaining_ms": 1000, "moves_to_go": 0}, "clock.moves_to_go"),
        ({"increment_ms": 1000}, "clock.remaining_ms"),
        ({"remaining_ms": 1000, "byoyomi": 5}, "clock.byoyomi"),
    ],
)
def test_bad_clocks_are_refused(
    teed: tuple[Server, Path], clock: dict[str, object], field: str
) -> None:
    server, _ = teed
    with server.client() as client:
        reply = client.post("/v1/move", json={**MOVE, "clock": clock})
    assert reply.status_code == 422, reply.text
    assert reply.json()["error"]["field"] == field


def test_client_and_cli_pass_the_clock(teed: tuple[Server, Path]) -> None:
    server, wire = teed
    before = len(go_lines(wire))
    with LadderSync(server.url) as ladder:
        reply = ladder.move(
            variant="xiangqi", moves=OUT_OF_BOOK, level=2, clock=Clock(remaining_ms=5000)
        )
    assert reply.time_limit_ms == move_time_limit_ms(5000)
    sent = int(next_go(wire, before).split()[-1])  # what was left of it at the engine's go
    assert move_time_limit_ms(5000) - CLOCK_SLACK_MS <= sent <= move_time_limit_ms(5000)
    argv = [*ladder_command(), "move", "--url", server.url, "--variant", "xiangqi"]
    argv += ["--level", "2", "--remaining-ms", "20000", "--increment-ms", "500", "--json"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f'"time_limit_ms": {move_time_limit_ms(20000, 500)}' in out.stdout
    bad = subprocess.run(
        [*argv[:-5], "--increment-ms", "500"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "need --remaining-ms" in bad.stderr


@contextlib.asynccontextmanager
async def engine_frozen_under_a_move(
    server: Server, client: httpx.AsyncClient
) -> AsyncIterator[asyncio.Task[httpx.Response]]:
    """The server's one engine frozen (SIGSTOP) under a move request, the holder (its
    answer comes once the engine thaws, on leaving the block)."""
    (engine,) = server.engine_pids()
    os.kill(engine, signal.SIGSTOP)
    try:
        holder = asyncio.create_task(client.post("/v1/move", json=MOVE))
        await asyncio.to_thread(server.wait_health, lambda h: h["engines_busy"] == 1)
        yield holder
    finally:
        os.kill(engine, signal.SIGCONT)


@pytest.mark.parametrize("max_queue", ["0", "8"])
async def test_a_clock_that_runs_out_in_the_queue_gets_a_move_without_a_search(
    max_queue: str,
) -> None:
    """Every engine busy (frozen) past the move's time on the clock: the clocked request
    is answered without a search (`hurried`) rather than lose on time, whether the queue
    had room (it waits its move's time) or was full (at once: not a 503 either). A book
    move needs no engine: it is answered meanwhile, clock or not, and is the level's own
    book move. Once an engine is free, the clocked request searches again."""
    server = start_server("--max-queue", max_queue, engines=1)
    short = {"remaining_ms": 300}  # 7 ms to move: every wait for an engine outlasts it
    book = {"variant": "xiangqi", "moves": [], "level": 5, "seed": 3}
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            async with engine_frozen_under_a_move(server, client) as holder:
                hurried = (await client.post("/v1/move", json={**MOVE, "clock": short})).json()
                in_book = (await client.post("/v1/move", json={**book, "clock": short})).json()
                unclocked_book = (await client.post("/v1/move", json=book)).json()
                argv = [*ladder_command(), "move", "--url", server.url, "--variant", "xiangqi"]
                argv += ["--level", "2", "--remaining-ms", "300", "--moves", " ".join(OUT_OF_BOOK)]
                cli = await asyncio.to_thread(
                    subprocess.run, argv, capture_output=True, text=True, timeout=120, cwd=ROOT
                )
            assert (await holder).status_code == 200
            searched = (await client.post("/v1/move", json={**MOVE, "clock": short})).json()
            book_move = (await client.post("/v1/move", json=book)).json()
        assert hurried["hurried"] and (hurried["nodes"], hurried["depth"]) == (0, 0), hurried
        assert hurried["score"] == {"cp": None, "mate": None}
        check_move_reply("xiangqi", MOVE["moves"], hurried)  # type: ignore[arg-type]
        assert in_book["book"] and not in_book["hurried"], in_book
        assert in_book["move"] == unclocked_book["move"] == book_move["move"]
        assert unclocked_book["book"] and book_move["book"]
        assert not searched["hurried"] and searched["nodes"] > 0, searched
        assert cli.returncode == 0, cli.stderr
        assert "hurried (no engine free within the move's time)" in cli.stdout, cli.stdout
        metrics = samples(server)
        assert metrics["ladder_hurried_moves_total"] == 2
        assert metrics["ladder_busy_total"] == 0  # answered, not refused
        # answered moves, each counted: the holder's, the two hurried, the searched one
        assert metrics['ladder_moves_total{level="2",variant="xiangqi"}'] == 4
        assert metrics['ladder_moves_total{level="5",variant="xiangqi"}'] == 3  # the book
        assert sum('"event": "clock_hurried"' in line for line in server.log_lines) == 2
    finally:
        server.stop()


async def test_a_clock_longer_than_the_queue_timeout_waits_on_the_clock() -> None:
    """The move's time bounds a clocked request's wait, not --queue-timeout: with a
    0.3 s queue timeout and a minute on the clock (T about 2 s), a clocked request
    behind a frozen engine is answered (hurried, once T has passed), not refused with a
    503 after 0.3 s while its clock still has time (the reviewer's reproduction); an
    unclocked one is still refused."""
    server = start_server("--queue-timeout", "0.3", engines=1)
    clock = {"remaining_ms": 60_000}
    limit_ms = move_time_limit_ms(60_000, 0, None)
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            async with engine_frozen_under_a_move(server, client) as holder:
                unclocked = await client.post("/v1/move", json=MOVE)
                clocked = await client.post("/v1/move", json={**MOVE, "clock": clock})
            assert (await holder).status_code == 200
        assert unclocked.status_code == 503 and unclocked.json()["error"]["code"] == "busy"
        assert clocked.status_code == 200, clocked.text
        answer = clocked.json()
        assert answer["hurried"] and answer["time_limit_ms"] == limit_ms, answer
        check_move_reply("xiangqi", MOVE["moves"], answer)  # type: ignore[arg-type]
        lines = [json.loads(x) for x in server.log_lines if '"event": "request"' in x]
        waited = [x["queue_wait_ms"] for x in lines if x["status"] == 200 and x["queue_wait_ms"]]
        assert max(waited) >= limit_ms * 0.9  # it waited on the clock, past the 0.3 s
    finally:
        server.stop()
