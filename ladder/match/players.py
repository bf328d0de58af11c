"""Who plays a match game: a ladder level, any UCI/UCCI engine, or a seeded baseline.

Player specs are short strings (the ``ladder match`` command line takes them as is):

* ``level:5`` -- level 5 of the ladder (ladder/levels.toml), played by the move service's
  own code, :mod:`ladder.level_move`: ``go nodes N`` with a new game before every
  search, and for the weakest levels the variety rule (the seeded pick among the MultiPV
  lines within ``window_cp`` of the best). Options: ``engine=PATH`` (default: the
  patched engine, :func:`ladder.engine_binary.engine_path`), ``levels=PATH``,
  ``name=...``.
* ``engine:PATH,protocol=ucci,nodes=20000,Hash=16`` -- any engine. Keys: ``protocol``
  (uci/ucci/xboard), ``ranks`` (0-9 or 1-10: how the engine numbers a xiangqi board's
  ranks, when not its protocol's default; UCCI finds out by itself), ``nodes``,
  ``depth``, ``movetime`` (ms) (the search limit), ``name``, ``variants`` (a variants.ini
  to load with VariantPath; default ours, into an engine that has that option; ``none``:
  never), ``uci_variant`` (``none``: never set UCI_Variant, for
  plain xiangqi engines), ``newgame`` (``move``: clear the hash before every search;
  default ``game``). Any other ``Key=value`` is an engine option. ``Threads`` is 1.
* ``random`` -- a uniformly random legal move; ``greedy`` -- the capture that wins the
  most material (or the game), else a random move. Both seeded per game.

:class:`Player` objects are the runtime side: started once per worker process and reused
for many games (an engine process per player and colour slot).
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ladder.engine_binary import engine_path
from ladder.level_move import SearchJob, choose, search_level
from ladder.levels import LEVELS_FILE, Level, LevelsError, at_elo, load_levels
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI
from protocol import Dialect, InfoDict, Limit, ManagedEngine, PlayResult, RankNumbering
from protocol.options import OptionValue

__all__ = [
    "BaselinePlayer",
    "EnginePlayer",
    "GreedyPlayer",
    "LevelPlayer",
    "MoveInfo",
    "Player",
    "PlayerSpec",
    "PlayerSpecError",
    "RandomPlayer",
    "Resignation",
    "make_player",
]

#: Material values for the greedy baseline (centipawns), by FEN letter.
PIECE_VALUES: dict[str, int] = {"r": 900, "c": 450, "n": 400, "a": 200, "b": 200, "p": 100, "k": 0}

_DEST_RE = re.compile(r"([a-i])(\d{1,2})$")


class PlayerSpecError(ValueError):
    """A player spec string that cannot be understood."""


class Resignation(Exception):
    """The engine resigned instead of moving (it loses the game)."""


@functools.cache
def _variant_start(variant: str) -> str:
    """The canonical start FEN of ``variant``."""
    return Game.from_fen(variant).start_fen


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec (hashable, picklable: it travels to worker processes)."""

    kind: str  #: "level", "engine", "random" or "greedy"
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

    @property
    def name(self) -> str:
        """The name shown in PGN headers, tables and fits."""
        return self.display or self.text

    @property
    def is_engine(self) -> bool:
        return self.kind in ("level", "engine")

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """Parse ``level:N``, ``engine:PATH,key=value,...``, ``random`` or ``greedy``."""
        text = text.strip()
        head, _, rest = text.partition(":")
        head = head.lower()
        if head in ("random", "greedy"):
            opts = _parse_kv(rest) if rest else {}
            display = opts.pop("name", None)
            if opts:
                raise PlayerSpecError(f"{head}: unknown option(s) {sorted(opts)}")
            return cls(kind=head, text=head, display=display)
        if head in ("level", "elo"):
            first, _, more = rest.partition(",")
            level, elo = None, None
            try:
                if head == "level":
                    level = int(first)
                else:
                    elo = float(first)
            except ValueError:
                raise PlayerSpecError(f"{head} spec needs a number: {text!r}") from None
            if level is not None and not 1 <= level <= 8:
                raise PlayerSpecError(f"levels are 1..8, got {level}")
            opts = _parse_kv(more) if more else {}
            variety = opts.pop("variety", "on")
            if variety not in ("on", "off"):
                raise PlayerSpecError(f"variety must be on or off, got {variety!r}")
            spec = cls(
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
            if elo is not None:
                spec.level_settings(VARIANT_IDS[0])  # an Elo off the curve fails here
            return spec
        if head == "engine":
            path, _, more = rest.partition(",")
            if not path:
                raise PlayerSpecError(f"engine spec needs a path: {text!r}")
            opts = _parse_kv(more) if more else {}
            lower = {k.lower(): k for k in opts}

            def take(key: str) -> str | None:
                real = lower.pop(key, None)
                return None if real is None else opts.pop(real)

            protocol = (take("protocol") or "uci").lower()
            if protocol not in ("uci", "ucci", "xboard"):
                raise PlayerSpecError(f"protocol must be uci, ucci or xboard, got {protocol!r}")
            ranks = take("ranks")
            if ranks is not None and ranks not in ("0-9", "1-10"):
                raise PlayerSpecError(f"ranks must be 0-9 or 1-10, got {ranks!r}")
            nodes, depth, movetime = take("nodes"), take("depth"), take("movetime")
            variants = take("variants")
            uci_variant = (take("uci_variant") or "").lower() != "none"
            newgame = (take("newgame") or "game").lower()
            display = take("name")
            threads = take("threads")
            if threads is not None and threads != "1":
                raise PlayerSpecError("every engine plays with Threads=1")
            if newgame not in ("game", "move"):
                raise PlayerSpecError("newgame must be 'game' or 'move'")
            try:
                limits = [None if v is None else int(v) for v in (nodes, depth, movetime)]
            except ValueError:
                raise PlayerSpecError(f"nodes/depth/movetime must be integers: {text!r}") from None
            if all(v is None for v in limits):
                raise PlayerSpecError(f"engine spec needs nodes=, depth= or movetime=: {text!r}")
            return cls(
                kind="engine",
                text=text,
                path=path,
                protocol=protocol,
                ranks=ranks,
                nodes=limits[0],
                depth=limits[1],
                movetime_ms=limits[2],
                options=tuple(sorted(opts.items())),
                variants=None if (variants or "").lower() == "none" else (variants or "default"),
                uci_variant=uci_variant,
                newgame_every_move=newgame == "move",
                display=display,
            )
        raise PlayerSpecError(
            f"unknown player {text!r}: expected level:N, engine:PATH,..., random or greedy"
        )

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
        return PlayerSpec(**{**self.__dict__, "display": name})

    def settings(self, variant: str) -> dict[str, object]:
        """What decides this player's moves in ``variant`` beyond its spec text: for a
        level, its engine settings from the levels file (so a retuned level is a new
        player in the results database); nothing for the others."""
        if self.kind != "level":
            return {}
        lv = self.level_settings(variant)
        out: dict[str, object] = {
            "nodes": lv.nodes,
            "hash_mb": lv.hash_mb,
            "variety": asdict(lv.variety) if lv.variety else None,
        }
        if lv.blend is not None:  # an Elo between a mistake level and a full search
            b = lv.blend.stronger
            out["blend"] = {
                "weight": round(lv.blend.weight, 6),
                "nodes": b.nodes,
                "hash_mb": b.hash_mb,
                "variety": asdict(b.variety) if b.variety else None,
            }
        return out

    def level_settings(self, variant: str) -> Level:
        """The :class:`Level` a ``level:N`` or ``elo:N`` spec plays in ``variant``."""
        if self.kind != "level":
            raise PlayerSpecError(f"{self.text} is not a level")
        levels = load_levels(Path(self.levels_file) if self.levels_file else LEVELS_FILE)
        if self.elo is not None:
            try:
                level = at_elo(levels[variant], self.elo)
            except LevelsError as exc:
                raise PlayerSpecError(f"{self.text}: {variant}: {exc}") from None
        else:
            assert self.level is not None
            level = levels[variant][self.level]
        return replace(level, variety=None) if self.variety_off else level


def _parse_kv(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise PlayerSpecError(f"expected key=value, got {part!r}")
        out[key.strip()] = value.strip()
    return out


# ---------------------------------------------------------------------------------------
# Runtime players


@dataclass
class MoveInfo:
    """A move and the search behind it (engine players), from the mover's view."""

    move: str
    cp: int | None = None
    mate: int | None = None
    depth: int | None = None
    nodes: int | None = None
    seconds: float = 0.0  #: search time (go .. bestmove); 0 for baselines
    restarts: int = 0  #: engine restarts this move needed


class Player(Protocol):
    """A player in a worker process. ``choose`` gets the game being played (it must not
    change it); an engine is sent ``game.engine_position()``."""

    spec: PlayerSpec

    async def start(self) -> None: ...

    async def new_game(self, variant: str, seed: int) -> None: ...

    async def choose(self, game: Game, seed: int) -> MoveInfo: ...

    async def close(self) -> None: ...


@dataclass
class BaselinePlayer:
    """Shared part of the seeded baselines."""

    spec: PlayerSpec
    rng: random.Random = field(default_factory=random.Random)

    async def start(self) -> None:
        return None

    async def new_game(self, variant: str, seed: int) -> None:
        self.rng = random.Random(seed)

    async def close(self) -> None:
        return None

    def pick(self, game: Game) -> str:
        return self.rng.choice(sorted(game.legal_moves()))


class RandomPlayer(BaselinePlayer):
    """A uniformly random legal move."""

    async def choose(self, game: Game, seed: int) -> MoveInfo:
        return MoveInfo(self.pick(game))


def _material(board_fen: str, red: bool) -> int:
    board = board_fen.split("[")[0]
    return sum(
        PIECE_VALUES.get(ch.lower(), 0) for ch in board if ch.isalpha() and ch.isupper() == red
    )


def greedy_move(game: Game, rng: random.Random) -> str:
    """The capture that gains the most material (a winning move first), else random.

    Material is counted on the board after the move, so an atomic explosion counts
    what it removes on both sides. Ties are broken by ``rng``.
    """
    red = game.turn == "red"
    before_us, before_them = (
        _material(game.board_fen(), red),
        _material(game.board_fen(), not red),
    )
    best: list[str] = []
    best_gain = 0
    for move in sorted(game.legal_moves()):
        dest = _DEST_RE.search(move)
        if "@" in move or dest is None or game.piece_at(dest.group(0)) is None:
            continue
        game.push(move)
        try:
            outcome = game.outcome()
            if outcome is not None and outcome.winner == ("red" if red else "black"):
                return move
            bf = game.board_fen()
            gain = (before_them - _material(bf, not red)) - (before_us - _material(bf, red))
        finally:
            game.pop()
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain and gain > 0:
            best.append(move)
    if best:
        return rng.choice(best)
    return rng.choice(sorted(game.legal_moves()))


class GreedyPlayer(BaselinePlayer):
    """The most valuable capture it can make, else a random move."""

    async def choose(self, game: Game, seed: int) -> MoveInfo:
        return MoveInfo(greedy_move(game, self.rng))


class EnginePlayer:
    """A UCI/UCCI engine under a node/depth/time limit (``engine:`` specs)."""

    def __init__(self, spec: PlayerSpec) -> None:
        self.spec = spec
        self.engine: ManagedEngine | None = None
        self._first_search = True

    def _executable(self) -> str:
        return self.spec.path or str(engine_path())

    def _options(self) -> dict[str, OptionValue]:
        opts: dict[str, OptionValue] = {"Threads": 1}
        opts.update(dict(self.spec.options))
        return opts

    def _limit(self, variant: str) -> Limit:
        s = self.spec
        return Limit(
            nodes=s.nodes,
            depth=s.depth,
            time=None if s.movetime_ms is None else s.movetime_ms / 1000,
        )

    async def start(self) -> None:
        variants = self.spec.variants
        path = (
            None
            if variants is None
            else (VARIANTS_INI if variants == "default" else Path(variants).resolve())
        )
        self.engine = ManagedEngine(
            self._executable(),
            protocol=Dialect(self.spec.protocol),
            ranks=RankNumbering(self.spec.ranks) if self.spec.ranks else None,
            options=self._options(),
            variant_path=path,
            variant_aliases=FSF_VARIANT,
            variant_path_optional=variants == "default",
            retries=1,
        )

    async def new_game(self, variant: str, seed: int) -> None:
        self._first_search = True

    async def _search(
        self, game: Game, limit: Limit, extra: dict[str, OptionValue] | None = None
    ) -> tuple[PlayResult, int]:
        if self.engine is None:
            raise RuntimeError("EnginePlayer.start() was not called")
        new_game = self._first_search or self.spec.newgame_every_move
        self._first_search = False
        # An engine we did not build is given the game from its start: `startpos` (no
        # FEN) when that is the variant's start (Sjaak II reads xiangqi FENs with h/e,
        # not FSF's n/b; XBoard engines may not offer setboard, and keep the game
        # themselves), and every move since, so it sees every repetition.
        fen = None if game.start_fen == _variant_start(game.variant.name) else game.start_fen
        moves = tuple(game.moves)
        outcome = await self.engine.search(
            game.variant.name if self.spec.uci_variant else None,
            fen,
            moves,
            limit,
            extra,
            new_game=new_game,
            validate_move=game.is_legal,
        )
        return outcome.result, len(outcome.incidents)

    async def choose(self, game: Game, seed: int) -> MoveInfo:
        result, incidents = await self._search(game, self._limit(game.variant.name))
        if result.resigned:
            raise Resignation(
                f"{self.spec.name} resigned" + (f": {result.claim}" if result.claim else "")
            )
        if result.move is None:
            claimed = f" (it claimed {result.claim})" if result.claim else ""
            raise RuntimeError(
                f"{self.spec.name} answered no move in a position with legal moves{claimed}"
            )
        cp, mate = _score(result.info)
        return MoveInfo(
            result.move,
            cp,
            mate,
            result.info.get("depth"),
            result.info.get("nodes"),
            result.elapsed,
            incidents,
        )

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.close()
        self.engine = None


def _score(info: InfoDict) -> tuple[int | None, int | None]:
    """(cp, mate) from the mover's point of view."""
    score = info.get("score")
    if score is None:
        return None, None
    rel = score.relative
    return rel.score(), rel.mate()


class LevelPlayer(EnginePlayer):
    """Level N of the ladder, playing exactly the move service's move: the same search
    (:func:`ladder.level_move.search_level`) and the same choice
    (:func:`ladder.level_move.choose`) with the seed the game loop gives for the move
    (``derive_seed(game seed, ply)``, see :func:`ladder.match.play.play_game`)."""

    def __init__(self, spec: PlayerSpec) -> None:
        super().__init__(spec)
        self.levels: dict[str, Level] = {}

    def _options(self) -> dict[str, OptionValue]:
        return {"Threads": 1}

    def level(self, variant: str) -> Level:
        """This player's settings in ``variant``."""
        if variant not in self.levels:
            self.levels[variant] = self.spec.level_settings(variant)
        return self.levels[variant]

    async def choose(self, game: Game, seed: int) -> MoveInfo:
        if self.engine is None:
            raise RuntimeError("LevelPlayer.start() was not called")
        level = self.level(game.variant.name).at_move(seed)
        legal = frozenset(game.legal_moves())
        fen, moves = game.engine_position()
        ply = game.game_ply
        job = SearchJob.for_level(FSF_VARIANT[game.variant.name], fen, moves, level, ply)
        searched = await search_level(self.engine, job, legal)
        result = searched.result
        choice = choose(result, level.variety_at(ply), seed, legal)
        if choice is None:
            raise RuntimeError(f"{self.spec.name} gave no legal move ({result.bestmove!r})")
        line = choice.line
        return MoveInfo(
            choice.move,
            line.cp if line else None,
            line.mate if line else None,
            line.depth if line else result.depth,
            result.nodes,
            result.time_s,
            len(searched.incidents),
        )


def make_player(spec: PlayerSpec) -> Player:
    """A runtime player for ``spec`` (call ``await player.start()`` next)."""
    if spec.kind == "random":
        return RandomPlayer(spec)
    if spec.kind == "greedy":
        return GreedyPlayer(spec)
    if spec.kind == "level":
        return LevelPlayer(spec)
    return EnginePlayer(spec)
