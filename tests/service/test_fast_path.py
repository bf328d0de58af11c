"""The ``POST /v1/move`` fast path (ladder.service.http.middleware.ServiceGate) answers exactly as
the FastAPI route does: the same app with and without it (ServiceConfig.move_fast_path),
on real engines, in-process over ASGI; and the cancellation on client disconnect."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import pytest_asyncio

from ladder.service.domain.errors import ServiceError
from ladder.service.domain.mover import MoveService
from ladder.service.http.app import create_app
from ladder.service.http.routes import cancel_on_disconnect
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.drain import Drain

from .helpers import service_engine

# One pair of services (and so one event loop) for the whole module.
pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
MOVES = ["h3e3", "h10g8", "h1g3", "i10h10"]
JSON = {"content-type": "application/json"}

#: (body bytes, headers): requests either path may take or refuse.
REQUESTS: list[tuple[bytes, dict[str, str]]] = [
    *[
        (json.dumps({"variant": v, "moves": m, "level": lv, "seed": 7}).encode(), JSON)
        for v, m in (
            ("xiangqi", MOVES),
            ("atomic-xiangqi", ["h3e3"]),
            ("crazyhouse-xiangqi", ["h3e3", "h8h1"]),
        )
        for lv in (1, 2, 3)
    ],
    (
        json.dumps(
            {"variant": "xiangqi", "fen": START, "moves": [], "level": 2, "seed": 1}
        ).encode(),
        JSON,
    ),
    # the rules checker's refusals and a finished game: answered by the fast path too
    (
        json.dumps({"variant": "xiangqi", "level": 1, "moves": ["h3e3", "h10g8", "h3e3"]}).encode(),
        JSON,
    ),
    (json.dumps({"variant": "xiangqi", "level": 1, "fen": "garbage"}).encode(), JSON),
    (
        json.dumps(
            {"variant": "xiangqi", "level": 1, "fen": "1R2k4/R8/9/9/9/9/9/9/9/3K5 b - - 1 1"}
        ).encode(),
        JSON,
    ),
    # what only FastAPI answers
    (b'{"variant": "xiangqi", "level": "3"}', JSON),
    (b'{"variant": "xiangqi", "level": 3, "levle": 3}', JSON),
    (b'{"variant": "xiangqi", "level": 3', JSON),
    (b"", JSON),
    (b"[]", JSON),
    (b'{"variant": "xiangqi", "level": NaN}', JSON),
    (b'{"variant": "xiangqi", "level": 1, "level": 9}', JSON),
    (b'{"variant": "xiangqi", "level": 1, "seed": 5}', {"content-type": "text/plain"}),
    (b'{"variant": "xiangqi", "level": 1, "seed": 5}', {}),
    (
        b'{"variant": "xiangqi", "level": 1, "seed": 5}',
        {"content-type": "application/json; charset=utf-8"},
    ),
    (
        b'{"variant": "xiangqi", "level": 1, "seed": 5}',
        {"content-type": "application/merge-patch+json"},
    ),
    (b'{"variant": "xiangqi", "level": 1, "seed": 5}', {"content-type": "Application/JSON"}),
    (b'\xff{"variant": "xiangqi", "level": 1}', JSON),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def clients() -> AsyncIterator[dict[bool, httpx.AsyncClient]]:
    """Two apps over real engines: with the fast path and without it."""
    services = {
        fast: MoveService(
            ServiceConfig(engines=1, engine_path=service_engine(), move_fast_path=fast)
        )
        for fast in (True, False)
    }
    for svc in services.values():
        await svc.start()
    out = {
        fast: httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(service=svc)),
            base_url="http://test",
            timeout=60,
        )
        for fast, svc in services.items()
    }
    try:
        yield out
    finally:
        for client in out.values():
            await client.aclose()
        for svc in services.values():
            await svc.close()


def _comparable(response: httpx.Response) -> tuple[int, list[tuple[str, str]], Any]:
    """Status, headers and body; a move's `time_ms` (wall time) and so its length aside,
    and the request id each request gets (random)."""
    assert len(response.headers["x-request-id"]) == 32
    headers = sorted((k, v) for k, v in response.headers.items() if k != "x-request-id")
    if response.status_code == 200:
        body = response.json()
        body.pop("time_ms")
        headers = [(k, v) for k, v in headers if k != "content-length"]
        return response.status_code, headers, body
    return response.status_code, headers, response.content


@pytest.mark.parametrize(("body", "headers"), REQUESTS)
async def test_same_answer_with_and_without_fast_path(
    clients: dict[bool, httpx.AsyncClient], body: bytes, headers: dict[str, str]
) -> None:
    fast = await clients[True].post("/v1/move", content=body, headers=headers)
    slow = await clients[False].post("/v1/move", content=body, headers=headers)
    assert _comparable(fast) == _comparable(slow)
    if fast.status_code == 200:
        assert fast.headers["content-type"] == "application/json"
        assert int(fast.headers["content-length"]) == len(fast.content)


async def test_valid_requests_take_the_fast_path(
    clients: dict[bool, httpx.AsyncClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    original = MoveService.move

    async def move(self: MoveService, req: Any, trace: Any = None) -> Any:
        seen.append(
            any(
                type(f.frame.f_locals.get("self")).__name__ == "ServiceGate"
                and f.function == "_move"
                for f in inspect.stack(0)
            )
        )
        return await original(self, req, trace)

    monkeypatch.setattr(MoveService, "move", move)
    body = {"variant": "xiangqi", "level": 1, "moves": MOVES, "seed": 3}
    for fast in (True, False):
        r = await clients[fast].post("/v1/move", json=body)
        assert r.status_code == 200
    assert seen == [True, False]


async def test_fast_path_counts_requests(clients: dict[bool, httpx.AsyncClient]) -> None:
    for fast, client in clients.items():
        before = await client.get("/metrics")
        r = await client.post("/v1/move", json={"variant": "xiangqi", "level": 1, "seed": 2})
        assert r.status_code == 200
        r = await client.post(
            "/v1/move", json={"variant": "xiangqi", "level": 1, "moves": ["e1e3"]}
        )
        assert r.status_code == 422
        after = await client.get("/metrics")
        for status in ("200", "422"):
            line = f'ladder_http_requests_total{{route="/v1/move",status="{status}"}}'

            def count(text: str, line: str = line) -> float:
                hits = [x for x in text.splitlines() if x.startswith(line + " ")]
                return float(hits[0].split()[-1]) if hits else 0.0

            assert count(after.text) == count(before.text) + 1, (fast, status)


# --- cancel_on_disconnect --------------------------------------------------------------


def _receive(disconnect: asyncio.Event) -> Any:
    """A scripted ASGI receive: ``http.disconnect`` once ``disconnect`` is set."""

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    return receive


async def _loop_turns(n: int = 10) -> None:
    """Let every callback and task that is ready run (``n`` turns of the event loop)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def _work_until_cancelled(client_goes: Callable[[], object], cancelled: asyncio.Event) -> str:
    """A request's work: the client goes away while it runs (``client_goes``), and it
    waits until it is cancelled (``cancelled`` set)."""
    client_goes()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return "done"


