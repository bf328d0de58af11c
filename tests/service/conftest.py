"""Fixtures of the service tests."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import Server, service_engine, start_server


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server with two engines, shared by a test module."""
    with start_server(engines=2) as srv:
        yield srv


@pytest.fixture
def flaky_engine(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A real engine behind a wrapper that refuses to start while `flag` exists (and
    says something on stderr first, for the incident log's stderr tail)."""
    flag = tmp_path / "refuse"
    wrapper = tmp_path / "engine.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        "echo 'wrapper: engine starting' >&2\n"
        f"if [ -e '{flag}' ]; then echo 'wrapper: refusing to start' >&2; exit 3; fi\n"
        f"exec '{service_engine()}' \"$@\"\n"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    yield wrapper, flag
