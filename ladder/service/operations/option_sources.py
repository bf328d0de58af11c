"""Where a ``ladder serve`` option's value comes from: the command line (the flags
:func:`add_arguments` makes), a ``LADDER_*`` variable, a ``--config`` TOML file, or the
default, in that order (:func:`resolve`). The options themselves are the fields of
:class:`ladder.service.operations.settings.ServeSettings`; nothing here names one.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ladder.service.operations.settings import Help, ServeSettings

#: What every option's variable starts with.
ENV_PREFIX = "LADDER_"
#: The variable naming the config file when ``--config`` does not.
CONFIG_ENV = ENV_PREFIX + "CONFIG"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


class SettingsError(ValueError):
    """A config file or an environment variable that cannot be used (one line)."""


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
    spelled: dict[str, str] = {}  # dest: the key that gave it
    for key, raw in data.items():
        opt = by_name.get(key.replace("_", "-"))
        if opt is None:
            close = difflib.get_close_matches(key.replace("_", "-"), by_name, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SettingsError(f"{where}: unknown key {key!r}{hint}")
        if opt.dest in spelled:  # TOML sees two keys; one would silently win
            raise SettingsError(f"{where}: {spelled[opt.dest]!r} and {key!r} are one option")
        spelled[opt.dest] = key
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
    "Option",
    "Resolved",
    "SettingsError",
    "add_arguments",
    "from_environment",
    "options",
    "read_config",
    "resolve",
]
