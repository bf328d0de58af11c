"""``ladder serve``: the HTTP service under uvicorn, as an operator runs it.

* It refuses to listen beyond loopback without API keys (unless told ``no_auth``), and
  warns when it runs as root.
* It binds the socket itself, so ``port=0`` works: once the engines run and the socket
  accepts connections, the URL is printed on stdout, alone on its line (the readiness
  signal scripts and tests wait for); everything else goes to stderr.
* uvicorn runs with :mod:`ladder.service.http_protocol` (head limit, request deadline,
  connection cap), the service's structured logging (:mod:`ladder.service.logs`), and a
  SIGHUP handler that re-reads the API keys.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import logging.config
import math
import os
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import uvicorn

from ladder.service.app import create_app
from ladder.service.config import ServiceConfig
from ladder.service.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S
from ladder.service.http_protocol import ConnectionLimits, guarded_protocol
from ladder.service.logs import LogFormat, logging_config
from ladder.service.mover import MoveService
from ladder.service.worker import EngineWorker
from protocol import EngineFailure

log = logging.getLogger("ladder.serve")


class ServeError(Exception):
    """``ladder serve`` cannot start as asked (a one-line reason)."""


@dataclass(frozen=True)
class ServeOptions:
    """How the server listens and logs (the service itself: :class:`ServiceConfig`)."""

    host: str = "127.0.0.1"
    port: int = 8000
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    keep_alive_s: int = 5
    no_auth: bool = False
    log_format: LogFormat = "json"
    log_level: str = "info"
    forwarded_allow_ips: str = "127.0.0.1"
    #: After SIGTERM: seconds the listener stays open with readiness off, then seconds
    #: requests in flight get before they are cut short (ladder.service.drain).
    drain_delay_s: float = DRAIN_DELAY_S
    drain_timeout_s: float = DRAIN_TIMEOUT_S
    #: Server processes behind the port (ladder.service.workers when more than one).
    workers: int = 1
    #: This process's number among them (None: the only server process).
    worker: int | None = None


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise ServeError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    return all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def check_exposure(options: ServeOptions, config: ServiceConfig) -> None:
    """Refuse to face a network without keys, unless ``no_auth`` says so."""
    if config.api_keys_file is None and not options.no_auth and not is_loopback(options.host):
        raise ServeError(
            f"refusing to listen on {options.host} without API keys: give --api-keys FILE, "
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


class Server(uvicorn.Server):
    """uvicorn's server, announcing once it serves, reloading keys on SIGHUP, and
    stopping as :mod:`ladder.service.drain` says."""

    def __init__(
        self,
        config: uvicorn.Config,
        service: MoveService,
        app: Any,
        announce: Callable[[], None],
        options: ServeOptions,
    ) -> None:
        super().__init__(config)
        self.service = service
        self.app = app
        self.announce = announce
        self.options = options
        self._stop_signal: int | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """SIGTERM/SIGINT: readiness off now (the drain begins); uvicorn stops next.
        The signal is not raised again once stopped: a stop asked for exits 0."""
        super().handle_exit(sig, frame)
        self._captured_signals.clear()
        if self._stop_signal is None:
            self._stop_signal = sig
        self.service.drain.begin()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        drain = self.service.drain
        drain.begin()
        opts = self.options
        delay = opts.drain_delay_s if self._stop_signal == signal.SIGTERM else 0.0
        log.info(
            "stopping: not ready; listening %g s more, then %d request(s) in flight get up to %g s",
            delay,
            drain.running,
            opts.drain_timeout_s,
            extra={"event": "draining", "requests": drain.running, "delay_s": delay},
        )
        if delay > 0:
            # a second SIGINT (force_exit) ends the wait
            end = asyncio.get_running_loop().time() + delay
            while not self.force_exit and asyncio.get_running_loop().time() < end:
                await asyncio.sleep(min(0.05, delay))
        cut = asyncio.get_running_loop().call_later(
            opts.drain_timeout_s, drain.cut_short, opts.drain_timeout_s
        )
        try:
            await super().shutdown(sockets)
        finally:
            cut.cancel()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.started:
            return
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._reload_keys)
        self.announce()

    def _reload_keys(self) -> None:
        keys = self.app.state.keys
        if keys is None:
            log.info("SIGHUP: no API key file to re-read", extra={"event": "sighup"})
            return
        keys.reload()


def start_logging(options: ServeOptions) -> None:
    """The service's logging, for this process (and uvicorn's)."""
    logging.config.dictConfig(logging_config(options.log_format, options.log_level, options.worker))


def run_server(
    config: ServiceConfig,
    options: ServeOptions,
    sock: socket.socket,
    announce: Callable[[MoveService], None],
) -> bool:
    """Serve on `sock` in this process until SIGTERM/SIGINT; `announce` is called once it
    serves. Whether it ever served."""
    service = MoveService(config)
    app = create_app(service=service)
    metrics = service.metrics
    protocol = guarded_protocol(
        options.limits,
        on_close=lambda reason: metrics.connections_closed.labels(reason).inc(),
        on_connections=metrics.connections.set,
    )
    server = Server(
        uvicorn.Config(
            app,
            http=protocol,
            loop="asyncio",  # the engine client (protocol/) is built and tested on it
            log_config=logging_config(options.log_format, options.log_level, options.worker),
            log_level=options.log_level,
            access_log=False,  # ladder.access writes one structured line per request
            timeout_keep_alive=options.keep_alive_s,
            timeout_graceful_shutdown=math.ceil(options.drain_timeout_s + CUT_MARGIN_S),
            forwarded_allow_ips=options.forwarded_allow_ips,
            server_header=False,
            lifespan="on",
        ),
        service,
        app,
        lambda: announce(service),
        options,
    )
    server.run(sockets=[sock])
    return bool(server.started)


async def check_engine(config: ServiceConfig) -> None:
    """Start one engine as a pool slot does, and stop it: an engine that cannot start is
    a one-line :class:`ServeError` here, not a traceback from the server's startup."""
    worker = EngineWorker(0, config)
    try:
        await worker.start()
    except EngineFailure as exc:
        raise ServeError(f"the engine cannot start: {exc}") from None
    finally:
        await worker.close()


