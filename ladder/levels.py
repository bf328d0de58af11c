"""The eight strength levels, read from ladder/levels.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ladder.variants import VARIANT_IDS

LEVELS_FILE = Path(__file__).resolve().parent / "levels.toml"
LEVEL_NUMBERS = range(1, 9)


@dataclass(frozen=True)
class Variety:
    """Seeded choice among the moves within `window_cp` of the best of `multipv` lines."""

    multipv: int
    window_cp: int


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


class LevelsError(ValueError):
    """The levels file is malformed."""


def _level_from(table: dict[str, Any], defaults: dict[str, Any]) -> Level:
    merged = {**defaults, **table}
    try:
        multipv, window = merged.pop("multipv", None), merged.pop("window_cp", None)
        variety = None
        if multipv is not None or window is not None:
            if multipv is None or window is None or multipv < 2 or window < 0:
                raise LevelsError(f"level {merged.get('level')}: variety needs multipv >= 2 "
                                  "and window_cp >= 0")
            variety = Variety(int(multipv), int(window))
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
            fields = {k: v for k, v in table.items() if k not in ("multipv", "window_cp")}
            levels[n] = replace(levels[n], **fields)
            if "multipv" in table or "window_cp" in table:
                old = levels[n].variety
                levels[n] = replace(levels[n], variety=Variety(
                    int(table.get("multipv", old.multipv if old else 2)),
                    int(table.get("window_cp", old.window_cp if old else 0))))
        out[variant] = levels
    return out
