"""SIGINT in a run of games (``ladder match``, ``tournament``, ``calibrate``, ``study``):
it stops the run at once, wherever it lands, and leaves nothing running.

Two regimes. Around a whole command, :func:`interrupts_raise` makes SIGINT raise
KeyboardInterrupt wherever it lands, also inside an event loop (the players' probe).
Around the loop that hands games to worker processes and collects them,
:func:`interrupts_deferred` only notes the signal, and the loop raises it itself
between two steps (:meth:`Interrupt.check`), or within a call made to be interrupted
(:meth:`Interrupt.raising`: Ray's wait): an exception raised asynchronously inside
``concurrent.futures`` or ``threading`` code can leave one of their locks held (a
future's condition taken in ``wait()``), and the pool's manager thread, which needs
that lock to settle the future, then never ends, so the interpreter's exit waited for
it forever (a CI run hung that way after saying "interrupted"). Then
:func:`abandon_workers` kills what the games started.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.resource_tracker
import signal
import threading
from collections.abc import Iterator
from types import FrameType

import psutil

__all__ = ["Interrupt", "abandon_workers", "interrupts_deferred", "interrupts_raise"]


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _sigint_is_ours() -> bool:
    """Whether this thread may handle SIGINT: the main thread, with SIGINT neither
    ignored (a background command keeps it ignored) nor handled by someone else's
    handler outside Python's."""
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.SIG_DFL, None)


@contextlib.contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within: SIGINT raises KeyboardInterrupt wherever it lands, also inside an event
    loop. (``asyncio.run`` turns Python's own handler into a cancellation of its task,
    which code that cleans up can absorb: the interrupt was lost and the match played on
    for minutes.) A SIGINT this process ignores (started in the background) stays
    ignored."""
    if not _sigint_is_ours() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Interrupt:
    """A SIGINT noted by :func:`interrupts_deferred`, raised by :meth:`check`, or where it
    lands within :meth:`raising`."""

    def __init__(self) -> None:
        self.requested = False  # set by the signal handler: a plain store, no lock
        self._raise = False

    def note(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        if self._raise:
            raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if a SIGINT came: call it where that is safe."""
        if self.requested:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def raising(self) -> Iterator[None]:
        """Within: a SIGINT raises KeyboardInterrupt where it lands (one noted before,
        at once), for a call made to be cut short so: Ray's ``wait`` runs Python's
        signal handlers while it blocks and raises what they raise. The driver then
        blocks in it until a game ends instead of waking up to check."""
        self.check()
        self._raise = True
        try:
            yield
        finally:
            self._raise = False


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[Interrupt]:
    """Within: SIGINT is noted, not raised; the caller calls :meth:`Interrupt.check`
    between steps (and waits in short slices, so that "between steps" comes soon).
    Leaving, the previous handler is back, and a SIGINT noted and never checked is
    raised then, not lost. A SIGINT this process ignores stays ignored."""
    interrupt = Interrupt()
    if not _sigint_is_ours():
        yield interrupt
        return
    previous = signal.signal(signal.SIGINT, interrupt.note)
    try:
        yield interrupt
    finally:
        signal.signal(signal.SIGINT, previous)
    interrupt.check()


def abandon_workers() -> None:
    """After an interrupt: kill this process's worker processes and whatever they started,
    wherever the interrupt came (it may come before or after a backend's own clean-up), so
    that exiting does not wait minutes for the games in flight.

    Every descendant, listed before anything dies (a dead worker's engines are no longer
    its children), not only multiprocessing's list: a worker whose start the interrupt cut
    short is in no list, yet it runs (and would print a traceback when its parent goes).
    Multiprocessing's resource tracker is spared: it quits by itself once this process
    exits, and without it the exit would complain about semaphores. Its fork server is
    not: a later pool in this process starts another."""
    tracker = getattr(multiprocessing.resource_tracker._resource_tracker, "_pid", None)
    with contextlib.suppress(psutil.Error):
        family = psutil.Process().children(recursive=True)
        for process in family:
            if process.pid != tracker:
                with contextlib.suppress(psutil.Error):
                    process.kill()
    for child in multiprocessing.active_children():  # also reaps them
        child.kill()
