"""The eight strength levels, read from ladder/levels.toml."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ladder.package_data import data_path
from ladder.variants import VARIANT_IDS

LEVELS_FILE = data_path("levels.toml")
#: The ladder's levels, weakest first.
LEVEL_NUMBERS = range(1, 9)
#: The same range as text, for messages (``1..8``).
LEVEL_RANGE = f"{LEVEL_NUMBERS[0]}..{LEVEL_NUMBERS[-1]}"


class LevelsError(ValueError):
    """The levels file is malformed."""


def levels_version(path: Path = LEVELS_FILE) -> str:
    """Which ladder plays: the first 12 hex digits of the SHA-256 of the levels file. A
    recalibration changes what a level and a seed play, and so this version; every move
    answer carries it, and ``ladder serve --levels-version`` refuses any other file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


@dataclass(frozen=True)
class Variety:
    """A level's seeded choice among the engine's lines
    (:func:`ladder.level_engine.level_move.choose`).

    The engine searches ``multipv`` lines; each line's *loss* is how many centipawns it
    scores below the best line. A line within ``window_cp`` of the best is a near-equal
    move: all of them are equally likely (the variety every level has, so that a won game
    cannot be replayed move for move). Beyond the window a line's weight falls off as
    ``exp(-(loss - window_cp) / temperature_cp)``: the mistake rule of the weakest levels,
    which play a merely good move more often than a bad one and a blunder rarely; with
    ``temperature_cp`` 0 nothing outside the window is played.

    ``random_move_pct`` is the rule the ladder used before (kept to compare against): with
    that probability a uniformly random legal move, whatever it loses.

    ``second_look`` (not None) is the weak levels' rule, as the site describes its computer
    opponents: "how many candidate moves get a second look at the reply, and how often a
    merely good move gets played instead of insisting on the exact best one". A player
    first sees what each move captures (a beginner sees captures: the most valuable
    capture comes first, even a bad trade), then the other moves in an order drawn with
    weights ``exp(-loss / temperature_cp)`` (natural, merely good moves first). The
    first ``second_look`` candidates in that order get a second look at the reply (a
    fraction: the next one gets it with that probability): one
    that the engine's search rates ``reject_cp`` or more below the best is put aside
    (the player saw the refutation). The first candidate not put aside is played; one
    past the second looks is played unchecked, however bad (the deeper tactic missed).

    Under the second-look rule, ``sight`` is how often the second look sees a refutation a
    beginner misses (:class:`ladder.level_engine.beginner.Sight`: a cannon's capture over its
    screen, a
    horse's capture, a capture along a line the move opened, or a reply that takes
    nothing yet); any other refutation it sees always. ``guard`` (not None) is how often
    the player makes sure, out of check, that the move it is about to play does not lose
    at once (:func:`ladder.level_engine.beginner.loses_at_once`; in check it always does, as a
    person
    does when the board says "Check!"); such a move is put aside. None: the rule before
    (no such look, in check or not).

    ``node_jitter_pct``: the strong levels' variety out of the book. In the rule's plies
    the node limit is drawn, with the move's seed, log-uniformly between 1 / (1 + j) and
    (1 + j) times the level's (j = ``node_jitter_pct`` / 100): where two moves are close,
    which one a search prefers changes with its node count, so a level's opening moves
    vary without a weaker search (the mean log node count, which its Elo follows, stays
    the level's).

    ``plies``: the rule applies in the first ``plies`` plies of a game (counted from the
    FEN's move number), and the level plays its best move of one line after that; None:
    at every ply. The strong levels vary their openings only: that is where a beaten
    level would otherwise be replayed move for move, and where near-equal moves are
    many, while searching several lines at every move would cost them strength.
    """

    multipv: int = 1
    window_cp: int = 0
    random_move_pct: float = 0.0
    temperature_cp: float = 0.0
    plies: int | None = None
    second_look: float | None = None
    reject_cp: int = 0
    node_jitter_pct: float = 0.0
    guard: float | None = None
    sight: float = 1.0

    def applies_at(self, ply: int) -> bool:
        """Whether the rule applies to the move at game ply ``ply`` (0: the first move)."""
        return self.plies is None or ply < self.plies

    def describe(self) -> str:
        """Short human-readable form, e.g. ``MultiPV 3, 15 cp window, first 20 plies``."""
        parts = []
        if self.multipv > 1:
            parts.append(f"MultiPV {self.multipv}")
        if self.window_cp:
            parts.append(f"{self.window_cp} cp window")
        if self.temperature_cp:
            parts.append(f"T {self.temperature_cp:g} cp")
        if self.random_move_pct:
            parts.append(f"{self.random_move_pct:g}% random")
        if self.second_look is not None:
            parts.append(f"second look at {self.second_look:g}, rejects -{self.reject_cp} cp")
            if self.sight < 1:
                parts.append(f"sight {self.sight:g}")
            if self.guard is not None:
                parts.append(f"guards {self.guard:g}")
        if self.node_jitter_pct:
            factor = 1 + self.node_jitter_pct / 100
            parts.append(f"nodes {1 / factor:.2g}-{factor:.2g}x")
        if parts and self.plies is not None:
            parts.append(f"first {self.plies} plies")
        return ", ".join(parts) or "-"


