"""How the local pool's worker processes start, and how they stay tied to the driver.

The workers are forked by multiprocessing's fork server: one fresh, single-threaded
interpreter that imports the game code once (:data:`WORKER_PRELOAD`), where a spawned
worker imported it again each (0.12 CPU-s; 3 % of a 200-node match's Python CPU on two
cores). Forking the driver itself is not safe: its threads may hold locks.

What a spawned worker had by itself, a forked one is given here:

* **It dies with the driver**, three ways, so that no one of them is load-bearing: it
  watches the driver's pid (a pidfd, Linux 5.3 and later) and exits when the driver
  does; it dies with its parent, the fork server (``PR_SET_PDEATHSIG``); and the fork
  server exits with the driver, once no worker holds the driver's end of its "alive"
  pipe (:func:`_release_fork_server`).
* **It has the driver's environment** as the pool starts, not the fork server's.
* **SIGINT is the driver's to handle** (:mod:`ladder.match.runner.interrupts`: it
  stops the run and kills the workers). A terminal's Ctrl-C reaches the whole process
  group: the fork server, importing the game code, died of it with a traceback, and a
  worker's ``KeyboardInterrupt`` inside the event loop's pipe callback printed one too.
  So the fork server starts with SIGINT blocked (:func:`start_fork_server`), and each
  worker passes it to a handler that does nothing. (A handler, not ``SIG_IGN``: the
  engines it starts get SIGINT's default back at ``exec``, as they had it before.)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import select
import signal
import threading
from collections.abc import Mapping

from protocol.process import die_with_parent

__all__ = ["WORKER_PRELOAD", "fork_context", "start_fork_server", "start_worker"]

#: What the fork server imports once, for every worker it forks. (Not ``__main__``:
#: CPython 3.11's fork server ignores it, so each worker still imports the main module
#: as ``__mp_main__``, as a spawned one does.)
WORKER_PRELOAD = ["ladder.match.runner.game_process"]


def fork_context() -> multiprocessing.context.ForkServerContext:
    """The multiprocessing context of the pool: the fork server, with its preload."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WORKER_PRELOAD)
    return context


def start_fork_server() -> None:
    """Start the fork server (if it does not run yet) with SIGINT blocked: blocked, not
    ignored, so that a SIGINT to the driver in these few milliseconds waits and is then
    handled. The server keeps it blocked (it ignores SIGINT anyway) and hands the mask
    on to the workers it forks."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start_worker(driver: int, environ: Mapping[str, str]) -> None:
    """A pool worker's first step (the pool's initializer): tied to ``driver``, given
    its environment ``environ``, SIGINT left to the driver."""
    die_with_parent()
    _release_fork_server()
    _exit_with(driver)
    os.environ.clear()
    os.environ.update(environ)
    signal.signal(signal.SIGINT, _sigint_is_the_drivers)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _sigint_is_the_drivers(signum: int, frame: object) -> None:
    """A worker's SIGINT handler: nothing (see the module docstring)."""


def _exit_with(driver: int) -> None:
    """Exit at once if ``driver`` is gone, and as soon as it goes (a thread waits on its
    pidfd, which turns readable when it exits). Without pidfds, the other two ties."""
    try:
        pidfd = os.pidfd_open(driver)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):
        return

    def watch() -> None:
        select.select([pidfd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="driver-watch", daemon=True).start()


def _release_fork_server() -> None:
    """Close this worker's copy of the driver's end of the fork server's "alive" pipe.
    CPython hands it to every process the server forks, for it to fork in turn (a
    worker never does); the server exits when that end closes, so it outlived a killed
    driver as long as one worker held a copy open."""
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]
