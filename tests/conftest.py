"""Shared fixtures: the real engines the suite runs against."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.engine_binary import UNPATCHED_ENGINE, engine_path
from ladder.variants import VARIANTS_INI


@pytest.fixture(scope="session")
def engine_exe() -> Path:
    """The patched, optimised Fairy-Stockfish built by `make engine`."""
    return engine_path()


@pytest.fixture(scope="session")
def unpatched_engine_exe() -> Path:
    """Stock Fairy-Stockfish from the same sdist, without our patches (reference build)."""
    if not UNPATCHED_ENGINE.exists():
        pytest.fail(f"{UNPATCHED_ENGINE} missing: run `make engine`")
    return UNPATCHED_ENGINE.resolve()


@pytest.fixture(scope="session")
def variants_ini() -> Path:
    return VARIANTS_INI
