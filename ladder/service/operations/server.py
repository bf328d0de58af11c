"""``ladder serve``: the HTTP service under uvicorn, as an operator runs it.

* It refuses to listen beyond loopback without API keys (unless told ``no_auth``), and
  warns when it runs as root.
* It binds the socket itself, so ``port=0`` works: once the engines run and the socket
  accepts connections, the URL is printed on stdout, alone on its line (the readiness
  signal scripts and tests wait for); everything else goes to stderr.
* uvicorn runs with :mod:`ladder.service.http.http_protocol` (head limit, request deadline,
  connection cap), the service's structured logging (:mod:`ladder.service.operations.logs`), and a
  SIGHUP handler that re-reads the API keys.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import logging.config
import math
import signal
import socket
from collections.abc import Callable
from types import FrameType
from typing import Any

import uvicorn

from ladder.engine_binary import PATCHED_OPTION, engine_build_key
from ladder.levels import largest_hash_mb, load_levels
from ladder.service.domain.mover import MoveService
from ladder.service.engines.engine_slot import EngineSlot
from ladder.service.http.app import create_app
from ladder.service.http.http_protocol import guarded_protocol
from ladder.service.http.version_pin import answer_headers
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.logs import lean_records, logging_config
from ladder.service.operations.settings import ServeSettings
from protocol import EngineFailure

log = logging.getLogger("ladder.serve")


class ServeError(Exception):
    """``ladder serve`` cannot start as asked (a one-line reason)."""


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise ServeError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    return all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def check_exposure(settings: ServeSettings, config: ServiceConfig) -> None:
    """Refuse to face a network without keys, unless ``no_auth`` says so."""
    if config.api_keys_file is None and not settings.no_auth and not is_loopback(settings.host):
        raise ServeError(
            f"refusing to listen on {settings.host} without API keys: give --api-keys FILE, "
            "or --no-auth to serve it open"
        )


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (port 0: any free port)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise ServeError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://host:port`` of a bound socket (IPv6 in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


#: uvicorn's own graceful timeout is the drain's plus this (s), so that the drain cuts
#: the requests short (JSON 503s) before uvicorn would cancel them (500s, tracebacks).
CUT_MARGIN_S = 3.0
#: What the supervisor of ``--workers N`` sends its workers for a second Ctrl-C: "stop
#: now" (a worker ignores SIGINT itself, which a terminal sends every process).
STOP_NOW = signal.SIGUSR1
#: Why requests are cut short at once (the ``drain_cut`` line's reason).
_NOW = "a second stop signal"


class Server(uvicorn.Server):
    """uvicorn's server, announcing once it serves, reloading keys on SIGHUP, and
    stopping as :mod:`ladder.service.operations.drain` says."""

    def __init__(
        self,
        config: uvicorn.Config,
        service: MoveService,
        app: Any,
        announce: Callable[[], None],
        settings: ServeSettings,
        worker: int | None = None,
    ) -> None:
        super().__init__(config)
        self.service = service
        self.app = app
        self.announce = announce
        self.settings = settings
        self.worker = worker  #: this process's number under a supervisor (--workers N)
        self._stop_signal: int | None = None
        self._hurry = False  # "stop now" came: cut the requests short at once
        self._streams: int | None = None  # analysis streams when the stop came
        self._loop: asyncio.AbstractEventLoop | None = None
        self._outside: list[int] = []  # stop signals before uvicorn's handlers were in

    def serve_on(self, sock: socket.socket) -> None:
        """Serve on `sock` until stopped. uvicorn installs its signal handlers when it
        starts and gives back the ones it found when it stops: the ones put here, so
        that a stop signal on either side of uvicorn's is neither Python's Ctrl-C
        (KeyboardInterrupt: a SIGINT at the very end of the drain exited -2) nor
        SIGTERM's default (killed): before, it is taken up at start-up; after, the
        server is stopping already."""

        def outside(sig: int, frame: FrameType | None) -> None:
            self._outside.append(sig)

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, outside)
        self.run(sockets=[sock])
        # Stopped: what is left is the process's exit, where Python's finalization puts
        # back the default handlers (a SIGINT there killed it: -2). Nothing is started
        # from here on that would inherit the ignoring.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """SIGTERM/SIGINT: readiness off now (the drain begins); uvicorn stops next.
        The signal is not raised again once stopped: a stop asked for exits 0.

        Ctrl-C (SIGINT) during the stop means "stop now": the requests still running
        are cut short at once, each with its JSON 503 (:meth:`Drain.cut_short`), and the
        engines are stopped as usual (uvicorn's own forced exit would drop them as
        plain-text 500s, with tracebacks; a third Ctrl-C still is that exit). Another
        SIGTERM changes nothing: a service manager may send one to every process.

        A worker (``--workers N``) ignores SIGINT: a Ctrl-C in a terminal reaches every
        process of the group, and the supervisor passes the stop on (SIGTERM), and its
        "now" (SIGUSR1, :data:`STOP_NOW`)."""
        if self.worker is not None and sig == signal.SIGINT:
            return
        now = self.should_exit and sig == signal.SIGINT
        third = now and self._hurry
        if not self.should_exit:  # the streams a stop finds (each ends at its next ply)
            self._streams = self.app.state.analyser.streams
        super().handle_exit(sig, frame)
        self.force_exit = third
        self._captured_signals.clear()
        if self._stop_signal is None:
            self._stop_signal = sig
        self.service.drain.begin()
        if now and not third:
            self._stop_now()

    def _stop_now(self) -> None:
        """Cut the requests short now (from a signal handler: on the loop)."""
        self._hurry = True
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.service.drain.cut_short, _NOW)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        drain = self.service.drain
        drain.begin()
        opts = self.settings
        delay = opts.drain_delay if self._stop_signal == signal.SIGTERM else 0.0
        streams = self.app.state.analyser.streams if self._streams is None else self._streams
        log.info(
            "stopping: not ready; listening %g s more, then %d request(s) in flight get up to "
            "%g s; %d analysis stream(s) end at their next ply",
            delay,
            drain.running,
            opts.drain_timeout,
            streams,
            extra={
                "event": "draining",
                "requests": drain.running,
                "analyses": streams,
                "delay_s": delay,
            },
        )
        if delay > 0:
            # a second stop signal ends the wait
            end = asyncio.get_running_loop().time() + delay
            while not self._hurry and asyncio.get_running_loop().time() < end:
                await asyncio.sleep(min(0.05, delay))
        cut = asyncio.get_running_loop().call_later(
            0.0 if self._hurry else opts.drain_timeout,
            drain.cut_short,
            _NOW if self._hurry else f"drain timeout ({opts.drain_timeout:g} s)",
        )
        try:
            await super().shutdown(sockets)
        finally:
            cut.cancel()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        for sig in self._outside:  # a stop asked for just before uvicorn's handlers
            self.handle_exit(sig, None)
        await super().startup(sockets)
        if not self.started:
            return
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._reload_keys)
        if self.worker is not None:  # the supervisor's "now" (see handle_exit)
            asyncio.get_running_loop().add_signal_handler(STOP_NOW, self._supervisor_now)
        self.announce()

    def _supervisor_now(self) -> None:
        self.should_exit = True
        self.service.drain.begin()
        if not self._hurry:
            self._stop_now()

    def _reload_keys(self) -> None:
        keys = self.app.state.keys
        if keys is None:
            log.info("SIGHUP: no API key file to re-read", extra={"event": "sighup"})
            return
        keys.reload()


def start_logging(settings: ServeSettings, worker: int | None = None) -> None:
    """The service's logging, for this process (and uvicorn's); ``worker``: this
    process's number among several (None: the only server process)."""
    lean_records()
    logging.config.dictConfig(logging_config(settings.log_format, settings.log_level, worker))


