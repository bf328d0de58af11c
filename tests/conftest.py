"""Shared fixtures: the real engines the suite runs against."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ladder.engine_binary import (
    DEFAULT_ENGINE,
    DEPRECATED_ENGINE_ENV,
    ENGINE_ENV,
    UNPATCHED_ENGINE,
    engine_path,
)
from ladder.variants import VARIANTS_INI


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden``: write the golden outputs (tests/golden/) instead of comparing
    with them, for a commit that changes them on purpose (and says why)."""
    parser.addoption("--update-golden", action="store_true", default=False)


def check_golden(request: pytest.FixtureRequest, path: Path, text: str) -> None:
    """``text`` equals the golden file ``path`` (under tests/golden/); with
    ``--update-golden`` it is written there instead."""
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"{path} missing: run with --update-golden"
    assert text == path.read_text(), f"{path.name} differs from {path}"


def pytest_configure(config: pytest.Config) -> None:
    """The suite tests the checkout's build (`make engine`), here and in every process it
    starts: a `ladder engine build` in the per-user cache, which the engine lookup puts
    first, must not stand in for it. An engine named in the environment still wins."""
    named = os.environ.get(ENGINE_ENV) or os.environ.get(DEPRECATED_ENGINE_ENV)
    if not named and DEFAULT_ENGINE.exists():
        os.environ[ENGINE_ENV] = str(DEFAULT_ENGINE)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`make test` runs the suite on every core (pytest-xdist): a test file goes to one
    worker, so that its tests share its module fixtures (engines, servers), and
    tests/deploy goes to one worker whole, since its files share the Dockerfile's
    installation (a session fixture that takes minutes to build)."""
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    class FileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/deploy" if path.startswith("tests/deploy/") else path

    return FileScheduling(config, log)


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
