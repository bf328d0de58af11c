"""A fixed pool of engine workers, shared fairly between clients.

A request leases a worker: at once if one is idle, else it waits, for at most its
timeout, in its client's queue (a client is an API key, or a client address when the
service has no keys). A freed worker goes to the waiting client that holds the fewest
workers now, and among those to the one served least recently: a client with a hundred
requests queued takes one turn, then every other waiting client takes one, so it cannot
make another client's request wait behind all of its own.

At most ``max_queue`` requests wait in all. A request that finds the queue full is
refused at once (:class:`QueueFull`), unless another client holds more than its share
of the queue: then that client's newest waiting request is pushed out (refused) to make
room, so a flood from one client cannot lock the others out of the queue either.

A worker comes back to the pool *clean* (in sync, idle) or *dirty* (its search was
interrupted, timed out, crashed or answered nonsense). A dirty worker is recovered in
the background, by the worker itself (stop and drain, or a fresh process), before
anyone else may lease it. A watchdog replaces idle workers whose engine died, so that
readiness reflects what the next request will find.

The pool raises its own exceptions (:class:`PoolError`); the HTTP layer
(:mod:`ladder.service.status`) says what status each one is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)


#: Clients whose last turn the pool remembers (beyond that, the least recent is dropped).
MAX_REMEMBERED = 10_000


class Worker(Protocol):
    """What the pool needs of an engine worker."""

    @property
    def alive(self) -> bool:
        """True while its engine process runs."""
        ...

    async def start(self) -> None:
        """Start the engine process and load the variants."""
        ...

    async def recover(self) -> None:
        """Bring the engine back in sync after an interrupted or failed search, or start
        a fresh one if it died."""
        ...

    async def close(self) -> None:
        """Stop the engine process for good."""
        ...


W = TypeVar("W", bound=Worker)


class PoolError(Exception):
    """The pool could not give a worker to a request."""


class QueueFull(PoolError):
    """Every worker busy and the queue full (or this request was pushed out of it to
    make room for a client with a smaller share)."""

    def __init__(self, message: str, *, pushed_out: bool = False) -> None:
        super().__init__(message)
        self.pushed_out = pushed_out


class QueueTimeout(PoolError):
    """No worker became free within the request's queue timeout."""


class PoolClosed(PoolError):
    """The pool is shutting down."""


