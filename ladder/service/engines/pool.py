"""A fixed pool of engine workers, shared fairly between clients and between lanes.

A request leases a worker: at once if one is idle, else it waits, for at most its
timeout, in its client's queue (a client is an API key, or a client address when the
service has no keys). A freed worker goes to the waiting client that holds the fewest
workers now, and among those to the one served least recently: a client with a hundred
requests queued takes one turn, then every other waiting client takes one, so it cannot
make another client's request wait behind all of its own.

**Lanes** keep short jobs from waiting behind long ones. Every request names its lane
(the move service: ``short`` for a fast level, ``long`` for a slow one; a later kind of
job, such as game analysis, is one more lane), and a lane may hold at most its *cap* of
the workers at once (None: any number). With ``long`` capped at K - 1 of K workers, one
worker is never searching a long job, so a short job waits at most for other short ones,
however many long searches are queued; what the long jobs lose is that one worker. A
freed worker goes to a waiting request whose lane is under its cap (by client, as
above, then the longest waiting); a long request waits while its lane is full, even
when a worker is idle.

At most ``max_queue`` requests wait in all. A request that finds the queue full is
refused at once (:class:`QueueFull`), unless another client holds more than its share
of the queue: then that client's newest waiting request is pushed out (refused) to make
room, so a flood from one client cannot lock the others out of the queue either.

A worker comes back to the pool *clean* (in sync, idle) or *dirty* (its search was
interrupted, timed out, crashed or answered nonsense). A dirty worker is recovered in
the background, by the worker itself (stop and drain, or a fresh process), before
anyone else may lease it. A watchdog replaces idle workers whose engine died, and
checks every idle worker every ``check_interval`` seconds (:meth:`Worker.check`: an
engine that does not answer a readiness check in time, a frozen one, is replaced), so
that readiness (:attr:`EnginePool.live_count`) reflects what the next request will find.

The pool raises its own exceptions (:class:`PoolError`); the HTTP layer
(:mod:`ladder.service.domain.status`) says what status each one is.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, Protocol, TypeVar

from ladder.service.engines.fair_queue import FairQueue

log = logging.getLogger(__name__)


#: The lane of a request that names none (a pool with one lane, no cap).
DEFAULT_LANE = "default"


class Worker(Protocol):
    """What the pool needs of an engine worker."""

    @property
    def alive(self) -> bool:
        """True while its engine process runs."""
        ...

    @property
    def live(self) -> bool:
        """True while its engine runs and answered its last search or check."""
        ...

    async def start(self) -> None:
        """Start the engine process and load the variants."""
        ...

    async def recover(self) -> None:
        """Bring the engine back in sync after an interrupted or failed search, or start
        a fresh one if it died."""
        ...

    async def check(self) -> None:
        """Check that an idle engine answers (a readiness check within a bound); replace
        one that does not."""
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
    """K workers, lanes with caps, fair bounded queues, background recovery and checks.

    `lanes` maps each lane to the most workers it may hold at once (None: no cap).
    """

    def __init__(
        self,
        factory: Callable[[int], W],
        size: int,
        max_queue: int,
        *,
        lanes: dict[str, int | None] | None = None,
        on_change: Callable[[], None] | None = None,
        watch_interval: float | None = 1.0,
        check_interval: float | None = None,
    ) -> None:
        self._workers = [factory(i) for i in range(size)]
        self._idle: deque[W] = deque()
        self._lanes: dict[str, int | None] = dict(lanes or {DEFAULT_LANE: None})
        for lane, cap in self._lanes.items():
            if cap is not None and cap < 1:
                raise ValueError(f"lane {lane!r}: a cap must be at least 1 worker (got {cap})")
        self._waiting: FairQueue[W] = FairQueue()
        #: Workers each lane holds now.
        self._in_lane: dict[str, int] = dict.fromkeys(self._lanes, 0)
        #: Who holds each leased worker: (client, lane), by the worker's id.
        self._held: dict[int, tuple[str, str]] = {}
        self._max_queue = max_queue
        self._recovering: set[asyncio.Task[None]] = set()
        self._closed = False
        self._on_change = on_change
        self._watch_interval = watch_interval
        self._check_interval = check_interval
        self._checked_at: dict[int, float] = {}  #: when each idle worker was last checked
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
        now = asyncio.get_running_loop().time()
        self._checked_at = {id(w): now for w in self._workers}
        if self._watch_interval is not None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch())
        self._changed()

    async def close(self) -> None:
        """Refuse new leases and waiting requests, stop recoveries, close every worker."""
        self._closed = True
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)
        for waiter in self._waiting.drain():
            if not waiter.future.done():
                waiter.future.set_exception(PoolClosed("the service is stopping"))
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
    def lanes(self) -> dict[str, int | None]:
        """Each lane's cap (None: none)."""
        return dict(self._lanes)

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a worker now."""
        return len(self._waiting)

    def queued(self, client: str, lane: str | None = None) -> int:
        """Requests of `client` waiting now (in `lane`, or in all)."""
        return self._waiting.queued(client, lane)

    def in_lane(self, lane: str) -> int:
        """Workers `lane` holds now."""
        return self._in_lane[lane]

    @property
    def busy_count(self) -> int:
        """Workers leased, recovering or being checked now."""
        return len(self._held) + len(self._recovering)

    @property
    def alive_count(self) -> int:
        """Workers whose engine process runs."""
        return sum(1 for w in self._workers if w.alive)

    @property
    def live_count(self) -> int:
        """Workers whose engine runs and answered its last search or check."""
        return sum(1 for w in self._workers if w.live)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    @property
    def workers(self) -> list[W]:
        """The workers (for diagnostics and metrics)."""
        return list(self._workers)

    def _changed(self) -> None:
        """Tell ``on_change`` that the engines' state changed (started, recovered, closed,
        or the watch's tick). Not on every lease and release: what a lease changes (the
        queue, the busy engines, the lanes) is read at the watch's tick and when the
        metrics are scraped (:meth:`ladder.service.domain.mover.MoveService.sample_metrics`)."""
        if self._on_change is not None:
            self._on_change()

    # -- leasing ----------------------------------------------------------------------

    async def acquire(
        self,
        timeout: float,
        client: str = "",
        lane: str = DEFAULT_LANE,
        prefer: Callable[[W], bool] | None = None,
    ) -> W:
        """A free worker for `client`'s job in `lane`, waiting at most `timeout` seconds;
        of several idle ones, the longest idle that `prefer` likes if any (the move
        service: one whose hash table is the level's size already), else the longest
        idle. The preference never makes a request wait, nor changes whose turn it is.

        :class:`QueueFull` or :class:`QueueTimeout` when there is none (whether that
        refuses the request, or the caller does without an engine, is the caller's to
        say and to count). A full queue makes room for a client under its fair share by
        pushing out a request of one over it: a client that floods the queue must not
        leave every other one's clocked moves unsearched."""
        if self._closed:
            raise PoolClosed("the service is stopping")
        if lane not in self._lanes:
            raise ValueError(f"no lane {lane!r} in this pool (lanes: {', '.join(self._lanes)})")
        if self._idle and not self._waiting and self._has_room(lane):
            worker = self._idle_worker(prefer)
            self._take(worker, client, lane)
            return worker
        full = len(self._waiting) >= self._max_queue
        if full and not self._push_out_for(client):
            raise QueueFull(
                f"all {self.size} engines are busy and {len(self._waiting)} requests are "
                "waiting; try again shortly"
            )
        waiter = self._waiting.add(client, lane, asyncio.get_running_loop().create_future(), prefer)
        self._dispatch()  # an idle worker may be there for it already
        try:
            async with asyncio.timeout(timeout):
                worker = await waiter.future
        except BaseException as exc:
            # Timed out or cancelled after a worker was handed over: pass it on.
            fut = waiter.future
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self.release(fut.result())
            if not isinstance(exc, TimeoutError):
                raise  # QueueFull: pushed out of the queue (_push_out_for) for a fairer share
            raise QueueTimeout(
                f"no engine became free within {timeout:.1f} s; try again shortly"
            ) from None
        finally:
            self._waiting.forget(waiter)
        return worker

    def _has_room(self, lane: str) -> bool:
        cap = self._lanes[lane]
        return cap is None or self._in_lane[lane] < cap

    def _take(self, worker: W, client: str, lane: str) -> None:
        """`client` got `worker` for a job in `lane` (counted until :meth:`release`)."""
        self._held[id(worker)] = (client, lane)
        self._in_lane[lane] += 1
        self._waiting.took(client)

    def _push_out_for(self, client: str) -> bool:
        """The queue is full: refuse the newest request of the client with the largest
        share of it, if that share is larger than `client`'s would be with one more. True
        if room was made."""
        waiter = self._waiting.pop_to_push_out(client)
        if waiter is None:
            return False
        waiter.future.set_exception(
            QueueFull(
                f"all {self.size} engines are busy and this client holds the largest share "
                "of the queue; try again shortly",
                pushed_out=True,
            )
        )
        return True

    def release(self, worker: W, dirty: bool = False) -> None:
        """Give back a leased worker; a dirty one is recovered first, in the background."""
        client, lane = self._held.pop(id(worker))
        self._in_lane[lane] -= 1
        self._waiting.gave_back(client)
        if dirty and not self._closed:
            self._in_background(worker, worker.recover, "recovery")
        else:
            # it just answered a search: its next check is due an interval from now
            self._checked_at[id(worker)] = asyncio.get_running_loop().time()
            self._idle.append(worker)
        self._dispatch()  # the lane has room again: an idle worker may now be taken

    def _dispatch(self) -> None:
        """Give idle workers to waiting requests whose lane has room, while there are."""
        if self._closed:
            return
        while self._idle and self._waiting:
            waiter = self._waiting.pop_next(self._has_room)
            if waiter is None:
                return
            if waiter.future.done():  # timed out or cancelled, not yet forgotten
                continue
            worker = self._idle_worker(waiter.prefer)
            self._take(worker, waiter.client, waiter.lane)
            waiter.future.set_result(worker)

    def _idle_worker(self, prefer: Callable[[W], bool] | None) -> W:
        """Take an idle worker: the longest idle one `prefer` likes, else the longest
        idle."""
        idle = self._idle
        if prefer is not None and len(idle) > 1:
            for i, worker in enumerate(idle):
                if prefer(worker):
                    del idle[i]
                    return worker
        return idle.popleft()

    def _in_background(self, worker: W, work: Callable[[], Any], what: str) -> None:
        # A context of its own: the request that gave the worker back has finished by
        # the time its recovery logs, and must not be named there (its request_id).
        task = asyncio.get_running_loop().create_task(
            self._until_done(worker, work, what), context=contextvars.Context()
        )
        self._recovering.add(task)
        task.add_done_callback(self._recovering.discard)

    async def _until_done(self, worker: W, work: Callable[[], Any], what: str) -> None:
        """Run `work` (recover or check `worker`), retrying with a growing delay until it
        succeeds; then the worker is idle again."""
        delay = 0.1
        while not self._closed:
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except Exception:
                engine = getattr(worker, "index", None)
                log.exception(
                    "engine %s %s failed; retrying in %.1f s",
                    engine,
                    what,
                    delay,
                    extra={
                        "event": "engine_recovery_failed",
                        "engine": engine,
                        "phase": what,
                        "retry_in_s": delay,
                    },
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                work = worker.recover  # a failed check is a recovery from then on
                continue
            task = asyncio.current_task()
            if task is not None:
                self._recovering.discard(task)  # no longer busy from here on
            self._checked_at[id(worker)] = asyncio.get_running_loop().time()
            self._idle.append(worker)
            self._dispatch()
            self._changed()
            return

    async def _watch(self) -> None:
        """Replace idle workers whose engine died, check those not checked for
        ``check_interval`` (and refresh the state gauges)."""
        assert self._watch_interval is not None
        loop = asyncio.get_running_loop()
        while not self._closed:
            await asyncio.sleep(self._watch_interval)
            now = loop.time()
            for worker in list(self._idle):
                if not worker.alive:
                    self._idle.remove(worker)
                    self._in_background(worker, worker.recover, "recovery")
                elif (
                    self._check_interval is not None
                    and now - self._checked_at.get(id(worker), now) >= self._check_interval
                ):
                    self._idle.remove(worker)
                    self._in_background(worker, worker.check, "check")
            self._changed()

    @contextlib.asynccontextmanager
    async def lease(
        self, timeout: float, client: str = "", lane: str = DEFAULT_LANE
    ) -> AsyncIterator[Lease[W]]:
        """``async with pool.lease(t, client, lane) as lease:`` — set ``lease.dirty`` if
        the engine may be out of sync; an exception or cancellation inside marks it dirty."""
        worker = await self.acquire(timeout, client, lane)
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
