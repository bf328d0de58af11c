"""The eight strength levels, read from ladder/levels.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ladder.package_data import data_path
from ladder.variants import VARIANT_IDS

LEVELS_FILE = data_path("levels.toml")
LEVEL_NUMBERS = range(1, 9)


class LevelsError(ValueError):
    """The levels file is malformed."""


@dataclass(frozen=True)
class Variety:
    """The weakest levels' seeded variety rule (:func:`ladder.level_move.choose`).

    With probability ``random_move_pct`` percent the level plays a uniformly random
    legal move (a beginner's blunder); otherwise a uniform pick among the moves within
    ``window_cp`` centipawns of the best of ``multipv`` lines.
    """

    multipv: int = 1
    window_cp: int = 0
    random_move_pct: float = 0.0

    def describe(self) -> str:
        """Short human-readable form, e.g. ``MultiPV 4, 150 cp, 20% random``."""
        parts = []
        if self.multipv > 1:
            parts.append(f"MultiPV {self.multipv}, {self.window_cp} cp")
        if self.random_move_pct:
            parts.append(f"{self.random_move_pct:g}% random")
        return ", ".join(parts) or "-"


VARIETY_KEYS = ("multipv", "window_cp", "random_move_pct")


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
        )
    except (TypeError, ValueError) as exc:
        raise LevelsError(f"level {level}: variety: {exc}") from exc
    if variety.multipv < 1 or variety.window_cp < 0 or not 0 <= variety.random_move_pct <= 100:
        raise LevelsError(
            f"level {level}: variety needs multipv >= 1, window_cp >= 0 and "
            "0 <= random_move_pct <= 100"
        )
    if variety.multipv == 1 and variety.random_move_pct == 0:
        return None
    return variety


@dataclass(frozen=True)
class Level:
    """One rung of the ladder for one variant: engine settings, and its rating if measured."""

    level: int
    nodes: int
    threads: int = 1
    hash_mb: int = 16
    variety: Variety | None = None
    elo: float | None = None
    elo_lo: float | None = None
    elo_hi: float | None = None
    games: int | None = None
    extrapolated: bool = False


def _level_from(table: dict[str, Any], defaults: dict[str, Any]) -> Level:
    merged = {**defaults, **table}
    variety = _variety(merged, merged.get("level"))
    for key in VARIETY_KEYS:
        merged.pop(key, None)
    try:
        lvl = Level(variety=variety, **merged)
    except TypeError as exc:
        raise LevelsError(f"levels file: {exc}") from exc
    if lvl.level not in LEVEL_NUMBERS or lvl.nodes < 1 or lvl.threads != 1:
        raise LevelsError(f"level {lvl.level}: needs level 1..8, nodes >= 1, threads = 1")
    return lvl


def load_levels(path: Path = LEVELS_FILE) -> dict[str, dict[int, Level]]:
    """All levels, per variant id: {variant: {1: Level, ..., 8: Level}}."""
    data = tomllib.loads(path.read_text())
    defaults = data.get("defaults", {})
    base = {t["level"]: _level_from(t, defaults) for t in data.get("level", [])}
    if sorted(base) != list(LEVEL_NUMBERS):
        raise LevelsError(f"{path}: levels must be exactly 1..8, got {sorted(base)}")
    out: dict[str, dict[int, Level]] = {}
    overrides = data.get("variant", {})
    unknown = set(overrides) - set(VARIANT_IDS)
    if unknown:
        raise LevelsError(f"{path}: unknown variant(s) {sorted(unknown)}")
    for variant in VARIANT_IDS:
        levels = dict(base)
        for key, table in overrides.get(variant, {}).items():
            n = int(key)
            if n not in levels:
                raise LevelsError(f"{path}: variant {variant}: no level {key}")
            fields = {k: v for k, v in table.items() if k not in VARIETY_KEYS}
            try:
                levels[n] = replace(
                    levels[n], **fields, variety=_variety(table, n, levels[n].variety)
                )
            except TypeError as exc:
                raise LevelsError(f"{path}: variant {variant} level {n}: {exc}") from exc
        out[variant] = levels
    return out
