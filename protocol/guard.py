"""Deadlines and faults: what every dialect does when an engine dies, hangs or lies.

A client waits for an engine only inside :meth:`FaultGuard.phase`, which gives the wait
a deadline and turns every way it can fail into one outcome: the engine's whole process
tree is killed and reaped, and a typed :class:`~protocol.errors.EngineFault` is raised
with the phase it happened in.

* The deadline passes: :class:`~protocol.errors.EngineTimeoutError`.
* The engine exits or closes its output (:class:`~protocol.lines.EndOfOutput`, a broken
  pipe): :class:`~protocol.errors.EngineTerminatedError` with its exit code and the tail
  of its stderr. An engine that exits while a grandchild still holds its stdout open
  never sends EOF: its exit shortens the deadline to a grace period instead.
* The engine said something unusable (an :class:`~protocol.errors.EngineFault` raised
  inside the phase, e.g. a malformed ``bestmove``): that error, after the kill.

After a fault the guard is closed for good: every later phase raises
:class:`~protocol.errors.EngineTerminatedError` chained to the first fault.
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import NoReturn

from protocol.errors import EngineFault, EngineTerminatedError, EngineTimeoutError
from protocol.lines import EndOfOutput
from protocol.process import EngineProcess, Timeouts

__all__ = ["FaultGuard", "Phase"]

_EXIT_GRACE = 0.2  # seconds to drain buffered output after the engine exits
# A timer may run this much before its time (asyncio runs those due within it).
_CLOCK_RESOLUTION = time.get_clock_info("monotonic").resolution


class FaultGuard:
    """The deadline/fault guard of one engine process (see the module docstring)."""

    def __init__(self, process: EngineProcess, timeouts: Timeouts) -> None:
        self.process = process
        self.timeouts = timeouts
        self.closed = False
        #: The fault that closed the engine, if one did.
        self.error: EngineFault | None = None
        #: A ``stop`` was sent during the search: its faults are the ``stop`` phase's.
        self.stopping = False
        self._phase: Phase | None = None  # the phase running now
        self._watch: asyncio.TimerHandle | None = None  # the watchdog timer, if armed
        process.on_exit.append(self._exited)

    def phase_name(self, phase: str) -> str:
        """What a fault in ``phase`` is called (a search being stopped: ``stop``)."""
        return "stop" if phase == "search" and self.stopping else phase

    def check_open(self, phase: str) -> None:
        """:class:`EngineTerminatedError` if the engine is closed."""
        if self.closed:
            raise EngineTerminatedError(
                "engine is closed", phase=phase, returncode=self.process.returncode
            ) from self.error

    async def kill(self) -> None:
        """Kill the engine's process tree and reap it; the guard is closed."""
        self.closed = True
        # A phase still running (another task's search) keeps its deadline: the watchdog
        # is its only timer, whatever the kill does to the pipes.
        if self._watch is not None and self._phase is None:
            self._watch.cancel()
            self._watch = None
        await self.process.kill()

    def _exited(self) -> None:
        # A grandchild may hold the pipe open, so EOF may never come: once the engine
        # has exited, the running phase (and any it runs inside) reads what is
        # buffered, then gives up.
        phase = self._phase
        while phase is not None:
            phase.shorten(_EXIT_GRACE)
            phase = phase._outer

    def phase(self, phase: str, timeout: float) -> Phase:
        """A read phase under a deadline (``async with guard.phase(...) as deadline``):
        every failure in it becomes a killed engine and a typed :class:`EngineFault`.
        Gives the phase, whose deadline :meth:`Phase.shorten` moves."""
        return Phase(self, phase, timeout)

    def _arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        """Have the watchdog look at the running phase at ``when`` (the loop's time) at
        the latest."""
        watch = self._watch
        if watch is not None:
            if watch.when() <= when:
                return
            watch.cancel()
        self._watch = loop.call_at(when, self._watchdog, loop)

    def _watchdog(self, loop: asyncio.AbstractEventLoop) -> None:
        self._watch = None
        phase = self._phase
        if phase is None:
            return  # idle: the next phase arms it again
        if loop.time() + _CLOCK_RESOLUTION >= phase.when:
            phase.expire()
        else:
            self._arm(loop, phase.when)

    async def failed(self, phase: str, timeout: float, error: BaseException) -> None:
        """``error`` ended ``phase``: kill the engine and raise its :class:`EngineFault`
        (an :class:`EngineFault` raised in the phase: returns, for the phase to raise
        it). Any other error is left alone."""
        if isinstance(error, EngineFault):
            if error.phase == "?":
                error.phase = self.phase_name(phase)
            await self.fault(error)
        elif isinstance(error, EndOfOutput):
            await self.died(phase)
        elif isinstance(error, TimeoutError):
            if self.process.returncode is not None:
                await self.died(phase)
            name = self.phase_name(phase)
            limit = self.timeouts.stop if name == "stop" else timeout
            timed_out = EngineTimeoutError(
                f"no answer from the engine within {limit:g}s ({name})",
                phase=name,
                timeout=limit,
                stderr=self.process.stderr_tail(),
            )
            await self.fault(timed_out)
            raise timed_out from None
        elif isinstance(error, BrokenPipeError | ConnectionResetError):
            await self.died(phase, error)

    async def died(
        self, phase: str, cause: BaseException | None = None, detail: str = ""
    ) -> NoReturn:
        """The engine is gone: kill and reap what is left, raise
        :class:`EngineTerminatedError` for ``phase``."""
        await self.kill()
        name = self.phase_name(phase)
        error = EngineTerminatedError(
            f"engine exited (code {self.process.returncode}) during {name}"
            + (f": {detail}" if detail else ""),
            phase=name,
            returncode=self.process.returncode,
            stderr=self.process.stderr_tail(),
        )
        self.error = error
        raise error from cause

    async def fault(self, error: EngineFault) -> None:
        """Kill and reap the engine for ``error`` (which the caller raises)."""
        await self.kill()
        error.stderr = error.stderr or self.process.stderr_tail()
        self.error = error


