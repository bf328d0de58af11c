"""Reading an engine's output line by line: chunked, bounded, and checked.

Every dialect reads the same way (:class:`LineReader`): one read of whatever the pipe
holds (one wake-up of the event loop for a burst of lines), split into lines that are
handed out one by one. Each line is decoded and checked when it is taken, in order, so
lines after the one a phase waited for stay for the next phase.

What a line may contain:

* A line over ``max_line`` bytes (or that many bytes without a line end) ends the
  session: :class:`~protocol.errors.EngineProtocolError`.
* A line that is not UTF-8, or that holds control characters (anything below 0x20 but
  tab, and DEL; ``\\r\\n`` line ends are fine), is an :class:`UnreadableLine`. Whether
  that is fatal is the dialect's call, by what the line would say
  (:attr:`UnreadableLine.visible`): Sjaak II prints a board in ANSI colours before it
  answers ``ucci``, which a client skips, while ``bestmove`` with a bell in it is a
  fault. :class:`LineReader` asks its ``matters`` predicate and skips (and reports) the
  lines that do not matter.

:class:`UnknownLines` bounds how many lines an engine may write that nobody asked for.
"""

from __future__ import annotations

import asyncio
import collections
import re
from collections.abc import Callable
from typing import cast

from protocol.errors import EngineProtocolError

__all__ = ["DEFAULT_MAX_LINE", "EndOfOutput", "LineReader", "UnknownLines", "UnreadableLine"]

#: The longest line accepted from an engine (FSF's UCI_Variant option line is ~2 KB).
DEFAULT_MAX_LINE = 1 << 20
# Control characters other than tab in a line: not text an engine means.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# The same in a run of whole lines, where line ends (\n, but no \r) are fine, as bytes:
# in UTF-8 they never occur inside a multi-byte sequence, so a chunk's bytes hold one
# where its text does (found with `bytes.translate`: one pass in C, far cheaper than a
# regular expression's search of the text).
_CHUNK_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
# ANSI escape sequences (colours, cursor moves), removed to see what a line says.
_ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")


class EndOfOutput(Exception):
    """The engine closed its standard output (after the lines read so far)."""


class UnreadableLine(EngineProtocolError):
    """A line with undecodable bytes or control characters.

    ``text`` is the line as read (undecodable bytes escaped), ``visible`` what it says
    once ANSI escapes and other control characters are removed (for deciding whether
    the line mattered).
    """

    def __init__(self, message: str, *, text: str, visible: str) -> None:
        super().__init__(message, phase="?")
        self.text = text
        self.visible = visible