async def test_disconnect_cancels_the_work() -> None:
    cancelled, disconnect = asyncio.Event(), asyncio.Event()
    work = _work_until_cancelled(disconnect.set, cancelled)
    with pytest.raises(ServiceError) as err:
        await asyncio.wait_for(cancel_on_disconnect(_receive(disconnect), work, Drain(), 1), 5)
    assert err.value.status == 499 and err.value.code == "client_disconnected"
    assert cancelled.is_set()
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    await _loop_turns()  # no cancellation left over


async def test_the_server_s_client_gone_signal_cancels_the_work_without_a_watcher() -> None:
    """``ladder serve``'s protocol resolves the connection's future when the client goes:
    the work is cancelled as by a disconnect seen on ``receive``, which is not read."""
    cancelled = asyncio.Event()
    gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def unread() -> dict[str, Any]:
        raise AssertionError("receive is not read when the server signals the disconnect")

    tasks = len(asyncio.all_tasks())
    work = _work_until_cancelled(lambda: gone.set_result(None), cancelled)
    with pytest.raises(ServiceError) as err:
        await asyncio.wait_for(cancel_on_disconnect(unread, work, Drain(), 1, gone), 5)
    assert err.value.status == 499 and err.value.code == "client_disconnected"
    assert cancelled.is_set() and len(asyncio.all_tasks()) <= tasks + 1
    await _loop_turns()


async def test_a_client_gone_after_the_work_cancels_nothing() -> None:
    gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def work() -> str:
        await asyncio.sleep(0)
        return "done"

    assert await cancel_on_disconnect(_receive(asyncio.Event()), work(), Drain(), 1, gone) == "done"
    gone.set_result(None)  # the connection closes after the answer
    await _loop_turns()


async def test_work_done_first_is_not_cancelled_later() -> None:
    disconnect = asyncio.Event()

    async def work() -> str:
        await asyncio.sleep(0)
        return "done"

    assert await cancel_on_disconnect(_receive(disconnect), work(), Drain(), 1) == "done"
    disconnect.set()  # the disconnect comes now: nothing may cancel this task
    await _loop_turns()


async def test_other_cancellation_goes_on() -> None:
    started = asyncio.Event()

    async def work() -> str:
        started.set()
        await asyncio.Event().wait()
        return "x"

    async def handler() -> str:
        return await cancel_on_disconnect(_receive(asyncio.Event()), work(), Drain(), 1)

    task = asyncio.create_task(handler())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_work_errors_go_through() -> None:
    async def work() -> str:
        raise ServiceError(409, "game_over", "over")

    with pytest.raises(ServiceError) as err:
        await cancel_on_disconnect(_receive(asyncio.Event()), work(), Drain(), 1)
    assert err.value.status == 409


async def test_the_drain_cuts_the_work_short_with_a_503() -> None:
    started = asyncio.Event()
    drain = Drain()

    async def work() -> str:
        started.set()
        await asyncio.Event().wait()
        return "x"

    async def handler() -> str:
        return await cancel_on_disconnect(_receive(asyncio.Event()), work(), drain, 4)

    task = asyncio.create_task(handler())
    await started.wait()
    assert drain.running == 1
    assert drain.cut_short("drain timeout (15 s)") == 1
    with pytest.raises(ServiceError) as err:
        await task
    assert (err.value.status, err.value.code, err.value.retry_after) == (503, "shutting_down", 4)
    assert drain.running == 0
