"""The shared core of every engine client: one :class:`Engine` per engine process.

Each dialect is a subclass (python-chess's shape): :class:`protocol.uci.UciEngine`
(UCI), :class:`protocol.uci.UcciEngine` (UCCI) and :class:`protocol.xboard.XBoardEngine`
(XBoard/CECP). ``Engine.start(command, protocol=Dialect.X)`` starts the right one; they
share everything that is not wording:

* the process (:class:`~protocol.process.EngineProcess`: own session, tree kill);
* the line reader (:class:`~protocol.lines.LineReader`: chunked, bounded, checked; an
  unreadable line is a fault only when it says something the dialect relies on, so a
  banner in ANSI colours before the handshake is skipped);
* the deadline/fault guard (:class:`~protocol.guard.FaultGuard`: every wait has a
  deadline, and a crash, hang or lie kills the whole process tree and raises a typed
  :class:`~protocol.errors.EngineFault`; the object is then closed for good);
* one operation at a time (a lock), with resynchronisation after a cancelled one;
* options validated against what the engine advertised before anything is sent
  (:mod:`protocol.options`), and never re-sent unchanged;
* typed results (:class:`~protocol.info.PlayResult`, :class:`~protocol.info.InfoDict`)
  in the canonical notation (ranks 1..10), whatever the engine writes;
* every argument checked before it is interpolated into a command: no newline or other
  control character reaches an engine (:class:`~protocol.errors.UnsafeArgumentError`),
  and moves are syntax-checked (legality is the caller's: ``validate_move=``).

A write that fails because the engine died under us (uvloop raises ``RuntimeError``,
``BrokenPipeError`` or ``ConnectionResetError`` there) is the same fault:
:class:`~protocol.errors.EngineTerminatedError`.

Every line to and from each engine is logged at DEBUG on the ``protocol.engine`` logger
(as python-chess does on ``chess.engine``), with the engine's name and pid, in the
engine's own notation: ``Fairy-Stockfish 301126 LB (pid 4242) > go nodes 100000``. Off
by default; ``ladder --log-level debug …`` turns it on. Lines skipped as unreadable are
also reported at INFO.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import importlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self, cast

import chess

from protocol.errors import (
    EngineArgumentError,
    EngineError,
    EngineFault,
    EngineTimeoutError,
    OptionError,
)
from protocol.guard import FaultGuard, Phase
from protocol.info import InfoDict, PlayResult
from protocol.limits import Limit
from protocol.lines import DEFAULT_MAX_LINE, UnknownLines, UnreadableLine
from protocol.notation import (
    FenLetters,
    RankNumbering,
    check_safe,
    check_token,
    ucci_uses_zero_based,
)
from protocol.options import Option, OptionMap, OptionValue, normalise_name
from protocol.process import EngineProcess, Timeouts

__all__ = ["Dialect", "Engine", "EngineVariant", "refusal_line"]

#: The wire log: every line to (``>``) and from (``<``) each engine, at DEBUG.
log = logging.getLogger(__name__)

# What writing to an engine whose process is gone can raise, depending on the event loop:
# uvloop raises RuntimeError once its pipe handle is closed, and BrokenPipeError or
# ConnectionResetError from the write itself. (asyncio's pipe transport swallows write
# errors; there the EOF that follows is the signal.) Any of them: the engine is gone.
_WRITE_ERRORS = (RuntimeError, OSError)


class Dialect(enum.Enum):
    """Which protocol to speak. Chosen by the caller: engines do not announce it."""

    UCI = "uci"
    UCCI = "ucci"
    XBOARD = "xboard"


@dataclass(frozen=True, slots=True)
class EngineVariant:
    """The variant the engine plays, as the engine announced it (fields None when it did
    not: FSF stays silent for its standard variants such as ``xiangqi`` and ``chess``,
    XBoard engines only list names)."""

    name: str
    files: int | None = None
    ranks: int | None = None
    pocket: int | None = None
    template: str | None = None
    start_fen: str | None = None


# What an engine says about a position it will not set up: Sjaak II's "Error: unknown
# piece type 'n' (bad FEN …)" and XBoard's "tellusererror …"/"Illegal position".
_REFUSAL_RE = re.compile(
    r"^(error\b|tellusererror\b|illegal\b|invalid\b)|\b(bad|invalid|illegal) (fen|position)\b",
    re.IGNORECASE,
)


def refusal_line(lines: Iterable[str]) -> str | None:
    """The first of ``lines`` that refuses a position, None if none does."""
    return next((line for line in lines if _REFUSAL_RE.search(line)), None)


_DIALECTS: dict[Dialect, type[Engine]] = {}
#: The module of each dialect's class, which registers itself in _DIALECTS when its
#: module is imported (on the first start in that dialect, not with the package).
_DIALECT_MODULES = {
    Dialect.UCI: "protocol.uci",
    Dialect.UCCI: "protocol.uci",
    Dialect.XBOARD: "protocol.xboard",
}
_THREADS = "Threads"


def _dialect_class(dialect: Dialect) -> type[Engine]:
    if dialect not in _DIALECTS:
        importlib.import_module(_DIALECT_MODULES[dialect])
    return _DIALECTS[dialect]


class Engine:
    """An async client for one engine process; the base of the dialect classes.

    Start one with :meth:`start` (which performs the handshake), use it, then
    :meth:`quit` (or use ``async with``). One operation runs at a time; :meth:`stop`
    may be called from another task while :meth:`search` runs.
    """

    #: The dialect a subclass speaks.
    dialect: ClassVar[Dialect]
    #: How the engine numbers a 10-rank board when the caller does not say (None:
    #: found out during the handshake).
    default_ranks: ClassVar[RankNumbering | None] = RankNumbering.ONE_BASED
    #: The letters of the FENs the engine is sent when the caller does not say.
    default_fen_letters: ClassVar[FenLetters] = FenLetters.FSF
    #: First words of the lines the dialect relies on: such a line with control
    #: characters or undecodable bytes is a fault; any other unreadable line is skipped.
    keywords: ClassVar[frozenset[str]] = frozenset()
    #: The line that asks a running search to move now.
    stop_command: ClassVar[str] = "stop"
    #: The phase name of a readiness check (``isready``/``readyok``, ``ping``/``pong``).
    sync_phase: ClassVar[str] = "isready"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "dialect" in cls.__dict__:
            _DIALECTS[cls.dialect] = cls

    def __init__(
        self,
        process: EngineProcess,
        *,
        timeouts: Timeouts,
        max_unknown_lines: int = 10_000,
        ranks: RankNumbering | None = None,
        fen_letters: FenLetters | None = None,
    ) -> None:
        self.process = process
        self.timeouts = timeouts
        self.id: dict[str, str] = {}
        self.options = OptionMap(ucci=self.dialect is Dialect.UCCI)
        self.variant: EngineVariant | None = None
        #: How the engine numbers the ranks of a 10-rank board (None until known).
        self.ranks: RankNumbering | None = ranks if ranks is not None else self.default_ranks
        #: The letters of the FENs the engine is sent (callers give FSF's).
        self.fen_letters = fen_letters or self.default_fen_letters
        self.guard = FaultGuard(process, timeouts)
        #: The current phase's count of lines nobody asked for (a flood is a fault).
        self.unknown = UnknownLines(max_unknown_lines)
        self.reader = process.stdout
        self.reader.on_line = self._received
        self.reader.matters = self.matters
        self.reader.on_skip = self._skipped
        self._handshake_done = False
        self._skipped_in_handshake = 0
        self._lock = asyncio.Lock()
        self._desync = False  # an operation was cancelled: resynchronise before the next
        self._searching = False
        self._search_timeout: Phase | None = None
        self._values: dict[str, str | None] = {}
        self._implicit: set[str] = set()  # options the engine does not have (no line)
        # name as given -> (type, value, option key, wire value) of validated values
        self._checked_values: dict[str, tuple[type, OptionValue, str, str | None]] = {}
        self._init_dialect()

    def _init_dialect(self) -> None:
        """Set up the dialect's own per-engine state (called by ``__init__``)."""

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def start(
        cls,
        command: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        protocol: Dialect | None = None,
        timeouts: Timeouts | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        max_unknown_lines: int = 10_000,
        ranks: RankNumbering | str | None = None,
        fen_letters: FenLetters | None = None,
    ) -> Self:
        """Spawn the engine and perform the handshake.

        ``command`` is an executable path or an argv list. On :class:`Engine` itself,
        ``protocol`` picks the dialect class (default UCI); on a dialect class
        (``UciEngine.start(…)``, typed as that class) it may be left out. ``ranks``
        (``"0-9"``/``"1-10"``) says how the engine numbers a 10-rank board, when it
        differs from the dialect's default; ``fen_letters`` the letters it reads a
        xiangqi FEN in (default: the dialect's, FSF's for UCI/UCCI, XBoard's for XBoard).
        """
        if cls is Engine:
            engine_class = _dialect_class(protocol or Dialect.UCI)
        elif protocol is None or protocol is cls.dialect:
            engine_class = cls
        else:
            raise EngineArgumentError(f"{cls.__name__} speaks {cls.dialect.value}, not {protocol}")
        try:
            numbering = RankNumbering(ranks) if isinstance(ranks, str) else ranks
        except ValueError:
            raise EngineArgumentError(f"ranks must be 0-9 or 1-10, not {ranks!r}") from None
        timeouts = timeouts or Timeouts()
        argv = [command] if isinstance(command, str | os.PathLike) else list(command)
        for part in argv:
            check_safe(os.fspath(part), "command")
        process = await EngineProcess.spawn(
            argv, env=env, cwd=cwd, max_line=max_line, timeout=timeouts.startup
        )
        engine = engine_class(
            process,
            timeouts=timeouts,
            max_unknown_lines=max_unknown_lines,
            ranks=numbering,
            fen_letters=fen_letters,
        )
        try:
            await engine._handshake()
        except BaseException:
            await engine.kill()
            raise
        engine._handshake_done = True
        if _THREADS not in engine.options:
            # An engine that lists no thread count runs one thread: Threads=1 is what it
            # does already (and sends nothing); any other value is refused.
            engine.options.add(Option(_THREADS, "spin", default=1, min=1, max=1))
            engine._implicit.add(normalise_name(_THREADS))
        if engine._skipped_in_handshake:
            log.info(
                "%s skipped %d unreadable line(s) before its handshake answer (a banner)",
                engine.name,
                engine._skipped_in_handshake,
            )
        return cast(Self, engine)  # Engine.start gives the dialect's class: an Engine

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def protocol(self) -> Dialect:
        """The dialect this client speaks."""
        return self.dialect

    @property
    def closed(self) -> bool:
        return self.guard.closed

    @property
    def error(self) -> EngineFault | None:
        """The fault that closed this engine, if one did."""
        return self.guard.error

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def name(self) -> str:
        """The engine's name with its pid (its executable's until it has said its name)."""
        name = self.id.get("name") or os.path.basename(self.process.command[0])
        return f"{name} (pid {self.pid})"

    @property
    def option_values(self) -> Mapping[str, str | None]:
        """What this client last set, by normalised option name, as sent on the wire."""
        return self._values

    async def quit(self) -> None:
        """Say ``quit`` and wait for the process to exit (``Timeouts.quit``).

        An engine that does not exit in time is killed, and
        :class:`EngineTimeoutError` (phase ``quit``) is raised. Idempotent.
        """
        if self.closed:
            return
        if self._searching:
            await self.stop()
        async with self._lock:
            if self.closed:
                return
            self.guard.closed = True
            self._write_nowait("quit\n")  # a dead engine has quit already
            clean = await self.process.finish(self.timeouts.quit)
        if not clean:
            raise EngineTimeoutError(
                f"engine did not exit within {self.timeouts.quit}s of quit; killed",
                phase="quit",
                timeout=self.timeouts.quit,
                stderr=self.process.stderr_tail(),
            )

    async def close(self) -> None:
        """:meth:`quit`, ignoring a slow exit (the engine is killed either way)."""
        with contextlib.suppress(EngineError):
            await self.quit()
        await self.kill()

    async def kill(self) -> None:
        """Kill the engine's process tree at once and reap it."""
        await self.guard.kill()

    # ------------------------------------------------------------------ I/O

    async def _send(self, text: str, phase: str) -> None:
        """Write ``text`` to the engine. When the write fails (the engine died under us),
        kill and reap the tree and raise :class:`EngineTerminatedError` for ``phase``."""
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire(">", text.rstrip("\n").split("\n"))
        try:
            self.process.stdin.write(text.encode())
        except _WRITE_ERRORS as exc:
            await self.guard.died(phase, exc, f"writing to it failed ({type(exc).__name__}: {exc})")

    def _write_nowait(self, text: str) -> None:
        """Write ``text`` where no fault may be raised (``stop``, ``quit``, a cancelled
        operation): a failed write is ignored, since whatever reads from the engine next
        finds it gone (or ``quit`` finds it exited)."""
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire(">", text.rstrip("\n").split("\n"))
        with contextlib.suppress(*_WRITE_ERRORS):
            self.process.stdin.write(text.encode())

    def _log_wire(self, arrow: str, lines: Iterable[str]) -> None:
        """Log lines sent (``>``) to or received (``<``) from the engine, at DEBUG."""
        name = self.name
        for line in lines:
            shown = line if line.isprintable() else repr(line)
            log.debug("%s %s %s", name, arrow, shown)

    def _received(self, raw: bytes) -> None:
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire("<", [raw.decode("utf-8", "backslashreplace").rstrip("\r")])

    def matters(self, visible: str) -> bool:
        """Whether an unreadable line saying ``visible`` would matter to the dialect
        (then it is a fault; otherwise it is skipped)."""
        return visible.partition(" ")[0] in self.keywords

    def _skipped(self, error: UnreadableLine) -> None:
        self.unknown.add(error.visible)
        if not self._handshake_done:
            self._skipped_in_handshake += 1
        else:
            log.info("%s: skipped an unreadable line: %r", self.name, error.text[:200])

    def _phase(self, phase: str, timeout: float) -> Phase:
        """A read phase under the guard (deadline, faults), with its own count of
        unknown lines."""
        self.unknown.count = 0  # (the count is the phase's; the bound is the engine's)
        return self.guard.phase(phase, timeout)

    def _operation(self) -> _Operation:
        """One operation at a time; resynchronise first after a cancelled one."""
        return _Operation(self)

    async def _read_search_end(self, ends: Callable[[str], bool]) -> str:
        """Lines until the one that ends a search (returned); ``info`` lines are
        dropped, others counted as unknown (inside a phase)."""
        while True:
            line = await self.reader.readline()
            if ends(line):
                return line
            if not line.startswith("info"):
                self.unknown.add(line)

    async def _read_until(self, token: str) -> list[str]:
        """Lines until one equal to ``token`` (inside a phase)."""
        return await self.reader.read_until(token, self.unknown)

    # ------------------------------------------------------------------ dialect parts

    async def _handshake(self) -> None:
        """Say hello, read the engine's identity and options."""
        raise NotImplementedError

    def _sync_command(self) -> tuple[str, str] | None:
        """(line to send, answer to wait for) of a readiness check; None if the engine
        has none."""
        raise NotImplementedError

    def _setoption_line(self, option: Option, wire: str | None) -> str:
        """The line that sets ``option`` to ``wire``."""
        raise NotImplementedError

    async def _resync(self) -> None:
        """After a cancelled operation: finish any search, then a readiness check."""
        raise NotImplementedError

    async def load_variants(self, path: str | os.PathLike[str]) -> None:
        """Load a variants.ini (``VariantPath``); :class:`OptionError` for an engine
        without that option."""
        raise OptionError(f"{self.name} has no option 'VariantPath'")

    async def set_variant(self, name: str) -> EngineVariant:
        """Switch to variant ``name`` (:class:`VariantError` if the engine has none)."""
        raise NotImplementedError

    async def new_game(self) -> None:
        """Tell the engine a new game starts, and wait until it is ready."""
        raise NotImplementedError

    async def search(
        self,
        fen: str | None,
        moves: Sequence[str] = (),
        limit: Limit | None = None,
        *,
        new_game: bool = False,
        on_info: Callable[[InfoDict], None] | None = None,
        validate_move: Callable[[str], bool] | None = None,
    ) -> PlayResult:
        """Search ``fen`` (None: the variant's start position) + canonical ``moves``
        under ``limit``; see the dialect classes. ``validate_move`` (the rules checker's
        legality test) may reject the engine's move: that is an
        :class:`EngineProtocolError` and the engine is killed, like any other lie."""
        raise NotImplementedError

    async def refusal(self, fen: str) -> str | None:
        """Set up ``fen`` (FSF's letters; sent in :attr:`fen_letters`) without searching
        and return the engine's own words if it refused it (an ``Error``/``Illegal``
        line before its readiness answer), None if it said nothing against it. Engines
        do not acknowledge a position, so this is the one way to learn before a search
        that never ends (Sjaak II reads no ``go`` after a FEN it refused)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ positions

    def _numbering(self, ranks: int | None) -> RankNumbering | None:
        """The engine's rank numbering on a board of ``ranks`` ranks, None when it
        writes canonical moves there."""
        numbering = self.ranks
        if numbering is None or numbering is RankNumbering.ONE_BASED:
            return None
        return numbering if ucci_uses_zero_based(ranks) else None

    def _turn(self, fen: str | None, plies: int) -> chess.Color:
        if fen is None and self.variant is not None and self.variant.start_fen:
            fen = self.variant.start_fen
        turn = chess.WHITE
        if fen is not None:
            fields = fen.split(" ")
            if len(fields) > 1:
                side = fields[1].lower()
                if side not in ("w", "r", "b"):
                    raise EngineArgumentError(f"FEN side to move must be w, r or b: {fen!r}")
                turn = side != "b"
        return turn if plies % 2 == 0 else not turn

    # ------------------------------------------------------------------ sync

    async def _sync(self) -> None:
        """Send a readiness check and wait for its answer (inside an operation)."""
        sync = self._sync_command()
        if sync is None:
            return
        line, answer = sync
        await self._send(line, self.sync_phase)
        async with self._phase(self.sync_phase, self.timeouts.isready):
            await self._read_until(answer)

    async def ping(self) -> None:
        """A readiness check (``isready``/``readyok``, ``ping``/``pong``): the engine
        has processed everything sent so far. A no-op for an engine without one."""
        async with self._operation():
            await self._sync()

    async def stop(self) -> None:
        """Ask a running :meth:`search` to finish now (``stop``, XBoard ``?``).

        The search then returns the engine's move; if that does not come within
        ``Timeouts.stop``, the search raises :class:`EngineTimeoutError` (phase
        ``stop``) and the engine is killed. No-op when nothing is searching.
        """
        if self.closed or not self._searching or self.guard.stopping:
            return
        self.guard.stopping = True
        self._write_nowait(f"{self.stop_command}\n")  # if the engine is gone, the search finds out
        deadline = self._search_timeout
        if deadline is not None:
            deadline.shorten(self.timeouts.stop)

    # ------------------------------------------------------------------ options

    def _prepare(self, name: str, value: OptionValue) -> tuple[Option, str | None]:
        check_safe(name, "option name")
        if isinstance(value, str):
            check_safe(value, f"value of option {name!r}")
        option = self.options.get_option(name)
        if value is not None and not isinstance(value, bool | int | str):
            raise OptionError(f"option {name!r}: unsupported value type {type(value).__name__}")
        return option, option.wire_value(value)

    def _setoption_if_changed(self, option: Option, wire: str | None) -> str:
        """The line setting ``option`` to ``wire``, recorded as the engine's value; ""
        when that is already the value this client last set (a button is always
        pressed)."""
        if option.type == "button":
            return self._setoption_line(option, wire)
        key = normalise_name(option.name)
        if self._values.get(key) == wire:
            return ""
        self._values[key] = wire
        return "" if key in self._implicit else self._setoption_line(option, wire)

    async def configure(self, options: Mapping[str, OptionValue]) -> None:
        """Set options. All values are validated before any is sent.

        Values equal to what this client last set are not re-sent (and, when every
        value was validated before with the same type and the engine is idle, not even
        validated again: a service sets the same few options before every search).
        ``UCI_Variant`` and ``VariantPath`` are routed to :meth:`set_variant` /
        :meth:`load_variants`. Raises :class:`OptionError` (nothing sent) for an unknown
        option or a bad value.
        """
        if self._unchanged(options):
            return
        plain: list[tuple[Option, str | None]] = []
        variant: str | None = None
        variant_path: str | None = None
        for name, value in options.items():
            key = normalise_name(name)
            if key == "uci_variant":
                variant = check_token(str(value), "variant")
            elif key == "variantpath":
                variant_path = str(value)
            else:
                option, wire = self._prepare(name, value)
                plain.append((option, wire))
                if option.type != "button":
                    self._checked_values[name] = (
                        type(value),
                        value,
                        normalise_name(option.name),
                        wire,
                    )
        if variant_path is not None:
            await self.load_variants(variant_path)
        if plain:
            async with self._operation():
                lines = "".join(self._setoption_if_changed(option, wire) for option, wire in plain)
                if lines:
                    await self._send(lines, "configure")
        if variant is not None:
            await self.set_variant(variant)

    def _unchanged(self, options: Mapping[str, OptionValue]) -> bool:
        """Whether :meth:`configure` would send nothing and change nothing: every value
        was validated before (same name, type and value) and is what the engine has
        now, and the engine is idle and in sync (so no error or resync is skipped)."""
        if self.closed or self._desync or self._lock.locked():
            return False
        checked = self._checked_values
        values = self._values
        for name, value in options.items():
            seen = checked.get(name)
            if (
                seen is None
                or seen[0] is not type(value)
                or seen[1] != value
                or values.get(seen[2]) != seen[3]
            ):
                return False
        return True

    def option_value(self, name: str) -> str | None:
        """The value this client last set for option ``name`` (as sent), None if it
        set none."""
        return self._values.get(normalise_name(name))

    async def set_option(self, name: str, value: OptionValue = None) -> None:
        """Set one option; see :meth:`configure`."""
        await self.configure({name: value})

    def __repr__(self) -> str:
        state = "closed" if self.closed else "running"
        return f"<{type(self).__name__} {self.id.get('name', '?')!r} pid={self.pid} {state}>"


class _Operation:
    """One :meth:`Engine._operation`: the engine's lock held, the engine in step with
    its client; a cancelled operation stops a search it started and leaves the engine to
    be resynchronised by the next one. (A class, not a generator: every search runs one.)"""

    __slots__ = ("_engine",)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    async def __aenter__(self) -> None:
        engine = self._engine
        await engine._lock.acquire()
        try:
            engine.guard.check_open("closed")
            if engine._desync:
                await engine._resync()
                engine._desync = False
        except BaseException:
            engine._lock.release()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        engine = self._engine
        try:
            if isinstance(error, asyncio.CancelledError) and not engine.closed:
                engine._desync = True
                if engine._searching and not engine.guard.stopping:
                    engine._write_nowait(f"{engine.stop_command}\n")
                    engine.guard.stopping = True
        finally:
            engine._lock.release()