#: Hotter than this is a uniform pick among the lines in all but name.
MAX_TEMPERATURE_CP = 100_000
#: The levels-file keys of a :class:`Variety`.
VARIETY_KEYS = tuple(f.name for f in fields(Variety))


def _variety(table: dict[str, Any], level: object, base: Variety | None = None) -> Variety | None:
    """The variety rule that ``table``'s keys give (on top of ``base``), None if none."""
    given = {k: table[k] for k in VARIETY_KEYS if k in table}
    if not given:
        return base
    merged = {**(base.__dict__ if base else {}), **given}
    try:
        variety = Variety(
            multipv=int(merged.get("multipv", 1)),
            window_cp=int(merged.get("window_cp", 0)),
            random_move_pct=float(merged.get("random_move_pct", 0.0)),
            temperature_cp=float(merged.get("temperature_cp", 0.0)),
            plies=None if merged.get("plies") is None else int(merged["plies"]),
            second_look=(
                None if merged.get("second_look") is None else float(merged["second_look"])
            ),
            reject_cp=int(merged.get("reject_cp", 0)),
            node_jitter_pct=float(merged.get("node_jitter_pct", 0.0)),
            guard=None if merged.get("guard") is None else float(merged["guard"]),
            sight=float(merged.get("sight", 1.0)),
        )
    except (TypeError, ValueError) as exc:
        raise LevelsError(f"level {level}: variety: {exc}") from exc
    if (
        variety.multipv < 1
        or variety.window_cp < 0
        or not 0 <= variety.random_move_pct <= 100
        or not 0 <= variety.temperature_cp <= MAX_TEMPERATURE_CP
        or (variety.plies is not None and variety.plies < 1)
        or (variety.second_look is not None and variety.second_look < 0)
        or variety.reject_cp < 0
        or not 0 <= variety.node_jitter_pct <= 300
        or not 0 <= variety.sight <= 1
        or (variety.guard is not None and not 0 <= variety.guard <= 1)
    ):
        raise LevelsError(
            f"level {level}: variety needs multipv >= 1, window_cp >= 0, "
            f"0 <= random_move_pct <= 100, 0 <= temperature_cp <= {MAX_TEMPERATURE_CP} "
            "plies >= 1, second_look >= 0, reject_cp >= 0, 0 <= node_jitter_pct <= 300, "
            "0 <= sight <= 1 and 0 <= guard <= 1"
        )
    if variety.multipv == 1 and variety.random_move_pct == 0 and not variety.node_jitter_pct:
        return None
    return variety


@dataclass(frozen=True)
class Rating:
    """A measured strength: logistic Elo with ``random`` = 0 and its 95 % interval, from
    ``games`` calibration games (:mod:`ladder.calibration`); ``extrapolated`` when it
    comes from a fit over other levels instead of games of its own."""

    elo: float
    elo_lo: float
    elo_hi: float
    games: int
    extrapolated: bool = False


#: The levels-file keys of a :class:`Rating`, in a variant's level table.
RATING_KEYS = tuple(f.name for f in fields(Rating))


