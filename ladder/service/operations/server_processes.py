"""``ladder serve --workers N``: N server processes behind one port.

The supervisor (the ``ladder serve`` process) binds the socket, then starts N worker
processes (``multiprocessing``, spawned: fresh interpreters, no state forked from the
parent). Each runs the whole service as ``--workers 1`` does (uvicorn, its engine pool,
SIGHUP key reload) on the inherited listening socket; the kernel hands each new
connection to one of them. The engines are split: worker *i* gets its share of
``--engines``, at least one.

* Readiness: the URL is printed once every worker serves (each says so on a pipe).
* Metrics: prometheus_client's multiprocess mode, in a folder the supervisor creates
  and removes (``PROMETHEUS_MULTIPROC_DIR``); any worker's ``/metrics`` shows every
  process's counts. A dead worker's gauges are dropped (``mark_process_dead``), its
  counters stay counted.
* A worker that dies is logged (``worker_exited``) and started again
  (``worker_restarted``), after a delay that grows while it keeps dying young; the new
  one counts the death once it serves (``ladder_worker_restarts_total{death}``;
  ``ladder_workers`` is the processes serving).
* SIGHUP is passed on to every worker (each re-reads the API keys); SIGTERM or SIGINT
  stops them all (each drains and stops its engines), SIGKILL after a grace period. A
  worker ignores SIGINT itself (a terminal's Ctrl-C reaches the whole process group):
  a second Ctrl-C is passed on as :data:`~ladder.service.operations.server.STOP_NOW`, which cuts
  their requests short at once.
  A worker dies with the supervisor (PR_SET_PDEATHSIG), its engines then see EOF.

Per worker, not shared: the rate limit, the queue bound, the connection cap and the
fair sharing of engines between clients (see docs/service.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from types import FrameType

from prometheus_client.multiprocess import mark_process_dead

from ladder.service.domain.mover import MoveService
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.server import STOP_NOW, run_server, start_logging
from ladder.service.operations.settings import ServeSettings
from protocol.process import die_with_parent

log = logging.getLogger("ladder.serve")

#: The variable prometheus_client's multiprocess mode reads.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: A worker that did not start serving exits with this.
STARTUP_FAILED = 3
#: A worker that lived less than this (seconds) before dying counts as dying young.
YOUNG_S = 30.0
#: Longest delay before a worker is started again (seconds).
MAX_RESTART_DELAY_S = 30.0
#: Time for every worker to stop after SIGTERM, beyond its drain (delay and timeout).
STOP_MARGIN_S = 20.0


def engine_shares(engines: int, workers: int) -> list[int]:
    """`engines` split between `workers` as evenly as can be, at least one each."""
    if workers < 1 or engines < workers:
        raise ValueError(f"{workers} workers need at least {workers} engines, not {engines}")
    base, extra = divmod(engines, workers)
    return [base + (1 if i < extra else 0) for i in range(workers)]


def _worker_main(
    config: ServiceConfig,
    settings: ServeSettings,
    index: int,
    sock: socket.socket,
    ready: multiprocessing.connection.Connection,
    replaces: int | None,
) -> None:
    """A worker process: serve on `sock` until SIGTERM, saying on `ready` once it serves
    (and counting, then, the death of the worker it replaces: `replaces` is that one's
    exit code)."""
    die_with_parent()
    # Until the server's own SIGHUP handler is in place, a reload request is moot.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    start_logging(settings, index)

    def announce(service: MoveService) -> None:
        if replaces is not None:
            service.metrics.worker_replaced(replaces)
        ready.send(service.pool.size)

    started = run_server(config, settings, sock, announce, index)
    sys.exit(0 if started else STARTUP_FAILED)


@dataclass
class _Slot:
    """One worker's place: its number, engines and current process."""

    index: int
    config: ServiceConfig
    process: BaseProcess | None = None
    ready: multiprocessing.connection.Connection | None = None
    started_at: float = 0.0
    serving: bool = False
    restart_at: float | None = None
    young_deaths: int = 0
    starts: int = 0
    died: int | None = None  #: the exit code of its last process, if one died


