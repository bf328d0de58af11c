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
import os
import signal
import socket
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from ladder.service.app import create_app
from ladder.service.config import ServiceConfig
from ladder.service.http_protocol import ConnectionLimits, guarded_protocol
from ladder.service.logs import LogFormat, logging_config
from ladder.service.mover import MoveService

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
    graceful_shutdown_s: int = 10


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


class Server(uvicorn.Server):
    """uvicorn's server, printing the URL once it serves, and reloading keys on SIGHUP."""

    def __init__(self, config: uvicorn.Config, url: str, service: MoveService, app: Any) -> None:
        super().__init__(config)
        self.url = url
        self.service = service
        self.app = app

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.started:
            return
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._reload_keys)
        log.info(
            "serving %s with %d engines",
            self.url,
            self.service.pool.size,
            extra={"event": "serving", "url": self.url, "engines": self.service.pool.size},
        )
        print(self.url, flush=True)

    def _reload_keys(self) -> None:
        keys = self.app.state.keys
        if keys is None:
            log.info("SIGHUP: no API key file to re-read", extra={"event": "sighup"})
            return
        keys.reload()


def serve(config: ServiceConfig, options: ServeOptions) -> None:
    """Run the service until SIGTERM/SIGINT; :class:`ServeError` if it cannot start."""
    check_exposure(options, config)
    sock = bind(options.host, options.port)  # a taken port is a one-line error, first
    logging.config.dictConfig(logging_config(options.log_format, options.log_level))
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
            log_config=logging_config(options.log_format, options.log_level),
            log_level=options.log_level,
            access_log=False,  # ladder.access writes one structured line per request
            timeout_keep_alive=options.keep_alive_s,
            timeout_graceful_shutdown=options.graceful_shutdown_s,
            forwarded_allow_ips=options.forwarded_allow_ips,
            server_header=False,
            lifespan="on",
        ),
        url_of(sock),
        service,
        app,
    )
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:
        raise ServeError("the service did not start (see the log above)")


__all__ = ["ServeError", "ServeOptions", "bind", "check_exposure", "is_loopback", "serve"]