@dataclass(frozen=True)
class Level:
    """One rung of the ladder for one variant: engine settings, and its rating if measured.

    ``seconds_per_move`` is its time per move on an idle core, written by the calibration
    (:func:`ladder.calibration.report.quiet_seconds`: a searching level's nodes at the
    engine's measured speed, a mistake level's median in the calibration games): a
    guide, not a promise.
    """

    level: int
    nodes: int
    hash_mb: int = 16
    variety: Variety | None = None
    rating: Rating | None = None
    seconds_per_move: float | None = None
    #: Whether the level's first moves come from the opening book (:mod:`ladder.level_engine.book`):
    #: a levels file opts in (``book = true``; the shipped one does, in its defaults).
    book: bool = False
    #: Settings between two levels of different kinds (see :func:`at_elo`): each move is
    #: played by ``blend.stronger`` with probability ``blend.weight``, else by this level.
    blend: Blend | None = None

    def variety_at(self, ply: int) -> Variety | None:
        """The variety rule for the move at game ply ``ply``, None where it plays its best
        move of one line."""
        v = self.variety
        return v if v is not None and v.applies_at(ply) else None

    def at_move(self, seed: int) -> Level:
        """The settings that play the move drawn with ``seed``: the level itself, or for a
        blend this level or the stronger one (drawn from its own stream of the seed, so
        the choice among lines stays independent of it)."""
        if self.blend is None:
            return self
        if random.Random(f"blend:{seed}").random() < self.blend.weight:
            return self.blend.stronger
        return replace(self, blend=None)

    @property
    def makes_mistakes(self) -> bool:
        """Whether the level's choice rule applies at every move (levels 1-3), rather
        than only to vary the opening of a full search (levels 4-8)."""
        v = self.variety
        return v is not None and v.plies is None and (v.multipv > 1 or v.random_move_pct > 0)


@dataclass(frozen=True)
class Blend:
    """See :attr:`Level.blend`."""

    stronger: Level
    weight: float


#: Variety fields added with the beginner's eyes (issue 35), with their "not used" value: a
#: rule that uses neither leaves them out of its settings (:func:`variety_table`), so the
#: records and match ids of the rules before them stay as they were.
BEGINNER_FIELDS: dict[str, object] = {"guard": None, "sight": 1.0}


def variety_table(variety: Variety) -> dict[str, Any]:
    """A variety rule as plain data, without :data:`BEGINNER_FIELDS` when unused."""
    table = asdict(variety)
    if all(table[k] == v for k, v in BEGINNER_FIELDS.items()):
        return {k: v for k, v in table.items() if k not in BEGINNER_FIELDS}
    return table


def play_settings(level: Level) -> dict[str, Any]:
    """What a level plays, as plain data: its node count, hash, variety rule and book
    (not its rating). Measurements of a level (the human reference) keep it, so that a
    retuned level is not described by another player's figures."""
    return {
        "nodes": level.nodes,
        "hash_mb": level.hash_mb,
        "variety": variety_table(level.variety) if level.variety else None,
        "book": level.book,
    }


def level_row(level: Level) -> dict[str, Any]:
    """A level as one flat row (``ladder levels --json``): its settings, its variety
    rule as a table, the rating's fields (None when not rated) and the time per move."""
    out: dict[str, Any] = {"level": level.level, **play_settings(level)}
    rating = asdict(level.rating) if level.rating else dict.fromkeys(RATING_KEYS)
    out.update(rating)
    out["extrapolated"] = bool(out["extrapolated"])
    out["seconds_per_move"] = level.seconds_per_move
    return out


def _rating(table: dict[str, Any], where: str) -> Rating | None:
    given = {k: table.pop(k) for k in RATING_KEYS if k in table}
    if not given:
        return None
    try:
        return Rating(**given)
    except TypeError as exc:
        raise LevelsError(f"{where}: rating needs {', '.join(RATING_KEYS[:4])}: {exc}") from exc


def _one_thread(table: dict[str, Any], where: object) -> None:
    """Take ``threads`` out of ``table``: a levels file may say ``threads = 1`` (every
    level runs on one thread, :data:`ladder.level_engine.engine.ENGINE_OPTIONS`), nothing
    else."""
    if table.pop("threads", 1) != 1:
        raise LevelsError(f"{where}: threads must be 1 (a level's search is reproducible)")


def _level_from(table: dict[str, Any], defaults: dict[str, Any]) -> Level:
    merged = {**defaults, **table}
    _one_thread(merged, f"level {merged.get('level')}")
    variety = _variety(merged, merged.get("level"))
    for key in VARIETY_KEYS:
        merged.pop(key, None)
    rating = _rating(merged, f"level {merged.get('level')}")
    try:
        lvl = Level(variety=variety, rating=rating, **merged)
    except TypeError as exc:
        raise LevelsError(f"levels file: {exc}") from exc
    return _checked(lvl, f"level {lvl.level}")


