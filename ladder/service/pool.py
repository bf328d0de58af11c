"""A fixed pool of engine workers behind a bounded FIFO queue.

A request leases a worker: at once if one is idle, else it waits in a queue of at most
``max_queue`` requests, for at most its timeout. A request that finds the queue full is
refused at once (:func:`ladder.service.errors.busy`), so nothing ever waits unboundedly.

A worker comes back to the pool *clean* (in sync, idle) or *dirty* (its search was
interrupted, timed out, crashed or answered nonsense). A dirty worker is recovered in
the background, by the worker itself (stop and drain, or a restart on a fresh process),
before anyone else may lease it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Generic, Protocol, TypeVar

from ladder.service.errors import ServiceError, busy

log = logging.getLogger(__name__)


class Worker(Protocol):
    """What the pool needs of an engine worker."""

    @property
    def alive(self) -> bool:
        """True while its engine process runs."""
        ...

    @property
    def restarts(self) -> int:
        """How many times its engine process was replaced."""
        ...

    async def start(self) -> None:
        """Start the engine process and load the variants."""
        ...

    async def recover(self) -> None:
        """Bring the engine back in sync after an interrupted or failed search."""
        ...

    async def close(self) -> None:
        """Stop the engine process for good."""
        ...


W = TypeVar("W", bound=Worker)


class QueueTimeout(Exception):
    """No worker became free in time."""


class EnginePool(Generic[W]):
    """K workers, a bounded queue of waiting requests, and background recovery."""

    def __init__(
        self,
        factory: Callable[[int], W],
        size: int,
        max_queue: int,
        retry_after: int = 1,
        on_busy: Callable[[], None] | None = None,
    ) -> None:
        self._workers = [factory(i) for i in range(size)]
        self._idle: deque[W] = deque()
        self._waiters: deque[asyncio.Future[W]] = deque()
        self._max_queue = max_queue
        self._retry_after = retry_after
        self._recovering: set[asyncio.Task[None]] = set()
        self._closed = False
        self._leased = 0
        self._on_busy = on_busy

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start every worker (concurrently); fails if any cannot start."""
        results = await asyncio.gather(*(w.start() for w in self._workers), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            await self.close()
            raise errors[0]
        self._idle.extend(self._workers)

    async def close(self) -> None:
        """Refuse new leases, cancel recoveries, and close every worker."""
        self._closed = True
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_exception(
                    ServiceError(
                        503,
                        "shutting_down",
                        "the service is stopping",
                        retry_after=self._retry_after,
                    )
                )
        for task in list(self._recovering):
            task.cancel()
        await asyncio.gather(*self._recovering, return_exceptions=True)
        await asyncio.gather(*(w.close() for w in self._workers), return_exceptions=True)

    # -- state ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of workers."""
        return len(self._workers)

    @property
    def max_queue(self) -> int:
        """Most requests that may wait for a worker."""
        return self._max_queue

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a worker now."""
        return sum(1 for f in self._waiters if not f.done())

    @property
    def busy_count(self) -> int:
        """Workers leased or recovering now."""
        return self._leased + len(self._recovering)

    @property
    def alive_count(self) -> int:
        """Workers whose engine runs."""
        return sum(1 for w in self._workers if w.alive)

    @property
    def restarts(self) -> int:
        """Engine restarts, all workers together."""
        return sum(w.restarts for w in self._workers)

    @property
    def workers(self) -> list[W]:
        """The workers (for tests and diagnostics)."""
        return list(self._workers)

    # -- leasing ----------------------------------------------------------------------

    async def acquire(self, timeout: float) -> W:
        """A free worker, waiting at most `timeout` seconds in the bounded queue."""
        if self._closed:
            raise ServiceError(
                503, "shutting_down", "the service is stopping", retry_after=self._retry_after
            )
        if self._idle and not self.queue_depth:
            self._leased += 1
            return self._idle.popleft()
        if self.queue_depth >= self._max_queue:
            if self._on_busy is not None:
                self._on_busy()
            raise busy(
                f"all {self.size} engines are busy and {self.queue_depth} requests "
                "are queued; try again shortly",
                self._retry_after,
            )
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[W] = loop.create_future()
        self._waiters.append(fut)

        def expire() -> None:
            if not fut.done():
                fut.set_exception(QueueTimeout())

        handle = loop.call_later(max(0.0, timeout), expire)
        try:
            worker = await fut
        except QueueTimeout:
            if self._on_busy is not None:
                self._on_busy()
            raise busy(
                f"no engine became free within {timeout:.1f} s; try again shortly",
                self._retry_after,
            ) from None
        except BaseException:
            # Cancelled after a worker was handed over: give it to the next in line.
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self._leased += 1
                self.release(fut.result())
            raise
        finally:
            handle.cancel()
            with contextlib.suppress(ValueError):
                self._waiters.remove(fut)
        self._leased += 1
        return worker

    def release(self, worker: W, dirty: bool = False) -> None:
        """Give a worker back; a dirty one is recovered first, in the background."""
        self._leased -= 1
        if dirty and not self._closed:
            task = asyncio.get_running_loop().create_task(self._recover(worker))
            self._recovering.add(task)
            task.add_done_callback(self._recovering.discard)
            return
        self._hand_over(worker)

    def _hand_over(self, worker: W) -> None:
        if self._closed:
            return
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(worker)
                return
        self._idle.append(worker)

    async def _recover(self, worker: W) -> None:
        delay = 0.1
        while not self._closed:
            try:
                await worker.recover()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("engine recovery failed; retrying in %.1f s", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            task = asyncio.current_task()
            if task is not None:
                self._recovering.discard(task)  # no longer busy from here on
            self._hand_over(worker)
            return

    @contextlib.asynccontextmanager
    async def lease(self, timeout: float) -> AsyncIterator[Lease[W]]:
        """``async with pool.lease(t) as lease:`` — set ``lease.dirty`` if the engine
        may be out of sync; an exception or cancellation inside marks it dirty too."""
        worker = await self.acquire(timeout)
        lease = Lease(worker)
        try:
            yield lease
        except BaseException:
            lease.dirty = True
            raise
        finally:
            self.release(worker, dirty=lease.dirty)


class Lease(Generic[W]):
    """A leased worker and whether it must be recovered before its next use."""

    def __init__(self, worker: W) -> None:
        self.worker = worker
        self.dirty = False
