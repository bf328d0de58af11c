"""Unit tests without engines: the pool's queue, the variety rule, metrics, errors, the
position cache."""

from __future__ import annotations

import asyncio

import pytest

from ladder.level_move import Line, SearchResult, choose
from ladder.levels import Variety
from ladder.service.errors import ServiceError
from ladder.service.metrics import Metrics
from ladder.service.pool import EnginePool
from ladder.service.positions import Positions


class FakeWorker:
    def __init__(self, index: int) -> None:
        self.index = index
        self.recovered = 0
        self.closed = False

    @property
    def alive(self) -> bool:
        return not self.closed

    @property
    def restarts(self) -> int:
        return self.recovered

    async def start(self) -> None:
        pass

    async def recover(self) -> None:
        await asyncio.sleep(0)  # recovering gives the loop a turn, as a real one does
        self.recovered += 1

    async def close(self) -> None:
        self.closed = True


async def _queued(pool: EnginePool[FakeWorker], depth: int) -> None:
    """Let the waiting tasks run until ``depth`` of them wait in the pool's queue."""
    for _ in range(100):
        if pool.queue_depth == depth:
            return
        await asyncio.sleep(0)  # one turn of the event loop
    raise AssertionError(f"queue depth {pool.queue_depth}, not {depth}")


async def _pool(size: int, max_queue: int) -> EnginePool[FakeWorker]:
    pool: EnginePool[FakeWorker] = EnginePool(FakeWorker, size, max_queue)
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
    await _queued(pool, 2)
    with pytest.raises(ServiceError) as err:
        await pool.acquire(5)
    assert err.value.status == 503 and err.value.code == "busy" and err.value.retry_after
    pool.release(first)
    await asyncio.gather(*tasks)
    assert order == [0, 1]
    await pool.close()


async def test_queue_timeout_is_busy() -> None:
    pool = await _pool(1, 4)
    w = await pool.acquire(1)
    with pytest.raises(ServiceError) as err:
        await pool.acquire(0.05)
    assert err.value.code == "busy"
    assert pool.queue_depth == 0
    pool.release(w)
    await pool.close()


async def test_cancelled_waiter_does_not_lose_a_worker() -> None:
    pool = await _pool(1, 4)
    w = await pool.acquire(1)
    task = asyncio.create_task(pool.acquire(5))
    await _queued(pool, 1)
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


def _line(i: int, move: str, cp: int | None = None, mate: int | None = None) -> Line:
    return Line(multipv=i, pv=(move, "a10a9"), cp=cp, mate=mate, depth=5, nodes=1000)


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
    m.requests.inc("/v1/move", "200")
    m.requests.inc("/v1/move", "200")
    m.search_seconds.observe(0.003, "xiangqi", "1")
    m.add_gauge("ladder_queue_depth", "q", lambda: 3)
    text = m.render()
    assert 'ladder_http_requests_total{route="/v1/move",status="200"} 2' in text
    assert 'ladder_search_seconds_bucket{variant="xiangqi",level="1",le="0.005"} 1' in text
    assert 'ladder_search_seconds_bucket{variant="xiangqi",level="1",le="+Inf"} 1' in text
    assert "ladder_queue_depth 3" in text


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
