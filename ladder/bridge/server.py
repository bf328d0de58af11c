"""The part of `ladder uci|ucci|xboard` that every dialect shares: the GUI's lines in,
ours out, and the search running beside the reading.

The GUI's input is read with :class:`protocol.LineReader` (from a thread that feeds
standard input to the event loop, so a pipe, a terminal and a file all work); a line
that is too long, undecodable or full of control characters gets an error line and is
dropped, and so does a command the dialect does not know. The search runs as a task
while commands keep being read, so ``isready``/``ping``, ``stop`` and ``quit`` are
answered at once. Every line in and out is logged at DEBUG on ``ladder.bridge``
(``ladder --log-level debug uci``), on standard error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import ClassVar, TextIO

from ladder.bridge.session import Answer, LevelSession, SessionError
from protocol import EngineError, LineReader, RankNumbering
from protocol.errors import EngineProtocolError
from protocol.lines import EndOfOutput, UnreadableLine

__all__ = ["GuiGone", "GuiServer", "open_stdin"]

log = logging.getLogger("ladder.bridge")

Handler = Callable[[list[str]], Awaitable[None]]


class GuiGone(Exception):
    """The GUI closed our standard output."""


async def open_stdin() -> asyncio.StreamReader:
    """Standard input as a stream, fed by a reader thread."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    fd = sys.stdin.fileno()

    def feed(chunk: bytes) -> bool:
        try:
            if chunk:
                loop.call_soon_threadsafe(stream.feed_data, chunk)
            else:
                loop.call_soon_threadsafe(stream.feed_eof)
        except RuntimeError:  # the loop is closed: we are exiting
            return False
        return bool(chunk)

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not feed(chunk):
                return

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return stream


class GuiServer:
    """One GUI session: the loop, the output, the search task. Subclasses give the
    dialect's commands (``commands``), its move notation (``ranks``) and its answers."""

    #: The command's name (``ladder uci``).
    name: ClassVar[str]
    #: How the dialect numbers a xiangqi board's ranks.
    ranks: ClassVar[RankNumbering]

    def __init__(self, session: LevelSession, output: TextIO | None = None) -> None:
        self.session = session
        self._output = output or sys.stdout
        self.commands: dict[str, Handler] = {}
        self.search_task: asyncio.Task[None] | None = None
        self.quitting = False

    # ------------------------------------------------------------------ I/O

    def send(self, line: str) -> None:
        """Write one line to the GUI (and flush)."""
        log.debug("%s > %s", self.name, line)
        try:
            self._output.write(line + "\n")
            self._output.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise GuiGone from exc

    def _received(self, raw: bytes) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s < %s", self.name, raw.decode("utf-8", "backslashreplace").rstrip())

    def error(self, message: str) -> None:
        """Tell the GUI about a refused command (the dialect's error line)."""
        raise NotImplementedError

    def to_gui(self, move: str) -> str:
        return self.ranks.to_engine(move)

    def from_gui(self, move: str) -> str | None:
        """A GUI's move, canonical; None when it is not a move at all."""
        try:
            return self.ranks.from_engine(move)
        except ValueError:
            return None

    # ------------------------------------------------------------------ the loop

    async def run(self, stream: asyncio.StreamReader) -> int:
        """Read and answer commands until ``quit`` or the end of the input."""
        reader = LineReader(stream, on_line=self._received)
        try:
            while not self.quitting:
                try:
                    line = await reader.readline()
                except EndOfOutput:
                    await self.end_of_input()
                    break
                except UnreadableLine as exc:
                    self.error(f"unreadable input line ({exc.text[:80]!r}): ignored")
                    continue
                except EngineProtocolError:
                    self.error(f"input line over {reader.max_line} bytes: ignored")
                    continue
                await self.handle(line)
        except GuiGone:
            pass
        finally:
            await self.cancel_search()
            await self.session.close()
        return 0

    async def handle(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        handler = self.commands.get(words[0])
        if handler is None:
            self.unknown(line)
            return
        try:
            await handler(words[1:])
        except SessionError as exc:
            self.error(str(exc))
        except GuiGone:
            raise
        except Exception as exc:  # a bug of ours must not end the GUI's engine
            log.exception("%s: %r failed", self.name, line[:80])
            self.error(f"internal error on {words[0]!r}: {type(exc).__name__}: {exc}")

    def unknown(self, line: str) -> None:
        self.error(f"unknown command: {line[:80]!r}")

    async def end_of_input(self) -> None:
        """The GUI's input ended (a `quit` without the word): by default, exit at once."""
        return None

    # ------------------------------------------------------------------ searching

    @property
    def searching(self) -> bool:
        return self.search_task is not None and not self.search_task.done()

    def start_search(self, search: Callable[[], Awaitable[None]]) -> None:
        # The search is made inside the task: a task cancelled before its first step
        # (`go` then `quit` at once) leaves no coroutine that was never awaited.
        async def run() -> None:
            try:
                await search()
            except GuiGone:
                pass
            except Exception as exc:  # a bug of ours: said, not swallowed
                log.exception("%s: the search failed", self.name)
                with contextlib.suppress(GuiGone):
                    self.error(f"internal error in the search: {type(exc).__name__}: {exc}")

        self.search_task = asyncio.create_task(run())

    async def finish_search(self) -> None:
        """Let a running search end now (it answers), and wait for it."""
        if self.searching:
            await self.session.stop()
        await self.wait_search()

    async def wait_search(self) -> None:
        task = self.search_task
        if task is not None:
            await task
            self.search_task = None

    async def cancel_search(self) -> None:
        """End a running search without an answer."""
        task, self.search_task = self.search_task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def level_answer(self, banned: frozenset[str] = frozenset()) -> Answer | None:
        """The level's move; if the engine keeps failing, an error line and a random
        legal move (a GUI waits for a move); None when there is no legal move."""
        try:
            return await self.session.best_move(banned)
        except SessionError as exc:  # e.g. an Elo the new variant's levels cannot play
            self.error(f"{exc}: playing Level {self.session.level}")
            self.session.elo = None
            return await self.level_answer(banned)
        except EngineError as exc:
            log.warning("%s: the engine failed in %s: %s", self.name, self.session.game.fen(), exc)
            self.error(f"the engine failed ({exc}): playing a random legal move")
        legal = sorted(self.session.game.legal_moves())
        if not legal:
            return None
        move = random.Random(self.session.move_seed()).choice(legal)
        return Answer(move, None, None, None, 0, 0, (move,), 0.0)

    async def ready(self) -> None:
        """Start the engine (or check it) unless a search runs; never fails."""
        if self.searching:
            return
        try:
            await self.session.prepare()
        except EngineError as exc:
            log.warning("%s: the engine does not start: %s", self.name, exc)
            self.error(f"the engine does not start ({exc}); moves will be random")
