"""The engine client's shortcuts (per-search CPU) keep its behaviour: the buffered
line reader (and what it skips), the memo of checked moves, options not re-sent when
unchanged, and the one-system-call liveness check."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from protocol import (
    Engine,
    EngineArgumentError,
    EngineProtocolError,
    EngineTerminatedError,
    LineReader,
    OptionError,
    notation,
)
from protocol.lines import EndOfOutput, UnknownLines, UnreadableLine
from protocol.notation import check_move, check_token
from protocol.process import EngineProcess

pytestmark = pytest.mark.timeout(60)


# --- the line reader ------------------------------------------------------------------


def reader(limit: int = 64) -> LineReader:
    """A LineReader the test feeds (no process behind it)."""
    return LineReader(max_line=limit)


async def test_reader_splits_chunks_into_lines() -> None:
    lines = reader()
    lines.feed_data(b"id name x\ninfo a\r\ninfo b")
    assert await lines.readline() == "id name x"
    assert await lines.readline() == "info a"  # \r\n ends a line too
    lines.feed_data(b"c\n\nreadyok\nbest")
    assert await lines.readline() == "info bc"  # a line cut between two reads
    assert await lines.readline() == ""
    assert lines.buffered and lines.take() == "readyok"
    assert not lines.buffered and lines.take() is None
    lines.feed_data(b"move a1a2\n")
    assert await lines.readline() == "bestmove a1a2"
    lines.feed_eof()
    with pytest.raises(EndOfOutput):
        await lines.readline()


async def test_reader_keeps_lines_for_the_next_read() -> None:
    """Lines read in the same chunk as the one a phase waited for stay for the next."""
    lines = reader()
    lines.feed_data(b"uciok\ninfo string x\nreadyok\ninfo string y\nbestmove a1a2\n")
    unknown = UnknownLines(10)
    assert await lines.read_until("readyok", unknown) == ["uciok", "info string x"]
    assert unknown.count == 1  # uciok was not asked for; info lines never count
    assert await lines.readline() == "info string y"
    assert await lines.readline() == "bestmove a1a2"


class _PipeTransport:
    """Stands in for a read-pipe transport: counts pauses and resumptions."""

    def __init__(self) -> None:
        self.paused = 0
        self.resumed = 0

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        self.resumed += 1


async def test_reader_pauses_the_pipe_while_lines_pile_up() -> None:
    """Lines nobody reads are bounded: past twice the line limit of unread lines the
    pipe is paused (the engine waits, not our memory), and it is resumed once they are
    read and the reader waits for more."""
    lines = reader(limit=64)
    transport = _PipeTransport()
    lines.protocol().connection_made(transport)  # type: ignore[arg-type]
    lines.feed_data(b"info string 0123456789\n" * 5)  # 115 bytes: under 2 x 64
    assert transport.paused == 0
    lines.feed_data(b"info string 0123456789\n" * 2)
    assert transport.paused == 1
    for _ in range(7):
        assert await lines.readline() == "info string 0123456789"
    waiting = asyncio.ensure_future(lines.readline())
    await asyncio.sleep(0)
    assert transport.resumed == 1 and not waiting.done()
    lines.protocol().data_received(b"bestmove a1a2\n")
    assert await waiting == "bestmove a1a2"


async def test_reader_eof_after_a_partial_line() -> None:
    lines = reader()
    lines.feed_data(b"uciok\nhalf a li")
    lines.feed_eof()
    assert await lines.readline() == "uciok"
    with pytest.raises(EndOfOutput):
        await lines.readline()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"x" * 65 + b"\n", "line over 64 bytes"),  # a complete line over the limit
        (b"x" * 200, "line over 64 bytes"),  # no line end in sight
        (b"\xff\xfe\n", "undecodable"),
        (b"info \x07 bell\n", "control characters"),
        (b"info a\rb\n", "control characters"),  # a carriage return inside a line
    ],
)
async def test_reader_refuses_bad_lines(data: bytes, message: str) -> None:
    lines = reader(limit=64)
    lines.feed_data(b"good line\n" + data)
    assert await lines.readline() == "good line"  # what came before is still read
    with pytest.raises(EngineProtocolError, match=message):
        await lines.readline()


async def test_an_overlong_line_is_refused_in_its_place() -> None:
    """Lines fed after an overlong one, before anyone read, are still read after its
    refusal (the bridge answers a GUI's commands in the order it sent them)."""
    lines = reader(limit=64)
    lines.feed_data(b"setoption name A\n" + b"x" * 40)
    lines.feed_data(b"x" * 40)  # over the limit: dropped up to its line end
    lines.feed_data(b"x" * 40 + b"\nsetoption name B\nisready\n")
    assert await lines.readline() == "setoption name A"
    with pytest.raises(EngineProtocolError, match="line over 64 bytes"):
        await lines.readline()
    assert await lines.readline() == "setoption name B"
    assert lines.take() == "isready"
    assert not lines.buffered


async def test_reader_skips_unreadable_lines_that_do_not_matter() -> None:
    """A banner in ANSI colours (Sjaak II's) is skipped and reported; the same bytes in
    a line that matters are a fault."""
    skipped: list[UnreadableLine] = []
    lines = LineReader(
        matters=lambda visible: visible.startswith("bestmove"), on_skip=skipped.append
    )
    lines.feed_data(
        b" 8\x1b[1m\x1b[46m\x1b[30mr \x1b[0m\n\xff\xfe banner\nucciok\n"
        b"\x1b[31mbestmove a1a2\x1b[0m\n"
    )
    assert await lines.readline() == "ucciok"
    assert [s.visible for s in skipped] == ["8r", "banner"]
    assert "\\xff" in skipped[1].text  # undecodable bytes shown escaped
    with pytest.raises(UnreadableLine, match="control characters") as caught:
        await lines.readline()
    assert caught.value.visible == "bestmove a1a2"


def test_unknown_lines_are_bounded() -> None:
    unknown = UnknownLines(2)
    unknown.add("a")
    unknown.add("b")
    with pytest.raises(EngineProtocolError, match="over 2 unexpected lines"):
        unknown.add("c")


# --- checked moves ----------------------------------------------------------------------


def test_check_move_memo_keeps_refusals() -> None:
    notation._CHECKED_MOVES.clear()
    assert check_move("h10g8", files=9, ranks=10) == "h10g8"
    assert ("h10g8", 9, 10) in notation._CHECKED_MOVES
    assert check_move("h10g8", files=9, ranks=10) == "h10g8"
    # the same move on a smaller board is checked on its own, and refused every time
    for _ in range(2):
        with pytest.raises(EngineArgumentError, match="8-rank"):
            check_move("h10g8", files=9, ranks=8)
    for bad in ("h3h3", "h3e3\nquit", "z", ""):
        for _ in range(2):
            with pytest.raises(EngineArgumentError):
                check_move(bad, files=9, ranks=10)
    with pytest.raises(EngineArgumentError):
        check_move(["h3e3"], files=9, ranks=10)  # type: ignore[arg-type]


def test_check_move_memo_is_bounded() -> None:
    notation._CHECKED_MOVES.clear()
    for rank in range(1, 11):
        for file in "abcdefghi":
            check_move(f"{file}{rank}e5" if f"{file}{rank}" != "e5" else "e5e6", files=9, ranks=10)
    assert len(notation._CHECKED_MOVES) <= notation._CHECKED_MOVES_MAX


@pytest.mark.parametrize("value", ["", " a", "a ", "a b", "a\u3000b", "a\tb"])
def test_check_token_refuses_whitespace(value: str) -> None:
    with pytest.raises(EngineArgumentError):
        check_token(value, "token")


# --- options ----------------------------------------------------------------------------


async def test_unchanged_options_are_not_resent(
    fsf_exe: Path,
    no_leaked_processes: set[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """configure() with the values the engine has sends nothing; any change, another
    spelling or another type is validated and sent (or refused) as usual."""
    caplog.set_level(logging.DEBUG, logger="protocol.engine")

    def sent() -> list[str]:
        lines = [r.getMessage().partition(") > ")[2] for r in caplog.records]
        caplog.clear()
        return [line for line in lines if line]

    engine = await Engine.start(fsf_exe)
    no_leaked_processes.add(engine.pid)
    try:
        sent()  # the handshake
        await engine.configure({"Threads": 1, "Hash": 16, "MultiPV": 3})
        assert sent() == [
            "setoption name Threads value 1",
            "setoption name Hash value 16",
            "setoption name MultiPV value 3",
        ]
        await engine.configure({"Threads": 1, "Hash": 16, "MultiPV": 3})
        await engine.configure({"MultiPV": 3})
        assert sent() == []
        await engine.configure({"MultiPV": 4})
        assert sent() == ["setoption name MultiPV value 4"]
        # a change through another spelling of the name is seen
        await engine.configure({"hash": 32})
        await engine.configure({"Hash": 16})
        assert sent() == ["setoption name Hash value 32", "setoption name Hash value 16"]
        assert engine.option_values["hash"] == "16"
        # a bad value is still refused, however often the good one was set, and so is
        # the same value with another type
        with pytest.raises(OptionError):
            await engine.configure({"MultiPV": 0})
        with pytest.raises(OptionError):
            await engine.configure({"MultiPV": True})
        assert sent() == []
        await engine.ping()
        # a closed engine says so, unchanged values or not
        await engine.close()
        with pytest.raises(EngineTerminatedError):
            await engine.configure({"Hash": 16})
    finally:
        await engine.close()


# --- liveness ---------------------------------------------------------------------------


def test_alive_sees_an_unreaped_exit() -> None:
    """A process that exited but was not reaped yet (a zombie) is not alive."""
    child = subprocess.Popen(["sleep", "30"])
    try:
        process = EngineProcess.__new__(EngineProcess)
        process.proc = SimpleNamespace(returncode=None)  # type: ignore[assignment]
        process.pid = child.pid
        process.ps = psutil.Process(child.pid)
        assert process.alive()
        child.kill()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
        assert process.ps.status() == psutil.STATUS_ZOMBIE
        assert not process.alive()
        assert process.ps.status() == psutil.STATUS_ZOMBIE  # looking did not reap it
    finally:
        child.kill()
        child.wait()