def _checked(lvl: Level, where: str) -> Level:
    """``lvl`` if its settings can be searched, else a LevelsError naming ``where``."""
    if (
        lvl.level not in LEVEL_NUMBERS
        or not isinstance(lvl.nodes, int)
        or lvl.nodes < 1
        or not isinstance(lvl.hash_mb, int)
        or lvl.hash_mb < 1
    ):
        raise LevelsError(f"{where}: needs level {LEVEL_RANGE}, nodes >= 1, hash_mb >= 1")
    return lvl


def load_levels(path: Path = LEVELS_FILE) -> dict[str, dict[int, Level]]:
    """All levels, per variant id: {variant: {1: Level, ..., 8: Level}}."""
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:  # named: the file, then where
        raise LevelsError(f"{path}: {exc}") from None
    defaults = data.get("defaults", {})
    base = {t["level"]: _level_from(t, defaults) for t in data.get("level", [])}
    if sorted(base) != list(LEVEL_NUMBERS):
        raise LevelsError(f"{path}: levels must be exactly {LEVEL_RANGE}, got {sorted(base)}")
    out: dict[str, dict[int, Level]] = {}
    overrides = data.get("variant", {})
    unknown = set(overrides) - set(VARIANT_IDS)
    if unknown:
        raise LevelsError(f"{path}: unknown variant(s) {sorted(unknown)}")
    for variant in VARIANT_IDS:
        levels = dict(base)
        for key, table in overrides.get(variant, {}).items():
            n = int(key) if key.isdigit() else 0
            if n not in levels or "level" in table:
                raise LevelsError(f"{path}: variant {variant}: no level {key}")
            settings = {k: v for k, v in table.items() if k not in VARIETY_KEYS}
            _one_thread(settings, f"{path}: variant {variant} level {n}")
            rating = _rating(settings, f"{path}: variant {variant} level {n}")
            try:
                levels[n] = replace(
                    levels[n],
                    **settings,
                    variety=_variety(table, n, levels[n].variety),
                    rating=rating if rating is not None else levels[n].rating,
                )
            except TypeError as exc:
                raise LevelsError(f"{path}: variant {variant} level {n}: {exc}") from exc
            _checked(levels[n], f"{path}: variant {variant} level {n}")
        out[variant] = levels
    return out


# ---------------------------------------------------------------------------------------
# Any strength in between


def largest_hash_mb(levels: dict[str, dict[int, Level]]) -> int:
    """The largest hash table (MB) any level of any variant uses: what an engine that
    plays them all is started with."""
    return max(level.hash_mb for per_variant in levels.values() for level in per_variant.values())


def measured_run(levels: dict[int, Level]) -> list[int]:
    """The levels an ``elo`` request may be played by: every level from the lowest one
    measured up to level 8, each with a measured (not extrapolated) rating, strictly
    increasing; empty otherwise (fewer than two, a gap in the run, or a dip). Levels below
    the run are not rated yet (retuned, their calibration under way)."""
    rated = [n for n in sorted(levels) if levels[n].rating is not None]
    if len(rated) < 2 or rated != list(range(rated[0], max(levels) + 1)):
        return []
    ratings = [levels[n].rating for n in rated]
    if any(r is None or r.extrapolated for r in ratings):
        return []
    elos = [r.elo for r in ratings if r is not None]
    if any(b <= a for a, b in itertools.pairwise(elos)):
        return []
    return rated


def elo_range(levels: dict[int, Level]) -> tuple[float, float] | None:
    """The Elo span an ``elo`` request may ask for: from the measured Elo of the lowest
    level of :func:`measured_run` (level 1 once the whole ladder is measured) to level
    8's; None without such a run."""
    run = measured_run(levels)
    if not run:
        return None
    low, high = levels[run[0]].rating, levels[run[-1]].rating
    assert low is not None and high is not None
    return low.elo, high.elo


def check_elo_in_span(span: tuple[float, float], elo: float) -> None:
    """Raise :class:`LevelsError` unless ``elo`` is inside ``span``. The bounds are
    printed rounded (`ladder levels`, the bridges' spin options, this message) and sent
    exact (`GET /v1/levels`): either is accepted, nothing beyond both."""
    printed = [float(f"{bound:.0f}") for bound in span]
    if not min(printed[0], span[0]) <= elo <= max(printed[1], span[1]):
        raise LevelsError(f"elo must be between {printed[0]:.0f} and {printed[1]:.0f}, got {elo:g}")