class EnginePool(Generic[W]):
    """K workers, fair bounded queues of waiting requests, background recovery."""

    def __init__(
        self,
        factory: Callable[[int], W],
        size: int,
        max_queue: int,
        *,
        on_busy: Callable[[], None] | None = None,
        on_change: Callable[[], None] | None = None,
        watch_interval: float | None = 1.0,
    ) -> None:
        self._workers = [factory(i) for i in range(size)]
        self._idle: deque[W] = deque()
        #: Waiting requests per client (in the order the clients came).
        self._queues: OrderedDict[str, deque[asyncio.Future[W]]] = OrderedDict()
        self._waiting = 0
        #: Workers each client holds now (clients holding none are left out).
        self._holding: dict[str, int] = {}
        #: When each client was last given a worker (a serial number), least recent
        #: first; bounded: a client forgotten here counts as never served.
        self._served: OrderedDict[str, int] = OrderedDict()
        self._serial = 0
        self._max_queue = max_queue
        self._recovering: set[asyncio.Task[None]] = set()
        self._closed = False
        self._leased = 0
        self._on_busy = on_busy
        self._on_change = on_change
        self._watch_interval = watch_interval
        self._watcher: asyncio.Task[None] | None = None

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start every worker (concurrently); fails if any cannot start."""
        results = await asyncio.gather(*(w.start() for w in self._workers), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            await self.close()
            raise errors[0]
        self._idle.extend(self._workers)
        if self._watch_interval is not None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch())
        self._changed()

    async def close(self) -> None:
        """Refuse new leases and waiting requests, stop recoveries, close every worker."""
        self._closed = True
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)
        for queue in self._queues.values():
            for fut in queue:
                if not fut.done():
                    fut.set_exception(PoolClosed("the service is stopping"))
        self._queues.clear()
        self._waiting = 0
        for task in list(self._recovering):
            task.cancel()
        await asyncio.gather(*self._recovering, return_exceptions=True)
        await asyncio.gather(*(w.close() for w in self._workers), return_exceptions=True)
        self._changed()

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
        return self._waiting

    def queued(self, client: str) -> int:
        """Requests of `client` waiting now."""
        queue = self._queues.get(client)
        return len(queue) if queue is not None else 0

    @property
    def busy_count(self) -> int:
        """Workers leased or recovering now."""
        return self._leased + len(self._recovering)

    @property
    def alive_count(self) -> int:
        """Workers whose engine runs."""
        return sum(1 for w in self._workers if w.alive)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    @property
    def workers(self) -> list[W]:
        """The workers (for diagnostics and metrics)."""
        return list(self._workers)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    # -- leasing ----------------------------------------------------------------------

    async def acquire(self, timeout: float, client: str = "") -> W:
        """A free worker for `client`, waiting at most `timeout` seconds in its queue."""
        if self._closed:
            raise PoolClosed("the service is stopping")
        if self._idle and not self._waiting:
            self._leased += 1
            self._taken_by(client)
            self._changed()
            return self._idle.popleft()
        if self._waiting >= self._max_queue and not self._push_out_for(client):
            if self._on_busy is not None:
                self._on_busy()
            raise QueueFull(
                f"all {self.size} engines are busy and {self._waiting} requests are "
                "waiting; try again shortly"
            )
        fut: asyncio.Future[W] = asyncio.get_running_loop().create_future()
        queue = self._queues.get(client)
        if queue is None:
            queue = self._queues[client] = deque()
        queue.append(fut)
        self._waiting += 1
        self._changed()
        try:
            async with asyncio.timeout(timeout):
                worker = await fut
        except TimeoutError:
            if self._on_busy is not None:
                self._on_busy()
            raise QueueTimeout(
                f"no engine became free within {timeout:.1f} s; try again shortly"
            ) from None
        except BaseException:
            # Cancelled after a worker was handed over: give it to the next in line.
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self._leased += 1
                self.release(fut.result(), client=client)
            raise
        finally:
            self._forget(client, fut)
        self._leased += 1
        self._changed()
        return worker

    def _taken_by(self, client: str) -> None:
        """`client` got a worker (counted until :meth:`release`)."""
        self._holding[client] = self._holding.get(client, 0) + 1
        self._serial += 1
        self._served[client] = self._serial
        self._served.move_to_end(client)
        if len(self._served) > MAX_REMEMBERED:
            self._served.popitem(last=False)

    def _next_client(self) -> str:
        """The waiting client to serve next: holding the fewest workers, then served
        least recently (never before counts as longest ago)."""
        return min(
            self._queues,
            key=lambda c: (self._holding.get(c, 0), self._served.get(c, 0)),
        )

    def _forget(self, client: str, fut: asyncio.Future[W]) -> None:
        """Take a waiting request out of its client's queue (if it is still there)."""
        queue = self._queues.get(client)
        if queue is None:
            return
        with contextlib.suppress(ValueError):
            queue.remove(fut)
            self._waiting -= 1
        if not queue:
            del self._queues[client]
        self._changed()

    def _push_out_for(self, client: str) -> bool:
        """The queue is full: refuse the newest request of the client with the longest
        queue if that is longer than `client`'s would be with one more. True if room
        was made."""
        if not self._queues:
            return False
        heaviest = max(self._queues, key=lambda c: len(self._queues[c]))
        queue = self._queues[heaviest]
        if heaviest == client or len(queue) <= self.queued(client) + 1:
            return False
        fut = queue.pop()
        self._waiting -= 1
        if not queue:
            del self._queues[heaviest]
        if self._on_busy is not None:
            self._on_busy()
        fut.set_exception(
            QueueFull(
                f"all {self.size} engines are busy and this client holds the largest share "
                "of the queue; try again shortly",
                pushed_out=True,
            )
        )
        return True

    def release(self, worker: W, dirty: bool = False, client: str = "") -> None:
        """Give back a worker `client` held; a dirty one is recovered first, in the
        background."""
        self._leased -= 1
        held = self._holding.get(client, 0) - 1
        if held > 0:
            self._holding[client] = held
        else:
            self._holding.pop(client, None)
        if dirty and not self._closed:
            self._recover_in_background(worker)
        else:
            self._hand_over(worker)
        self._changed()

    def _recover_in_background(self, worker: W) -> None:
        task = asyncio.get_running_loop().create_task(self._recover(worker))
        self._recovering.add(task)
        task.add_done_callback(self._recovering.discard)

    def _hand_over(self, worker: W) -> None:
        """To the next waiting request, round-robin across clients; else idle."""
        if self._closed:
            return
        while self._queues:
            client = self._next_client()
            queue = self._queues[client]
            fut = queue.popleft()
            self._waiting -= 1
            if not queue:
                del self._queues[client]
            if not fut.done():
                self._taken_by(client)
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
            self._changed()
            return

    async def _watch(self) -> None:
        """Replace idle workers whose engine died (and refresh the state gauges)."""
        assert self._watch_interval is not None
        while not self._closed:
            await asyncio.sleep(self._watch_interval)
            dead = [w for w in self._idle if not w.alive]
            for worker in dead:
                self._idle.remove(worker)
                self._recover_in_background(worker)
            self._changed()

    @contextlib.asynccontextmanager
    async def lease(self, timeout: float, client: str = "") -> AsyncIterator[Lease[W]]:
        """``async with pool.lease(t, client) as lease:`` — set ``lease.dirty`` if the
        engine may be out of sync; an exception or cancellation inside marks it dirty."""
        worker = await self.acquire(timeout, client)
        lease = Lease(worker)
        try:
            yield lease
        except BaseException:
            lease.dirty = True
            raise
        finally:
            self.release(worker, dirty=lease.dirty, client=client)


class Lease(Generic[W]):
    """A leased worker and whether it must be recovered before its next use."""

    def __init__(self, worker: W) -> None:
        self.worker = worker
        self.dirty = False
