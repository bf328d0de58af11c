"""The engine client's shortcuts (per-search CPU) keep its behaviour: the buffered
line reader, the memo of checked moves, options not re-validated when unchanged, and
the one-system-call liveness check."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psutil
import pytest

from protocol import (
    Dialect,
    Engine,
    EngineArgumentError,
    EngineProtocolError,
    EngineTerminatedError,
    OptionError,
    Timeouts,
    notation,
)
from protocol.engine import _EOF
from protocol.notation import check_move, check_token
from protocol.process import EngineProcess

pytestmark = pytest.mark.timeout(60)


# --- the line reader ------------------------------------------------------------------


def reader_engine(limit: int = 64) -> tuple[Engine, asyncio.StreamReader]:
    """An Engine reading from a StreamReader the test feeds (no process behind it)."""
    stream = asyncio.StreamReader(limit=limit)
    fake_process: Any = SimpleNamespace(stdin=None, stdout=stream)
    return Engine(fake_process, Dialect.UCI, timeouts=Timeouts()), stream


async def test_reader_splits_chunks_into_lines() -> None:
    engine, stream = reader_engine()
    stream.feed_data(b"id name x\ninfo a\r\ninfo b")
    assert await engine._readline() == "id name x"
    assert await engine._readline() == "info a"  # \r\n ends a line too
    stream.feed_data(b"c\n\nreadyok\nbest")
    assert await engine._readline() == "info bc"  # a line cut between two reads
    assert await engine._readline() == ""
    assert await engine._readline() == "readyok"
    stream.feed_data(b"move a1a2\n")
    assert await engine._readline() == "bestmove a1a2"
    stream.feed_eof()
    with pytest.raises(_EOF):
        await engine._readline()


async def test_reader_keeps_lines_for_the_next_read() -> None:
    """Lines read in the same chunk as the one a phase waited for stay for the next."""
    engine, stream = reader_engine()
    stream.feed_data(b"readyok\ninfo string x\nbestmove a1a2\n")
    assert await engine._read_until("readyok") == []
    assert await engine._readline() == "info string x"
    assert await engine._readline() == "bestmove a1a2"


async def test_reader_eof_after_a_partial_line() -> None:
    engine, stream = reader_engine()
    stream.feed_data(b"uciok\nhalf a li")
    stream.feed_eof()
    assert await engine._readline() == "uciok"
    with pytest.raises(_EOF):
        await engine._readline()


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
    engine, stream = reader_engine(limit=64)
    stream.feed_data(b"good line\n" + data)
    assert await engine._readline() == "good line"  # what came before is still read
    with pytest.raises(EngineProtocolError, match=message):
        await engine._readline()


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


async def test_unchanged_options_are_not_revalidated(
    fsf_exe: Path, no_leaked_processes: set[int]
) -> None:
    engine = await Engine.start(fsf_exe)
    no_leaked_processes.add(engine.pid)
    try:
        await engine.configure({"Threads": 1, "Hash": 16, "MultiPV": 3})
        assert engine._unchanged({"Threads": 1, "Hash": 16, "MultiPV": 3})
        assert engine._unchanged({"MultiPV": 3})
        assert not engine._unchanged({"MultiPV": 4})
        assert not engine._unchanged({"MultiPV": True})  # same value, not the same type
        assert not engine._unchanged({"Threads": 1, "Contempt": 0})  # never validated
        # a change through another spelling of the name is seen
        await engine.configure({"hash": 32})
        assert not engine._unchanged({"Hash": 16})
        await engine.configure({"Hash": 16})
        assert engine._values["hash"] == "16"
        # a bad value is still refused, however often the good one was set
        with pytest.raises(OptionError):
            await engine.configure({"MultiPV": 0})
        with pytest.raises(OptionError):
            await engine.configure({"MultiPV": True})
        await engine.ping()
        # a closed engine says so, unchanged values or not
        await engine.close()
        assert not engine._unchanged({"Hash": 16})
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
