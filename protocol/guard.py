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
from types import TracebackType
from typing import NoReturn

from protocol.errors import EngineFault, EngineTerminatedError, EngineTimeoutError
from protocol.lines import EndOfOutput
from protocol.process import EngineProcess, Timeouts

__all__ = ["FaultGuard"]

_EXIT_GRACE = 0.2  # seconds to drain buffered output after the engine exits


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
        await self.process.kill()

    def phase(self, phase: str, timeout: float) -> _Phase:
        """A read phase under a deadline (``async with guard.phase(...) as deadline``):
        every failure in it becomes a killed engine and a typed :class:`EngineFault`.
        Gives the deadline (see :meth:`shorten`)."""
        return _Phase(self, phase, timeout)

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

    @staticmethod
    def shorten(
        deadline: asyncio.Timeout, seconds: float, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        """Move ``deadline`` to ``seconds`` from now, unless it is sooner already."""
        loop = loop or asyncio.get_running_loop()
        when = loop.time() + seconds
        current = deadline.when()
        if current is None or when < current:
            deadline.reschedule(when)

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


class _Phase:
    """One :meth:`FaultGuard.phase`: written as a class, not a generator, since every
    search runs one (a generator's context manager costs about twice as much)."""

    __slots__ = ("_deadline", "_guard", "_loop", "_name", "_timeout")

    def __init__(self, guard: FaultGuard, name: str, timeout: float) -> None:
        self._guard = guard
        self._name = name
        self._timeout = timeout

    async def __aenter__(self) -> asyncio.Timeout:
        guard = self._guard
        guard.check_open(self._name)
        self._loop = asyncio.get_running_loop()
        deadline = self._deadline = asyncio.timeout(self._timeout)
        await deadline.__aenter__()
        guard.process.on_exit.append(self._exited)
        if guard.process.returncode is not None:
            self._exited()
        return deadline

    def _exited(self) -> None:
        # A grandchild may hold the pipe open, so EOF may never come: once the engine
        # has exited, read what is buffered, then give up.
        FaultGuard.shorten(self._deadline, _EXIT_GRACE, self._loop)

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._guard.process.on_exit.remove(self._exited)
        try:
            await self._deadline.__aexit__(kind, error, tb)
        except TimeoutError as expired:  # the deadline passed
            error = expired
        if error is not None:
            await self._guard.failed(self._name, self._timeout, error)
