"""Engine options: parsing ``option`` lines into typed descriptions, validating values.

During the handshake the engine lists every option it has, one line each::

    option name Hash type spin default 16 min 1 max 33554432        (UCI)
    option name Clear Hash type button
    option name Ponder type check default false
    option name UCI_Variant type combo default chess var 3check var ... var xiangqi
    option name VariantPath type string default <empty>

    option hashsize type spin default 16 min 1 max 33554432         (UCCI)
    option Clear_Hash type button

In UCCI there is no ``name`` word and names cannot contain spaces: Fairy-Stockfish prints
``_`` for each space and calls ``Hash`` ``hashsize`` (older builds, e.g. Debian's 11.1,
keep ``Hash``). Setting an option::

    setoption name Move Overhead value 20       (UCI: the name may contain spaces)
    setoption name Clear Hash                   (UCI button: no value)
    setoption Move_Overhead 20                  (UCCI: one-token name, then the value)

The engine never confirms a ``setoption``. Fairy-Stockfish ignores a value outside the
advertised domain (a ``combo`` value not among the ``var`` entries, a ``spin`` out of
range, an empty value) and *aborts* on a non-numeric ``spin`` value. So the client
validates every value against the advertised description here, and raises
:class:`~protocol.errors.OptionError` rather than sending something that would be lost.

Option names are case-insensitive (UCI says so; FSF compares them that way). Callers
may use either spelling: ``Move Overhead`` and ``Move_Overhead`` find the same option,
and ``Hash`` finds UCCI's ``hashsize``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from protocol.errors import OptionError
from protocol.notation import check_safe

OptionType = Literal["check", "spin", "combo", "button", "string"]
OptionValue = str | int | bool | None
_TYPES: frozenset[str] = frozenset({"check", "spin", "combo", "button", "string"})
_KEYWORDS = frozenset({"type", "default", "min", "max", "var"})


@dataclass(frozen=True, slots=True)
class Option:
    """One option as the engine advertised it (compare :class:`chess.engine.Option`)."""

    name: str
    """The name exactly as the engine spells it (``Move Overhead``; UCCI ``Move_Overhead``)."""
    type: OptionType
    default: str | int | bool | None = None
    """``check``: bool; ``spin``: int; ``combo``/``string``: str; ``button``: None.
    A ``string`` default of ``<empty>`` (Stockfish's spelling of nothing) reads ``""``."""
    min: int | None = None
    max: int | None = None
    var: tuple[str, ...] = field(default=())
    """The allowed values of a ``combo``."""

    def wire_value(self, value: OptionValue) -> str | None:
        """Validate ``value`` and return it as written on the ``setoption`` line.

        Returns None for a button. Raises :class:`OptionError` for a value the engine
        would drop or choke on.
        """
        if self.type == "button":
            if value not in (None, True):
                raise OptionError(f"option {self.name!r} is a button: it takes no value")
            return None
        if value is None:
            raise OptionError(f"option {self.name!r} ({self.type}) needs a value")
        if self.type == "check":
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower()
            raise OptionError(f"option {self.name!r} is a check: true or false, not {value!r}")
        if self.type == "spin":
            if isinstance(value, bool):
                raise OptionError(f"option {self.name!r} is a spin: an integer, not {value!r}")
            try:
                number = int(value, 10) if isinstance(value, str) else int(value)
            except (TypeError, ValueError):
                raise OptionError(
                    f"option {self.name!r} is a spin: an integer, not {value!r}"
                ) from None
            if isinstance(value, float) and value != number:
                raise OptionError(f"option {self.name!r} is a spin: an integer, not {value!r}")
            if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max
            ):
                raise OptionError(
                    f"option {self.name!r}: {number} is outside [{self.min}, {self.max}]"
                )
            return str(number)
        text = check_safe(str(value) if not isinstance(value, str) else value, self.name)
        if not text.strip():
            raise OptionError(f"option {self.name!r}: the engine ignores an empty value")
        if text != " ".join(text.split()):
            raise OptionError(
                f"option {self.name!r}: the engine would collapse the spaces in {text!r}"
            )
        if self.type == "combo":
            for choice in self.var:
                if choice.lower() == text.lower():
                    return choice  # FSF matches combo values case-sensitively
            raise OptionError(f"option {self.name!r}: {text!r} is not one of its values")
        return text


def normalise_name(name: str) -> str:
    """The lookup key of an option name: lower case, spaces as underscores."""
    return name.strip().replace(" ", "_").lower()


