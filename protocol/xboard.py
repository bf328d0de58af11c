"""XBoard/CECP: :class:`XBoardEngine`.

Many xiangqi engines speak only the XBoard protocol (also called CECP or WinBoard
protocol), e.g. ``maxqi`` from Debian's ``fairymax``. A session (``>`` is what we
write, ``<`` what the engine answers)::

    > xboard
    > protover 2
    < feature myname="MaxQi 4.8G"
    < feature setboard=0 ping=1 done=0
    > accepted setboard
    > accepted ping
    > accepted done
    < feature variants="xiangqi" done=1
    > accepted variants
    > accepted done
    > new
    > variant xiangqi
    > force
    > h2e2                       (usermove h2e2 when the engine asked for usermove=1)
    > sd 4
    > post
    > easy
    > go
    < 1 18 0 67 h9g7             (thinking output: ply score centiseconds nodes pv)
    < 4 11 3 17747 h9g7
    < move h9g7
    > force
    > ping 1
    < pong 1

Unlike UCI, XBoard is stateful: the engine keeps the game. This client remembers what
the engine's board holds (the start position and the moves since, its own included) and
brings it to each searched position with the fewest commands: ``undo`` back to the
common part and the new moves (``usermove`` if the engine asked for it) in force mode,
or a new game (``new``, ``variant``, ``force``, ``setboard`` when the engine offers it,
with XBoard's xiangqi letters H and E for horse and elephant; an engine with
``setboard=0`` is given the game from its start position).

* **Features**: every ``feature`` is answered ``accepted`` or ``rejected`` (``san=1`` is
  rejected: moves here are coordinates). Without ``done=1`` within two seconds of
  ``protover`` (a protocol 1 engine) the client goes on, as XBoard does; ``done=0``
  extends the wait to the handshake deadline.
* **Options**: ``feature option="Name -spin 64 1 1024"`` becomes an :class:`Option`,
  set with ``option Name=value``. ``Hash`` is ``memory N`` (feature ``memory``) and
  ``Threads`` is ``cores N`` (feature ``smp``; without it, as for any engine without a
  thread count, only ``Threads`` 1 is accepted, and nothing is sent).
* **Limits** (:class:`Limit`): ``depth`` is ``sd``, ``time`` is ``st`` (whole seconds
  per move, rounded up: engines read an integer), ``nodes`` is ``nps 1`` + ``st N`` and
  only where the engine offers it (``feature nps=1``); a clock is ``level MOVES MIN:SEC
  INC`` (sent when it changes) and ``time``/``otim`` in centiseconds before each
  ``go``. A setting that a later search drops (a depth, say) can only be undone by
  ``new``: the client starts a new game.
* **Thinking output** (``post``) becomes ``info``: depth, score (centipawns, mate as
  100000 + N), time, nodes, PV (coordinate moves only).
* **The answer**: ``move X`` (ranks 0..9 on a 10-rank board, as XBoard numbers them);
  ``resign``; a result claim ``1-0 {…}``/``0-1 {…}``/``1/2-1/2 {…}`` (with or instead
  of a move; :attr:`PlayResult.claim`); ``offer draw``. After the answer the client
  says ``force`` and, with ``ping=1``, waits for a ``pong``, so that a claim sent just
  after the move is read with it and the engine is idle before the next command.
* ``Illegal move`` about a move we sent means the engine's board and ours differ: a
  fault. ``Error (…)`` lines about optional commands are logged (INFO) and ignored.
* ``ping N``/``pong N`` is the readiness check (:meth:`ping`; a no-op without
  ``ping=1``). ``?`` is stop (move now). :meth:`send_result` tells the engine how the
  game ended (``result 1-0 {…}``).
"""

from __future__ import annotations

import asyncio
import math
import shlex
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

import chess

from protocol.engine import Dialect, Engine, EngineVariant, log, refusal_line
from protocol.errors import EngineArgumentError, EngineProtocolError, VariantError
from protocol.info import InfoDict, PlayResult, merge_info, parse_xboard_thinking
from protocol.limits import Limit, search_limit
from protocol.notation import (
    FenLetters,
    RankNumbering,
    board_shape,
    check_answered_move,
    check_move,
    check_safe,
    check_token,
)
from protocol.options import Option, parse_xboard_option

