"""The wire log: every line to and from each engine, at DEBUG on the ``protocol.engine``
logger, with the engine's name and pid; nothing while DEBUG is off."""

from __future__ import annotations

import logging
import os
import re
import sys

import pytest

from protocol import Engine, EngineProtocolError, Limit
from tests.protocol.helpers import FakeCommand

pytestmark = pytest.mark.timeout(60)

_WIRE = re.compile(r"^(?P<name>.+) \(pid (?P<pid>\d+)\) (?P<arrow>[<>]) (?P<line>.*)$")


def _wire(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str, str]]:
    """(name, pid, arrow, line) of every wire record; each one must be in that form."""
    out = []
    for record in caplog.records:
        if record.name == "protocol.engine" and record.levelno == logging.DEBUG:
            m = _WIRE.match(record.getMessage())
            assert m, record.getMessage()
            out.append((m["name"], int(m["pid"]), m["arrow"], m["line"]))
    return out


async def test_every_line_both_ways_with_name_and_pid(
    fake: FakeCommand,
    caplog: pytest.LogCaptureFixture,
    no_leaked_processes: set[int],
) -> None:
    caplog.set_level(logging.DEBUG, logger="protocol.engine")
    engine = await Engine.start(fake("normal"))
    no_leaked_processes.add(engine.pid)
    try:
        result = await engine.search(None, ["a1a2"], Limit(nodes=10), new_game=True)
    finally:
        await engine.quit()
    assert result.move == "a1a2"
    wire = _wire(caplog)
    assert {pid for _, pid, _, _ in wire} == {engine.pid}
    sent = [line for _, _, arrow, line in wire if arrow == ">"]
    received = [line for _, _, arrow, line in wire if arrow == "<"]
    assert sent[0] == "uci" and sent[-1] == "quit"
    assert sent[-4:-1] == ["ucinewgame", "position startpos moves a1a2", "go nodes 10"]
    assert received[:3] == [
        "Fake engine for fault injection",
        "id name FakeEngine",
        "id author Mistboard tests",
    ]
    assert "uciok" in received and received[-1] == "bestmove a1a2 ponder a10a9"
    # Named by its executable until it says its name, then by the name it gave.
    names = [name for name, _, _, _ in wire]
    assert names[0] == os.path.basename(sys.executable)
    assert names[-1] == "FakeEngine"


async def test_a_garbage_line_is_logged_before_the_fault(
    fake: FakeCommand,
    caplog: pytest.LogCaptureFixture,
    no_leaked_processes: set[int],
) -> None:
    caplog.set_level(logging.DEBUG, logger="protocol.engine")
    with pytest.raises(EngineProtocolError, match="undecodable bytes"):
        await Engine.start(fake("garbage"))
    received = [line for _, _, arrow, line in _wire(caplog) if arrow == "<"]
    assert len(received) == 1 and "garbage" in received[0]
    assert "\\x1b" in received[0]  # shown escaped, not sent raw to the log


async def test_off_by_default(
    fake: FakeCommand,
    caplog: pytest.LogCaptureFixture,
    no_leaked_processes: set[int],
) -> None:
    caplog.set_level(logging.INFO)
    engine = await Engine.start(fake("normal"))
    no_leaked_processes.add(engine.pid)
    try:
        await engine.search(None, [], Limit(nodes=10))
    finally:
        await engine.quit()
    assert not [r for r in caplog.records if r.name == "protocol.engine"]
