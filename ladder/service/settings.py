"""``ladder serve``'s settings: one typed model, :class:`ServeSettings`, each option in it once.

A field of :class:`ServeSettings` is an option: its name, type and default are the
field's, its help and group its :func:`option` metadata. From that one definition come

1. the command line: ``max_queue`` is ``--max-queue`` (:func:`add_arguments`);
2. the environment: ``LADDER_`` + the name in capitals (``LADDER_MAX_QUEUE=8``); a
   yes/no option takes ``1/true/yes/on`` or ``0/false/no/off``, a repeatable one a
   comma-separated list;
3. a TOML file, ``--config FILE`` (or ``LADDER_CONFIG``): top-level keys named as the
   options (``max-queue = 8``, ``api-keys = "keys.txt"``, ``allowed-host = ["a", "b"]``);
   a relative path in it is relative to the file's folder;
4. the default.

Each overrides the next (:func:`resolve`). Every value goes through the option's own
parser, so a bad one is refused the same way wherever it comes from, with a one-line
:class:`SettingsError` naming the key or the variable. What the server and its worker
processes receive is the resolved model, and the two things it makes:
:meth:`ServeSettings.service_config` (the engines' side, :class:`ServiceConfig`) and
:meth:`ServeSettings.connection_limits` (HTTP's).

The engine's variable is the engine lookup's own (``LADDER_ENGINE``, or the deprecated
``MISTBOARD_ENGINE``; :mod:`ladder.engine_binary`), so both outrank a file's ``engine``.
The engine found is passed on in the :class:`ServiceConfig`, never through the
environment.

To add an option: add a field here (and, if the service needs it, to
:class:`ServiceConfig` and :meth:`ServeSettings.service_config`).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ladder.service.config import ServiceConfig
from ladder.service.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S
from ladder.service.http_protocol import (
    MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
    REQUEST_TIMEOUT_S,
    ConnectionLimits,
)
from ladder.service.logs import LogFormat, default_format

#: What every option's variable starts with.
ENV_PREFIX = "LADDER_"
#: The variable naming the config file when ``--config`` does not.
CONFIG_ENV = ENV_PREFIX + "CONFIG"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}

Group = Literal["", "access", "connections", "operations"]


class SettingsError(ValueError):
    """A config file or an environment variable that cannot be used (one line)."""


# ---------------------------------------------------------------------------------------
# Parsers: text to value, refusing what cannot be (argparse's types, and ours)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def port_number(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535, got {value}")
    return value


def non_negative_float(text: str) -> float:
    value = float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


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


def option(text: str, **help: Any) -> dict[str, Help]:
    """A :class:`ServeSettings` field's metadata: its help (and :class:`Help`'s rest)."""
    return {"option": Help(text, **help)}


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

    host: str = field(
        default="127.0.0.1", metadata=option("address to listen on (default: loopback)")
    )
    port: int = field(
        default=8000, metadata=option("0: any free port (printed)", parse=port_number)
    )
    engine: Path | None = field(
        default=None,
        metadata=option(
            "the engine to run (default: $LADDER_ENGINE, then the per-user cache, then "
            "the checkout's build)",
            parse=Path,
            metavar="PATH",
            env=("LADDER_ENGINE", "MISTBOARD_ENGINE"),
        ),
    )
    levels: Path | None = field(
        default=None,
        metadata=option(
            "levels file (default: the shipped ladder, `ladder/levels.toml`)",
            parse=Path,
            metavar="FILE",
        ),
    )
    engines: int = field(
        default_factory=_service_default("engines"),
        metadata=option(
            "engine processes in all (default: the CPUs this process may use, by its CPU "
            "affinity and cgroup quota)",
            parse=positive_int,
        ),
    )
    short_engines: int | None = field(
        default=None,
        metadata=option(
            "engines a slow level's search (over 100,000 nodes: levels 7 and 8) never "
            "takes, kept for the fast levels, per worker (default: 1 with 2 engines or more)",
            parse=non_negative_int,
            metavar="N",
        ),
    )
    workers: int = field(
        default=1,
        metadata=option(
            "server processes behind the one port, each with its share of --engines "
            "(default 1; at most --engines)",
            parse=positive_int,
        ),
    )
    max_queue: int = field(
        default=_service_default("max_queue"),
        metadata=option(
            "requests that may wait for an engine before 503 busy, per worker",
            parse=non_negative_int,
        ),
    )
    queue_timeout: float = field(
        default=_service_default("queue_timeout_s"),
        metadata=option(
            "longest wait for an engine before 503 busy", parse=positive_float, metavar="SECONDS"
        ),
    )
    api_keys: Path | None = field(
        default=None,
        metadata=option(
            "API keys, one per line (optional label after it, # comments); /v1/* then "
            "needs 'Authorization: Bearer KEY'; re-read on SIGHUP",
            group="access",
            parse=Path,
            metavar="FILE",
        ),
    )
    no_auth: bool = field(
        default=False,
        metadata=option("allow a non-loopback --host without --api-keys", group="access"),
    )
    rate_limit: int | None = field(
        default=None,
        metadata=option(
            "requests per minute per key (per client address without keys), counted by "
            "each worker; over it 429",
            group="access",
            parse=positive_int,
            metavar="N",
        ),
    )
    cors_origin: tuple[str, ...] = field(
        default=(),
        metadata=option(
            "allow browser calls from this origin (repeatable), e.g. https://play.example.com",
            group="access",
            metavar="ORIGIN",
        ),
    )
    allowed_host: tuple[str, ...] = field(
        default=(),
        metadata=option(
            "accept only these Host headers (repeatable; *.example.com for subdomains)",
            group="access",
            metavar="HOST",
        ),
    )
    forwarded_allow_ips: str = field(
        default="127.0.0.1",
        metadata=option(
            "proxies trusted for X-Forwarded-For (comma-separated, * for any)",
            group="access",
            metavar="IPS",
        ),
    )
    max_header_bytes: int = field(
        default=MAX_HEADER_BYTES,
        metadata=option(
            "request line + headers, at most; over: 431", group="connections", parse=positive_int
        ),
    )
    request_timeout: float = field(
        default=REQUEST_TIMEOUT_S,
        metadata=option(
            "time to send a complete request; then 408 and closed",
            group="connections",
            parse=positive_float,
            metavar="SECONDS",
        ),
    )
    max_connections: int = field(
        default=MAX_CONNECTIONS,
        metadata=option(
            "open connections, at most, per worker; over: 503",
            group="connections",
            parse=positive_int,
        ),
    )
    keep_alive: int = field(
        default=5,
        metadata=option(
            "idle time before a keep-alive connection is closed",
            group="connections",
            parse=positive_int,
            metavar="SECONDS",
        ),
    )
    drain_timeout: float = field(
        default=DRAIN_TIMEOUT_S,
        metadata=option(
            "after SIGTERM, time the requests in flight get before they are answered 503 "
            "shutting_down (default: a level-8 search, with a margin)",
            group="operations",
            parse=positive_float,
            metavar="SECONDS",
        ),
    )
    drain_delay: float = field(
        default=DRAIN_DELAY_S,
        metadata=option(
            "after SIGTERM, time /readyz answers 503 while the port still accepts, so that "
            "a load balancer stops sending first",
            group="operations",
            parse=non_negative_float,
            metavar="SECONDS",
        ),
    )
    engine_max_rss: int | None = field(
        default=None,
        metadata=option(
            "recycle an engine whose memory exceeds this, between searches (default: never)",
            group="operations",
            parse=positive_int,
            metavar="MIB",
        ),
    )
    log_format: LogFormat = field(
        default_factory=default_format,
        metadata=option(
            "log lines on stderr (default: json unless stderr is a terminal)",
            group="operations",
            choices=("json", "text"),
        ),
    )
    log_level: str = field(
        default="info",
        metadata=option(
            "how much is logged",
            group="operations",
            choices=("debug", "info", "warning", "error", "critical"),
        ),
    )
    no_play: bool = field(
        default=False,
        metadata=option("do not serve the /play page (the browser client)", group="operations"),
    )

    def service_config(self, engine_path: Path, levels_file: Path) -> ServiceConfig:
        """The engines' side of these settings, on the engine and levels file found."""
        return ServiceConfig(
            engines=self.engines,
            levels_file=levels_file,
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
        )

    def connection_limits(self) -> ConnectionLimits:
        """What one connection may do (:mod:`ladder.service.http_protocol`)."""
        return ConnectionLimits(
            max_header_bytes=self.max_header_bytes,
            request_timeout_s=self.request_timeout,
            max_connections=self.max_connections,
        )


