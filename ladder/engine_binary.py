"""Which Fairy-Stockfish executable the ladder runs, and where builds are kept.

The lookup order (:func:`find_engine`):

1. the ``--engine PATH`` option of the ``ladder`` command;
2. the ``LADDER_ENGINE`` environment variable (``MISTBOARD_ENGINE``, its old name, is
   still read, with a deprecation warning);
3. the per-user cache, where ``ladder engine build`` puts its build
   (``~/.cache/mistboard-ladder/fairy-stockfish`` on Linux: platformdirs);
4. the checkout's ``.cache/fairy-stockfish``, where ``make engine`` puts its build.

A path given by 1 or 2 must be an executable: it is never silently passed over. Both
caches have the same layout: ``engine/<build key>/`` per build
(:mod:`ladder.engine_build`) and a ``fairy-stockfish`` link to the current one.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ladder.engine_build import ENGINE_NAME, is_build_key
from ladder.package_data import CHECKOUT_ROOT, DISTRIBUTION, SOURCE_ROOT

__all__ = [
    "BUILD_COMMAND",
    "CHECKOUT_CACHE",
    "DEFAULT_ENGINE",
    "DEPRECATED_ENGINE_ENV",
    "ENGINE_ENV",
    "PATCHED_OPTION",
    "UNPATCHED_ENGINE",
    "EngineNotBuilt",
    "FoundEngine",
    "build_hint",
    "builds_dir",
    "deprecation_notice",
    "engine_build_key",
    "engine_path",
    "find_engine",
    "user_cache",
]

#: The UCI option our patch 0005 adds: its presence tells our build from a stock one.
PATCHED_OPTION = "FinalInfoOnly"

log = logging.getLogger(__name__)

ENGINE_ENV = "LADDER_ENGINE"
DEPRECATED_ENGINE_ENV = "MISTBOARD_ENGINE"
#: The command that builds the engine lookup step 3 finds.
BUILD_COMMAND = "ladder engine build"

#: The checkout's cache, where `make engine` builds. (An installed wheel has none: the
#: lookup skips it there.)
CHECKOUT_CACHE = SOURCE_ROOT / ".cache"
#: The patched engine `make engine` links (lookup step 4).
DEFAULT_ENGINE = CHECKOUT_CACHE / ENGINE_NAME
#: Stock Fairy-Stockfish from the same sdist, the tests' reference (`make engine`).
UNPATCHED_ENGINE = CHECKOUT_CACHE / f"{ENGINE_NAME}-unpatched"


class EngineNotBuilt(RuntimeError):
    """No engine executable where the lookup says: the message names what to run."""


@dataclass(frozen=True)
class FoundEngine:
    """An engine executable and how it was found."""

    path: Path  #: resolved (links followed)
    source: str  #: "--engine", "LADDER_ENGINE", "MISTBOARD_ENGINE", "user cache", "checkout"

    @property
    def build_key(self) -> str | None:
        """The build key of this executable, None if it was not built by
        :mod:`ladder.engine_build` (a path to some other Fairy-Stockfish)."""
        name = self.path.parent.name
        return name if is_build_key(name) else None


def user_cache() -> Path:
    """The per-user cache of ``ladder engine build`` (honours ``XDG_CACHE_HOME``)."""
    return Path(platformdirs.user_cache_dir(DISTRIBUTION, appauthor=False))


def builds_dir(cache: Path) -> Path:
    """Where the builds of a cache live, one directory per build key."""
    return cache / "engine"


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def build_hint() -> str:
    """What to run to build an engine the lookup finds."""
    if CHECKOUT_ROOT is not None:
        return f"run `make engine` (or `{BUILD_COMMAND}`)"
    return f"run `{BUILD_COMMAND}`"


def _given(path: Path, source: str) -> FoundEngine:
    if not _executable(path):
        raise EngineNotBuilt(f"no engine executable at {path} (from {source}); {build_hint()}")
    return FoundEngine(path.resolve(), source)


def deprecation_notice() -> str | None:
    """The warning for an engine named by the deprecated variable, None if there is none
    (the ``ladder`` command prints it; :func:`find_engine` logs it)."""
    if os.environ.get(DEPRECATED_ENGINE_ENV) and not os.environ.get(ENGINE_ENV):
        return f"{DEPRECATED_ENGINE_ENV} is deprecated: set {ENGINE_ENV} instead"
    return None


@functools.cache
def _log_deprecation(notice: str) -> None:
    log.warning(notice)


def find_engine(option: Path | None = None) -> FoundEngine:
    """The patched Fairy-Stockfish to run (lookup order: the module docstring).

    ``option`` is the ``--engine`` value, if any. Raises :class:`EngineNotBuilt` with a
    one-line message naming the command that builds one.
    """
    if option is not None:
        return _given(option, "--engine")
    for name in (ENGINE_ENV, DEPRECATED_ENGINE_ENV):
        value = os.environ.get(name)
        if value:
            notice = deprecation_notice()
            if notice is not None:
                _log_deprecation(notice)
            return _given(Path(value), name)
    searched = [(user_cache() / ENGINE_NAME, "user cache")]
    if CHECKOUT_ROOT is not None:
        searched.append((DEFAULT_ENGINE, "checkout"))
    for path, source in searched:
        if _executable(path):
            return FoundEngine(path.resolve(), source)
    where = " or ".join(str(path) for path, _ in searched)
    raise EngineNotBuilt(f"no engine built (looked for {where}): {build_hint()}")


def engine_path() -> Path:
    """The path of :func:`find_engine`'s engine by the usual lookup (a command's
    ``--engine`` is found once and passed down in its players' specs and configs)."""
    return find_engine().path


def engine_build_key(exe: Path | None) -> str:
    """The engine build's cache key (scripts/build_engine.py names the build's folder
    after it), or ``unknown`` for an engine that did not come from that cache."""
    if exe is None:
        return "unknown"
    folder = exe.resolve().parent.name
    return folder if folder.startswith("engine-") else "unknown"