def serve(config: ServiceConfig, options: ServeOptions) -> None:
    """Run the service until SIGTERM/SIGINT; :class:`ServeError` if it cannot start.

    With ``options.workers`` above 1, :mod:`ladder.service.workers` runs that many
    server processes on the one socket, the engines split between them."""
    check_exposure(options, config)
    sock = bind(options.host, options.port)  # a taken port is a one-line error, first
    start_logging(options)
    try:
        asyncio.run(check_engine(config))
    except ServeError:
        sock.close()
        raise
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        log.warning(
            "running as root: run the service as an unprivileged user",
            extra={"event": "running_as_root"},
        )
    if options.no_auth and config.api_keys_file is None and not is_loopback(options.host):
        log.warning(
            "serving %s without API keys (--no-auth)",
            options.host,
            extra={"event": "no_auth"},
        )
    url = url_of(sock)

    def announce(service: MoveService) -> None:
        log.info(
            "serving %s with %d engines",
            url,
            service.pool.size,
            extra={"event": "serving", "url": url, "engines": service.pool.size},
        )
        print(url, flush=True)

    try:
        if options.workers > 1:
            from ladder.service.workers import supervise

            started = supervise(config, options, sock, url)
        else:
            started = run_server(config, options, sock, announce)
    finally:
        sock.close()
    if not started:
        raise ServeError("the service did not start (see the log above)")


__all__ = [
    "ServeError",
    "ServeOptions",
    "bind",
    "check_engine",
    "check_exposure",
    "is_loopback",
    "run_server",
    "serve",
    "start_logging",
]