def run_server(
    config: ServiceConfig,
    settings: ServeSettings,
    sock: socket.socket,
    announce: Callable[[MoveService], None],
    worker: int | None = None,
) -> bool:
    """Serve on `sock` in this process until SIGTERM/SIGINT; `announce` is called once it
    serves (``worker``: as for :func:`start_logging`). Whether it ever served."""
    service = MoveService(config)
    app = create_app(service=service)

    def serving() -> None:
        service.metrics.workers.set(1)  # this process serves (`ladder_workers` sums them)
        announce(service)

    metrics = service.metrics
    protocol = guarded_protocol(
        settings.connection_limits(),
        on_close=lambda reason: metrics.connections_closed.labels(reason).inc(),
        on_connections=metrics.connections.set,
    )
    server = Server(
        uvicorn.Config(
            app,
            http=protocol,
            loop="protocol.event_loop:new_event_loop",  # the engine client's loop
            log_config=logging_config(settings.log_format, settings.log_level, worker),
            log_level=settings.log_level,
            access_log=False,  # ladder.access writes one structured line per request
            timeout_keep_alive=settings.keep_alive,
            timeout_graceful_shutdown=math.ceil(settings.drain_timeout + CUT_MARGIN_S),
            forwarded_allow_ips=settings.forwarded_allow_ips,
            server_header=False,
            # on every answer, the protocol's own error answers too: a browser must not
            # guess another type than the one sent (a JSON error read as HTML)
            # what answers, on every answer, the protocol's own errors too: a request
            # may pin either (ladder.service.http.version_pin)
            headers=answer_headers(engine_build_key(config.engine_path), service.levels_version),
            lifespan="on",
        ),
        service,
        app,
        serving,
        settings,
        worker,
    )
    server.serve_on(sock)
    return bool(server.started)


async def check_engine(config: ServiceConfig) -> None:
    """Start one engine as a pool slot does, and stop it: an engine that cannot start is
    a one-line :class:`ServeError` here, not a traceback from the server's startup."""
    hash_mb = largest_hash_mb(load_levels(config.levels_file))
    slot = EngineSlot(0, config, hash_mb, start_up_check=True)
    try:
        await slot.start()
        engine = slot.managed.engine
        if engine is not None and PATCHED_OPTION not in engine.options:
            log.warning(
                "the engine %s is not our patched build (it has no %s option): its "
                "atomic-xiangqi and crazyhouse-xiangqi rules are not docs/rules.md's, and "
                "its moves there may be refused; `ladder doctor` says more",
                config.engine_path,
                PATCHED_OPTION,
                extra={"event": "engine_unpatched", "engine_path": str(config.engine_path)},
            )
    except EngineFailure as exc:
        raise ServeError(f"the engine cannot start: {exc}") from None
    finally:
        await slot.close()


__all__ = [
    "CUT_MARGIN_S",
    "STOP_NOW",
    "ServeError",
    "bind",
    "check_engine",
    "check_exposure",
    "is_loopback",
    "run_server",
    "start_logging",
]