class UnknownLines:
    """Counts lines that nobody asked for; more than ``limit`` is a flood (a fault)."""

    __slots__ = ("count", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def add(self, line: str) -> None:
        """Count ``line``; :class:`EngineProtocolError` once over the limit."""
        self.count += 1
        if self.count > self.limit:
            raise EngineProtocolError(
                f"engine wrote over {self.limit} unexpected lines (last {line[:80]!r})",
                phase="?",
            )


def _always(_visible: str) -> bool:
    return True


class LineReader:
    """Lines from an engine's stdout (see the module docstring).

    The reader is fed as asyncio feeds a stream (:meth:`feed_data`, :meth:`feed_eof`,
    :meth:`set_exception`): by :meth:`protocol`, the protocol of the engine's stdout
    pipe, or by whoever owns the input (the bridge's stdin thread, a test). It splits
    each chunk into lines as it arrives and wakes a waiting :meth:`readline` only once a
    complete line is there: one wake-up of the reading task per burst of lines, and no
    stream buffer between the pipe and the lines.

    ``on_line`` sees every line as read (bytes, before any check), for the wire log.
    ``matters(visible)`` says whether an unreadable line would have said something the
    session relies on; if not, the line is skipped and handed to ``on_skip``. By default
    every unreadable line matters (is raised).
    """

    def __init__(
        self,
        *,
        max_line: int = DEFAULT_MAX_LINE,
        on_line: Callable[[bytes], None] | None = None,
        matters: Callable[[str], bool] = _always,
        on_skip: Callable[[UnreadableLine], None] | None = None,
    ) -> None:
        self.max_line = max_line
        self.on_line = on_line
        self.matters = matters
        self.on_skip = on_skip
        # Lines read: str when their chunk was checked whole, bytes to check when taken.
        # An overlong line is an _OVERFLOW in its place: raised after the lines before
        # it, and before the lines after it however soon they were fed.
        self._lines: collections.deque[bytes | str | _Overflow] = collections.deque()
        self._partial = bytearray()
        self._discarding = False
        self._eof = False
        self._exception: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        # The loop of the pipe that feeds it (a reader fed by a thread has none): the one
        # its reader waits on, asked once (asyncio.get_running_loop() is a system call).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._paused = False
        self._pending = 0  # bytes of the lines not taken yet (for pausing the pipe)

    def protocol(self) -> asyncio.Protocol:
        """An asyncio protocol that feeds this reader (``loop.connect_read_pipe``)."""
        return _Feeder(self)

    @property
    def buffered(self) -> bool:
        """Whether a complete line is already read (:meth:`take` returns it at once)."""
        return bool(self._lines)

    async def readline(self) -> str:
        """The next line (without its line end), checked. Raises :class:`EndOfOutput`
        at the end of the output and :class:`EngineProtocolError` for a line that is
        too long, or unreadable and one that matters."""
        while True:
            if not self._lines:
                await self._fill()
            line = self._checked(self._lines.popleft())
            if line is not None:
                return line

    def take(self) -> str | None:
        """The next line if one is already read (no wait), else None; checked as in
        :meth:`readline` (an unreadable line that does not matter is skipped)."""
        while self._lines:
            line = self._checked(self._lines.popleft())
            if line is not None:
                return line
        return None

    async def read_until(self, token: str, unknown: UnknownLines) -> list[str]:
        """Read lines until one equal to ``token``; returns the lines before it. Lines
        other than ``info`` ones count as unknown."""
        lines: list[str] = []
        while True:
            line = await self.readline()
            if line == token:
                return lines
            if not line.startswith("info"):
                unknown.add(line)
            lines.append(line)

    # ------------------------------------------------------------------ the feeding side

    def feed_data(self, chunk: bytes) -> None:
        """Take in ``chunk`` of the output: its complete lines are ready to be read."""
        if not chunk:
            return
        if self._discarding:
            end = chunk.find(b"\n")
            if end < 0:
                return
            chunk = chunk[end + 1 :]
            self._discarding = False
        if b"\n" in chunk:
            data = bytes(self._partial) + chunk if self._partial else chunk
            end = data.rfind(b"\n")
            self._partial = bytearray(data[end + 1 :])
            self._lines.extend(self._split(data[:end]))
            self._pending += end
            if self._pending > 2 * self.max_line and self._transport is not None:
                self._transport.pause_reading()  # nobody reads: the engine waits, not our memory
                self._paused = True
            self._wake()
        else:
            self._partial += chunk
        if len(self._partial) > self.max_line:
            # The rest of this line is dropped: a reader that goes on (a GUI's input)
            # starts again at the next line.
            self._partial = bytearray()
            self._discarding = True
            self._lines.append(_OVERFLOW)
            self._wake()

    def feed_eof(self) -> None:
        """The output has ended (after the lines fed so far; a partial line is dropped)."""
        self._eof = True
        self._wake()

    def set_exception(self, error: BaseException) -> None:
        """Reading the output failed: ``error`` is raised once the lines fed are read."""
        self._exception = error
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def _fill(self) -> None:
        """Wait for at least one more complete line."""
        if self._paused and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        self._pending = 0
        while not self._lines:
            if self._exception is not None:
                raise self._exception
            if self._eof:
                raise EndOfOutput  # possibly after a partial line, which is dropped
            if self._waiter is not None:
                raise RuntimeError("two tasks read the same engine's output at once")
            self._waiter = (self._loop or asyncio.get_running_loop()).create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def _split(self, whole: bytes) -> list[bytes] | list[str]:
        """The lines of ``whole`` (whole lines without the last line end): decoded at
        once when every one of them is fine (the usual case: one check and one decode
        for all of a search's lines), else as bytes, each checked when it is taken. A
        line is fine when the whole is: \n never occurs inside a UTF-8 sequence."""
        fine = len(whole.translate(None, _CHUNK_CONTROL_BYTES)) == len(whole)
        if fine and len(whole) <= self.max_line:
            try:
                return whole.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                pass
        return whole.split(b"\n")

    def _checked(self, raw: bytes | str | _Overflow) -> str | None:
        """``raw`` decoded and checked; None when it is skipped."""
        if type(raw) is str:  # checked with its chunk
            if self.on_line is not None:
                self.on_line(raw.encode())
            return raw
        if raw is _OVERFLOW:
            raise EngineProtocolError(f"engine wrote a line over {self.max_line} bytes", phase="?")
        assert isinstance(raw, bytes)
        if self.on_line is not None:
            self.on_line(raw)
        if len(raw) > self.max_line:
            raise EngineProtocolError(f"engine wrote a line over {self.max_line} bytes", phase="?")
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "backslashreplace").rstrip("\r")
            self._unreadable(
                UnreadableLine(
                    f"engine wrote undecodable bytes: {raw[:80]!r}",
                    text=text,
                    visible=_visible(raw.decode("utf-8", "replace")),
                )
            )
            return None
        if _CONTROL_RE.search(line):
            self._unreadable(
                UnreadableLine(
                    f"engine wrote control characters: {line[:80]!r}",
                    text=line,
                    visible=_visible(line),
                )
            )
            return None
        return line

    def _unreadable(self, error: UnreadableLine) -> None:
        """Raise ``error`` if the line matters, else report it skipped."""
        if self.matters(error.visible):
            raise error
        if self.on_skip is not None:
            self.on_skip(error)


class _Overflow:
    """The place of a line that grew over the limit (its bytes are dropped)."""


_OVERFLOW = _Overflow()


class _Feeder(asyncio.Protocol):
    """The protocol of a pipe read into a :class:`LineReader`."""

    def __init__(self, reader: LineReader) -> None:
        self._reader = reader

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a read-pipe transport (uvloop's is not an asyncio.ReadTransport subclass)
        self._reader._transport = cast(asyncio.ReadTransport, transport)
        self._reader._loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        self._reader.feed_data(data)

    def eof_received(self) -> bool:
        self._reader.feed_eof()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None:
            self._reader.feed_eof()
        else:
            self._reader.set_exception(exc)


def _visible(text: str) -> str:
    """What a line says once ANSI escapes and other control characters are removed."""
    return _CONTROL_RE.sub("", _ANSI_RE.sub("", text.rstrip("\r"))).replace("\ufffd", "").strip()