# ---------------------------------------------------------------------------------------
# The options, as the command line, the environment and a file see them


@dataclass(frozen=True)
class Option:
    """One field of :class:`ServeSettings` as an option."""

    dest: str  #: the field's name
    kind: Literal["flag", "list", "value"]  #: yes/no, repeatable, or one value
    value_type: type  #: what one value is: bool, int, float, str or Path
    help: Help
    default: Any

    @property
    def name(self) -> str:
        """The long option without its dashes: the file's key."""
        return self.dest.replace("_", "-")

    @property
    def flag(self) -> str:
        return "--" + self.name

    @property
    def env(self) -> tuple[str, ...]:
        return self.help.env or (ENV_PREFIX + self.dest.upper(),)

    @property
    def toml_type(self) -> type:
        """The TOML value type the option takes."""
        return str if issubclass(self.value_type, os.PathLike) else self.value_type


def _value_type(hint: Any) -> tuple[Literal["flag", "list", "value"], type]:
    """(kind, type of one value) of a field's type hint."""
    if hint is bool:
        return "flag", bool
    origin = typing.get_origin(hint)
    if origin is tuple:
        return "list", typing.get_args(hint)[0]
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        return _value_type(inner[0])
    if origin is Literal:
        return "value", str
    return "value", hint


def options() -> list[Option]:
    """Every option, in the model's order."""
    hints = typing.get_type_hints(ServeSettings)
    out = []
    for spec in dataclasses.fields(ServeSettings):
        kind, value_type = _value_type(hints[spec.name])
        default = (
            spec.default_factory()
            if spec.default_factory is not dataclasses.MISSING
            else spec.default
        )
        out.append(Option(spec.name, kind, value_type, spec.metadata["option"], default))
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option as a flag of ``parser`` (with ``--config``). A flag not given leaves
    no value (SUPPRESS; ``ladder --engine PATH serve`` keeps the one given before the
    subcommand's name): :func:`resolve` then looks further."""
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"a TOML file of these options (keys as the option names: port = 8000, "
        f'api-keys = "keys.txt"); default: ${CONFIG_ENV}',
    )
    groups: dict[str, Any] = {"": parser}
    for opt in options():
        group = groups.get(opt.help.group)
        if group is None:
            group = groups[opt.help.group] = parser.add_argument_group(opt.help.group)
        text = opt.help.text
        if "default" not in text and opt.kind == "value" and opt.default is not None:
            text += (
                f" (default {opt.default:g})"
                if isinstance(opt.default, float)
                else (f" (default {opt.default})")
            )
        if opt.kind == "flag":
            group.add_argument(opt.flag, action="store_true", default=argparse.SUPPRESS, help=text)
            continue
        group.add_argument(
            opt.flag,
            action="append" if opt.kind == "list" else "store",
            type=opt.help.parse,
            choices=opt.help.choices,
            metavar=opt.help.metavar,
            default=argparse.SUPPRESS,
            help=text,
        )


