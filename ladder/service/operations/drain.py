"""How the service stops: readiness off first, then the listener, then a bounded drain.

On SIGTERM (``ladder serve``, :mod:`ladder.service.operations.server`):

1. the drain begins (:meth:`Drain.begin`): ``/readyz`` answers 503 ``shutting_down``
   at once, while the listener stays open for ``--drain-delay`` seconds (SIGTERM only,
   not SIGINT) and requests are still served, so a load balancer sees the instance
   going before its connections are refused;
2. the listener closes; requests in flight get up to ``--drain-timeout`` seconds to be
   answered;
3. those still running then (or at once, on a Ctrl-C during the stop: SIGINT)
   are cut short (:meth:`Drain.cut_short`): each gets the JSON
   503 ``shutting_down`` with ``Retry-After`` (:func:`ladder.service.http.app.
   cancel_on_disconnect` turns the cancellation into it), one log line says how many,
   and no traceback is written; then the engines are stopped.

The exit status is 0 after such a stop, with one server process or several.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

log = logging.getLogger("ladder.serve")

#: Default seconds requests in flight get after SIGTERM: a level-8 search (up to 600k
#: nodes) takes at most about 4 s on an idle core, with a margin for a loaded machine.
DRAIN_TIMEOUT_S = 15.0
#: Default seconds the listener stays open after SIGTERM with readiness off.
DRAIN_DELAY_S = 2.0


class Drain:
    """The stop as the app sees it: whether it began, and the move requests to cut."""

    def __init__(self) -> None:
        self.draining = False  #: readiness is off
        self.cut = False  #: requests still running are being cut short
        self._running: set[asyncio.Task[object]] = set()

    def begin(self) -> None:
        """The stop began: readiness off (safe to call from a signal handler)."""
        self.draining = True

    @contextlib.contextmanager
    def tracked(self) -> Iterator[None]:
        """Count the current task as a request to cut short if the drain ends first."""
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        try:
            yield
        finally:
            self._running.discard(task)

    @property
    def running(self) -> int:
        """Requests in flight now."""
        return len(self._running)

    def cut_short(self, reason: str) -> int:
        """Cancel every request still running (each answers 503 ``shutting_down``);
        how many there were. ``reason``: why now, for the log (the drain timeout, or a
        second stop signal)."""
        self.cut = True
        tasks = list(self._running)
        for task in tasks:
            task.cancel()
        if tasks:
            log.warning(
                "%s: %d request(s) cut short (503 shutting_down)",
                reason,
                len(tasks),
                extra={"event": "drain_cut", "requests": len(tasks), "reason": reason},
            )
        return len(tasks)
