"""Fixtures of the /play page tests: the real ``ladder serve`` on a loopback port, and
Debian's chromium driven by Playwright (no browser download of Playwright's own)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from ladder.client import wait_until_healthy

from ..helpers import ROOT, START_TIMEOUT, Server, service_engine

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
#: Screenshots and the like (git-ignored); the path is printed at the end of the run.
ARTIFACTS = ROOT / "test-artifacts" / "play"
LADDER = Path(sys.executable).with_name("ladder")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(*args: str) -> Server:
    """Start ``ladder serve`` (the real command) on a free loopback port, its output in
    test-artifacts/play/ladder-serve-<port>.log; wait until it answers /healthz."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for _attempt in range(3):  # another process may take the port between probe and bind
        server = _serve_on(_free_port(), args)
        if server is not None:
            return server
    pytest.fail("ladder serve found no free port")


def _serve_on(port: int, args: tuple[str, ...]) -> Server | None:
    """``ladder serve`` on `port`, healthy; None if the port was taken meanwhile."""
    log = ARTIFACTS / f"ladder-serve-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(LADDER), "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "MISTBOARD_ENGINE": str(service_engine())},
        )
    server = Server(proc, f"http://127.0.0.1:{port}")
    if wait_until_healthy(server.url, START_TIMEOUT, alive=lambda: proc.poll() is None):
        server.engine_pids()
        return server
    if proc.poll() is None:
        server.stop()
        pytest.fail(f"ladder serve did not become healthy (log: {log})")
    if "address already in use" in log.read_text().lower():
        return None
    pytest.fail(f"ladder serve exited with {proc.returncode} (log: {log})")


@pytest.fixture(scope="module")
def ladder() -> Iterator[Server]:
    """``ladder serve`` with two engines, shared by a test module."""
    server = serve("--engines", "2")
    try:
        yield server
    finally:
        server.stop()


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
