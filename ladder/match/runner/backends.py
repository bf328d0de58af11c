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
import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import psutil

from ladder.match.game.play import GameRecord, GameTask
from ladder.match.runner.game_process import run_task
from ladder.match.runner.interrupts import abandon_workers
from protocol.process import die_with_parent

__all__ = ["Backend", "LocalBackend", "make_backend"]

#: What multiprocessing's fork server imports once, for every worker it forks. (Not
#: ``__main__``: CPython 3.11's fork server ignores it, so each worker still imports the
#: main module as ``__mp_main__``, as a spawned one does.)
WORKER_PRELOAD = ["ladder.match.runner.game_process"]


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
        # Workers are forked by multiprocessing's fork server, a fresh single-threaded
        # process (forking the driver, whose threads may hold locks, is unsafe) that
        # imported the game code once: a spawned worker imported it again each (0.12
        # CPU-s), which at 200 nodes was 3 % of a match's Python CPU on two cores.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(WORKER_PRELOAD)
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.slots,
            mp_context=context,
            initializer=start_worker,
            initargs=(os.getpid(), dict(os.environ)),
        )

    def submit(self, task: GameTask) -> concurrent.futures.Future[GameRecord]:
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


def start_worker(driver: int, environ: Mapping[str, str]) -> None:
    """A pool worker's first step. It dies with its parent, the fork server, which exits
    as soon as the driver does; a driver already gone is beyond that rule, so then the
    worker exits at once. And it takes the driver's environment as it is now: the fork
    server's children inherit the server's, which is the driver's when the server
    started (a spawned worker inherited the driver's own)."""
    die_with_parent()
    _release_fork_server()
    if not psutil.pid_exists(driver):
        os._exit(1)
    os.environ.clear()
    os.environ.update(environ)


def _release_fork_server() -> None:
    """Close this worker's copy of the driver's end of the fork server's "alive" pipe.
    CPython hands it to every process the server forks, for it to fork in turn (a
    worker never does); the server exits when that end closes, so it outlived a killed
    driver as long as one worker held a copy open, and the workers, which die with the
    server, outlived it too."""
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]


def make_backend(concurrency: int | None = None, ray_address: str | None = None) -> Backend:
    """The local pool, or a Ray backend when ``ray_address`` is given (``local`` starts
    a Ray instance on this machine)."""
    if ray_address:
        from ladder.match.runner.ray_backend import RayBackend

        return RayBackend(ray_address, concurrency)
    return LocalBackend(concurrency)
