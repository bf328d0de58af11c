"""A small least-recently-used cache, shared by the position and analysis caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["RecentCache"]

K = TypeVar("K")
V = TypeVar("V")


class RecentCache(Generic[K, V]):
    """The ``size`` most recently used items, the least recently used dropped first.

    Thread-safe: the position cache is used from the request threads. A size of 0 or
    less keeps nothing.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: K, value: V) -> None:
        if self._size <= 0:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
