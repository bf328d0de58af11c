"""The async engine client: one :class:`Engine` per engine process, speaking UCI or UCCI.

A session, in UCI (``>`` is what we write, ``<`` what the engine answers)::

    > uci
    < id name Fairy-Stockfish 301126 LB
    < option name Hash type spin default 16 min 1 max 33554432
    < ...
    < uciok
    > setoption name VariantPath value /abs/variants.ini
    > setoption name UCI_Variant value mistboard-xiangqi
    > isready
    < info string variant mistboard-xiangqi files 9 ranks 10 pocket 0 template xiangqi ...
    < readyok
    > setoption name FinalInfoOnly value true
    > ucinewgame
    > position startpos moves h3e3 b10c8
    > go nodes 100000
    < info depth 13 seldepth 17 multipv 1 score cp 29 nodes 100043 nps 391000 ... pv ...
    < bestmove b1c3 ponder h10g8
    > quit

A search's commands go out in one write. Without ``FinalInfoOnly`` (stock FSF, other
engines; or when the caller wants every ``info`` line) the engine prints an ``info`` line
per iteration, and the client wakes up for each; our FSF (engine/patches/0005) holds
them back and prints only the last one, so a client that reads only the result wakes up
once. :meth:`Engine.search` sets that option itself, when the engine has it.

The same in UCCI: ``ucci``/``ucciok``; options without ``name`` and with ``_`` for
spaces (``setoption UCI_Variant mistboard-xiangqi``, ``hashsize`` for ``Hash``); ranks
numbered 0..9 (``h2e2 b9c7``); bare-number scores (``score 29``); clocks as ``time`` /
``opptime`` of the side to move. UCCI defines no new-game command; Fairy-Stockfish
accepts ``ucinewgame`` (and ``uccinewgame``) in every mode, so that is what is sent.

Callers see one notation (canonical, ranks 1..10) and one API for both protocols.

Things the engine never tells you, and how this client copes:

* ``setoption`` is never acknowledged and FSF drops invalid values: values are
  validated against the advertised option description first (:mod:`protocol.options`);
  a variant change is confirmed by FSF's ``info string variant …`` line.
* ``position … moves …`` silently stops at the first move FSF cannot parse: moves are
  syntax-checked here, but *legality* is the caller's job (the rules checker).
* FSF does not report claimable draws at the root: the caller adjudicates.
* Any argument with a newline or another control character is refused
  (:class:`~protocol.errors.UnsafeArgumentError`): no caller can inject a command.

Every wait has a deadline (:class:`~protocol.process.Timeouts`). When the engine hangs,
dies or writes garbage, the client kills its whole process tree, reaps it, and raises a
:class:`~protocol.errors.EngineFault`; the object is then closed for good. A write that
fails because the engine died under us (uvloop raises ``RuntimeError``,
``BrokenPipeError`` or ``ConnectionResetError`` there) is the same fault:
:class:`~protocol.errors.EngineTerminatedError`.

Every line to and from each engine is logged at DEBUG on the ``protocol.engine`` logger
(as python-chess does on ``chess.engine``), with the engine's name and pid, in the
notation above: ``Fairy-Stockfish 301126 LB (pid 4242) > go nodes 100000``. Off by
default; ``ladder --log-level debug …`` turns it on.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import NoReturn

import chess

from protocol.errors import (
    EngineArgumentError,
    EngineError,
    EngineFault,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    OptionError,
    VariantError,
)
from protocol.info import InfoDict, InfoMerger, PlayResult, parse_bestmove
from protocol.limits import Limit
from protocol.notation import (
    board_shape,
    check_move,
    check_safe,
    check_token,
    from_ucci,
    to_ucci,
    ucci_uses_zero_based,
)
from protocol.options import Option, OptionMap, OptionValue, normalise_name, parse_option
from protocol.process import DEFAULT_MAX_LINE, EngineProcess, Timeouts

__all__ = ["Dialect", "Engine", "EngineVariant"]

#: The wire log: every line to (``>``) and from (``<``) each engine, at DEBUG.
log = logging.getLogger(__name__)

# Control characters other than tab in an engine's line: garbage.
_EXIT_GRACE = 0.2  # seconds to drain buffered output after the engine exits
_READ_CHUNK = 1 << 18  # bytes asked of the pipe at a time (what asyncio reads at once)
_GARBAGE_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_VARIANT_INFO_RE = re.compile(
    r"^info string variant (?P<name>\S+) files (?P<files>\d+) ranks (?P<ranks>\d+)"
    r"(?: pocket (?P<pocket>\d+))?(?: template (?P<template>\S+))?(?: startpos (?P<fen>.+))?$"
)
# What writing to an engine whose process is gone can raise, depending on the event loop:
# uvloop raises RuntimeError once its pipe handle is closed, and BrokenPipeError or
# ConnectionResetError from the write itself. (asyncio's pipe transport swallows write
# errors; there the EOF that follows is the signal.) Any of them: the engine is gone.
_WRITE_ERRORS = (RuntimeError, OSError)


class Dialect(enum.Enum):
    """Which protocol to speak. Chosen by the caller: engines do not announce it."""

    UCI = "uci"
    UCCI = "ucci"


@dataclass(frozen=True, slots=True)
class EngineVariant:
    """The variant the engine plays, as FSF announced it (fields None when it did not:
    FSF stays silent for its standard variants such as ``xiangqi`` and ``chess``)."""

    name: str
    files: int | None = None
    ranks: int | None = None
    pocket: int | None = None
    template: str | None = None
    start_fen: str | None = None


class _EOF(Exception):  # internal signal: EOF on stdout; never escapes
    pass


class Engine:
    """An async client for one UCI or UCCI engine process.

    Start it with :meth:`start` (which performs the handshake), use it, then
    :meth:`quit` (or use ``async with``). One operation runs at a time; :meth:`stop`
    may be called from another task while :meth:`search` runs.
    """

    def __init__(
        self,
        process: EngineProcess,
        protocol: Dialect,
        *,
        timeouts: Timeouts,
        max_unknown_lines: int = 10_000,
        new_game_command: str = "ucinewgame",
    ) -> None:
        self.process = process
        self.protocol = protocol
        self.timeouts = timeouts
        self.id: dict[str, str] = {}
        self.options = OptionMap(ucci=protocol is Dialect.UCCI)
        self.variant: EngineVariant | None = None
        self.variant_path: str | None = None
        #: The fault that closed this engine, if one did.
        self.error: EngineFault | None = None
        self._ucci = protocol is Dialect.UCCI
        self._ucci_millis = True
        self._new_game = check_token(new_game_command, "new game command")
        self._max_unknown = max_unknown_lines
        self._values: dict[str, str | None] = {}
        # name as given -> (type, value, option key, wire value) of validated values
        self._checked_values: dict[str, tuple[type, OptionValue, str, str | None]] = {}
        self._confirmed: set[str] = set()  # variants FSF announced since the last switch
        self._final_info_only: Option | None = None  # the engine's FinalInfoOnly, if any
        self._lock = asyncio.Lock()
        self._closed = False
        self._searching = False
        self._stop_sent = False
        self._search_timeout: asyncio.Timeout | None = None
        self._desync = False  # an operation was cancelled: resynchronise before the next
        self._stdin = process.stdin
        self._stdout = process.stdout
        # Lines read from the engine but not consumed yet, and the start of the next one.
        self._lines: collections.deque[bytes] = collections.deque()
        self._partial = bytearray()
        self._max_line: int = getattr(process.stdout, "_limit", DEFAULT_MAX_LINE)

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def start(
        cls,
        command: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        protocol: Dialect = Dialect.UCI,
        timeouts: Timeouts | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        max_unknown_lines: int = 10_000,
        new_game_command: str = "ucinewgame",
    ) -> Engine:
        """Spawn the engine and perform the handshake (``uci``/``uciok`` or
        ``ucci``/``ucciok``), collecting its ``id`` and ``option`` lines.

        ``command`` is an executable path or an argv list.
        """
        timeouts = timeouts or Timeouts()
        argv = [command] if isinstance(command, str | os.PathLike) else list(command)
        for part in argv:
            check_safe(os.fspath(part), "command")
        process = await EngineProcess.spawn(
            argv, env=env, cwd=cwd, max_line=max_line, timeout=timeouts.startup
        )
        engine = cls(
            process,
            protocol,
            timeouts=timeouts,
            max_unknown_lines=max_unknown_lines,
            new_game_command=new_game_command,
        )
        try:
            await engine._handshake()
        except BaseException:
            await engine._kill()
            raise
        return engine

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
    def closed(self) -> bool:
        return self._closed

    @property
    def pid(self) -> int:
        return self.process.pid

    async def quit(self) -> None:
        """Say ``quit`` and wait for the process to exit (``Timeouts.quit``).

        An engine that does not exit in time is killed, and
        :class:`EngineTimeoutError` (phase ``quit``) is raised. Idempotent.
        """
        if self._closed:
            return
        if self._searching:
            await self.stop()
        async with self._lock:
            if self._closed:
                return
            self._closed = True
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
        await self._kill()

    async def kill(self) -> None:
        """Kill the engine's process tree at once and reap it."""
        await self._kill()

    async def _kill(self) -> None:
        self._closed = True
        self._searching = False
        await self.process.kill()

    # ------------------------------------------------------------------ I/O

    async def _send(self, text: str, phase: str) -> None:
        """Write ``text`` to the engine. When the write fails (the engine died under us),
        kill and reap the tree and raise :class:`EngineTerminatedError` for ``phase``."""
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire(">", text.rstrip("\n").split("\n"))
        try:
            self._stdin.write(text.encode())
        except _WRITE_ERRORS as exc:
            await self._died(phase, exc, f"writing to it failed ({type(exc).__name__}: {exc})")

    def _write_nowait(self, text: str) -> None:
        """Write ``text`` where no fault may be raised (``stop``, ``quit``, a cancelled
        operation): a failed write is ignored, since whatever reads from the engine next
        finds it gone (or ``quit`` finds it exited)."""
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire(">", text.rstrip("\n").split("\n"))
        with contextlib.suppress(*_WRITE_ERRORS):
            self._stdin.write(text.encode())

    def _log_wire(self, arrow: str, lines: Iterable[str]) -> None:
        """Log lines sent (``>``) to or received (``<``) from the engine, at DEBUG."""
        name = self.id.get("name") or os.path.basename(self.process.command[0])
        for line in lines:
            shown = line if line.isprintable() else repr(line)
            log.debug("%s (pid %d) %s %s", name, self.pid, arrow, shown)

    async def _readline(self) -> str:
        """The engine's next line (without the line end). Reads whatever the pipe has
        (one wake-up for a burst of lines) and hands the lines out one by one."""
        if not self._lines:
            await self._fill()
        return self._next_line()

    async def _fill(self) -> None:
        """Wait for at least one more complete line from the engine."""
        while not self._lines:
            if len(self._partial) > self._max_line:
                raise EngineProtocolError(
                    f"engine wrote a line over {self._max_line} bytes", phase="?"
                )
            chunk = await self._stdout.read(_READ_CHUNK)
            if not chunk:
                raise _EOF  # EOF (possibly after a partial line)
            if b"\n" not in chunk:
                self._partial += chunk
                continue
            lines = (bytes(self._partial) + chunk if self._partial else chunk).split(b"\n")
            self._partial = bytearray(lines.pop())
            self._lines.extend(lines)

    def _next_line(self) -> str:
        """The next complete line read from the engine (there must be one), checked."""
        raw = self._lines.popleft()
        if log.isEnabledFor(logging.DEBUG):
            self._log_wire("<", [raw.decode("utf-8", "backslashreplace").rstrip("\r")])
        if len(raw) > self._max_line:
            raise EngineProtocolError(f"engine wrote a line over {self._max_line} bytes", phase="?")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EngineProtocolError(
                f"engine wrote undecodable bytes: {raw[:80]!r}", phase="?"
            ) from exc
        line = line.rstrip("\r")
        if _GARBAGE_RE.search(line):
            raise EngineProtocolError(f"engine wrote control characters: {line[:80]!r}", phase="?")
        return line

    @contextlib.asynccontextmanager
    async def _phase(self, phase: str, timeout: float) -> AsyncIterator[asyncio.Timeout]:
        """Run a read phase under a deadline; turn every failure into a killed engine
        and a typed :class:`EngineFault`."""
        if self._closed:
            raise EngineTerminatedError(
                "engine is closed", phase=phase, returncode=self.process.returncode
            ) from self.error
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout) as deadline:

                def on_exit() -> None:
                    # A grandchild may hold the pipe open, so EOF may never come: once
                    # the engine has exited, read what is buffered, then give up.
                    when = loop.time() + _EXIT_GRACE
                    current = deadline.when()
                    if current is None or when < current:
                        deadline.reschedule(when)

                self.process.on_exit.append(on_exit)
                if self.process.returncode is not None:
                    on_exit()
                try:
                    yield deadline
                finally:
                    self.process.on_exit.remove(on_exit)
        except EngineFault as exc:
            if exc.phase == "?":
                exc.phase = self._phase_name(phase)
            await self._fault(exc)
            raise
        except _EOF:
            await self._died(phase)
        except TimeoutError:
            if self.process.returncode is not None:
                await self._died(phase)
            name = self._phase_name(phase)
            limit = self.timeouts.stop if name == "stop" else timeout
            exc3 = EngineTimeoutError(
                f"no answer from the engine within {limit:g}s ({name})",
                phase=name,
                timeout=limit,
                stderr=self.process.stderr_tail(),
            )
            await self._fault(exc3)
            raise exc3 from None
        except (BrokenPipeError, ConnectionResetError) as exc:
            await self._died(phase, exc)

    async def _died(
        self, phase: str, cause: BaseException | None = None, detail: str = ""
    ) -> NoReturn:
        await self._kill()
        exc2 = EngineTerminatedError(
            f"engine exited (code {self.process.returncode}) during {self._phase_name(phase)}"
            + (f": {detail}" if detail else ""),
            phase=self._phase_name(phase),
            returncode=self.process.returncode,
            stderr=self.process.stderr_tail(),
        )
        self.error = exc2
        raise exc2 from cause

    def _phase_name(self, phase: str) -> str:
        return "stop" if phase == "search" and self._stop_sent else phase

    async def _fault(self, exc: EngineFault) -> None:
        await self._kill()
        exc.stderr = exc.stderr or self.process.stderr_tail()
        self.error = exc

    def _unknown(self, count: int, line: str) -> int:
        count += 1
        if count > self._max_unknown:
            raise EngineProtocolError(
                f"engine wrote over {self._max_unknown} unexpected lines (last {line[:80]!r})",
                phase="?",
            )
        return count

    async def _read_until(self, token: str) -> list[str]:
        """Read lines until one equal to ``token``; returns the lines before it."""
        lines: list[str] = []
        unknown = 0
        while True:
            line = await self._readline()
            if line == token:
                return lines
            if not line.startswith("info"):
                unknown = self._unknown(unknown, line)
            lines.append(line)

    # ------------------------------------------------------------------ handshake

    async def _handshake(self) -> None:
        hello = "ucci" if self._ucci else "uci"
        await self._send(f"{hello}\n", "handshake")
        options: list[Option] = []
        async with self._phase("handshake", self.timeouts.handshake):
            unknown = 0
            while True:
                line = await self._readline()
                if line == f"{hello}ok":
                    break
                if line.startswith("option "):
                    try:
                        options.append(parse_option(line, ucci=self._ucci))
                    except ValueError as exc:
                        raise EngineProtocolError(str(exc), phase="handshake") from exc
                elif line.startswith("id "):
                    _, _, rest = line.partition(" ")
                    key, _, value = rest.partition(" ")
                    self.id[key] = value
                else:
                    unknown = self._unknown(unknown, line)
        for option in options:
            self.options.add(option)
        if "FinalInfoOnly" in self.options and self.options["FinalInfoOnly"].type == "check":
            self._final_info_only = self.options["FinalInfoOnly"]
        if "UCI_Variant" in self.options:
            default = self.options["UCI_Variant"].default
            if isinstance(default, str) and default:
                self.variant = EngineVariant(default)
        if self._ucci:
            if "usemillisec" in self.options:
                if self.options["usemillisec"].default is not True:
                    await self.configure({"usemillisec": True})
            else:
                self._ucci_millis = False  # UCCI without usemillisec: clocks in seconds

    # ------------------------------------------------------------------ sync

    async def _resync(self) -> None:
        """After a cancelled operation: finish any search, then isready/readyok."""
        if self._searching:
            if not self._stop_sent:
                await self._send("stop\n", "stop")
                self._stop_sent = True
            async with self._phase("stop", self.timeouts.stop):
                unknown = 0
                while True:
                    line = await self._readline()
                    if line.startswith("bestmove") or line == "nobestmove":
                        break
                    if not line.startswith("info"):
                        unknown = self._unknown(unknown, line)
            self._searching = False
            self._stop_sent = False
        await self._send("isready\n", "isready")
        async with self._phase("isready", self.timeouts.isready):
            await self._read_until("readyok")
        self._desync = False

    @contextlib.asynccontextmanager
    async def _operation(self) -> AsyncIterator[None]:
        async with self._lock:
            if self._closed:
                raise EngineTerminatedError(
                    "engine is closed", phase="closed", returncode=self.process.returncode
                ) from self.error
            if self._desync:
                await self._resync()
            try:
                yield
            except asyncio.CancelledError:
                if not self._closed:
                    self._desync = True
                    if self._searching and not self._stop_sent:
                        self._write_nowait("stop\n")
                        self._stop_sent = True
                raise

    async def ping(self) -> None:
        """``isready`` → ``readyok``: the engine has processed everything sent so far."""
        async with self._operation():
            await self._send("isready\n", "isready")
            async with self._phase("isready", self.timeouts.isready):
                await self._read_until("readyok")

    async def new_game(self) -> None:
        """Tell the engine a new game starts (clears the hash): ``ucinewgame`` + sync."""
        async with self._operation():
            await self._send(f"{self._new_game}\nisready\n", "isready")
            async with self._phase("isready", self.timeouts.isready):
                await self._read_until("readyok")

    # ------------------------------------------------------------------ options

    def _setoption_line(self, option: Option, wire: str | None) -> str:
        if self._ucci:
            return f"setoption {option.name}" + (f" {wire}" if wire is not None else "") + "\n"
        value = f" value {wire}" if wire is not None else ""
        return f"setoption name {option.name}{value}\n"

    def _prepare(self, name: str, value: OptionValue) -> tuple[Option, str | None]:
        check_safe(name, "option name")
        if isinstance(value, str):
            check_safe(value, f"value of option {name!r}")
        option = self.options.get_option(name)
        if value is not None and not isinstance(value, bool | int | str):
            raise OptionError(f"option {name!r}: unsupported value type {type(value).__name__}")
        return option, option.wire_value(value)

    def _setoption_if_changed(self, option: Option, wire: str | None) -> str:
        """The ``setoption`` line for ``option`` = ``wire``, recorded as the engine's
        value; "" when that is already the value this client last set (a button is
        always pressed)."""
        if option.type == "button":
            return self._setoption_line(option, wire)
        key = normalise_name(option.name)
        if self._values.get(key) == wire:
            return ""
        self._values[key] = wire
        return self._setoption_line(option, wire)

    def _final_info_line(self, wanted: bool) -> str:
        """The ``setoption`` that turns the engine's ``FinalInfoOnly`` to ``wanted``
        ("" if the engine has no such option or it is already so)."""
        option = self._final_info_only
        if option is None:
            return ""
        return self._setoption_if_changed(option, option.wire_value(wanted))

    async def configure(self, options: Mapping[str, OptionValue]) -> None:
        """Set options (``setoption``). All values are validated before any is sent.

        Values equal to what this client last set are not re-sent. ``UCI_Variant`` and
        ``VariantPath`` are routed to :meth:`set_variant` / :meth:`load_variants`.
        Raises :class:`OptionError` (nothing sent) for an unknown option or bad value.
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
        now, and the engine is idle and in sync (so no error or resync is skipped).
        A service sets the same few options before every search."""
        if self._closed or self._desync or self._lock.locked():
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

    async def set_option(self, name: str, value: OptionValue = None) -> None:
        """Set one option; see :meth:`configure`."""
        await self.configure({name: value})

    async def load_variants(self, path: str | os.PathLike[str]) -> None:
        """Load a variants.ini: ``setoption name VariantPath value /abs/path`` + sync.

        The path must be absolute, exist, and contain no ``:`` (FSF splits the value on
        it). FSF does not say whether the file parsed; :meth:`set_variant` finds out.
        """
        text = check_safe(os.fspath(path), "variant path")
        if not os.path.isabs(text) or ":" in text or not os.path.isfile(text):
            raise OptionError(
                f"VariantPath must be an existing absolute path without ':': {text!r}"
            )
        option, wire = self._prepare("VariantPath", text)
        async with self._operation():
            await self._send(self._setoption_line(option, wire) + "isready\n", "configure")
            async with self._phase("isready", self.timeouts.isready):
                await self._read_until("readyok")
        self.variant_path = text
        self._values[normalise_name(option.name)] = wire

    async def set_variant(self, name: str) -> EngineVariant:
        """Switch variant (``setoption name UCI_Variant value <name>``) and confirm it.

        FSF announces a successful switch to a non-standard variant with
        ``info string variant <name> files 9 ranks 10 pocket 0 template xiangqi startpos
        <fen>``, read here before ``readyok``; a variant it only knows from VariantPath
        must be announced, else :class:`VariantError`. A built-in variant it lists in
        the ``UCI_Variant`` combo is accepted on that list (FSF does not announce those).
        """
        if self.variant is not None and self.variant.name == name and name in self._confirmed:
            return self.variant  # nothing to do (the name was checked when confirmed)
        check_token(name, "variant")
        option = self.options.get_option("UCI_Variant")
        advertised = name in option.var
        if not advertised and self.variant_path is None:
            raise VariantError(f"the engine has no variant {name!r} (no VariantPath loaded)")
        async with self._operation():
            await self._send(self._setoption_line(option, name) + "isready\n", "configure")
            async with self._phase("isready", self.timeouts.isready):
                lines = await self._read_until("readyok")
        info: EngineVariant | None = None
        for line in lines:
            match = _VARIANT_INFO_RE.match(line)
            if match and match["name"] == name:
                info = EngineVariant(
                    name=name,
                    files=int(match["files"]),
                    ranks=int(match["ranks"]),
                    pocket=int(match["pocket"]) if match["pocket"] else None,
                    template=match["template"],
                    start_fen=match["fen"],
                )
        if info is None:
            if not advertised:
                self.variant = None
                raise VariantError(
                    f"the engine did not confirm variant {name!r} "
                    f"(not a section of {self.variant_path}?)"
                )
            info = EngineVariant(name)
        self.variant = info
        self._values["uci_variant"] = name
        self._confirmed = {name}
        return info

    # ------------------------------------------------------------------ search

    def _board(self, fen: str | None) -> tuple[int | None, int | None]:
        if fen is not None:
            return board_shape(fen)
        if self.variant is not None and self.variant.start_fen:
            return board_shape(self.variant.start_fen)
        if self.variant is not None and self.variant.files:
            return self.variant.files, self.variant.ranks
        return None, None

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

    def position_command(self, fen: str | None, moves: Sequence[str] = ()) -> str:
        """The ``position`` line for a FEN (None: ``startpos``) and canonical moves,
        with every argument checked and UCCI ranks converted. Raises
        :class:`EngineArgumentError` / :class:`UnsafeArgumentError`."""
        return self._position_command(fen, moves, *self._board(fen))

    def _position_command(
        self, fen: str | None, moves: Sequence[str], files: int | None, ranks: int | None
    ) -> str:
        if fen is not None:
            check_safe(fen, "FEN")
            fen = " ".join(fen.split())
            if not fen or "moves" in fen.split(" ") or "startpos" in fen.split(" "):
                raise EngineArgumentError(f"not a FEN: {fen!r}")
        if isinstance(moves, str):
            raise EngineArgumentError("moves must be a sequence of move strings, not a str")
        convert = self._ucci and ucci_uses_zero_based(ranks)
        out = []
        for move in moves:
            check_move(move, files=files, ranks=ranks)
            out.append(to_ucci(move) if convert else move)
        line = "position startpos" if fen is None else f"position fen {fen}"
        if out:
            line += " moves " + " ".join(out)
        return line

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
        """Search a position: [``ucinewgame``], ``position``, ``go`` in one write; read
        ``info`` lines until ``bestmove``.

        ``fen`` None means the variant's start position. ``moves`` are canonical.
        ``on_info`` sees every parsed ``info`` line. ``validate_move`` (e.g. the rules
        checker's legality test) may reject the bestmove: that is an
        :class:`EngineProtocolError` and the engine is killed, like any other garbage.

        The deadline is the limit's budget plus a margin (:class:`Timeouts`); when it
        passes, or the engine dies or misbehaves, the process tree is killed and an
        :class:`EngineFault` raised. ``new_game=True`` with ``Threads=1`` makes
        ``go nodes N`` deterministic; the new game's own time comes out of
        ``timeouts.isready`` (added to the search deadline) and is part of
        :attr:`PlayResult.elapsed`. (No ``isready`` is needed between them: the engine
        reads its commands in order, and nothing waits for the new game alone.)

        Without ``on_info`` only the merged result is read, and an engine that has the
        ``FinalInfoOnly`` option (our FSF) is told to print only its last ``info``; with
        ``on_info`` it is told to print them all.
        """
        limit = limit if limit is not None else Limit()
        if not isinstance(limit, Limit):
            raise EngineArgumentError(f"limit must be a protocol.Limit, not {type(limit).__name__}")
        files, ranks = self._board(fen)
        position = self._position_command(fen, moves, files, ranks)
        turn = self._turn(fen, len(moves))
        go = limit.go_command(turn, ucci=self._ucci, millis=self._ucci_millis)
        convert = from_ucci if self._ucci and ucci_uses_zero_based(ranks) else None
        timeout = self.timeouts.search(limit.budget(turn, self.timeouts.worst_case_nps))
        if new_game:
            timeout += self.timeouts.isready

        async with self._operation():
            self._stop_sent = False
            head = self._final_info_line(on_info is None)
            if new_game:
                head += f"{self._new_game}\n"
            started = time.perf_counter()
            await self._send(f"{head}{position}\n{go}\n", "search")
            # `go` is on its way: a cancellation from here on must stop the search and
            # drain its bestmove, or the next search would read it as its own.
            self._searching = True
            infos = InfoMerger(turn, convert, eager=on_info is not None)
            async with self._phase("search", timeout) as deadline:
                self._search_timeout = deadline
                unknown = 0
                while True:
                    # Lines already read are taken without a round through the loop.
                    line = self._next_line() if self._lines else await self._readline()
                    if line.startswith("info "):
                        info = infos.add(line)
                        if on_info is not None and info is not None:
                            on_info(info)
                    elif line.startswith("bestmove") or line == "nobestmove":
                        break
                    else:
                        unknown = self._unknown(unknown, line)
                elapsed = time.perf_counter() - started
                self._searching = False
                self._search_timeout = None
                move, ponder, draw, resign = parse_bestmove(line, convert)
                if move is not None:
                    try:
                        check_move(move, files=files, ranks=ranks)
                    except EngineArgumentError as exc:
                        raise EngineProtocolError(
                            f"engine answered a malformed bestmove: {line[:200]!r}",
                            phase="search",
                        ) from exc
                    if validate_move is not None and not validate_move(move):
                        raise EngineProtocolError(
                            f"engine answered an illegal bestmove: {line[:200]!r}",
                            phase="search",
                        )
                if ponder is not None:
                    try:
                        check_move(ponder, files=files, ranks=ranks)
                    except EngineArgumentError:
                        ponder = None  # a bad ponder move is not worth a restart
        merged = infos.result()
        return PlayResult(
            move=move,
            ponder=ponder,
            info=merged.get(1, InfoDict()),
            multipv=[merged[k] for k in sorted(merged)],
            draw_offered=draw,
            resigned=resign,
            elapsed=elapsed,
        )

    async def perft(
        self, fen: str | None, moves: Sequence[str] = (), depth: int = 1, *, timeout: float
    ) -> dict[str, int]:
        """Count the move sequences of ``depth`` plies (``go perft``), per first move.

        Fairy-Stockfish's extension: it prints ``<move>: <count>`` per legal move, then
        ``Nodes searched: <total>``; the total must equal the sum (else
        :class:`EngineProtocolError`). Moves come back canonical. ``timeout`` bounds the
        whole count (perft has no limit the client could turn into a budget).
        """
        if type(depth) is not int or not 1 <= depth <= 10:
            raise EngineArgumentError(f"perft depth must be an int in 1..10, not {depth!r}")
        files, ranks = self._board(fen)
        position = self._position_command(fen, moves, files, ranks)
        convert = from_ucci if self._ucci and ucci_uses_zero_based(ranks) else None
        counts: dict[str, int] = {}
        async with self._operation():
            await self._send(f"{position}\ngo perft {depth}\n", "perft")
            try:
                async with self._phase("perft", timeout):
                    unknown = 0
                    while True:
                        line = await self._readline()
                        head, sep, tail = line.partition(": ")
                        if head == "Nodes searched":
                            break
                        if sep and tail.isdigit():
                            try:
                                move = check_move(
                                    convert(head) if convert else head, files=files, ranks=ranks
                                )
                            except EngineArgumentError as exc:
                                raise EngineProtocolError(
                                    f"engine's perft named a malformed move: {line[:200]!r}",
                                    phase="perft",
                                ) from exc
                            counts[move] = int(tail)
                        elif line:
                            unknown = self._unknown(unknown, line)
                    if not tail.isdigit() or int(tail) != sum(counts.values()):
                        raise EngineProtocolError(
                            f"engine's perft total {tail!r} is not the sum of its moves' counts",
                            phase="perft",
                        )
            except asyncio.CancelledError:
                # FSF counts on its search thread and cannot be stopped: its output would
                # reach the next operation, so a cancelled count ends the engine.
                await self._kill()
                raise
        return counts

    async def stop(self) -> None:
        """Ask a running :meth:`search` to finish now (``stop``).

        The search then returns the engine's ``bestmove``; if that does not come within
        ``Timeouts.stop``, the search raises :class:`EngineTimeoutError` (phase
        ``stop``) and the engine is killed. No-op when nothing is searching.
        """
        if self._closed or not self._searching or self._stop_sent:
            return
        self._stop_sent = True
        self._write_nowait("stop\n")  # if the engine is gone, the search finds out
        deadline = self._search_timeout
        if deadline is not None:
            when = asyncio.get_running_loop().time() + self.timeouts.stop
            current = deadline.when()
            if current is None or when < current:
                deadline.reschedule(when)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running"
        return f"<Engine {self.id.get('name', '?')!r} {self.protocol.value} pid={self.pid} {state}>"
