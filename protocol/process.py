"""The engine process: spawning, watching, and killing it without leaving anything behind.

Each engine runs in its own session and process group (``start_new_session=True``), so
that killing the group also reaches anything the engine itself started. Killing is done
the same way whatever went wrong (timeout, EOF, garbage):

1. list the process's descendants with psutil (before anything dies and gets reparented);
2. ``SIGKILL`` the whole process group, then each listed descendant (some may have
   moved to a group of their own);
3. reap the engine (``await proc.wait()``: no zombie) and wait for the descendants to go.

psutil also watches the live process: :meth:`EngineProcess.stats` gives RSS (for the
memory guard) and CPU time.

:class:`Timeouts` holds the deadline of every phase, :class:`Backoff` the restart delay.
:func:`die_with_parent` is the other direction: a worker process (a match's game
process, a server process of ``ladder serve --workers``) that dies with its parent.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import random
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from protocol.errors import EngineStartError, EngineTimeoutError
from protocol.lines import DEFAULT_MAX_LINE, LineReader

_STDERR_TAIL = 4096
_HAS_WAITID = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")
_WAITID_FLAGS = (os.WEXITED | os.WNOHANG | os.WNOWAIT) if _HAS_WAITID else 0


#: Turns of the event loop in which the stderr drain takes in what the pipe holds.
_STDERR_SETTLE_TURNS = 8


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Deadlines of each phase, in seconds.

    The search deadline is derived from the limit (:meth:`protocol.limits.Limit.budget`)
    plus ``search_margin``; a node limit is turned into time at ``worst_case_nps`` (set it
    to the slowest speed you expect of the engine on a loaded machine, not the typical
    one). A search whose limit gives no bound (depth, mate, infinite) gets
    ``unbounded_search``.
    """

    startup: float = 10.0
    """Spawning the process (fork + exec)."""
    handshake: float = 10.0
    """``uci`` → ``uciok`` (the engine's start-up work happens here too)."""
    isready: float = 10.0
    """``isready`` → ``readyok`` (also covers ``ucinewgame`` and option changes)."""
    stop: float = 2.0
    """``stop`` → ``bestmove``."""
    quit: float = 2.0
    """``quit`` → process exit, before it is killed."""
    search_margin: float = 2.0
    worst_case_nps: float = 50_000.0
    unbounded_search: float = 300.0
    search_deadline: float | None = None
    """When set, every search's deadline whatever its limit (a caller that measured the
    engine at its limit knows better than ``worst_case_nps``)."""

    def search(self, budget: float | None) -> float:
        """The search deadline (seconds from ``go``) for a limit's budget."""
        if self.search_deadline is not None:
            return self.search_deadline
        if budget is None:
            return self.unbounded_search
        return budget + self.search_margin


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped, jittered exponential backoff between restarts.

    The n-th consecutive failure (n = 1, 2, …) waits
    ``min(cap, base * factor ** (n - 1))`` scaled by a random factor in
    ``[1 - jitter, 1]``, so that a pool of engines failing together does not restart in
    lock step.
    """

    base: float = 0.1
    factor: float = 2.0
    cap: float = 5.0
    jitter: float = 0.5

    def delay(self, failures: int, rng: random.Random | None = None) -> float:
        if failures <= 0:
            return 0.0
        raw = min(self.cap, self.base * self.factor ** (failures - 1))
        return raw * (1.0 - self.jitter * (rng or random).random())


@dataclass(frozen=True, slots=True)
class ProcessStats:
    """A psutil snapshot of the engine process."""

    pid: int
    alive: bool
    rss: int
    """Resident set size, bytes (0 when gone)."""
    cpu_time: float
    """User + system CPU seconds so far."""


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's subprocess protocol, plus an event set the moment the process exits.

    ``Process.wait()`` only returns once the pipes are closed too, which never happens
    while a grandchild still holds them; the exit itself is what we need to know.
    """

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()
        self.on_exit: list[Callable[[], None]] = []

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()
        for callback in self.on_exit:
            callback()


