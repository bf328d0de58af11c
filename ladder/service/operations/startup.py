"""``ladder serve`` from its settings to a serving port: the checks (exposure, the
engine), the socket, then one server process (:mod:`ladder.service.operations.server`) or several
(:mod:`ladder.service.operations.server_processes`), until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import os

from ladder.service.domain.mover import MoveService
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.server import (
    ServeError,
    bind,
    check_engine,
    check_exposure,
    is_loopback,
    run_server,
    start_logging,
    url_of,
)
from ladder.service.operations.server_processes import supervise
from ladder.service.operations.settings import ServeSettings

log = logging.getLogger("ladder.serve")


def serve(config: ServiceConfig, settings: ServeSettings) -> None:
    """Run the service until SIGTERM/SIGINT; :class:`ServeError` if it cannot start.

    With ``settings.workers`` above 1, :mod:`ladder.service.operations.server_processes` runs that
    many server processes on the one socket, the engines split between them."""
    check_exposure(settings, config)
    sock = bind(settings.host, settings.port)  # a taken port is a one-line error, first
    start_logging(settings)
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
    if settings.no_auth and config.api_keys_file is None and not is_loopback(settings.host):
        log.warning(
            "serving %s without API keys (--no-auth)",
            settings.host,
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
        if settings.workers > 1:
            started = supervise(config, settings, sock, url)
        else:
            started = run_server(config, settings, sock, announce)
    finally:
        sock.close()
    if not started:
        raise ServeError("the service did not start (see the log above)")


__all__ = ["serve"]
