"""Unit tests without engines: the pool's fair queues, the variety rule, metrics, errors,
the position cache, API keys and rate limits, the exception-to-status mapping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from chess.engine import Cp, Mate
from prometheus_client.parser import text_string_to_metric_families

from ladder.level_engine.engine_lines import Line, SearchResult
from ladder.level_engine.level_move import choose
from ladder.levels import Variety
from ladder.service.domain.errors import (
    DeadlineExceeded,
    ErrorCode,
    MoveFailed,
    NoEngineAnswer,
    ServiceError,
)
from ladder.service.domain.positions import Positions
from ladder.service.domain.status import as_service_error
from ladder.service.engines.pool import EnginePool, PoolClosed, PoolError, QueueFull, QueueTimeout
from ladder.service.operations.metrics import Metrics
from protocol.errors import INCIDENT_KINDS


class FakeWorker:
    def __init__(self, index: int) -> None:
        self.index = index
        self.recovered = 0
        self.closed = False

    @property
    def alive(self) -> bool:
        return not self.closed

    @property
    def live(self) -> bool:
        return self.alive

    async def start(self) -> None:
        pass

    async def check(self) -> None:
        await asyncio.sleep(0)

    async def recover(self) -> None:
        await asyncio.sleep(0)  # recovering gives the loop a turn, as a real one does
        self.recovered += 1

    async def close(self) -> None:
        self.closed = True


async def _until(condition: Callable[[], bool]) -> None:
    """Let the waiting tasks run until `condition` holds (e.g. each waiter queued)."""
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0)  # one turn of the event loop
    raise AssertionError("the pool never reached the expected state")


async def _pool(size: int, max_queue: int) -> EnginePool[FakeWorker]:
    pool: EnginePool[FakeWorker] = EnginePool(FakeWorker, size, max_queue, watch_interval=None)
    await pool.start()
    return pool


async def test_queue_bound_and_fifo() -> None:
    pool = await _pool(1, 2)
    first = await pool.acquire(1)
    order: list[int] = []

    async def waiter(i: int) -> None:
        w = await pool.acquire(5)
        order.append(i)
        pool.release(w)

    tasks = [asyncio.create_task(waiter(i)) for i in range(2)]
    await _until(lambda: pool.queue_depth == 2)
    with pytest.raises(QueueFull):
        await pool.acquire(5)
    pool.release(first)
    await asyncio.gather(*tasks)
    assert order == [0, 1]
    await pool.close()


async def test_queue_timeout_is_busy() -> None:
    pool = await _pool(1, 4)
    w = await pool.acquire(1)
    with pytest.raises(QueueTimeout):
        await pool.acquire(0.05)
    assert pool.queue_depth == 0
    pool.release(w)
    await pool.close()


async def test_cancelled_waiter_does_not_lose_a_worker() -> None:
    pool = await _pool(1, 4)
    w = await pool.acquire(1)
    task = asyncio.create_task(pool.acquire(5))
    await _until(lambda: pool.queue_depth == 1)
    pool.release(w)  # handed to the waiter...
    task.cancel()  # ...which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await task
    again = await pool.acquire(0.1)  # the worker came back to the pool
    assert again is w
    pool.release(again)
    await pool.close()


async def test_dirty_worker_is_recovered_before_reuse() -> None:
    pool = await _pool(1, 4)
    with pytest.raises(RuntimeError):
        async with pool.lease(1):
            raise RuntimeError("search blew up")
    assert pool.busy_count == 1  # recovering
    async with pool.lease(1) as lease:
        assert lease.worker.recovered == 1
    assert pool.busy_count == 0
    await pool.close()


async def test_round_robin_across_clients() -> None:
    """A flood from client A does not make client B wait behind all of it: waiting
    requests are served one per client in turn."""
    pool = await _pool(1, 32)
    held = await pool.acquire(1, "A")
    order: list[str] = []

    async def waiter(client: str, i: int) -> None:
        w = await pool.acquire(30, client)
        order.append(f"{client}{i}")
        pool.release(w)

    tasks = [asyncio.create_task(waiter("A", i)) for i in range(6)]
    await _until(lambda: pool.queue_depth == 6)
    tasks += [asyncio.create_task(waiter("B", 0)), asyncio.create_task(waiter("C", 0))]
    await _until(lambda: pool.queue_depth == 8)
    pool.release(held)
    await asyncio.gather(*tasks)
    assert order == ["B0", "C0", "A0", "A1", "A2", "A3", "A4", "A5"]
    await pool.close()


async def test_full_queue_pushes_out_the_largest_share() -> None:
    """With the queue full of A's requests, B's request still gets in: A's newest waiting
    request is refused instead; A cannot push out B, nor itself push in."""
    pool = await _pool(1, 4)
    held = await pool.acquire(1, "A")
    a = [asyncio.create_task(pool.acquire(30, "A")) for _ in range(4)]
    await _until(lambda: pool.queue_depth == 4)
    b = asyncio.create_task(pool.acquire(30, "B"))
    await _until(lambda: pool.queued("B") == 1)
    with pytest.raises(QueueFull) as pushed:
        await a[-1]
    assert pushed.value.pushed_out
    assert pool.queue_depth == 4 and pool.queued("A") == 3
    with pytest.raises(QueueFull) as refused:  # A holds the largest share: refused at once
        await pool.acquire(30, "A")
    assert not refused.value.pushed_out
    pool.release(held)
    first = await b  # B holds no engine and was never served: next in turn
    pool.release(first)
    for task in a[:-1]:
        pool.release(await task)
    await pool.close()


async def test_a_full_queue_pushes_out_the_request_over_its_fair_share() -> None:
    """Any request, a clocked one that does without an engine too, pushes out the newest
    request of a client over its fair share (a client flooding the queue must not leave
    another's clocked moves unsearched); one with nobody to push out is refused, and a
    wait times out. Counting a refusal is the caller's (the service: busy)."""
    pool = await _pool(1, 2)
    held = await pool.acquire(1, "A")
    a = [asyncio.create_task(pool.acquire(30, "A")) for _ in range(2)]
    await _until(lambda: pool.queue_depth == 2)
    pushing = asyncio.create_task(pool.acquire(30, "B"))
    with pytest.raises(QueueFull) as pushed:
        await a[-1]
    assert pushed.value.pushed_out
    with pytest.raises(QueueFull) as full:  # B holds its fair place now: no one to push
        await pool.acquire(30, "B")
    assert not full.value.pushed_out
    pool.release(held)
    pool.release(await pushing)  # B's turn first (fair queue), then A's
    held = await a[0]
    with pytest.raises(QueueTimeout):
        await pool.acquire(0.01, "C")
    pool.release(held)
    await pool.close()


async def test_close_refuses_waiting_requests() -> None:
    pool = await _pool(1, 4)
    await pool.acquire(1, "A")
    waiting = asyncio.create_task(pool.acquire(30, "B"))
    await _until(lambda: pool.queue_depth == 1)
    await pool.close()
    with pytest.raises(PoolClosed):
        await waiting
    with pytest.raises(PoolClosed):
        await pool.acquire(1, "C")


class DyingWorker(FakeWorker):
    """A worker whose engine can be 'killed' from the test."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.dead = False

    @property
    def alive(self) -> bool:
        return not self.dead and not self.closed

    async def recover(self) -> None:
        self.dead = False
        self.recovered += 1


async def test_watchdog_replaces_a_dead_idle_engine() -> None:
    pool: EnginePool[DyingWorker] = EnginePool(DyingWorker, 1, 4, watch_interval=0.01)
    await pool.start()
    worker = pool.workers[0]
    worker.dead = True
    assert pool.alive_count == 0
    await _until_async(lambda: worker.recovered == 1)
    assert pool.alive_count == 1
    await pool.close()


async def test_a_lease_and_its_release_leave_the_gauges_to_the_watch_and_the_scrape() -> None:
    changes: list[None] = []
    pool: EnginePool[DyingWorker] = EnginePool(
        DyingWorker, 1, 4, watch_interval=None, on_change=lambda: changes.append(None)
    )
    await pool.start()
    assert len(changes) == 1  # started
    async with pool.lease(1) as lease:
        assert pool.busy_count == 1 and lease.worker is pool.workers[0]
    assert len(changes) == 1 and pool.busy_count == 0
    await pool.close()
    assert len(changes) == 2


async def _until_async(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)


def test_failures_map_to_statuses() -> None:
    cases: list[tuple[PoolError | MoveFailed, int, ErrorCode]] = [
        (QueueFull("x"), 503, ErrorCode.BUSY),
        (QueueTimeout("x"), 503, ErrorCode.BUSY),
        (PoolClosed("x"), 503, ErrorCode.SHUTTING_DOWN),
        (DeadlineExceeded("x"), 503, ErrorCode.DEADLINE_EXCEEDED),
        (NoEngineAnswer("x"), 502, ErrorCode.ENGINE_FAILED),
    ]
    for exc, status, code in cases:
        err = as_service_error(exc, 3)
        assert (err.status, err.code, err.retry_after, err.message) == (status, code, 3, "x")


def _line(i: int, move: str, cp: int | None = None, mate: int | None = None) -> Line:
    score = Mate(mate) if mate is not None else Cp(cp if cp is not None else 0)
    return Line(multipv=i, pv=(move, "a10a9"), score=score, depth=5, nodes=1000)


def _chosen_move(
    result: SearchResult, variety: Variety | None, seed: int, legal: frozenset[str]
) -> str:
    choice = choose(result, variety, seed, legal)
    assert choice is not None
    return choice.move


def test_variety_rule() -> None:
    lines = {
        1: _line(1, "h3e3", 50),
        2: _line(2, "b3e3", 20),
        3: _line(3, "h1g3", -200),
        4: _line(4, "c4c5", 0),
    }
    result = SearchResult(bestmove="h3e3", ponder="h10g8", lines=lines)
    legal = frozenset({"h3e3", "b3e3", "h1g3", "c4c5"})
    picks = {_chosen_move(result, Variety(4, 60), seed, legal) for seed in range(50)}
    assert picks == {"h3e3", "b3e3", "c4c5"}  # within 60 cp of +50
    assert choose(result, Variety(4, 60), 7, legal) == choose(result, Variety(4, 60), 7, legal)
    best = choose(result, None, 1, legal)
    assert best is not None and best.move == "h3e3" and best.ponder == "h10g8"
    # An illegal best move is no answer; an illegal alternative is never picked.
    assert choose(SearchResult("e1e9", None, lines), None, 1, legal) is None
    assert choose(SearchResult(None, None, {}), None, 1, legal) is None
    only = frozenset({"h3e3"})
    assert {_chosen_move(result, Variety(4, 500), s, only) for s in range(20)} == {"h3e3"}


def test_variety_mates() -> None:
    lines = {1: _line(1, "h3e3", mate=2), 2: _line(2, "b3e3", mate=4), 3: _line(3, "h1g3", 900)}
    result = SearchResult(bestmove="h3e3", ponder=None, lines=lines)
    legal = frozenset({"h3e3", "b3e3", "h1g3"})
    picks = {_chosen_move(result, Variety(3, 150), s, legal) for s in range(30)}
    assert picks == {"h3e3", "b3e3"}  # a mate is never traded for a mere +9


def test_metrics_text() -> None:
    m = Metrics()
    # every counter series exists from the start, at 0
    families = {f.name: f for f in text_string_to_metric_families(m.render().decode())}
    incidents = {
        s.labels["kind"]: s.value
        for s in families["ladder_engine_incidents"].samples
        if s.name.endswith("_total")
    }
    assert incidents == dict.fromkeys(INCIDENT_KINDS, 0.0)
    moves = [s for s in families["ladder_moves"].samples if s.name.endswith("_total")]
    assert len(moves) == 3 * 8 and all(s.value == 0 for s in moves)
    m.count_request("/v1/move", 200, 0.0004)
    m.count_request("/v1/move", 200, 0.002)
    m.count_request("/nowhere", 404, 0.001)
    m.search_seconds.labels("xiangqi", "1").observe(0.0003)
    m.queue_depth.set(3)
    text = m.render().decode()
    assert 'ladder_http_requests_total{route="/v1/move",status="200"} 2.0' in text
    assert 'ladder_http_requests_total{route="other",status="404"} 1.0' in text
    # sub-millisecond buckets resolve a level-1 search
    assert 'ladder_search_seconds_bucket{le="0.00025",level="1",variant="xiangqi"} 0.0' in text
    assert 'ladder_search_seconds_bucket{le="0.0005",level="1",variant="xiangqi"} 1.0' in text
    assert 'ladder_http_request_duration_seconds_bucket{le="0.0005",route="/v1/move"} 1.0' in text
    assert "ladder_queue_depth 3.0" in text


def test_error_round_trip() -> None:
    err = ServiceError(422, "illegal_move", "moves[2] (ply 3): no", field="moves[2]", ply=3)
    back = ServiceError.from_dict(422, err.to_dict())
    assert (back.status, back.code, back.field, back.ply) == (422, "illegal_move", "moves[2]", 3)


def test_position_after_a_move_is_judged_once() -> None:
    """The position after the engine's move is cached under the list the site sends
    next, and taken from there when the same move is played again."""
    positions = Positions()
    checked = positions.judge_sync("xiangqi", None, ("h3e3",))
    after = positions.after("xiangqi", None, ("h3e3",), checked, "h10g8")
    assert positions.after("xiangqi", None, ("h3e3",), checked, "h10g8") is after
    assert positions.judge_sync("xiangqi", None, ("h3e3", "h10g8")) is after
    fresh = Positions().judge_sync("xiangqi", None, ("h3e3", "h10g8"))
    assert (after.fen, after.legal, after.outcome, after.check) == (
        fresh.fen,
        fresh.legal,
        fresh.outcome,
        fresh.check,
    )
    assert after.game.engine_position() == fresh.game.engine_position()
    # a capture restarts what the engine is sent
    moves = ("h3e3", "h10g8", "e3e7")
    capture = positions.judge_sync("xiangqi", None, moves)
    assert capture.game.engine_position() == (capture.fen, ())
    assert capture.fen is capture.fen  # computed once


async def _lane_pool(size: int, long_cap: int) -> EnginePool[FakeWorker]:
    pool: EnginePool[FakeWorker] = EnginePool(
        FakeWorker, size, 32, lanes={"short": None, "long": long_cap}, watch_interval=None
    )
    await pool.start()
    return pool


async def test_a_short_job_never_waits_behind_long_ones() -> None:
    """Long jobs hold at most their cap (1 of 2 workers): with A's long jobs queued, B's
    short job takes the other worker at once; A's queued long jobs run one at a time."""
    pool = await _lane_pool(2, 1)
    running = await pool.acquire(1, "A", "long")
    queued = [asyncio.create_task(pool.acquire(30, "A", "long")) for _ in range(5)]
    await _until(lambda: pool.queued("A", "long") == 5)
    assert pool.in_lane("long") == 1
    for _ in range(3):  # again and again, never behind A's
        short = await pool.acquire(0.01, "B", "short")
        assert short is not running
        pool.release(short)
    # C's short job, with every worker busy, waits for the first to come back
    short = await pool.acquire(1, "B", "short")
    c = asyncio.create_task(pool.acquire(30, "C", "short"))
    await _until(lambda: pool.queued("C") == 1)
    pool.release(running)  # A's long job ends: C holds nothing, so C goes first
    assert (await c) is running and pool.queued("A", "long") == 5
    pool.release(running)  # C is done: now A's next long job
    await _until(lambda: queued[0].done())
    assert queued[0].result() is running and pool.in_lane("long") == 1
    pool.release(short)
    assert pool.queued("A", "long") == 4  # the idle worker is not long's to take
    for task in queued:
        pool.release(await task)
        assert pool.in_lane("long") <= 1
    await pool.close()


async def test_a_lane_under_its_cap_takes_a_worker_freed_elsewhere() -> None:
    """A long job waiting for its lane gets the idle worker as soon as the lane has
    room, though the worker that freed the room went to recovery (dirty)."""
    pool = await _lane_pool(2, 1)
    first = await pool.acquire(1, "A", "long")
    second = asyncio.create_task(pool.acquire(30, "A", "long"))
    await _until(lambda: pool.queue_depth == 1)
    pool.release(first, dirty=True)
    got = await second
    assert got is not first  # the idle one, while the first recovers
    pool.release(got)
    await pool.close()


async def test_an_unknown_lane_is_refused() -> None:
    pool = await _lane_pool(1, 1)
    with pytest.raises(ValueError, match="no lane 'analysis'"):
        await pool.acquire(1, "A", "analysis")
    with pytest.raises(ValueError, match="at least 1"):
        EnginePool(FakeWorker, 1, 1, lanes={"long": 0})
    await pool.close()


class FreezingWorker(FakeWorker):
    """A worker whose engine can be 'frozen' from the test: its check replaces it."""

    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.frozen = False
        self.checks = 0
        self.replaced = 0

    @property
    def live(self) -> bool:
        return self.alive and not self.frozen

    async def check(self) -> None:
        self.checks += 1
        if self.frozen:
            self.frozen = False
            self.replaced += 1


async def test_idle_workers_are_checked_and_a_frozen_one_replaced() -> None:
    pool: EnginePool[FreezingWorker] = EnginePool(
        FreezingWorker, 2, 4, watch_interval=0.005, check_interval=0.02
    )
    await pool.start()
    one, two = pool.workers
    one.frozen = True
    assert pool.live_count == 1 and pool.alive_count == 2
    await _until_async(lambda: one.replaced == 1 and two.checks >= 1)
    assert pool.live_count == 2
    # a worker in use is not checked; it is checked again an interval after its use
    async with pool.lease(1) as lease:
        checks = lease.worker.checks
        await asyncio.sleep(0.05)
        assert lease.worker.checks == checks
    await _until_async(lambda: lease.worker.checks > checks)
    await pool.close()