def _convert(opt: Option, text: str, where: str) -> Any:
    """`text` through the option's own parser and choices; SettingsError naming `where`."""
    try:
        value = opt.help.parse(text)
    except argparse.ArgumentTypeError as exc:
        raise SettingsError(f"{where}: {exc}") from None
    except ValueError:
        wanted = _TYPE_NAMES.get(opt.toml_type, opt.toml_type.__name__)
        raise SettingsError(f"{where}: expected {wanted}, got {text!r}") from None
    if opt.help.choices is not None and str(value) not in opt.help.choices:
        raise SettingsError(f"{where}: {text!r} is not one of {', '.join(opt.help.choices)}")
    return value


def from_environment(opt: Option, environ: Mapping[str, str]) -> tuple[Any, str] | None:
    """The option's value from its first variable set (and that variable), None if none
    is set or all are empty."""
    for variable in opt.env:
        text = environ.get(variable, "").strip()
        if text:
            return _from_text(opt, text, f"{variable}={text!r}"), variable
    return None


def _from_text(opt: Option, text: str, where: str) -> Any:
    if opt.kind == "flag":
        word = text.lower()
        if word not in _TRUE | _FALSE:
            raise SettingsError(f"{where}: expected 1/true/yes/on or 0/false/no/off")
        return word in _TRUE
    if opt.kind == "list":
        return tuple(_convert(opt, item.strip(), where) for item in text.split(",") if item.strip())
    return _convert(opt, text, where)


