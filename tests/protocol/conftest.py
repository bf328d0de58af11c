"""Fixtures for the protocol tests: real engines, the fake engine, and a leak check."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from protocol import event_loop
from tests.protocol.helpers import FakeCommand, WireLog

FAKE_ENGINE = Path(__file__).with_name("fake_engine.py")
DEBIAN_STOCKFISH = Path("/usr/games/stockfish")
DEBIAN_FAIRY_STOCKFISH = Path("/usr/games/fairy-stockfish")
SJAAKII = Path("/usr/games/sjaakii")
MAXQI = Path("/usr/games/maxqi")
INSTALL_HINT = "run scripts/install_reference_engines.sh (make test does)"


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Every async protocol test runs twice: on the loop the product runs the client on
    (protocol.event_loop: uvloop) and on asyncio's own, which an application that embeds
    the client may run (their pipe errors differ, docs/protocol.md)."""
    return {"uvloop": event_loop.new_event_loop, "asyncio": asyncio.new_event_loop}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test on uvloop times out by pytest-timeout's thread (its stack dumped, the
    worker ended), not by SIGALRM: uvloop runs a Python signal handler as a callback
    and logs what it raises, so the signal method's failure would never end the test."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or "uvloop" not in callspec.id.split("-"):
            continue
        marker = item.get_closest_marker("timeout")
        seconds = marker.args[0] if marker is not None and marker.args else None
        seconds = marker.kwargs.get("timeout", seconds) if marker is not None else None
        item.add_marker(
            pytest.mark.timeout(seconds or item.config.getini("timeout"), method="thread")
        )


def _installed(engine: Path) -> Path:
    """A reference engine's path; missing, the test fails (not a skip)."""
    if not engine.exists():
        pytest.fail(f"{engine} missing: {INSTALL_HINT}")
    return engine


@pytest.fixture(scope="session")
def fsf_exe(engine_exe: Path) -> Path:
    """Our Fairy-Stockfish: the patched build that `make engine` links."""
    return engine_exe


@pytest.fixture(scope="session")
def debian_stockfish() -> Path:
    """Debian's stockfish (an engine we did not build). Missing = failure, not a skip."""
    return _installed(DEBIAN_STOCKFISH)


@pytest.fixture(scope="session")
def debian_fairy_stockfish() -> Path:
    """Debian's fairy-stockfish 11.1 (an older FSF we did not build)."""
    return _installed(DEBIAN_FAIRY_STOCKFISH)


@pytest.fixture(scope="session")
def sjaakii() -> Path:
    """Debian's Sjaak II (UCI and UCCI; ranks 1..10 even in UCCI, an ANSI banner)."""
    return _installed(SJAAKII)


@pytest.fixture(scope="session")
def maxqi() -> Path:
    """Debian's MaxQi (fairymax's xiangqi engine; XBoard only, no setboard)."""
    return _installed(MAXQI)


@pytest.fixture
def sent_to_engine() -> Iterator[Callable[[str], asyncio.Event]]:
    """``sent_to_engine("go ")``: an event set when a line starting so is written to an
    engine (seen on the wire log, which this turns on for the test)."""
    watched: list[tuple[str, asyncio.Event]] = []

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            line = record.getMessage().partition(") > ")[2]
            for prefix, event in watched:
                if line.startswith(prefix):
                    event.set()

    def watch(prefix: str) -> asyncio.Event:
        event = asyncio.Event()
        watched.append((prefix, event))
        return event

    logger = logging.getLogger("protocol.engine")
    handler, level = Watch(logging.DEBUG), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield watch
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@pytest.fixture
def fake() -> FakeCommand:
    """argv of the fault-injection engine (every dialect): fake("hang-search", "--child")."""

    def command(mode: str, *args: str) -> list[str]:
        return [sys.executable, str(FAKE_ENGINE), mode, *args]

    return command


@pytest.fixture
def wire(caplog: pytest.LogCaptureFixture) -> WireLog:
    """The wire log on: ``wire(">")`` are the lines sent to engines since the last call,
    ``wire("<")`` the lines received."""
    caplog.set_level(logging.DEBUG, logger="protocol.engine")
    taken = {">": 0, "<": 0}

    def lines(arrow: str) -> list[str]:
        found = [
            r.getMessage().partition(f") {arrow} ")[2]
            for r in caplog.records
            if r.name == "protocol.engine" and f") {arrow} " in r.getMessage()
        ]
        new, taken[arrow] = found[taken[arrow] :], len(found)
        return new

    return lines


def _children() -> set[tuple[int, float]]:
    """The test process's own children (a zombie as create time -1: never acceptable).

    Only children: what a test's engines start is checked through their process groups
    (below), and a grandchild may belong to a server another module's test still runs."""
    found = set()
    for child in psutil.Process().children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                found.add((child.pid, child.create_time()))
            else:
                found.add((child.pid, -1.0))
        except psutil.NoSuchProcess:
            pass
    return found


def _described(processes: set[tuple[int, float]]) -> list[str]:
    """What each leaked process is: pid, name, command line, parent (for the report)."""
    out = []
    for pid, _ in sorted(processes):
        try:
            proc = psutil.Process(pid)
            out.append(
                f"{pid} {proc.name()} {' '.join(proc.cmdline())[:200]!r} (parent {proc.ppid()})"
            )
        except psutil.Error as exc:
            out.append(f"{pid} ({type(exc).__name__})")
    return out


def _sleepers(pgids: set[int]) -> list[psutil.Process]:
    """Processes still in one of the given process groups (orphans of a killed engine)."""
    left = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) in pgids and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(proc)
        except (psutil.Error, ProcessLookupError):
            pass
    return left


@pytest.fixture(autouse=True)
def no_leaked_processes() -> Iterator[set[int]]:
    """After each test: no new child (or zombie) of the test process, and no process
    left in the process group of any engine the test started (tests add the engine
    pids to the yielded set)."""
    before = _children()
    engine_pids: set[int] = set()
    yield engine_pids
    deadline = time.monotonic() + 3.0
    while True:
        leaked = _children() - before
        orphans = _sleepers(engine_pids) if engine_pids else []
        if (not leaked and not orphans) or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"processes leaked: {_described(leaked)}"
    assert not orphans, f"orphans left in engine process groups: {orphans}"
    for pid in engine_pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
