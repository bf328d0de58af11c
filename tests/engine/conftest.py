"""Fixtures for the engine tests: our patched engine and the stock one, over UCI, and pyffish."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from .fsf_uci import UciEngine


@pytest.fixture(scope="module")
def fsf(engine_exe: Path, variants_ini: Path) -> Iterator[UciEngine]:
    """The patched engine with our variants.ini loaded."""
    with UciEngine(engine_exe, variants_ini) as engine:
        yield engine


@pytest.fixture(scope="module")
def stock_fsf(unpatched_engine_exe: Path, variants_ini: Path) -> Iterator[UciEngine]:
    """Stock Fairy-Stockfish (no patches) with the same variants.ini loaded."""
    with UciEngine(unpatched_engine_exe, variants_ini) as engine:
        yield engine


@pytest.fixture(scope="session")
def pyffish(variants_ini: Path) -> ModuleType:
    """pyffish built from the patched tree (`make engine` installs it), with variants.ini loaded."""
    try:
        import pyffish
    except ImportError:
        pytest.fail("pyffish is not installed: run `make engine`")
    pyffish.load_variant_config(variants_ini.read_text())
    return pyffish
