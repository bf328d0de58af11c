"""The requests waiting for an engine worker, and which one is served next.

Waiting requests are kept per (lane, client), in the order they came. The next one to
serve, among the lanes with room, is the head of the queue of the client holding the
fewest workers now, then of the client served least recently (never counts as longest
ago), then the one waiting longest. When the queue is full, the client with the most
requests waiting gives up its newest one, if it has more waiting than the newcomer's
client would with one more. :class:`~ladder.service.engines.pool.EnginePool` owns the workers; this
owns the order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

#: Clients whose last turn the queue remembers (beyond that, the least recent is dropped).
MAX_REMEMBERED = 10_000

T = TypeVar("T")


class Waiter(Generic[T]):
    """A request waiting for a worker: whose, in which lane, since when (a serial), and
    which workers it would rather have (``prefer``; None: any)."""

    __slots__ = ("client", "future", "lane", "prefer", "serial")

    def __init__(
        self,
        client: str,
        lane: str,
        serial: int,
        future: asyncio.Future[T],
        prefer: Callable[[T], bool] | None = None,
    ) -> None:
        self.client, self.lane, self.serial, self.future = client, lane, serial, future
        self.prefer = prefer


class FairQueue(Generic[T]):
    """Waiting requests per (lane, client), and the workers each client holds."""

    def __init__(self) -> None:
        self._queues: OrderedDict[tuple[str, str], deque[Waiter[T]]] = OrderedDict()
        self._waiting = 0
        self._arrivals = 0  #: serial of the last waiting request
        #: Workers each client holds now (clients holding none are left out).
        self._holding: dict[str, int] = {}
        #: When each client was last given a worker (a serial number), least recent
        #: first; bounded: a client forgotten here counts as never served.
        self._served: OrderedDict[str, int] = OrderedDict()
        self._serial = 0

    def __len__(self) -> int:
        return self._waiting

    def queued(self, client: str, lane: str | None = None) -> int:
        """Requests of `client` waiting now (in `lane`, or in all)."""
        return sum(
            len(queue)
            for (in_lane, owner), queue in self._queues.items()
            if owner == client and lane in (None, in_lane)
        )

    def add(
        self,
        client: str,
        lane: str,
        future: asyncio.Future[T],
        prefer: Callable[[T], bool] | None = None,
    ) -> Waiter[T]:
        """`client`'s request in `lane` waits, at the back of its queue."""
        self._arrivals += 1
        waiter = Waiter(client, lane, self._arrivals, future, prefer)
        queue = self._queues.get((lane, client))
        if queue is None:
            queue = self._queues[(lane, client)] = deque()
        queue.append(waiter)
        self._waiting += 1
        return waiter

    def forget(self, waiter: Waiter[T]) -> None:
        """Take a waiting request out of its queue (if it is still there)."""
        key = (waiter.lane, waiter.client)
        queue = self._queues.get(key)
        if queue is None:
            return
        with contextlib.suppress(ValueError):
            queue.remove(waiter)
            self._waiting -= 1
        if not queue:
            del self._queues[key]

    def pop_next(self, has_room: Callable[[str], bool]) -> Waiter[T] | None:
        """Take out the waiting request to serve next, among the lanes `has_room`."""
        best: Waiter[T] | None = None
        best_key: tuple[int, int, int] | None = None
        for (lane, client), queue in self._queues.items():
            if not has_room(lane):
                continue
            head = queue[0]
            key = (self._holding.get(client, 0), self._served.get(client, 0), head.serial)
            if best_key is None or key < best_key:
                best, best_key = head, key
        if best is not None:
            self._pop(best.lane, best.client, newest=False)
        return best

    def pop_to_push_out(self, client: str) -> Waiter[T] | None:
        """The queue is full: take out the newest request of the client with the most
        waiting, if that is more than `client`'s would be with one more."""
        if not self._queues:
            return None
        totals: dict[str, int] = {}
        for (_, owner), queue in self._queues.items():
            totals[owner] = totals.get(owner, 0) + len(queue)
        heaviest = max(totals, key=lambda c: totals[c])
        if heaviest == client or totals[heaviest] <= totals.get(client, 0) + 1:
            return None
        lane, _ = max(
            (k for k in self._queues if k[1] == heaviest), key=lambda k: self._queues[k][-1].serial
        )
        return self._pop(lane, heaviest, newest=True)

    def drain(self) -> Iterator[Waiter[T]]:
        """Take out every waiting request."""
        queues = list(self._queues.values())
        self._queues.clear()
        self._waiting = 0
        for queue in queues:
            yield from queue

    def took(self, client: str) -> None:
        """`client` was given a worker (it holds one more, and was served now)."""
        self._holding[client] = self._holding.get(client, 0) + 1
        self._serial += 1
        self._served[client] = self._serial
        self._served.move_to_end(client)
        if len(self._served) > MAX_REMEMBERED:
            self._served.popitem(last=False)

    def gave_back(self, client: str) -> None:
        """`client` gave back a worker."""
        held = self._holding.get(client, 0) - 1
        if held > 0:
            self._holding[client] = held
        else:
            self._holding.pop(client, None)

    def _pop(self, lane: str, client: str, *, newest: bool) -> Waiter[T]:
        queue = self._queues[(lane, client)]
        waiter = queue.pop() if newest else queue.popleft()
        self._waiting -= 1
        if not queue:
            del self._queues[(lane, client)]
        return waiter