__all__ = ["XBoardEngine"]

#: How long an engine may stay silent about ``done=1`` after ``protover`` (XBoard's 2 s).
FEATURE_WAIT = 2.0
# The features this client understands (any value) and answers `accepted`.
_KNOWN_FEATURES = frozenset(
    {
        "ping",
        "setboard",
        "playother",
        "san",
        "usermove",
        "time",
        "draw",
        "sigint",
        "sigterm",
        "reuse",
        "analyze",
        "myname",
        "variants",
        "colors",
        "ics",
        "name",
        "pause",
        "nps",
        "debug",
        "memory",
        "smp",
        "egt",
        "option",
        "done",
        "exclude",
        "setscore",
        "highlight",
    }
)
_RESULTS = ("1-0", "0-1", "1/2-1/2")
# Boards of the XBoard variants this client knows the shape of (for move checks and
# the rank numbering, which only a 10-rank board changes).
_VARIANT_BOARDS = {"normal": (8, 8), "xiangqi": (9, 10)}
_THREADS = "Threads"
_HASH = "Hash"


class XBoardEngine(Engine):
    """An XBoard/CECP engine (see the module docstring)."""

    dialect = Dialect.XBOARD
    default_fen_letters = FenLetters.XBOARD
    default_ranks = RankNumbering.ZERO_BASED
    keywords = frozenset(
        {
            "feature",
            "move",
            "pong",
            "resign",
            "offer",
            "Illegal",
            "illegal",
            "Error",
            *_RESULTS,
        }
    )
    stop_command: ClassVar[str] = "?"
    sync_phase: ClassVar[str] = "ping"

    #: The features the engine announced (integers where they are numbers).
    features: dict[str, str | int]
    _pings: int
    _root: tuple[str | None, str | None] | None
    _moves: list[str]
    _limits: dict[str, str]

    def _init_dialect(self) -> None:
        self.features = {}
        self._pings = 0
        # What the engine's board holds: (variant, FEN or None for its start position)
        # and the canonical moves since; None: unknown (set up a new game).
        self._root = None
        self._moves = []
        self._limits = {}  # time-control commands sent since `new`

    def matters(self, visible: str) -> bool:
        """Thinking output (a line starting with a digit) matters too, during a search
        (before the handshake such a line is a banner's: Sjaak II prints its board)."""
        return super().matters(visible) or (self._searching and visible[:1].isdigit())

    # ------------------------------------------------------------------ handshake

    async def _handshake(self) -> None:
        await self._send("xboard\nprotover 2\n", "handshake")
        options: list[Option] = []
        async with self._phase("handshake", self.timeouts.handshake):
            try:
                async with asyncio.timeout(FEATURE_WAIT) as quiet:
                    while True:
                        line = await self.reader.readline()
                        if not line.startswith("feature "):
                            self.unknown.add(line)  # tellics, banners, comments
                            continue
                        replies, done = self._features(line, options)
                        await self._send(replies, "handshake")
                        if done == 1:
                            break
                        if done == 0:
                            quiet.reschedule(None)  # up to the handshake deadline
            except TimeoutError:
                pass  # no `done=1`: a protocol 1 engine, or one that says nothing
        for option in options:
            if option.name not in (_HASH, _THREADS):
                self.options.add(option)
        name = self.features.get("myname")
        if isinstance(name, str) and name:
            self.id["name"] = name
        if self.features.get("smp") == 1:
            self.options.add(Option(_THREADS, "spin", default=1, min=1, max=1024))
        if self.features.get("memory") == 1:
            self.options.add(Option(_HASH, "spin", default=16, min=1, max=1 << 20))

    def _features(self, line: str, options: list[Option]) -> tuple[str, int | None]:
        """Record one ``feature`` line; returns the replies and its ``done`` value."""
        try:
            pairs = shlex.split(line[len("feature ") :])
        except ValueError as exc:
            raise EngineProtocolError(
                f"malformed feature line: {line[:200]!r}", phase="handshake"
            ) from exc
        replies = []
        done: int | None = None
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            if not sep or not key:
                raise EngineProtocolError(
                    f"malformed feature {pair!r} in {line[:200]!r}", phase="handshake"
                )
            value: str | int = int(raw) if raw.lstrip("-").isdigit() else raw
            if key == "option":
                try:
                    options.append(parse_xboard_option(raw))
                except ValueError:
                    replies.append(f"rejected option {raw}\n")
                    continue
            elif key == "done":
                done = value if isinstance(value, int) else None
            if key not in _KNOWN_FEATURES or (key == "san" and value == 1):
                replies.append(f"rejected {key}\n")
                continue
            if key != "option":
                self.features[key] = value
            replies.append(f"accepted {key}\n")
        return "".join(replies), done

    def _sync_command(self) -> tuple[str, str] | None:
        if self.features.get("ping") != 1:
            return None
        self._pings += 1
        return f"ping {self._pings}\n", f"pong {self._pings}"

    # ------------------------------------------------------------------ options

    def _setoption_line(self, option: Option, wire: str | None) -> str:
        if option.name == _THREADS:
            return f"cores {wire}\n"
        if option.name == _HASH:
            return f"memory {wire}\n"
        if wire is None:
            return f"option {option.name}\n"
        if option.type == "check":
            wire = "1" if wire == "true" else "0"
        return f"option {option.name}={wire}\n"

    async def set_variant(self, name: str) -> EngineVariant:
        """Play variant ``name`` from the next search on (``new`` + ``variant NAME``).
        :class:`VariantError` if the engine's ``variants`` feature does not list it (an
        engine that lists none is taken to play every variant, as the protocol says)."""
        check_token(name, "variant")
        if self.variant is not None and self.variant.name == name:
            return self.variant
        offered = self.features.get("variants")
        if isinstance(offered, str) and name not in offered.split(","):
            raise VariantError(f"{self.name} plays {offered!r}, not {name!r}")
        files, ranks = _VARIANT_BOARDS.get(name, (None, None))
        self.variant = EngineVariant(name, files=files, ranks=ranks)
        self._values["uci_variant"] = name
        self._root = None
        return self.variant

    # ------------------------------------------------------------------ games

    def _new_game_lines(self, fen: str | None) -> list[str]:
        lines = ["new"]
        variant = self.variant.name if self.variant is not None else None
        if variant is not None and variant != "normal":
            lines.append(f"variant {variant}")
        lines.append("force")
        if fen is not None:
            if self.features.get("setboard") != 1:
                raise EngineArgumentError(
                    f"{self.name} cannot set up a position (no feature setboard=1): "
                    "send the game from its start position"
                )
            lines.append(f"setboard {self.fen_letters.write(fen)}")
        return lines

    async def refusal(self, fen: str) -> str | None:
        """A new game set up at ``fen`` (``setboard``; :class:`EngineArgumentError` for an
        engine without it), then ``ping``: the engine's complaint before its ``pong``
        (None without ``ping=1``: nothing to wait for)."""
        check_safe(fen, "FEN")
        lines = self._new_game_lines(" ".join(fen.split()))
        sync = self._sync_command()
        async with self._operation():
            self._root, self._moves, self._limits = None, [], {}  # a new game next
            mark = self.process.stderr_read
            await self._send("\n".join(lines) + "\n" + (sync[0] if sync else ""), "isready")
            if sync is None:
                return None
            async with self._phase(self.sync_phase, self.timeouts.isready):
                answer = await self._read_until(sync[1])
            answer += (await self.process.stderr_since(mark)).splitlines()
        return refusal_line(answer)

    async def new_game(self) -> None:
        """``new`` (+ ``variant``), ``force``, then a readiness check."""
        async with self._operation():
            await self._send("\n".join(self._new_game_lines(None)) + "\n", "isready")
            self._root = (self.variant.name if self.variant else None, None)
            self._moves = []
            self._limits = {}
            await self._sync()

    async def send_result(self, result: str, comment: str = "") -> None:
        """Tell the engine how the game ended: ``result 1-0 {comment}`` (``*``:
        unfinished). The engine stays in force mode."""
        if result not in (*_RESULTS, "*"):
            raise EngineArgumentError(f"result must be 1-0, 0-1, 1/2-1/2 or *, not {result!r}")
        check_safe(comment, "result comment")
        if "{" in comment or "}" in comment:
            raise EngineArgumentError(f"result comment may not contain braces: {comment!r}")
        async with self._operation():
            await self._send(f"force\nresult {result} {{{comment}}}\n", "configure")
            self._root = None  # a new game starts next

    # ------------------------------------------------------------------ search

    def _board(self, fen: str | None) -> tuple[int | None, int | None]:
        if fen is not None:
            return board_shape(fen)
        if self.variant is not None and self.variant.files:
            return self.variant.files, self.variant.ranks
        return None, None

    def _limit_commands(self, limit: Limit, turn: chess.Color) -> dict[str, str]:
        """The time-control commands for ``limit`` (those that persist until ``new``)."""
        commands: dict[str, str] = {}
        clock = limit.white_clock if turn == chess.WHITE else limit.black_clock
        inc = limit.white_inc if turn == chess.WHITE else limit.black_inc
        if limit.nodes is not None:
            if self.features.get("nps") != 1:
                raise EngineArgumentError(
                    f"{self.name} offers no node limit (no feature nps=1): use depth or time"
                )
            if limit.time is not None or clock is not None:
                raise EngineArgumentError("XBoard cannot limit nodes and time together")
            commands["nps"] = "nps 1"
            commands["st"] = f"st {max(1, limit.nodes)}"
        elif limit.time is not None:
            commands["st"] = f"st {max(1, math.ceil(limit.time))}"
        elif clock is not None or limit.remaining_moves is not None:
            base = max(1, round(clock or 0))
            minutes, seconds = divmod(base, 60)
            increment = inc or 0
            commands["level"] = f"level {limit.remaining_moves or 0} {minutes}:{seconds:02d} " + (
                str(int(increment)) if float(increment).is_integer() else f"{increment:g}"
            )
        if limit.depth is not None:
            commands["sd"] = f"sd {max(1, limit.depth)}"
        return commands

    def _setup(self, fen: str | None, moves: Sequence[str], new_game: bool) -> list[str]:
        """The commands that bring the engine's board to ``fen`` + ``moves``, in force
        mode (a new game forgets the time controls sent before it)."""
        variant = self.variant.name if self.variant is not None else None
        root = (variant, fen)
        common = 0
        if not new_game and self._root == root:
            for ours, theirs in zip(self._moves, moves, strict=False):
                if ours != theirs:
                    break
                common += 1
        if new_game or self._root != root:
            lines = self._new_game_lines(fen)
            self._limits = {}
            common = 0
        else:
            lines = ["force"] + ["undo"] * (len(self._moves) - common)
        numbering = self._numbering(self._board(fen)[1])
        prefix = "usermove " if self.features.get("usermove") == 1 else ""
        for move in moves[common:]:
            lines.append(prefix + (numbering.to_engine(move) if numbering else move))
        return lines

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
        """Bring the engine's board to ``fen`` + ``moves`` and let it move (``go``); read
        thinking output until its answer (see the module docstring).

        ``fen`` None means the variant's start position; an engine without ``setboard``
        can only be given games from there (:class:`EngineArgumentError` otherwise).
        The answer's move is syntax-checked and ``validate_move``-checked before it is
        accepted; a resignation or a claim without a move comes back with ``move``
        None.
        """
        limit = search_limit(limit)
        files, ranks = self._board(fen)
        if fen is not None:
            check_safe(fen, "FEN")
            fen = " ".join(fen.split())
            if not fen:
                raise EngineArgumentError("empty FEN")
        if isinstance(moves, str):
            raise EngineArgumentError("moves must be a sequence of move strings, not a str")
        for move in moves:
            check_move(move, files=files, ranks=ranks)
        turn = self._turn(fen, len(moves))
        self._limit_commands(limit.resolved(), turn)  # a limit it cannot send fails here
        numbering = self._numbering(ranks)
        convert = numbering.from_engine if numbering else None
        clock = limit.white_clock if turn == chess.WHITE else limit.black_clock
        other = limit.black_clock if turn == chess.WHITE else limit.white_clock

        async with self._operation():
            limit = limit.resolved()  # a deadline: what is left of it as `go` is written
            wanted = self._limit_commands(limit, turn)
            timeout = self.timeouts.search(limit.budget(turn, self.timeouts.worst_case_nps))
            self.guard.stopping = False
            dropped = any(key not in wanted for key in self._limits)
            lines = self._setup(fen, moves, new_game or dropped)
            lines += [cmd for key, cmd in wanted.items() if self._limits.get(key) != cmd]
            self._limits = dict(wanted)
            if clock is not None:
                lines.append(f"time {max(1, round(clock * 100))}")
            if other is not None:
                lines.append(f"otim {max(1, round(other * 100))}")
            lines += ["post", "easy", "go"]
            started = time.perf_counter()
            self._root, self._moves = None, []  # unknown until the answer is read
            await self._send("\n".join(lines) + "\n", "search")
            self._searching = True
            info = InfoDict()
            result = PlayResult(move=None)
            async with self._phase("search", timeout) as deadline:
                self._search_timeout = deadline
                await self._read_answer(result, turn, convert, info, on_info, started)
                answer = result.move
                if answer is not None:
                    check_answered_move(
                        answer,
                        files=files,
                        ranks=ranks,
                        validate_move=validate_move,
                        what="move",
                        shown=answer,
                    )
            self._root = (self.variant.name if self.variant else None, fen)
            self._moves = [*moves, answer] if answer is not None else list(moves)
        result.info = info
        result.multipv = [info] if info else []
        return result

    async def _read_answer(
        self,
        result: PlayResult,
        turn: chess.Color,
        convert: Callable[[str], str] | None,
        info: InfoDict,
        on_info: Callable[[InfoDict], None] | None,
        started: float,
    ) -> None:
        """Read the thinking output into ``info`` and the answer into ``result`` (its
        ``elapsed`` counted from ``started``), then stop the engine playing on."""
        answered = False
        while not answered:
            line = await self.reader.readline()
            answered = self._answer_line(line, result, turn, convert, info, on_info)
        result.elapsed = time.perf_counter() - started
        self._searching = False
        self._search_timeout = None
        # The engine plays on after its move unless told otherwise, and may claim a
        # result right after it: force mode, then a ping catches both.
        sync = self._sync_command()
        await self._send("force\n" + (sync[0] if sync else ""), "search")
        if sync is not None:
            while True:
                line = await self.reader.readline()
                if line == sync[1]:
                    break
                self._answer_line(line, result, turn, convert, info, None)

    def _answer_line(
        self,
        line: str,
        result: PlayResult,
        turn: chess.Color,
        convert: Callable[[str], str] | None,
        info: InfoDict,
        on_info: Callable[[InfoDict], None] | None,
    ) -> bool:
        """Take one line of a search; True when it is the engine's answer (its move,
        resignation or result claim)."""
        line = line.strip()
        head, _, rest = line.partition(" ")
        if head == "move" or (rest.startswith("... ") and head.rstrip(".").isdigit()):
            if result.move is not None or result.resigned or result.claim:
                self.unknown.add(line)  # a second answer: not ours to play
                return False
            words = rest.split()
            text = (words[0] if words else "") if head == "move" else words[1]
            try:
                result.move = convert(text) if convert else text
            except EngineArgumentError as exc:
                raise EngineProtocolError(
                    f"engine answered a malformed move: {line[:200]!r}", phase="search"
                ) from exc
            return True
        if head == "resign":
            result.resigned = True
            return True
        if head in _RESULTS:
            result.claim = line
            result.resigned = result.resigned or "resign" in rest.lower()
            return True
        if head == "offer" and rest.strip() == "draw":
            result.draw_offered = True
            return False
        if head.lower() == "illegal":
            raise EngineProtocolError(
                f"engine refused a move of ours (its board and ours differ): {line[:200]!r}",
                phase="search",
            )
        if head == "Error":  # about an optional command (maxqi: `cores`, though smp=1)
            log.info("%s: %s", self.name, line[:200])
            return False
        if head[:1].isdigit():
            parsed = parse_xboard_thinking(line, turn, convert)
            if parsed is not None:
                merge_info(info, parsed)
                if on_info is not None:
                    on_info(parsed)
                return False
        self.unknown.add(line)
        return False

    async def _resync(self) -> None:
        """After a cancelled operation: ``force`` (the engine stops thinking), a ping,
        and the board set up afresh at the next search."""
        self._root, self._moves, self._searching = None, [], False
        sync = self._sync_command()
        await self._send("force\n" + (sync[0] if sync else ""), "stop")
        if sync is not None:
            async with self._phase("stop", self.timeouts.stop):
                await self._read_until(sync[1])
        self.guard.stopping = False
