"""``ladder serve``'s settings: one typed model, :class:`ServeSettings`, each option in it once.

A field of :class:`ServeSettings` is an option, one :func:`option` call: its name and type
are the field's, its default, help and group the call's. From that one definition come

1. the command line: ``max_queue`` is ``--max-queue``
   (:func:`ladder.service.operations.option_sources.add_arguments`);
2. the environment: ``LADDER_`` + the name in capitals (``LADDER_MAX_QUEUE=8``); a
   yes/no option takes ``1/true/yes/on`` or ``0/false/no/off``, a repeatable one a
   comma-separated list;
3. a TOML file, ``--config FILE`` (or ``LADDER_CONFIG``): top-level keys named as the
   options (``max-queue = 8``, ``api-keys = "keys.txt"``, ``allowed-host = ["a", "b"]``);
   a relative path in it is relative to the file's folder;
4. the default.

Each overrides the next (:func:`ladder.service.operations.option_sources.resolve`, which reads
them). Every value goes through the option's own
parser, so a bad one is refused the same way wherever it comes from, with a one-line
:class:`~ladder.service.operations.option_sources.SettingsError` naming the key or the
variable. What the server and its worker
processes receive is the resolved model, and the two things it makes:
:meth:`ServeSettings.service_config` (the engines' side, :class:`ServiceConfig`) and
:meth:`ServeSettings.connection_limits` (HTTP's).

The engine's variable is the engine lookup's own (``LADDER_ENGINE``, or the deprecated
``MISTBOARD_ENGINE``; :mod:`ladder.engine_binary`), so both outrank a file's ``engine``.
The engine found is passed on in the :class:`ServiceConfig`, never through the
environment.

To add an option: add a field here, ``name: type = option(help, default=...)`` (and, if
the service needs it, to :class:`ServiceConfig` and :meth:`ServeSettings.service_config`).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from ladder.arg_types import (
    non_negative_float,
    non_negative_int,
    port_number,
    positive_float,
    positive_int,
)
from ladder.cli_options import LEVELS_FILE_HELP
from ladder.level_times import LevelTimes
from ladder.service.http.http_protocol import (
    MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
    REQUEST_TIMEOUT_S,
    ConnectionLimits,
)
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S
from ladder.service.operations.logs import LogFormat, default_format

Group = Literal["", "access", "connections", "operations", "analysis"]


# ---------------------------------------------------------------------------------------
# Parsers: text to value, refusing what cannot be (argparse's types, and ours)


def host_pattern(text: str) -> str:
    """A Host header the service accepts: a name or address without a port (the check
    ignores the port), ``*.`` before a domain for its subdomains."""
    host = text.strip()
    if not host:
        raise argparse.ArgumentTypeError("must be a host name, got an empty one")
    if any(c.isspace() for c in host) or "/" in host:
        raise argparse.ArgumentTypeError(
            f"must be a bare host name (no scheme, path or space), got {text!r}"
        )
    if ":" in host:
        try:
            return str(ipaddress.IPv6Address(host.strip("[]")))  # as the check compares it
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be a host without a port (the port is not checked), got {text!r}"
            ) from None
    return host


# ---------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class Help:
    """An option's metadata beyond its name, type and default."""

    text: str
    group: Group = ""
    parse: Callable[[str], Any] = str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    #: The variables read for it (default: ``LADDER_`` + its name).
    env: tuple[str, ...] = ()


T = TypeVar("T")


@overload
def option(text: str, *, default: T, **help: Any) -> T: ...
@overload
def option(text: str, *, default_factory: Callable[[], T], **help: Any) -> T: ...
def option(
    text: str,
    *,
    default: Any = dataclasses.MISSING,
    default_factory: Any = dataclasses.MISSING,
    **help: Any,
) -> Any:
    """A :class:`ServeSettings` field: its default, and its help (and :class:`Help`'s
    rest) as its metadata."""
    metadata = {"option": Help(text, **help)}
    if default_factory is not dataclasses.MISSING:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def _service_default(name: str) -> Any:
    """A :class:`ServiceConfig` field's default (the service's, defined there once)."""
    spec = ServiceConfig.__dataclass_fields__[name]
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory
    return spec.default


