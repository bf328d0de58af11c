"""Where games run: a local process pool (default) or Ray (``--ray-address``).

Both run :func:`ladder.match.runner.game_process.run_task` on a
:class:`~ladder.match.game.play.GameTask` and hand the
:class:`~ladder.match.game.play.GameRecord` back to the driver, which alone writes the
database. A backend has ``slots`` (games that can run at once: one per core)
and takes ``batch`` games a slot at once; the driver keeps at most ``slots * batch``
in flight.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from ladder.match.game.play import GameRecord, GameTask
from ladder.match.runner.game_process import run_task
from ladder.match.runner.interrupts import abandon_workers
from ladder.match.runner.worker_start import fork_context, start_fork_server, start_worker

__all__ = ["Backend", "LocalBackend", "make_backend"]


class Backend(Protocol):
    """Runs game tasks somewhere; handles are opaque."""

    slots: int
    #: Games given to a slot at once (the driver keeps ``slots * batch`` in flight).
    batch: int
    #: Whether a KeyboardInterrupt may cut its :meth:`wait` short (Ray's, made for
    #: Ctrl-C): the driver then blocks in it until a game ends; otherwise it waits in
    #: slices and checks for a SIGINT between them (:mod:`ladder.match.runner.interrupts`).
    interruptible: bool

    def submit(self, task: GameTask) -> Any: ...

    def wait(
        self, handles: Sequence[Any], timeout: float | None
    ) -> list[tuple[Any, GameRecord | BaseException]]:
        """The handles among ``handles`` that finished (at least one unless the timeout
        passed), each with its record or the exception its task raised."""
        ...

    def close(self, cancel: bool = False) -> None: ...


class LocalBackend:
    """A pool of worker processes on this machine (default size: the core count)."""

    batch = 1
    #: an interrupt inside ``concurrent.futures.wait`` can leave a future's lock held
    interruptible = False

    def __init__(self, workers: int | None = None) -> None:
        self.slots = workers or os.cpu_count() or 1
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.slots,
            mp_context=fork_context(),  # (ladder.match.runner.worker_start)
            initializer=start_worker,
            initargs=(os.getpid(), dict(os.environ)),
        )
        self._server_started = False

    def submit(self, task: GameTask) -> concurrent.futures.Future[GameRecord]:
        if not self._server_started:  # (not before a game is to be played)
            start_fork_server()
            self._server_started = True
        return self._pool.submit(run_task, task)

    def wait(
        self, handles: Sequence[Any], timeout: float | None
    ) -> list[tuple[Any, GameRecord | BaseException]]:
        done, _ = concurrent.futures.wait(
            handles, timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        out: list[tuple[Any, GameRecord | BaseException]] = []
        for fut in done:
            exc = fut.exception()
            out.append((fut, exc if exc is not None else fut.result()))
        return out

    def close(self, cancel: bool = False) -> None:
        if cancel:
            # Interrupted (Ctrl-C, an error): a top-level game can take minutes, so the
            # games in flight are abandoned, not waited for. Their engines see EOF on
            # stdin and quit; the games are not stored, so a resumed run plays them.
            # Every child, not only the pool's list: an interrupt can land while a
            # worker is being started and is not listed yet. No waiting either.
            abandon_workers()
            manager: threading.Thread | None = getattr(self._pool, "_executor_manager_thread", None)
            self._pool.shutdown(wait=False, cancel_futures=True)
            # Let the pool's manager thread see its dead workers and close its wakeup
            # pipe now: CPython 3.11's exit hook otherwise races it and may write to the
            # closed pipe ("Exception ignored ... Bad file descriptor" after Ctrl-C).
            if manager is not None:
                manager.join(timeout=10)
            return
        self._pool.shutdown(wait=True)


def make_backend(concurrency: int | None = None, ray_address: str | None = None) -> Backend:
    """The local pool, or a Ray backend when ``ray_address`` is given (``local`` starts
    a Ray instance on this machine)."""
    if ray_address:
        from ladder.match.runner.ray_backend import RayBackend

        return RayBackend(ray_address, concurrency)
    return LocalBackend(concurrency)
