"""Fixtures of the /play page tests: Debian's chromium driven by Playwright (no browser
download of Playwright's own). The server is the service tests' own (``server``: the
real ``ladder serve`` on a loopback port, tests/service/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from ..helpers import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Screenshots (git-ignored); the path is printed at the end of the run.
ARTIFACTS = ROOT / "test-artifacts" / "play"


# Module-scoped, not session-scoped: Playwright's sync API runs an event loop on the main
# thread while it is open, and the async tests of other modules need that thread's loop.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} missing: run scripts/install_browser.sh (make test does)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def chromium(playwright: Playwright) -> Iterator[Browser]:
    """Debian's chromium, headless; each test gets a fresh context (and Playwright gives
    the browser a fresh user-data dir of its own)."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    shots = sorted(ARTIFACTS.glob("*.png")) if ARTIFACTS.exists() else []
    if shots:
        terminalreporter.write_line(f"play page screenshots ({len(shots)}): {ARTIFACTS}")
