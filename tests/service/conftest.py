"""Fixtures of the service tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .helpers import Server, start_server


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server with two engines, shared by a test module."""
    srv = start_server(engines=2)
    try:
        yield srv
    finally:
        srv.stop()
