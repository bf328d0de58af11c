"""Player specs: who plays a match game, as the ladder's short strings write it
(``ladder match`` positional arguments), one :class:`PlayerSpec`:

* ``level:5`` / ``elo:1200`` -- a level of the ladder (ladder/levels.toml), or the
  settings interpolated at an Elo (:func:`ladder.levels.at_elo`). Keys: ``engine=PATH``,
  ``levels=PATH``, ``name=...``, ``variety=off`` (the level without its variety rule).
* ``engine:PATH,protocol=ucci,nodes=20000,Hash=16`` -- any engine. Keys: ``protocol``
  (uci/ucci/xboard), ``ranks`` (0-9 or 1-10: how the engine numbers a xiangqi board's
  ranks, when not its protocol's default; UCCI finds out by itself), the limit
  (``nodes``, ``depth``, ``movetime`` ms, ``st`` seconds, ``tc`` a time control, see
  :mod:`ladder.match.game.clocks`), ``timemargin`` (ms), ``name``,
  ``args`` (command-line arguments, split as a shell would), ``dir`` (working
  directory), ``variants`` (a variants.ini to load; ``none`` for an engine without
  VariantPath), ``uci_variant=none`` (never set UCI_Variant), ``newgame=move`` (clear
  the hash before every search), ``fen`` (fsf/xboard: the letters the engine reads a
  xiangqi FEN in; found by the check before a match otherwise), ``timeout`` (seconds:
  every search's deadline; otherwise, for a depth or node limit, found by that check).
  Any other ``Key=value`` is an engine option.
  ``Threads`` is 1. A value (the path too) may be double-quoted, so that it can hold a
  comma: ``engine:"/opt/my,engine",nodes=100``.
* ``random`` / ``greedy`` / ``novice`` -- the seeded baselines (key ``name=``).

cutechess-cli's engine form (``-engine cmd=PATH proto=uci ...``) is read by
:mod:`ladder.match.players.cutechess_form` and ends in :func:`build_engine` too.

Each kind has its own parser; :func:`parse_player` picks it by the spec's head. A spec
that cannot be understood raises :class:`PlayerSpecError` naming the problem.

A spec's identity (:meth:`PlayerSpec.identity_text`, :meth:`PlayerSpec.settings`, the
latter from :mod:`ladder.match.players.level_identity`) is part of a match's id: it must
never change for a spec that already exists, or stored matches (calibration's among them)
would no longer be found.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ladder.engine_binary import engine_path
from ladder.level_engine.strength import strength
from ladder.levels import LEVEL_NUMBERS, LEVELS_FILE, Level, LevelsError, load_levels
from ladder.match.game.clocks import TimeControl, TimeControlError
from ladder.match.players.level_identity import level_identity

__all__ = [
    "ENGINE_KEYS",
    "ENGINE_PROTOCOLS",
    "PlayerSpec",
    "PlayerSpecError",
    "build_engine",
    "parse_player",
]

#: The protocols an ``engine`` player may speak.
ENGINE_PROTOCOLS = ("uci", "ucci", "xboard")


class PlayerSpecError(ValueError):
    """A player spec that cannot be understood."""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec (hashable, picklable: it travels to worker processes)."""

    kind: str  #: "level", "engine", "random", "greedy" or "novice"
    text: str  #: the spec as given (the default display name)
    level: int | None = None
    path: str | None = None  #: engine executable (None: the patched engine)
    protocol: str = "uci"
    ranks: str | None = None  #: "0-9"/"1-10": the engine's rank numbering, if given
    nodes: int | None = None
    depth: int | None = None
    movetime_ms: int | None = None
    options: tuple[tuple[str, str], ...] = ()
    variants: str | None = "default"  #: variants.ini to load; None: load none
    uci_variant: bool = True
    newgame_every_move: bool = False
    levels_file: str | None = None
    display: str | None = None
    elo: float | None = None  #: ``elo:N``: the settings interpolated at that Elo
    variety_off: bool = False  #: ``variety=off``: the level without its variety rule
    args: tuple[str, ...] = ()  #: the engine's command-line arguments
    workdir: str | None = None  #: the engine's working directory
    time_control: TimeControl | None = None  #: a game clock (``tc=``)
    time_margin_ms: int = 0  #: how far a move may overrun the clock (``timemargin=``)
    #: The letters the engine reads a xiangqi FEN in (``fen=``, or what the check before
    #: a match found; None: its protocol's, :class:`protocol.FenLetters`).
    fen: str | None = None
    #: Every search's deadline in seconds (``timeout=``, or what the check before a match
    #: measured for a depth or node limit; None: the protocol's own).
    search_timeout_s: float | None = None
    #: Where the patched engine is when the command was given one (``--engine``), for a
    #: spec without ``path``; None: the usual lookup. Not part of the match's identity:
    #: it is the same engine wherever it is installed.
    patched_engine: str | None = None

    @property
    def name(self) -> str:
        """The name shown in PGN headers, tables and fits."""
        return self.display or self.text

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """:func:`parse_player`."""
        return parse_player(text)

    def identity_text(self) -> str:
        """The spec as a match's identity sees it: a level without the path of its levels
        file or its display name (its settings are part of the identity instead, see
        :meth:`settings`), so that a match id is the same in every checkout."""
        if self.kind != "level":
            return self.text
        head = f"level:{self.level}" if self.elo is None else f"elo:{self.elo:g}"
        return (
            head
            + (f",engine={self.path}" if self.path else "")
            + (",variety=off" if self.variety_off else "")
        )

    def with_name(self, name: str) -> PlayerSpec:
        """The same player under another display name."""
        return replace(self, display=name)

    def with_patched_engine(self, engine: Path | None) -> PlayerSpec:
        """The same player, told where the patched engine is (None: as it was). Only a
        player without its own ``path`` runs it (:meth:`executable`)."""
        return self if engine is None else replace(self, patched_engine=str(engine))

    def executable(self) -> str:
        """The engine this player runs: its own ``path``, else the patched engine."""
        return self.path or self.patched_engine or str(engine_path())

    def settings(self, variant: str) -> dict[str, object]:
        """What decides this player's moves in ``variant`` beyond its spec text: for a
        level, its engine settings from the levels file (so a retuned level is a new
        player in the results database); nothing for the others."""
        if self.kind != "level":
            return {}
        return level_identity(self.level_settings(variant), variant)

    def level_settings(self, variant: str) -> Level:
        """The :class:`Level` a ``level:N`` or ``elo:N`` spec plays in ``variant``."""
        if self.kind != "level":
            raise PlayerSpecError(f"{self.text} is not a level")
        try:
            levels = load_levels(Path(self.levels_file) if self.levels_file else LEVELS_FILE)
        except (LevelsError, OSError) as exc:
            raise PlayerSpecError(f"{self.text}: {exc}") from None
        try:
            return strength(levels[variant], self.level, self.elo, variety=not self.variety_off)
        except LevelsError as exc:
            raise PlayerSpecError(f"{self.text}: {variant}: {exc}") from None

    def describe(self) -> dict[str, object]:
        """The spec as plain data (for ``--json``)."""
        out: dict[str, object] = {"name": self.name, "spec": self.text, "kind": self.kind}
        if self.kind == "engine":
            out.update(
                path=self.path,
                protocol=self.protocol,
                ranks=self.ranks,
                args=list(self.args),
                options=dict(self.options),
                nodes=self.nodes,
                depth=self.depth,
                movetime_ms=self.movetime_ms,
                tc=None if self.time_control is None else self.time_control.text(),
                timemargin_ms=self.time_margin_ms,
                fen=self.fen,
                timeout_s=self.search_timeout_s,
            )
        elif self.kind == "level":
            out.update(level=self.level, elo=self.elo, variety_off=self.variety_off)
        return out