class Supervisor:
    """Starts, watches, restarts and stops the workers (see the module docstring)."""

    def __init__(
        self, config: ServiceConfig, settings: ServeSettings, sock: socket.socket, url: str
    ) -> None:
        shares = engine_shares(config.engines, settings.workers)
        self.slots = [
            _Slot(i, dataclasses.replace(config, engines=share)) for i, share in enumerate(shares)
        ]
        self.config, self.settings, self.sock, self.url = config, settings, sock, url
        self.context = multiprocessing.get_context("spawn")
        self.stopping = False
        self.reload = False
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)

    # -- signals ------------------------------------------------------------------------

    def _on_stop(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping and signum == signal.SIGINT:  # Ctrl-C again: "now", passed on
            self._forward(STOP_NOW)
        self.stopping = True

    def _on_hangup(self, signum: int, frame: FrameType | None) -> None:
        self.reload = True

    def _install_signals(self) -> None:
        signal.set_wakeup_fd(self._wake_write.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGHUP, self._on_hangup)

    def _drain_wakeups(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while self._wake_read.recv(4096):
                pass

    # -- workers ------------------------------------------------------------------------

    def _start(self, slot: _Slot) -> None:
        parent_end, child_end = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_worker_main,
            args=(slot.config, self.settings, slot.index, self.sock, child_end, slot.died),
            name=f"ladder-worker-{slot.index}",
        )
        process.start()
        child_end.close()
        slot.process, slot.ready = process, parent_end
        slot.started_at, slot.serving, slot.restart_at = time.monotonic(), False, None
        slot.starts += 1

    def _waitables(self) -> list[object]:
        out: list[object] = [self._wake_read]
        for slot in self.slots:
            if slot.process is not None:
                out.append(slot.process.sentinel)
                if slot.ready is not None and not slot.serving:
                    out.append(slot.ready)
        return out

    def _wait(self, timeout: float | None) -> None:
        multiprocessing.connection.wait(self._waitables(), timeout)  # type: ignore[arg-type]
        self._drain_wakeups()

    def _check_ready(self, slot: _Slot) -> None:
        """Note a worker's "serving" message, if it came."""
        if slot.serving or slot.ready is None or slot.process is None:
            return
        try:
            if not slot.ready.poll():
                return
            engines = slot.ready.recv()
        except (EOFError, OSError):
            return
        slot.serving = True
        if slot.starts > 1:
            log.info(
                "worker %d restarted (pid %d, %d engines)",
                slot.index,
                slot.process.pid,
                engines,
                extra={"event": "worker_restarted", "worker": slot.index, "pid": slot.process.pid},
            )

    def _reap(self, slot: _Slot) -> bool:
        """If the worker's process ended: forget it (metrics too); whether it had."""
        process = slot.process
        if process is None or process.is_alive():
            return False
        process.join()
        assert process.pid is not None
        mark_process_dead(process.pid)  # type: ignore[no-untyped-call]
        if slot.ready is not None:
            slot.ready.close()
        slot.process, slot.ready, slot.died = None, None, process.exitcode
        lived = time.monotonic() - slot.started_at
        slot.young_deaths = slot.young_deaths + 1 if lived < YOUNG_S else 0
        delay = min(MAX_RESTART_DELAY_S, 2.0 ** (slot.young_deaths - 1)) if slot.young_deaths else 0
        slot.restart_at = time.monotonic() + delay
        if not self.stopping:
            log.error(
                "worker %d (pid %d) exited with code %s after %.1f s; starting it again in %g s",
                slot.index,
                process.pid,
                process.exitcode,
                lived,
                delay,
                extra={
                    "event": "worker_exited",
                    "worker": slot.index,
                    "pid": process.pid,
                    "exit_code": process.exitcode,
                    "lived_s": round(lived, 3),
                    "restart_in_s": delay,
                },
            )
        return True

    # -- life cycle ---------------------------------------------------------------------

    def run(self) -> bool:
        """Serve until SIGTERM/SIGINT; whether the service ever served."""
        self._install_signals()
        try:
            for slot in self.slots:
                self._start(slot)
            if not self._start_up():
                return False
            log.info(
                "serving %s with %d workers and %d engines",
                self.url,
                len(self.slots),
                self.config.engines,
                extra={
                    "event": "serving",
                    "url": self.url,
                    "workers": len(self.slots),
                    "engines": self.config.engines,
                    "pids": [s.process.pid for s in self.slots if s.process is not None],
                },
            )
            print(self.url, flush=True)
            self._supervise()
            return True
        finally:
            self._stop_all()
            # every worker stopped: a late stop signal must not kill the exit (Python's
            # finalization puts back the default handlers)
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_IGN)
            signal.set_wakeup_fd(-1)
            self._wake_read.close()
            self._wake_write.close()

    def _start_up(self) -> bool:
        """Wait until every worker serves; False if one ends first or a stop comes."""
        while not self.stopping:
            for slot in self.slots:
                self._check_ready(slot)
                if slot.process is not None and not slot.serving and not slot.process.is_alive():
                    log.error(
                        "worker %d did not start (exit code %s); stopping",
                        slot.index,
                        slot.process.exitcode,
                        extra={"event": "worker_start_failed", "worker": slot.index},
                    )
                    return False
            if all(slot.serving for slot in self.slots):
                return True
            self._wait(None)
        return False

    def _supervise(self) -> None:
        while not self.stopping:
            if self.reload:
                self.reload = False
                self._forward(signal.SIGHUP)
            now = time.monotonic()
            for slot in self.slots:
                self._check_ready(slot)
                self._reap(slot)
                if slot.process is None and slot.restart_at is not None and now >= slot.restart_at:
                    self._start(slot)
            pending = [s.restart_at for s in self.slots if s.process is None and s.restart_at]
            self._wait(max(0.0, min(pending) - now) if pending else None)

    def _forward(self, signum: int) -> None:
        for slot in self.slots:
            if slot.process is not None and slot.process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.process.pid, signum)

    def _stop_all(self) -> None:
        """SIGTERM every worker, wait for them (SIGKILL after the grace period)."""
        self.stopping = True
        self._forward(signal.SIGTERM)
        drain = self.settings.drain_delay + self.settings.drain_timeout
        deadline = time.monotonic() + drain + STOP_MARGIN_S
        for slot in self.slots:
            process = slot.process
            if process is None:
                continue
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.error(
                    "worker %d (pid %s) did not stop in time: killed",
                    slot.index,
                    process.pid,
                    extra={"event": "worker_killed", "worker": slot.index},
                )
                process.kill()
                process.join()
            self._reap(slot)
        log.info("all workers stopped", extra={"event": "workers_stopped"})


def supervise(
    config: ServiceConfig, settings: ServeSettings, sock: socket.socket, url: str
) -> bool:
    """Run ``settings.workers`` workers on `sock` until SIGTERM/SIGINT, with the metrics
    of all in a temporary folder; whether the service ever served."""
    supervisor = Supervisor(config, settings, sock, url)  # checks the engine split first
    metrics_dir = tempfile.mkdtemp(prefix="ladder-metrics-")
    os.environ[MULTIPROC_ENV] = metrics_dir  # the spawned workers inherit it
    try:
        return supervisor.run()
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)


__all__ = ["MULTIPROC_ENV", "Supervisor", "engine_shares", "supervise"]
