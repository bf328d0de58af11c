"""Each level's time per move as served, measured on the machine that serves.

A level's cost is not its nodes at an assumed speed (:mod:`ladder.level_engine.expected_time`
assumes 170,000 nodes a second for xiangqi, where the engine searches about 408,000 on
the project's machine, so it put level 8 at 1.18 s for 0.53 s): it is the median wall
time of its moves as the service plays them, its MultiPV, Hash, book and the service's
own work included, on this machine's cores. ``ladder levels --measure`` plays every
level from a few positions past the opening books (one engine, as a pool slot runs it)
and writes the medians to a file (:func:`default_path`, or ``--out``); ``ladder serve``
and ``ladder levels`` read it (``--level-times``), and ``/v1/levels`` (hence the play
page's expected wait) answers with it. The file names the engine build and the levels
version it was measured with: a file of another build or ladder is refused, never
silently applied.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_cache_dir

from ladder.level_engine.expected_time import expected_seconds
from ladder.levels import Level

#: Past every opening book (tests/level_engine/test_book.py checks it): the levels search from here.
OUT_OF_BOOK = ("h3e3", "a10a9")
#: The file's format (its ``format`` field).
FORMAT = 1


class LevelTimesError(ValueError):
    """A level-times file that cannot be used (unreadable, or of another build or
    ladder): the message names the file and why."""


def default_path() -> Path:
    """Where ``ladder levels --measure`` writes and the server looks by default: the
    per-user cache, beside the engine builds (``$XDG_CACHE_HOME/mistboard-ladder``)."""
    return Path(user_cache_dir("mistboard-ladder")) / "level-times.json"


@dataclass(frozen=True)
class LevelTimes:
    """The measured medians (seconds a move, by variant and level) and what they were
    measured with."""

    seconds: dict[str, dict[int, float]]
    engine_build: str
    levels_version: str
    moves: int  #: positions played per level
    measured_at: str
    machine: str

    def get(self, variant: str, level: int) -> float | None:
        return self.seconds.get(variant, {}).get(level)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "engine_build": self.engine_build,
            "levels_version": self.levels_version,
            "moves": self.moves,
            "measured_at": self.measured_at,
            "machine": self.machine,
            "seconds": {v: {str(n): s for n, s in t.items()} for v, t in self.seconds.items()},
        }


#: Where a level's expected time per move came from (``expected_source``).
ExpectedSource = Literal["measured", "calibrated", "estimated"]


def expected(variant: str, level: Level, times: LevelTimes | None) -> tuple[float, ExpectedSource]:
    """A level's expected time a move, and whence: measured on this machine (`times`),
    else the calibration games' median (``seconds_per_move``), else its nodes at the
    speed :mod:`ladder.level_engine.expected_time` assumes (an estimate: 2.3x too slow on the
    project's machine)."""
    measured = times.get(variant, level.level) if times is not None else None
    if measured is not None:
        return measured, "measured"
    if level.seconds_per_move is not None:
        return level.seconds_per_move, "calibrated"
    return expected_seconds(variant, level.nodes), "estimated"


def read(path: Path, engine_build: str, levels_version: str) -> LevelTimes:
    """The file at `path`, checked against the engine build and levels version served."""
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise LevelTimesError(f"level times {path}: not a level-times file of format 1")
        seconds = {
            str(v): {int(n): float(s) for n, s in table.items()}
            for v, table in data["seconds"].items()
        }
        times = LevelTimes(
            seconds,
            str(data["engine_build"]),
            str(data["levels_version"]),
            int(data["moves"]),
            str(data["measured_at"]),
            str(data["machine"]),
        )
    except OSError as exc:
        raise LevelTimesError(f"level times {path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, LevelTimesError):
            raise
        raise LevelTimesError(f"level times {path}: unreadable ({exc})") from None
    if times.engine_build != engine_build:
        raise LevelTimesError(
            f"level times {path}: measured with engine build {times.engine_build}, this is "
            f"{engine_build}; measure again: ladder levels --measure"
        )
    if times.levels_version != levels_version:
        raise LevelTimesError(
            f"level times {path}: measured with levels version {times.levels_version}, this "
            f"is {levels_version}; measure again: ladder levels --measure"
        )
    return times


def write(times: LevelTimes, path: Path) -> None:
    """Write `times` to `path` (atomically: a server reading it never sees half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(times.to_json(), indent=2) + "\n")
    os.replace(partial, path)


def served_level_times(given: Path | None, engine: Path | None, levels: Path) -> LevelTimes | None:
    """The level times to serve by: the file ``given`` (it must do: LevelTimesError, a
    ValueError), else the per-user cache's if it is there and of this ``engine`` and
    ``levels`` file."""
    from ladder.engine_binary import engine_build_key
    from ladder.levels import levels_version

    path = given or default_path()
    if given is None and not path.exists():
        return None
    try:
        return read(path, engine_build_key(engine), levels_version(levels))
    except LevelTimesError:
        if given is not None:
            raise
        return None  # a stale measurement in the cache: the estimate, as if none


def level_times_here(given: Path | None, levels: Path) -> LevelTimes | None:
    """:func:`served_level_times` for this machine's engine, for a command that only
    reads the times (``ladder levels``, ``ladder capacity``): without an engine a stated
    file cannot be checked (EngineNotBuilt), and without either the times are estimated
    (None)."""
    from ladder.engine_binary import EngineNotBuilt, find_engine

    try:
        engine: Path | None = find_engine().path
    except EngineNotBuilt:
        if given is not None:
            raise
        engine = None
    return served_level_times(given, engine, levels)


__all__ = [
    "ExpectedSource",
    "LevelTimes",
    "LevelTimesError",
    "default_path",
    "expected",
    "level_times_here",
    "read",
    "served_level_times",
    "write",
]