@dataclass(frozen=True)
class ServeSettings:
    """Every ``ladder serve`` option (see the module docstring); the server and each of
    its worker processes get one of these."""

    host: str = option("address to listen on (default: loopback)", default="127.0.0.1")
    port: int = option("0: any free port (printed)", default=8000, parse=port_number)
    engine: Path | None = option(  # noqa: RUF009 (option() is field())
        "the engine to run (default: $LADDER_ENGINE, then the per-user cache, then "
        "the checkout's build)",
        default=None,
        parse=Path,
        metavar="PATH",
        env=("LADDER_ENGINE", "MISTBOARD_ENGINE"),
    )
    levels: Path | None = option(  # noqa: RUF009 (option() is field())
        LEVELS_FILE_HELP,  # as `ladder move` and `ladder levels` say it
        default=None,
        parse=Path,
        metavar="FILE",
    )
    level_times: Path | None = option(  # noqa: RUF009 (option() is field())
        "each level's time a move measured on this machine, what /v1/levels says "
        "(`ladder levels --measure` writes it; default: the per-user cache's file, if "
        "there; without one, the calibrated or estimated times)",
        default=None,
        parse=Path,
        metavar="FILE",
    )
    levels_version: str | None = option(
        "pin the ladder: refuse to start unless the levels file's version (the first "
        "12 hex digits of its SHA-256, as in every move answer) is this one",
        default=None,
        parse=str,
        metavar="VERSION",
    )
    engines: int = option(
        "engine processes in all (default: the CPUs this process may use, by its CPU "
        "affinity and cgroup quota)",
        default_factory=_service_default("engines"),
        parse=positive_int,
    )
    short_engines: int | None = option(
        "engines a slow level's search (over 100,000 nodes: levels 7 and 8) never "
        "takes, kept for the fast levels, per worker (default: 1 with 2 engines or more)",
        default=None,
        parse=non_negative_int,
        metavar="N",
    )
    workers: int = option(
        "server processes behind the one port, each with its share of --engines "
        "(default 1; at most --engines)",
        default=1,
        parse=positive_int,
    )
    max_queue: int = option(
        "requests that may wait for an engine before 503 busy, per worker",
        default=_service_default("max_queue"),
        parse=non_negative_int,
    )
    queue_timeout: float = option(
        "longest wait for an engine before 503 busy (a clocked move waits on its clock instead)",
        default=_service_default("queue_timeout_s"),
        parse=positive_float,
        metavar="SECONDS",
    )
    api_keys: Path | None = option(  # noqa: RUF009 (option() is field())
        "API keys, one per line (optional label after it, # comments); /v1/* then "
        "needs 'Authorization: Bearer KEY'; re-read on SIGHUP",
        default=None,
        group="access",
        parse=Path,
        metavar="FILE",
    )
    no_auth: bool = option(
        "allow a non-loopback --host without --api-keys", default=False, group="access"
    )
    rate_limit: int | None = option(
        "requests per minute per key (per client address without keys), counted by "
        "each worker; over it 429",
        default=None,
        group="access",
        parse=positive_int,
        metavar="N",
    )
    cors_origin: tuple[str, ...] = option(
        "allow browser calls from this origin (repeatable), e.g. https://play.example.com",
        default=(),
        group="access",
        metavar="ORIGIN",
    )
    allowed_host: tuple[str, ...] = option(
        "accept only these Host headers (repeatable; *.example.com for subdomains)",
        default=(),
        group="access",
        parse=host_pattern,
        metavar="HOST",
    )
    forwarded_allow_ips: str = option(
        "proxies trusted for X-Forwarded-For (comma-separated, * for any)",
        default="127.0.0.1",
        group="access",
        metavar="IPS",
    )
    max_header_bytes: int = option(
        "request line + headers, at most; over: 431",
        default=MAX_HEADER_BYTES,
        group="connections",
        parse=positive_int,
    )
    request_timeout: float = option(
        "time to send a complete request; then 408 and closed",
        default=REQUEST_TIMEOUT_S,
        group="connections",
        parse=positive_float,
        metavar="SECONDS",
    )
    max_connections: int = option(
        "open connections, at most, per worker; over: 503",
        default=MAX_CONNECTIONS,
        group="connections",
        parse=positive_int,
    )
    keep_alive: int = option(
        "idle time before a keep-alive connection is closed",
        default=5,
        group="connections",
        parse=positive_int,
        metavar="SECONDS",
    )
    drain_timeout: float = option(
        "after SIGTERM, time the requests in flight get before they are answered 503 "
        "shutting_down (default: a level-8 search, with a margin)",
        default=DRAIN_TIMEOUT_S,
        group="operations",
        parse=positive_float,
        metavar="SECONDS",
    )
    drain_delay: float = option(
        "after SIGTERM, time /readyz answers 503 while the port still accepts, so that "
        "a load balancer stops sending first",
        default=DRAIN_DELAY_S,
        group="operations",
        parse=non_negative_float,
        metavar="SECONDS",
    )
    engine_max_rss: int | None = option(
        "recycle an engine whose memory exceeds this, between searches (default: never)",
        default=None,
        group="operations",
        parse=positive_int,
        metavar="MIB",
    )
    log_format: LogFormat = option(  # noqa: RUF009 (option() is field())
        "log lines on stderr (default: json unless stderr is a terminal)",
        default_factory=default_format,
        group="operations",
        choices=("json", "text"),
    )
    log_level: str = option(
        "how much is logged",
        default="info",
        group="operations",
        choices=("debug", "info", "warning", "error", "critical"),
    )
    no_play: bool = option(
        "do not serve the /play page (the browser client)", default=False, group="operations"
    )

    analysis_nodes: int = option(
        "nodes a position of POST /v1/analysis when the request names none (level 8 "
        "searches up to 600,000: a weaker analysis may call its moves mistakes)",
        default=_service_default("analysis_nodes"),
        group="analysis",
        parse=positive_int,
    )
    analysis_max_nodes: int = option(
        "the most nodes a position an analysis may ask for",
        default=_service_default("analysis_max_nodes"),
        group="analysis",
        parse=positive_int,
    )
    analysis_max_plies: int = option(
        "the most plies one analysis request searches (from its from_ply), in plies",
        default=_service_default("analysis_max_plies"),
        group="analysis",
        parse=positive_int,
    )
    analysis_max_jobs: int = option(
        "analyses one key (or client address) may run at once, per worker; over: 429",
        default=_service_default("analysis_jobs_per_client"),
        group="analysis",
        parse=positive_int,
    )
    analysis_cache: int = option(
        "finished analyses kept in memory, per worker (0: none)",
        default=_service_default("analysis_cache_games"),
        group="analysis",
        parse=non_negative_int,
        metavar="GAMES",
    )

    def service_config(
        self, engine_path: Path, levels_file: Path, level_times: LevelTimes | None = None
    ) -> ServiceConfig:
        """The engines' side of these settings, on the engine, levels file and level
        times found."""
        return ServiceConfig(
            engines=self.engines,
            levels_file=levels_file,
            level_times=level_times,
            max_queue=self.max_queue,
            queue_timeout_s=self.queue_timeout,
            engine_path=engine_path,
            engine_max_rss_mb=self.engine_max_rss,
            short_engines=self.short_engines,
            api_keys_file=self.api_keys,
            rate_limit_per_minute=self.rate_limit,
            allowed_hosts=self.allowed_host,
            cors_origins=self.cors_origin,
            play_page=not self.no_play,
            analysis_nodes=self.analysis_nodes,
            analysis_max_nodes=self.analysis_max_nodes,
            analysis_max_plies=self.analysis_max_plies,
            analysis_jobs_per_client=self.analysis_max_jobs,
            analysis_cache_games=self.analysis_cache,
        )

    def connection_limits(self) -> ConnectionLimits:
        """What one connection may do (:mod:`ladder.service.http.http_protocol`)."""
        return ConnectionLimits(
            max_header_bytes=self.max_header_bytes,
            request_timeout_s=self.request_timeout,
            max_connections=self.max_connections,
        )


__all__ = [
    "Help",
    "ServeSettings",
    "non_negative_int",
    "option",
    "port_number",
    "positive_float",
    "positive_int",
]
