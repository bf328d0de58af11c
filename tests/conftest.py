"""Shared fixtures: the real engines the suite runs against."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ladder.engine_binary import (
    DEFAULT_ENGINE,
    DEPRECATED_ENGINE_ENV,
    ENGINE_ENV,
    UNPATCHED_ENGINE,
    engine_path,
)
from ladder.variants import VARIANTS_INI


def pytest_configure(config: pytest.Config) -> None:
    """The suite tests the checkout's build (`make engine`), here and in every process it
    starts: a `ladder engine build` in the per-user cache, which the engine lookup puts
    first, must not stand in for it. An engine named in the environment still wins."""
    named = os.environ.get(ENGINE_ENV) or os.environ.get(DEPRECATED_ENGINE_ENV)
    if not named and DEFAULT_ENGINE.exists():
        os.environ[ENGINE_ENV] = str(DEFAULT_ENGINE)


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