def nearest_in_span(span: tuple[float, float], elo: float) -> float:
    """``elo``, or the end of ``span`` nearest to it when it lies beyond."""
    return min(max(elo, span[0]), span[1])


def _lerp(a: float, b: float, f: float) -> float:
    return a + (b - a) * f


def _geometric(a: float, b: float, f: float) -> float:
    return math.exp(_lerp(math.log(a), math.log(b), f))


def at_elo(levels: dict[int, Level], elo: float) -> Level:
    """The settings that play at ``elo``: interpolated between the two measured levels
    around it, at the fraction ``f`` of the way from the weaker one's Elo to the
    stronger one's.

    Between two full searches (levels 4-8), every setting moves from the weaker level's
    value towards the stronger one's, so the strength grows with ``elo``: the node count
    geometrically (Elo is close to linear in log nodes), the window linearly, the line
    count geometrically. Below level 4 (between two mistake levels, or level 3 and
    level 4) the two levels are blended: each move is the stronger one's with probability
    ``f`` and the weaker one's otherwise (:attr:`Level.blend`), which moves the expected
    strength from one to the other. (The mistake settings interpolated halfway between
    levels 2 and 3 played about 40-55 Elo above the halfway Elo, measured on 5 December
    2026: their strength is not linear in them; and no setting between a mistake level
    and a full search is sure to lie between them in strength.) The result carries the
    weaker level's number and no rating of its own, and plays the levels' opening book.
    An Elo printed as a level's rating (`ladder levels`, rounded) plays that level.
    Raises :class:`LevelsError` outside :func:`elo_range` (while levels 1-3 are retuned
    and not yet rated, the span starts at the lowest rated level).
    """
    span = elo_range(levels)
    if span is None:
        raise LevelsError(
            "an Elo needs every level measured from some level up to level 8, strictly increasing"
        )
    check_elo_in_span(span, elo)
    run = measured_run(levels)
    for n in run:  # the Elo a level is printed with plays that level
        rating = levels[n].rating
        if rating is not None and f"{rating.elo:.0f}" == f"{elo:.0f}":
            return levels[n]
    elo = nearest_in_span(span, elo)
    elos = {n: r.elo for n in run if (r := levels[n].rating) is not None}
    low, high = next((a, b) for a, b in itertools.pairwise(run) if elo <= elos[b])
    a, b = levels[low], levels[high]
    f = (elo - elos[low]) / (elos[high] - elos[low])
    if f <= 0:
        return a
    if f >= 1:
        return b
    if a.makes_mistakes or b.makes_mistakes:  # not two full searches: a blend
        return replace(a, rating=None, seconds_per_move=None, blend=Blend(b, f))
    va, vb = a.variety or Variety(), b.variety or Variety()
    temperature = _lerp(va.temperature_cp, vb.temperature_cp, f)
    variety = Variety(
        multipv=max(1, round(_geometric(va.multipv, vb.multipv, f))),
        window_cp=round(_lerp(va.window_cp, vb.window_cp, f)),
        random_move_pct=_lerp(va.random_move_pct, vb.random_move_pct, f),
        temperature_cp=temperature,
        plies=va.plies or vb.plies,
        second_look=(
            None
            if va.second_look is None or vb.second_look is None
            else _lerp(va.second_look, vb.second_look, f)
        ),
        reject_cp=round(_lerp(va.reject_cp, vb.reject_cp, f)),
        node_jitter_pct=_lerp(va.node_jitter_pct, vb.node_jitter_pct, f),
    )
    return Level(
        level=a.level,
        nodes=max(1, round(_geometric(a.nodes, b.nodes, f))),
        hash_mb=a.hash_mb if f < 0.5 else b.hash_mb,
        book=a.book,
        variety=(
            variety
            if (variety.multipv > 1 or variety.random_move_pct > 0 or variety.node_jitter_pct)
            else None
        ),
        seconds_per_move=None,
    )


def checked_levels_file(given: Path | None) -> Path:
    """The levels file asked for (None: the shipped one), checked: a bad one is a one-line
    error (LevelsError, or a ValueError naming the unreadable file)."""
    path = given or LEVELS_FILE
    try:
        load_levels(path)
    except OSError as exc:
        raise ValueError(f"levels file {path}: {exc.strerror}") from None
    return path