class EngineProcess:
    """A running engine: its pipes, its psutil handle, and a tree-killing ``kill``."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        command: Sequence[str],
        protocol: _Protocol,
        stdout: LineReader,
        stdout_transport: asyncio.BaseTransport,
    ) -> None:
        self.proc = proc
        self.command = tuple(command)
        self.pid: int = proc.pid
        #: The event loop the process's pipes belong to (it is read on this loop only).
        self.loop = asyncio.get_running_loop()
        assert proc.stdin is not None
        self.stdin: asyncio.StreamWriter = proc.stdin
        #: The engine's output, line by line (its dialect sets what the reader reports).
        self.stdout = stdout
        self._stdout_transport = stdout_transport
        self._exited = protocol.exited
        #: Callbacks run (in the event loop) when the process exits.
        self.on_exit: list[Callable[[], None]] = protocol.on_exit
        try:
            self.ps: psutil.Process | None = psutil.Process(proc.pid)
        except psutil.NoSuchProcess:
            self.ps = None
        self._stderr = bytearray()
        #: Bytes read from stderr so far (a mark for :meth:`stderr_since`).
        self.stderr_read = 0
        self._known_descendants: list[psutil.Process] = []
        self._stderr_task: asyncio.Task[None] | None = None
        if proc.stderr is not None:
            self._stderr_task = asyncio.get_running_loop().create_task(
                self._drain_stderr(proc.stderr)
            )

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str | os.PathLike[str]],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        timeout: float = 10.0,
    ) -> EngineProcess:
        """Start ``command`` in a new session with piped stdin/stdout/stderr.

        stdout is a pipe of our own, read by a plain read-pipe transport straight into
        a :class:`~protocol.lines.LineReader`: asyncio's subprocess transport would
        hand each chunk of output on with one more event-loop turn (``call_soon``),
        and an engine writes a chunk per search depth.
        """
        argv = [os.fspath(part) for part in command]
        loop = asyncio.get_running_loop()
        read_fd, write_fd = os.pipe()
        try:
            try:
                async with asyncio.timeout(timeout):
                    transport, protocol = await loop.subprocess_exec(
                        lambda: _Protocol(limit=max_line, loop=loop),
                        *argv,
                        stdin=asyncio.subprocess.PIPE,
                        stdout=write_fd,
                        stderr=asyncio.subprocess.PIPE,
                        start_new_session=True,
                        env=dict(env) if env is not None else None,
                        cwd=cwd,
                    )
                proc = asyncio.subprocess.Process(transport, protocol, loop)
            finally:
                os.close(write_fd)  # the child has its copy: EOF comes when it is gone
        except TimeoutError:
            os.close(read_fd)
            raise EngineTimeoutError(
                f"starting {argv[0]} took over {timeout}s", phase="startup", timeout=timeout
            ) from None
        except OSError as exc:
            os.close(read_fd)
            raise EngineStartError(f"cannot start {argv[0]}: {exc}", phase="startup") from exc
        except BaseException:
            os.close(read_fd)
            raise
        stdout = LineReader(max_line=max_line)
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        try:
            stdout_transport, _ = await loop.connect_read_pipe(stdout.protocol, pipe)
        except BaseException as exc:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            pipe.close()
            await protocol.exited.wait()
            transport.close()
            if isinstance(exc, OSError):
                raise EngineStartError(
                    f"cannot read from {argv[0]}: {exc}", phase="startup"
                ) from exc
            raise
        return cls(proc, argv, protocol, stdout, stdout_transport)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        """Keep the last few KB of stderr for error reports (and never let it fill up)."""
        with contextlib.suppress(Exception):
            while chunk := await stream.read(65536):
                self._stderr += chunk
                self.stderr_read += len(chunk)
                if len(self._stderr) > 2 * _STDERR_TAIL:
                    del self._stderr[:-_STDERR_TAIL]

    async def stderr_since(self, mark: int) -> str:
        """What the engine wrote on stderr after ``mark`` (an earlier
        :attr:`stderr_read`; the kept tail at most). Called once an answer on stdout
        was read: what the engine wrote on stderr before that answer is in the pipe by
        then, and the drain takes it in within a few turns of the event loop."""
        for _ in range(_STDERR_SETTLE_TURNS):
            await asyncio.sleep(0)
        new = min(self.stderr_read - mark, len(self._stderr))
        return bytes(self._stderr[-new:]).decode("utf-8", "replace") if new > 0 else ""

    def stderr_tail(self) -> str:
        return bytes(self._stderr[-_STDERR_TAIL:]).decode("utf-8", "replace")

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def alive(self) -> bool:
        """True while the process runs (a zombie counts as dead)."""
        if self.proc.returncode is not None or self.ps is None:
            return False
        if _HAS_WAITID:
            # Exited (a zombie, not reaped yet) or already reaped by asyncio's child
            # watcher: dead. One system call, without reaping (WNOWAIT), instead of
            # psutil's read and parse of /proc/<pid>/stat.
            try:
                return os.waitid(os.P_PID, self.pid, _WAITID_FLAGS) is None
            except ChildProcessError:
                return False
            except OSError:
                pass
        try:
            return self.ps.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def stats(self) -> ProcessStats:
        """RSS and CPU time of the engine (zeros once it is gone)."""
        if self.ps is None or self.proc.returncode is not None:
            return ProcessStats(self.pid, False, 0, 0.0)
        try:
            with self.ps.oneshot():
                rss = self.ps.memory_info().rss
                cpu = self.ps.cpu_times()
            return ProcessStats(self.pid, True, rss, cpu.user + cpu.system)
        except psutil.Error:
            return ProcessStats(self.pid, False, 0, 0.0)

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the process to exit (and be reaped). True if it did."""
        if self.proc.returncode is not None:
            return True
        try:
            async with asyncio.timeout(timeout):
                await self._exited.wait()
        except TimeoutError:
            return False
        return True

    async def kill(self) -> None:
        """Kill the engine and every descendant, reap it, and close the pipes. Idempotent."""
        descendants: list[psutil.Process] = []
        if self.ps is not None:
            with contextlib.suppress(psutil.Error):
                descendants = self.ps.children(recursive=True)
        descendants += [p for p in self._known_descendants if p not in descendants]
        # The group first: the engine and anything that stayed in its group die together,
        # even orphans of an engine that already exited (its children are no longer its
        # children then). The group id cannot be recycled while the group has members,
        # and an empty group gives ESRCH.
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            # Not after a group kill: Popen.send_signal polls first (bpo-38630), and that
            # poll could reap the engine before asyncio's child watcher does, which then
            # logs "Unknown child process pid N" on stderr.
            if self.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
        for child in descendants:
            with contextlib.suppress(psutil.Error):
                child.kill()
        await self._exited.wait()  # the child watcher has reaped it: no zombie
        if descendants:
            await _wait_gone(descendants, 5.0)
        await self._close_pipes()

    async def _close_pipes(self) -> None:
        with contextlib.suppress(Exception):
            self.stdin.close()
        cancelled = False
        if self._stderr_task is not None:
            try:
                async with asyncio.timeout(1.0):
                    await self._stderr_task
            except TimeoutError:
                self._stderr_task.cancel()
            except asyncio.CancelledError:
                self._stderr_task.cancel()
                # Our own cancellation (not only the drain's) goes on once the pipes are
                # closed: swallowed, it would lose e.g. asyncio.run's Ctrl-C.
                task = asyncio.current_task()
                cancelled = task is not None and task.cancelling() > 0
        if self._stdout_transport is not None:
            self._stdout_transport.close()
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()
        if cancelled:
            raise asyncio.CancelledError

    async def finish(self, timeout: float) -> bool:
        """After a ``quit`` was written: wait for a clean exit, else kill.

        Either way, also kills whatever the engine had started (an engine may exit and
        leave a helper behind); psutil refuses to signal a recycled pid.
        Returns True if the engine exited by itself.
        """
        if self.ps is not None:
            with contextlib.suppress(psutil.Error):
                self._known_descendants = self.ps.children(recursive=True)
        clean = await self.wait(timeout)
        await self.kill()
        return clean


def _gone(process: psutil.Process) -> bool:
    """Dead, or a zombie: an orphan's zombie is reaped by init, on init's schedule."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def _wait_gone(processes: list[psutil.Process], timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    pending = [p for p in processes if not _gone(p)]
    while pending and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.005)
        pending = [p for p in pending if not _gone(p)]


def die_with_parent(parent: int | None = None) -> None:
    """Linux: have this process killed when its parent dies (a killed ``ladder match``
    or ``ladder serve`` leaves no orphan workers; their engines then see EOF and quit).
    ``parent``: the pid the parent had. A parent gone before this ran (a worker starts
    slowly) is beyond the kernel's rule: then this process exits at once."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if parent is not None and os.getppid() != parent:
        os._exit(1)