def read_config(path: Path) -> dict[str, Any]:
    """{dest: value} from a TOML config file; SettingsError for an unreadable file, an
    unknown key or a value of the wrong type."""
    where = f"config file {path}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"cannot read {where}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{where}: invalid TOML: {exc}") from None
    by_name = {o.name: o for o in options()}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        opt = by_name.get(key.replace("_", "-"))
        if opt is None:
            close = difflib.get_close_matches(key.replace("_", "-"), by_name, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SettingsError(f"{where}: unknown key {key!r}{hint}")
        values[opt.dest] = _from_toml(opt, raw, path, f"{where}: {key!r}")
    return values


def _from_toml(opt: Option, raw: Any, path: Path, where: str) -> Any:
    if opt.kind == "list":
        items = raw if isinstance(raw, list) else [raw]
        return tuple(_from_toml_value(opt, item, path, where) for item in items)
    return _from_toml_value(opt, raw, path, where)


def _from_toml_value(opt: Option, raw: Any, path: Path, where: str) -> Any:
    wanted = opt.toml_type
    allowed: tuple[type, ...] = (int, float) if wanted is float else (wanted,)
    # TOML's true is a Python bool, which is also an int: not a number here.
    if not isinstance(raw, allowed) or (isinstance(raw, bool) and wanted is not bool):
        expected = "a list of strings" if opt.kind == "list" else _TYPE_NAMES.get(wanted, "")
        raise SettingsError(f"{where} must be {expected}, not {_toml_name(raw)} ({raw!r})")
    if opt.kind == "flag":
        return raw
    value = _convert(opt, str(raw), where)
    if isinstance(value, Path) and not value.is_absolute():
        value = path.parent / value  # relative to the file, wherever the server starts
    return value


def _toml_name(raw: Any) -> str:
    if isinstance(raw, bool):
        return "a boolean"
    for kind, name in ((int, "an integer"), (float, "a number"), (str, "a string")):
        if isinstance(raw, kind):
            return name
    return "a list" if isinstance(raw, list) else "a table" if isinstance(raw, dict) else "other"


@dataclass(frozen=True)
class Resolved:
    """The settings, and where each value came from (for the start-up log)."""

    settings: ServeSettings
    sources: dict[str, str]


def resolve(args: argparse.Namespace, environ: Mapping[str, str]) -> Resolved:
    """Each option's value: the command line's (not None in `args`), else its variable's,
    else the config file's (``args.config``, else ``$LADDER_CONFIG``), else the default."""
    config = getattr(args, "config", None) or (
        Path(environ[CONFIG_ENV]) if environ.get(CONFIG_ENV) else None
    )
    from_file = read_config(config) if config is not None else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for opt in options():
        given = getattr(args, opt.dest, None)
        env = from_environment(opt, environ) if given is None else None
        if given is not None:
            value, source = given, "command line"
            if opt.kind == "list":
                value = tuple(value)
        elif env is not None:
            value, source = env
        elif opt.dest in from_file:
            value, source = from_file[opt.dest], str(config)
        else:
            value, source = opt.default, "default"
        values[opt.dest], sources[opt.dest] = value, source
    return Resolved(ServeSettings(**values), sources)


__all__ = [
    "CONFIG_ENV",
    "ENV_PREFIX",
    "Help",
    "Option",
    "Resolved",
    "ServeSettings",
    "SettingsError",
    "add_arguments",
    "from_environment",
    "option",
    "options",
    "read_config",
    "resolve",
]