# ---------------------------------------------------------------------------------------
# The ladder's short form


def split_fields(text: str) -> list[str]:
    """Split at commas outside double quotes (the quotes are kept)."""
    fields, current, quoted = [], [], False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quoted and i + 1 < len(text):
            current += [ch, text[i + 1]]
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            fields.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    if quoted:
        raise PlayerSpecError(f"unclosed double quote in {text!r}")
    fields.append("".join(current))
    return fields


def unquote(value: str) -> str:
    """A field value without its double quotes (``\\"`` and ``\\\\`` inside them)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        body = value[1:-1]
        out, i = [], 0
        while i < len(body):
            if body[i] == "\\" and i + 1 < len(body):
                i += 1
            out.append(body[i])
            i += 1
        return "".join(out)
    return value


def parse_fields(text: str) -> dict[str, str]:
    """``key=value,key="value, with comma",...`` as a dict (the last of a key wins)."""
    out: dict[str, str] = {}
    for part in split_fields(text):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise PlayerSpecError(f"expected key=value, got {part!r}")
        out[key.strip()] = unquote(value)
    return out


def parse_baseline(head: str, text: str, rest: str) -> PlayerSpec:
    """``random`` / ``greedy`` / ``novice`` (key ``name=``)."""
    opts = parse_fields(rest) if rest else {}
    display = opts.pop("name", None)
    if opts:
        raise PlayerSpecError(f"{head}: unknown option(s) {sorted(opts)}")
    return PlayerSpec(kind=head, text=head, display=display)


def parse_level(head: str, text: str, rest: str) -> PlayerSpec:
    """``level:N[,key=value...]`` / ``elo:N[,key=value...]``."""
    first, _, more = rest.partition(",")
    level, elo = None, None
    try:
        if head == "level":
            level = int(first)
        else:
            elo = float(first)
    except ValueError:
        raise PlayerSpecError(f"{head} spec needs a number: {text!r}") from None
    if level is not None and level not in LEVEL_NUMBERS:
        raise PlayerSpecError(f"levels are {LEVEL_NUMBERS[0]}..{LEVEL_NUMBERS[-1]}, got {level}")
    opts = parse_fields(more) if more else {}
    variety = opts.pop("variety", "on")
    if variety not in ("on", "off"):
        raise PlayerSpecError(f"variety must be on or off, got {variety!r}")
    spec = PlayerSpec(
        kind="level",
        text=text,
        level=level,
        elo=elo,
        path=opts.pop("engine", None),
        levels_file=opts.pop("levels", None),
        display=opts.pop("name", None),
        newgame_every_move=True,
        variety_off=variety == "off",
    )
    if opts:
        raise PlayerSpecError(f"{head}: unknown option(s) {sorted(opts)}")
    return spec  # an Elo off the variant's curve: refused once the variant is known


def parse_engine(head: str, text: str, rest: str) -> PlayerSpec:
    """``engine:PATH[,key=value...]``."""
    fields = split_fields(rest)
    path = unquote(fields[0])
    if not path:
        raise PlayerSpecError(f"engine spec needs a path: {text!r}")
    opts = parse_fields(",".join(fields[1:]))
    return build_engine(text, path, opts, default_name=None)


#: Keys of an engine spec that are not engine options (case-insensitive).
ENGINE_KEYS = (
    "protocol",
    "ranks",
    "nodes",
    "depth",
    "movetime",
    "st",
    "tc",
    "timemargin",
    "name",
    "args",
    "dir",
    "variants",
    "uci_variant",
    "newgame",
    "threads",
    "fen",
    "timeout",
)

#: The FEN letters an engine spec may name (``fen=``): :class:`protocol.FenLetters`.
FEN_LETTERS = ("fsf", "xboard")


def _int(key: str, value: str, text: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise PlayerSpecError(f"{key} must be an integer, got {value!r} in {text!r}") from None
    if number < 0 or (number == 0 and key != "timemargin"):
        raise PlayerSpecError(f"{key} must be positive, got {value!r} in {text!r}")
    return number


def build_engine(
    text: str, path: str, opts: dict[str, str], default_name: str | None
) -> PlayerSpec:
    """An ``engine`` spec from its path and keys (both forms end here)."""
    lower = {k.lower(): k for k in opts}
    keys = {key: opts.pop(lower[key]) for key in ENGINE_KEYS if key in lower}
    protocol = keys.get("protocol", "uci").lower()
    if protocol not in ENGINE_PROTOCOLS:
        raise PlayerSpecError(
            f"protocol must be {' or '.join(ENGINE_PROTOCOLS)}, got {protocol!r} in {text!r}"
        )
    ranks = keys.get("ranks")
    if ranks is not None and ranks not in ("0-9", "1-10"):
        raise PlayerSpecError(f"ranks must be 0-9 or 1-10, got {ranks!r} in {text!r}")
    if keys.get("threads", "1") != "1":
        raise PlayerSpecError("every engine plays with Threads=1")
    newgame = keys.get("newgame", "game").lower()
    if newgame not in ("game", "move"):
        raise PlayerSpecError("newgame must be 'game' or 'move'")
    nodes = None if "nodes" not in keys else _int("nodes", keys["nodes"], text)
    depth = None if "depth" not in keys else _int("depth", keys["depth"], text)
    movetime = None if "movetime" not in keys else _int("movetime", keys["movetime"], text)
    if "st" in keys:
        try:
            seconds = float(keys["st"])
        except ValueError:
            seconds = -1.0
        if not seconds > 0:
            raise PlayerSpecError(f"st must be seconds > 0, got {keys['st']!r} in {text!r}")
        movetime = round(seconds * 1000)
    try:
        # cutechess's tc=inf: no clock (a node or depth limit must bound the search)
        tc = TimeControl.parse(keys["tc"]) if keys.get("tc", "inf") != "inf" else None
    except TimeControlError as exc:
        raise PlayerSpecError(f"{exc} in {text!r}") from None
    margin = _int("timemargin", keys["timemargin"], text) if "timemargin" in keys else 0
    fen = keys.get("fen")
    if fen is not None and fen not in FEN_LETTERS:
        raise PlayerSpecError(f"fen must be fsf or xboard, got {fen!r} in {text!r}")
    timeout = None
    if "timeout" in keys:
        try:
            timeout = float(keys["timeout"])
        except ValueError:
            timeout = -1.0
        if not 0 < timeout < float("inf"):
            raise PlayerSpecError(
                f"timeout must be seconds > 0, got {keys['timeout']!r} in {text!r}"
            )
    if nodes is None and depth is None and movetime is None and tc is None:
        raise PlayerSpecError(
            f"engine spec needs nodes=, depth=, movetime=, st= or tc= (tc=inf is no limit): "
            f"{text!r}"
        )
    try:
        args = tuple(shlex.split(keys.get("args", "")))
    except ValueError as exc:
        raise PlayerSpecError(f"args: {exc} in {text!r}") from None
    variants = keys.get("variants")
    return PlayerSpec(
        kind="engine",
        text=text,
        path=path,
        protocol=protocol,
        ranks=ranks,
        nodes=nodes,
        depth=depth,
        movetime_ms=movetime,
        options=tuple(sorted(opts.items())),
        variants=None if (variants or "").lower() == "none" else (variants or "default"),
        uci_variant=keys.get("uci_variant", "").lower() != "none",
        newgame_every_move=newgame == "move",
        display=keys.get("name", default_name),
        args=args,
        workdir=keys.get("dir"),
        time_control=tc,
        time_margin_ms=margin,
        fen=fen,
        search_timeout_s=timeout,
    )


_PARSERS: dict[str, Callable[[str, str, str], PlayerSpec]] = {
    "random": parse_baseline,
    "greedy": parse_baseline,
    "novice": parse_baseline,
    "level": parse_level,
    "elo": parse_level,
    "engine": parse_engine,
}


def parse_player(text: str) -> PlayerSpec:
    """Parse ``level:N``, ``elo:N``, ``engine:PATH,key=value,...``, ``random``,
    ``greedy`` or ``novice``."""
    text = text.strip()
    head, _, rest = text.partition(":")
    parser = _PARSERS.get(head.lower())
    if parser is None:
        raise PlayerSpecError(
            f"unknown player {text!r}: expected level:N, elo:N, engine:PATH,..., random, greedy "
            "or novice"
        )
    return parser(head.lower(), text, rest)