class Phase:
    """One :meth:`FaultGuard.phase`, with its deadline.

    Every search runs one, so its deadline has no timer of its own (scheduling and
    cancelling one, as :func:`asyncio.timeout` does, was a sixth of a 200-node search's
    client): the guard's one watchdog timer is armed for the running phase's deadline
    only when no earlier one is armed already. A search's deadline is tens of seconds
    away, so the timer is armed about once per that long; when it fires before the
    running phase's deadline (the phase it was armed for has ended), it is armed again
    for that deadline. Past the deadline it cancels the phase's task, and the phase turns
    that cancellation into a timeout, as :func:`asyncio.timeout` does.
    """

    __slots__ = (
        "_cancelling", "_expired", "_guard", "_loop", "_name", "_outer", "_task", "_timeout",
        "when",
    )  # fmt: skip

    def __init__(self, guard: FaultGuard, name: str, timeout: float) -> None:
        self._guard = guard
        self._name = name
        self._timeout = timeout

    async def __aenter__(self) -> Phase:
        guard = self._guard
        guard.check_open(self._name)
        # The engine's own loop, not asyncio.get_running_loop(), whose fork check is a
        # getpid system call (with current_task's and the reader's, three a search).
        loop = self._loop = guard.process.loop
        task = asyncio.current_task(loop)
        if task is None:
            raise RuntimeError("an engine is read from a task")
        self._task = task
        self._cancelling = task.cancelling()
        self._expired = False
        #: The deadline (the event loop's time).
        self.when = loop.time() + self._timeout
        self._outer = guard._phase  # (a phase inside another: the outer is watched after it)
        guard._phase = self
        guard._arm(loop, self.when)
        if guard.process.returncode is not None:
            self.shorten(_EXIT_GRACE)  # exited already (see FaultGuard._exited)
        return self

    def shorten(self, seconds: float) -> None:
        """Move the deadline to ``seconds`` from now, unless it is sooner already."""
        when = self._loop.time() + seconds
        if when < self.when:
            self.when = when
            self._guard._arm(self._loop, when)

    def expire(self) -> None:
        """The deadline has passed: cancel the phase's task (see the class docstring)."""
        self._expired = True
        self._task.cancel()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        guard = self._guard
        guard._phase = self._outer
        if (
            self._expired
            and self._task.uncancel() <= self._cancelling
            and isinstance(error, asyncio.CancelledError)
        ):
            error = TimeoutError()  # our own cancellation, no one else's: the deadline
        if error is not None:
            await guard.failed(self._name, self._timeout, error)