def parse_option(line: str, *, ucci: bool = False) -> Option:
    """Parse one ``option …`` line (UCI or UCCI form) into an :class:`Option`.

    >>> parse_option("option name Hash type spin default 16 min 1 max 1024")
    Option(name='Hash', type='spin', default=16, min=1, max=1024, var=())
    >>> parse_option("option Clear_Hash type button", ucci=True).type
    'button'
    """
    tokens = line.split(" ")
    if not tokens or tokens[0] != "option":
        raise ValueError(f"not an option line: {line!r}")
    i = 1
    if i < len(tokens) and tokens[i] == "name":
        i += 1  # UCI (and some UCCI engines) write `name`; FSF's UCCI omits it
    name_parts: list[str] = []
    while i < len(tokens) and tokens[i] != "type":
        name_parts.append(tokens[i])
        i += 1
    name = " ".join(p for p in name_parts if p) if not ucci else "".join(name_parts)
    if not name or i + 1 >= len(tokens):
        raise ValueError(f"option line without a name or type: {line!r}")
    kind = tokens[i + 1]
    if kind not in _TYPES:
        raise ValueError(f"option {name!r} has unknown type {kind!r}")
    i += 2
    fields: dict[str, list[str]] = {}
    var: list[str] = []
    current: list[str] | None = None
    while i < len(tokens):
        token = tokens[i]
        if token in _KEYWORDS and token != "type":
            current = []
            if token == "var":
                var_index = len(var)
                var.append("")
                current = None
                # A var value runs to the next keyword (values may contain spaces).
                parts: list[str] = []
                i += 1
                while i < len(tokens) and tokens[i] not in _KEYWORDS:
                    parts.append(tokens[i])
                    i += 1
                var[var_index] = " ".join(parts)
                continue
            fields[token] = current
        elif current is not None:
            current.append(token)
        i += 1
    raw_default = " ".join(fields.get("default", [])).strip() if "default" in fields else None
    default: str | int | bool | None = raw_default
    lo = hi = None
    try:
        if kind == "check":
            default = raw_default == "true" if raw_default is not None else None
        elif kind == "spin":
            default = int(float(raw_default)) if raw_default else None
            lo = int(" ".join(fields["min"])) if fields.get("min") else None
            hi = int(" ".join(fields["max"])) if fields.get("max") else None
        elif kind == "button":
            default = None
        elif kind == "string" and raw_default == "<empty>":
            default = ""
    except ValueError as exc:
        raise ValueError(f"option {name!r}: bad number in {line!r}") from exc
    return Option(name=name, type=kind, default=default, min=lo, max=hi, var=tuple(var))  # type: ignore[arg-type]


# XBoard's option types -> ours (a slider is a spin shown differently; a file or path
# is a string; save and reset are buttons with side effects in the GUI).
_XBOARD_TYPES: dict[str, OptionType] = {
    "spin": "spin",
    "slider": "spin",
    "check": "check",
    "string": "string",
    "file": "string",
    "path": "string",
    "combo": "combo",
    "button": "button",
    "save": "button",
    "reset": "button",
}


def parse_xboard_option(text: str) -> Option:
    """Parse the value of an XBoard ``feature option="…"`` into an :class:`Option`::

        Hash -spin 64 1 1024          Ponder -check 0          Book -file book.bin
        Style -combo Solid /// *Normal /// Risky               Clear Hash -button

    (the current value of a combo is the one marked ``*``). Raises :class:`ValueError`.

    >>> parse_xboard_option("Style -combo Solid /// *Normal /// Risky").default
    'Normal'
    """
    name, sep, rest = text.partition(" -")
    name = name.strip()
    kind_word, _, args = rest.partition(" ")
    kind = _XBOARD_TYPES.get(kind_word)
    if not sep or not name or kind is None:
        raise ValueError(f"not an XBoard option: {text!r}")
    try:
        if kind == "spin":
            value, low, high = (int(v) for v in args.split())
            return Option(name=name, type=kind, default=value, min=low, max=high)
        if kind == "check":
            return Option(name=name, type=kind, default=int(args.strip()) != 0)
    except ValueError as exc:
        raise ValueError(f"XBoard option {name!r}: bad numbers in {text!r}") from exc
    if kind == "combo":
        choices = [c.strip() for c in args.split("///")]
        default = next((c[1:] for c in choices if c.startswith("*")), None)
        var = tuple(c.removeprefix("*") for c in choices if c)
        return Option(name=name, type=kind, default=default, var=var)
    if kind == "string":
        return Option(name=name, type=kind, default=args.strip())
    return Option(name=name, type=kind)


class OptionMap(Mapping[str, Option]):
    """Options by name, case-insensitive and space/underscore-insensitive.

    In UCCI mode ``Hash`` also finds ``hashsize``.
    """

    def __init__(self, options: list[Option] | None = None, *, ucci: bool = False) -> None:
        self._ucci = ucci
        self._by_key: dict[str, Option] = {}
        for option in options or ():
            self.add(option)

    def add(self, option: Option) -> None:
        self._by_key[normalise_name(option.name)] = option

    def _key(self, name: str) -> str:
        key = normalise_name(name)
        if self._ucci and key == "hash" and key not in self._by_key:
            return "hashsize"
        if key == "hashsize" and key not in self._by_key:
            return "hash"
        return key

    def __getitem__(self, name: str) -> Option:
        return self._by_key[self._key(name)]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._key(name) in self._by_key

    def __iter__(self) -> Iterator[str]:
        return iter(option.name for option in self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def get_option(self, name: str) -> Option:
        """The option called ``name``, or :class:`OptionError` naming the unknown option."""
        try:
            return self[name]
        except KeyError:
            raise OptionError(f"the engine has no option {name!r}") from None

    def __repr__(self) -> str:
        return f"OptionMap({list(self)!r})"
