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
import contextlib
from collections.abc import AsyncIterator
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

    @contextlib.asynccontextmanager
    async def phase(self, phase: str, timeout: float) -> AsyncIterator[asyncio.Timeout]:
        """Run a read phase under a deadline; turn every failure into a killed engine
        and a typed :class:`EngineFault`. Yields the deadline (see :meth:`shorten`)."""
        self.check_open(phase)
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout) as deadline:

                def on_exit() -> None:
                    # A grandchild may hold the pipe open, so EOF may never come: once
                    # the engine has exited, read what is buffered, then give up.
                    self.shorten(deadline, _EXIT_GRACE, loop)

                self.process.on_exit.append(on_exit)
                if self.process.returncode is not None:
                    on_exit()
                try:
                    yield deadline
                finally:
                    self.process.on_exit.remove(on_exit)
        except EngineFault as exc:
            if exc.phase == "?":
                exc.phase = self.phase_name(phase)
            await self.fault(exc)
            raise
        except EndOfOutput:
            await self.died(phase)
        except TimeoutError:
            if self.process.returncode is not None:
                await self.died(phase)
            name = self.phase_name(phase)
            limit = self.timeouts.stop if name == "stop" else timeout
            error = EngineTimeoutError(
                f"no answer from the engine within {limit:g}s ({name})",
                phase=name,
                timeout=limit,
                stderr=self.process.stderr_tail(),
            )
            await self.fault(error)
            raise error from None
        except (BrokenPipeError, ConnectionResetError) as exc:
            await self.died(phase, exc)

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
