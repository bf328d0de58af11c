"""``ladder serve``'s options from four places, each overriding the next:

1. the command line (``--port 8001``);
2. the environment: ``LADDER_`` + the option's name in capitals, dashes as underscores
   (``LADDER_PORT=8001``, ``LADDER_API_KEYS=/etc/ladder/keys``); a yes/no option takes
   ``1/true/yes/on`` or ``0/false/no/off``, a repeatable one a comma-separated list;
3. a TOML file, ``--config FILE`` (or ``LADDER_CONFIG``): top-level keys named as the
   options (``port = 8001``, ``api-keys = "keys.txt"``, ``allowed-host = ["a", "b"]``);
   a relative path in it is relative to the file's folder;
4. the defaults (``ladder serve --help``).

The options are the serve parser's own (:func:`resolve` reads its actions), so a new
option gets its variable and its key without more code. Every value goes through the
option's own argparse type, so a bad one is refused the same way wherever it comes from,
with a one-line :class:`SettingsError` naming the key or the variable.

The engine is the exception: ``LADDER_ENGINE`` is the engine lookup's own variable
(:mod:`ladder.engine_binary`, unchanged); a file's ``engine`` key is used only when
neither ``--engine`` nor that variable names one.
"""

from __future__ import annotations

import argparse
import difflib
import os
import tomllib
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: What every option's variable starts with.
ENV_PREFIX = "LADDER_"
#: The variable naming the config file when ``--config`` does not.
CONFIG_ENV = ENV_PREFIX + "CONFIG"
#: The option whose variable belongs to the engine lookup (ladder.engine_binary).
ENGINE_DEST = "engine"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


class SettingsError(ValueError):
    """A config file or an environment variable that cannot be used (one line)."""


@dataclass(frozen=True)
class Option:
    """One serve option, as the parser defines it."""

    dest: str
    name: str  #: the long option without its dashes: the file's key
    kind: str  #: "flag" (yes/no), "list" (repeatable) or "value"
    convert: Callable[[str], Any]
    choices: tuple[str, ...] | None

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace("-", "_")

    @property
    def toml_type(self) -> type:
        """The TOML value type the option takes (its converter's return type)."""
        if self.kind == "flag":
            return bool
        if isinstance(self.convert, type):
            return str if issubclass(self.convert, str | os.PathLike) else self.convert
        hints = typing.get_type_hints(self.convert)
        result = hints.get("return", str)
        return result if isinstance(result, type) else str


def options_of(parser: argparse.ArgumentParser, skip: Iterable[str] = ()) -> list[Option]:
    """The options of `parser` (help and the dests in `skip` left out)."""
    out = []
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or action.dest in ("help", *skip):
            continue
        if isinstance(action, argparse._StoreTrueAction):
            kind = "flag"
        elif isinstance(action, argparse._AppendAction):
            kind = "list"
        else:
            kind = "value"
        convert = action.type if callable(action.type) else str
        choices = tuple(str(c) for c in action.choices) if action.choices else None
        out.append(Option(action.dest, longs[0][2:], kind, convert, choices))
    return out


def _convert(option: Option, text: str, where: str) -> Any:
    """`text` through the option's own type and choices; SettingsError naming `where`."""
    try:
        value = option.convert(text)
    except argparse.ArgumentTypeError as exc:
        raise SettingsError(f"{where}: {exc}") from None
    except ValueError:
        wanted = _TYPE_NAMES.get(option.toml_type, option.toml_type.__name__)
        raise SettingsError(f"{where}: expected {wanted}, got {text!r}") from None
    if option.choices is not None and str(value) not in option.choices:
        raise SettingsError(f"{where}: {text!r} is not one of {', '.join(option.choices)}")
    return value


def from_environment(option: Option, environ: Mapping[str, str]) -> Any:
    """The option's value from its ``LADDER_*`` variable, None if it is unset or empty."""
    text = environ.get(option.env, "").strip()
    if not text:
        return None
    where = f"{option.env}={text!r}"
    if option.kind == "flag":
        word = text.lower()
        if word not in _TRUE | _FALSE:
            raise SettingsError(f"{where}: expected 1/true/yes/on or 0/false/no/off")
        return word in _TRUE
    if option.kind == "list":
        return [_convert(option, item.strip(), where) for item in text.split(",") if item.strip()]
    return _convert(option, text, where)


def read_config(path: Path, options: list[Option]) -> dict[str, Any]:
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
    by_name = {o.name: o for o in options}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        option = by_name.get(key.replace("_", "-"))
        if option is None:
            close = difflib.get_close_matches(key.replace("_", "-"), by_name, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SettingsError(f"{where}: unknown key {key!r}{hint}")
        values[option.dest] = _from_toml(option, raw, path, f"{where}: {key!r}")
    return values


def _from_toml(option: Option, raw: Any, path: Path, where: str) -> Any:
    wanted = option.toml_type
    if option.kind == "list":
        items = raw if isinstance(raw, list) else [raw]
        return [_from_toml_value(option, item, wanted, path, where) for item in items]
    return _from_toml_value(option, raw, wanted, path, where)


def _from_toml_value(option: Option, raw: Any, wanted: type, path: Path, where: str) -> Any:
    allowed: tuple[type, ...] = (int, float) if wanted is float else (wanted,)
    # TOML's true is a Python bool, which is also an int: not a number here.
    if not isinstance(raw, allowed) or (isinstance(raw, bool) and wanted is not bool):
        expected = "a list of strings" if option.kind == "list" else _TYPE_NAMES.get(wanted, "")
        raise SettingsError(f"{where} must be {expected}, not {_toml_name(raw)} ({raw!r})")
    if option.kind == "flag":
        return raw
    value = _convert(option, str(raw), where)
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
    """The options' values, and where each came from (for the start-up log)."""

    values: dict[str, Any]
    sources: dict[str, str]
    engine_from_file: Path | None


def resolve(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    defaults: Mapping[str, Any],
    environ: Mapping[str, str],
    config: Path | None,
) -> Resolved:
    """Each option's value: the command line's (not None in `args`), else its variable's,
    else the config file's, else `defaults`' (parser defaults are None for this)."""
    options = options_of(parser, skip=("config",))
    config = config or (Path(environ[CONFIG_ENV]) if environ.get(CONFIG_ENV) else None)
    from_file = read_config(config, options) if config is not None else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for option in options:
        if option.dest == ENGINE_DEST:
            continue  # the engine lookup's (see the module docstring)
        given = getattr(args, option.dest, None)
        env = from_environment(option, environ) if given is None else None
        if given is not None:
            values[option.dest], sources[option.dest] = given, "command line"
        elif env is not None:
            values[option.dest], sources[option.dest] = env, option.env
        elif option.dest in from_file:
            values[option.dest], sources[option.dest] = from_file[option.dest], str(config)
        else:
            values[option.dest], sources[option.dest] = defaults.get(option.dest), "default"
    engine = from_file.get(ENGINE_DEST)
    return Resolved(values, sources, engine)


__all__ = [
    "CONFIG_ENV",
    "ENV_PREFIX",
    "Option",
    "Resolved",
    "SettingsError",
    "from_environment",
    "options_of",
    "read_config",
    "resolve",
]
