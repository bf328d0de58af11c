"""Fixtures of the /play page tests: Debian's chromium driven by Playwright (no browser
download of Playwright's own). The server is the service tests' own (``server``: the
real ``ladder serve`` on a loopback port, tests/service/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from ..helpers import ROOT, Server
from .driver import BLAST_RECORDER, DESKTOP, Opener, PlayPage

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


@pytest.fixture
def open_page(chromium: Browser) -> Iterator[Opener]:
    """Open /play of a server in a fresh browser context (desktop or phone); checks at
    the end that the page talked to no other host and logged no error."""
    opened: list[tuple[BrowserContext, PlayPage]] = []

    def open_(server: Server, device: dict[str, Any] = DESKTOP, **params: Any) -> PlayPage:
        context = chromium.new_context(**device)
        context.add_init_script(BLAST_RECORDER)
        play = PlayPage(context.new_page(), server.url)
        opened.append((context, play))
        if params:
            play.open(**params)
        return play

    yield open_
    for context, play in opened:
        context.close()  # (again, for a test that closed it already: no effect)
        foreign = [u for u in play.requests if not u.startswith(play.url + "/")]
        assert not foreign, f"the page asked other hosts: {foreign}"
        assert not play.problems, play.problems
