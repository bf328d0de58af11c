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
import re
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import ClassVar, TextIO

from ladder.bridge.session import Answer, LevelSession, SessionError
from ladder.rules.errors import RulesError
from ladder.rules.notation import normalize_move
from protocol import EngineError, InfoDict, Limit, LineReader, RankNumbering
from protocol.errors import EngineProtocolError
from protocol.lines import EndOfOutput, UnreadableLine

__all__ = ["GuiGone", "GuiServer", "open_stdin"]

log = logging.getLogger("ladder.bridge")

Handler = Callable[[list[str]], Awaitable[None]]

#: How long a stopped search may take to answer before ``stop`` is sent again (s).
STOP_AGAIN_S = 0.25

#: A move or drop with ranks 1..10, the whole text (a drop's piece letter in either
#: case, as the HTTP API and the rules checker take it: ``N@e6``, ``n@e6``, ``h@e6``).
_MOVE_TEXT = re.compile(r"(?:[A-Za-z]@|[a-i](?:10|[1-9]))[a-i](?:10|[1-9])[a-z]?")


class GuiGone(Exception):
    """The GUI closed our standard output."""


async def open_stdin() -> LineReader:
    """Standard input, line by line, fed by a reader thread."""
    loop = asyncio.get_running_loop()
    reader = LineReader()
    fd = sys.stdin.fileno()

    def feed(chunk: bytes) -> bool:
        try:
            if chunk:
                loop.call_soon_threadsafe(reader.feed_data, chunk)
            else:
                loop.call_soon_threadsafe(reader.feed_eof)
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
    return reader


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
        self.warm_up_task: asyncio.Task[None] | None = None
        self.quitting = False
        # Fixed now: a Level played later must not move the Elo default (--elo) shown.
        self._elo_spin = self._offered_elo_spin()
        spin = self._elo_spin
        #: What the Level and Elo options show (their defaults until set). An option sent
        #: with the value it shows changes nothing: a GUI may send every option, each
        #: with its value, when it starts an engine, whichever of the two the user chose.
        self.shown: dict[str, int | None] = {
            "level": session.level,
            "elo": None if spin is None else spin[0],
        }

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

    def note(self, message: str) -> None:
        """Tell the GUI something it did not ask about (the dialect's text line)."""
        raise NotImplementedError

    def elo_spin(self) -> tuple[int, int, int] | None:
        """The ``Elo`` spin option's default, minimum and maximum (None: not offered, no
        variant is rated): the Elo set when the session started (``--elo``) or else the
        lowest rating; once a Level plays, the Elo option counts as back at it."""
        return self._elo_spin

    def _offered_elo_spin(self) -> tuple[int, int, int] | None:
        span = self.session.offered_elo_span()
        if span is None:
            return None
        low, high = round(span[0]), round(span[1])
        elo = self.session.elo
        return (low if elo is None else round(elo)), low, high

    def set_strength(self, option: str, value: int) -> None:
        """The ``Level`` or ``Elo`` option sent (``option`` "level" or "elo"): play it,
        unless it is the value the option shows already."""
        if self.shown.get(option) == value:
            return
        if option == "level":
            self.play_level(value)
        else:
            self.session.set_elo(value)
            self.shown = {"level": None, "elo": value}  # a Level sent next plays

    def play_level(self, level: int) -> None:
        """Play ``level`` (an Elo set is dropped): the Elo option counts as back at its
        default, so an Elo sent next plays."""
        self.session.set_level(level)
        spin = self.elo_spin()
        self.shown = {"level": level, "elo": None if spin is None else spin[0]}

    def say_elo_note(self) -> None:
        """After a change of Elo or variant: say so when the Elo set is beyond the
        variant's own ratings and its nearest end plays."""
        if (message := self.session.elo_note()) is not None:
            self.note(message)

    def to_gui(self, move: str) -> str:
        return self.ranks.to_engine(move)

    def from_gui(self, move: str) -> str | None:
        """A GUI's move, canonical; None when it is not a move at all."""
        try:
            text = self.ranks.from_engine(move)
        except ValueError:
            return None
        if not _MOVE_TEXT.fullmatch(text):
            return None
        try:
            return normalize_move(text)
        except RulesError as exc:
            # Played as it is, so that the rules checker says what is wrong (its points
            # are data, written in the GUI's notation); a text it names no point of is
            # malformed here, in the GUI's own words.
            return text if exc.points else None

    def gui_reason(self, refused: RulesError) -> str:
        """Why the rules checker refused a move (``illegal move 'a1a6': a chariot on a1
        …``), its points (data of the error) written in the GUI's notation (UCCI,
        XBoard: ranks 0..9)."""
        return refused.reason_in(self.to_gui)

    def malformed(self, text: str) -> str:
        """Why ``text`` is not a move, in the GUI's notation."""
        examples = ", ".join(repr(self.to_gui(m)) for m in ("h3e3", "b10c8"))
        drop = "A@" + self.to_gui("e2e3")[2:]
        return f"malformed move {text[:40]!r}: expected e.g. {examples} or a drop {drop!r}"

    # ------------------------------------------------------------------ the loop

    async def run(self, reader: LineReader) -> int:
        """Read and answer commands from ``reader`` (:func:`open_stdin`) until ``quit``
        or the end of the input."""
        reader.on_line = self._received
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
            if self.warm_up_task is not None and not self.warm_up_task.done():
                self.warm_up_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self.warm_up_task
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
        task = self.search_task
        while task is not None and not task.done():
            await self.session.stop()
            # A stop that came before the engine's `go` was a no-op: an analysis would
            # never end, so it is sent again until the search is over.
            await asyncio.wait({task}, timeout=STOP_AGAIN_S)
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

    async def level_answer(
        self, banned: frozenset[str] = frozenset(), time_limit_ms: int | None = None
    ) -> Answer | None:
        """The level's move (its search stopped at ``time_limit_ms`` on a clock); if the
        engine keeps failing, an error line and a random legal move (a GUI waits for a
        move); None when there is no legal move."""
        try:
            return await self.session.best_move(banned, time_limit_ms)
        except SessionError as exc:  # e.g. an Elo the new variant's levels cannot play
            self.error(f"{exc}: playing Level {self.session.level}")
            self.session.elo = None
            return await self.level_answer(banned, time_limit_ms)
        except EngineError as exc:
            log.warning("%s: the engine failed in %s: %s", self.name, self.session.game.fen(), exc)
            self.error(f"the engine failed ({exc}): playing a random legal move")
        legal = sorted(self.session.game.legal_moves())
        if not legal:
            return None
        move = random.Random(self.session.move_seed()).choice(legal)
        return Answer(move, None, None, 0, 0, (move,), 0.0)

    async def analysis_answer(
        self,
        limit: Limit,
        on_info: Callable[[InfoDict], None],
        banned: frozenset[str] = frozenset(),
    ) -> Answer | None:
        """The engine's best move after an analysis at full strength (:meth:`LevelSession.
        analyse`); if the engine fails, an error line and the level's move."""
        try:
            return await self.session.analyse(limit, on_info, banned)
        except EngineError as exc:
            log.warning(
                "%s: the analysis failed in %s: %s", self.name, self.session.game.fen(), exc
            )
            self.error(f"the analysis failed ({exc}): playing the level's move")
        return await self.level_answer(banned)

    def warm_up(self) -> None:
        """After the handshake: start the engine in the background (:meth:`ready`), so
        that a GUI that sends ``go`` without ``isready`` or ``ping`` first does not pay
        for the engine's start (most of a second) on its clock. Once per session."""

        async def run() -> None:
            try:
                await self.ready()
            except GuiGone:
                pass
            except Exception:  # a bug of ours: logged; the next search starts the engine
                log.exception("%s: starting the engine in the background failed", self.name)

        if self.warm_up_task is None:
            self.warm_up_task = asyncio.create_task(run())

    @property
    def analysis_next(self) -> bool:
        """Whether the next search is an analysis (its Hash, not the level's)."""
        return False

    async def ready(self) -> None:
        """Start the engine (or check it) unless a search runs, set up for the next
        search; never fails."""
        if self.searching:
            return
        try:
            await self.session.prepare(analysis=self.analysis_next)
        except EngineError as exc:
            log.warning("%s: the engine does not start: %s", self.name, exc)
            self.error(f"the engine does not start ({exc}); moves will be random")
