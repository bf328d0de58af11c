"""Fixtures for the ladder-as-an-engine tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bridge.helpers import RATED_LEVELS


@pytest.fixture
def rated_levels(tmp_path: Path) -> Path:
    """A levels file whose every level is rated (Elo 100..800 in every variant)."""
    path = tmp_path / "rated-levels.toml"
    path.write_text(RATED_LEVELS)
    return path
