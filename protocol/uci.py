"""UCI and UCCI: :class:`UciEngine` and :class:`UcciEngine`.

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
once. :meth:`UciEngine.search` sets that option itself, when the engine has it.

UCCI (the Chinese xiangqi protocol, modelled on UCI) words the same session
differently: ``ucci``/``ucciok``; options without ``name`` and with one-token names
(``option hashsize type spin …``, ``setoption hashsize 64``); ranks numbered 0..9
(``h2e2 b9c7``) by the specification, though some engines write 1..10 (Sjaak II); scores
as bare numbers (``score 29``); clocks as ``time``/``opptime`` of the side to move;
``nobestmove`` when there is nothing to play; ``bestmove … draw|resign`` to offer a
draw or resign; ``quit`` answered by ``bye``. UCCI's new game is the ``newgame`` button
(``setoption newgame``) where the engine lists it; Fairy-Stockfish accepts
``ucinewgame`` in every mode, so that is sent otherwise.

How a UCCI engine numbers ranks is found out during the handshake unless the caller
says (``ranks="0-9"``/``"1-10"``): the engine is asked for a move (``go depth 1``) in a
position where Red's only pieces stand on the first rank, so the move's from-square
says it (``a0…`` or ``a1…``).

Callers see one notation (canonical, ranks 1..10) and one API for every dialect.

Things the engine never tells you, and how this client copes:

* ``setoption`` is never acknowledged and FSF drops invalid values: values are
  validated against the advertised option description first (:mod:`protocol.options`);
  a variant change is confirmed by FSF's ``info string variant …`` line.
* ``position … moves …`` silently stops at the first move FSF cannot parse: moves are
  syntax-checked here, but *legality* is the caller's job (the rules checker).
* FSF does not report claimable draws at the root: the caller adjudicates.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

import chess

from protocol.engine import Dialect, Engine, EngineVariant, refusal_line
from protocol.errors import (
    EngineArgumentError,
    EngineProtocolError,
    OptionError,
    VariantError,
)
from protocol.info import InfoDict, InfoMerger, PlayResult, parse_bestmove
from protocol.limits import Limit, search_limit
from protocol.notation import (
    RankNumbering,
    board_shape,
    check_answered_move,
    check_move,
    check_safe,
    check_token,
)
from protocol.options import Option, normalise_name, parse_option

__all__ = ["UcciEngine", "UciEngine"]

_VARIANT_INFO_RE = re.compile(
    r"^info string variant (?P<name>\S+) files (?P<files>\d+) ranks (?P<ranks>\d+)"
    r"(?: pocket (?P<pocket>\d+))?(?: template (?P<template>\S+))?(?: startpos (?P<fen>.+))?$"
)
# Red to move with its general and a chariot on its first rank only: whatever the engine
# plays starts on that rank, so the move's first rank digit tells how it numbers them.
_RANKS_PROBE_FEN = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
_FIRST_RANK = {"0": RankNumbering.ZERO_BASED, "1": RankNumbering.ONE_BASED}
_SQUARE_RE = re.compile(r"[a-z]([0-9]+)")


def _checked_bestmove(
    line: str,
    convert: Callable[[str], str] | None,
    files: int | None,
    ranks: int | None,
    validate_move: Callable[[str], bool] | None,
) -> tuple[str | None, str | None, bool, bool]:
    """The ``bestmove`` line's move (checked), ponder move, draw offer and resignation."""
    move, ponder, draw, resign = parse_bestmove(line, convert)
    if move is not None:
        check_answered_move(
            move, files=files, ranks=ranks, validate_move=validate_move, what="bestmove", shown=line
        )
    if ponder is not None:
        try:
            check_move(ponder, files=files, ranks=ranks)
        except EngineArgumentError:
            ponder = None  # a bad ponder move is not worth a restart
    return move, ponder, draw, resign


class UciEngine(Engine):
    """A UCI engine (see the module docstring)."""

    dialect = Dialect.UCI
    hello: ClassVar[str] = "uci"
    keywords = frozenset(
        {
            "id",
            "option",
            "uciok",
            "ucciok",
            "readyok",
            "info",
            "bestmove",
            "nobestmove",
            "copyprotection",
            "registration",
        }
    )

    variant_path: str | None
    _confirmed: set[str]
    _final_info_only: Option | None
    _final_info_key: str
    _clock_millis: bool
    _last_moves: tuple[object, tuple[str, ...], str] | None
    _last_go: tuple[tuple[Limit, chess.Color], tuple[str, float | None]] | None

    def _init_dialect(self) -> None:
        self.variant_path = None
        self._confirmed = set()  # variants FSF announced since the last switch
        self._final_info_only = None  # the engine's FinalInfoOnly, if any
        self._clock_millis = True  # UCCI without usemillisec: clocks in seconds
        # The last position's moves, checked, and as the engine reads them (one string,
        # with the board size and numbering they were checked for): a game sends them
        # again, with one more move or two.
        self._last_moves = None
        # The last (limit, side to move)'s go line and time budget: the next search
        # has the same ones.
        self._last_go = None

    # ------------------------------------------------------------------ handshake

    async def _handshake(self) -> None:
        hello = self.hello
        await self._send(f"{hello}\n", "handshake")
        options: list[Option] = []
        ucci = self.dialect is Dialect.UCCI
        async with self._phase("handshake", self.timeouts.handshake):
            while True:
                line = await self.reader.readline()
                if line == f"{hello}ok":
                    break
                if line.startswith("option "):
                    try:
                        options.append(parse_option(line, ucci=ucci))
                    except ValueError as exc:
                        raise EngineProtocolError(str(exc), phase="handshake") from exc
                elif line.startswith("id "):
                    _, _, rest = line.partition(" ")
                    key, _, value = rest.partition(" ")
                    self.id[key] = value
                else:
                    self.unknown.add(line)
        for option in options:
            self.options.add(option)
        if "FinalInfoOnly" in self.options and self.options["FinalInfoOnly"].type == "check":
            self._final_info_only = self.options["FinalInfoOnly"]
            self._final_info_key = normalise_name("FinalInfoOnly")
        if "UCI_Variant" in self.options:
            default = self.options["UCI_Variant"].default
            if isinstance(default, str) and default:
                self.variant = EngineVariant(default)

    def _sync_command(self) -> tuple[str, str]:
        return "isready\n", "readyok"

    def _new_game_line(self) -> str:
        return "ucinewgame\n"

    # ------------------------------------------------------------------ sync

    def _is_search_end(self, line: str) -> bool:
        return line.startswith("bestmove") or line == "nobestmove"

    async def _resync(self) -> None:
        if self._searching:
            if not self.guard.stopping:
                await self._send(f"{self.stop_command}\n", "stop")
                self.guard.stopping = True
            async with self._phase("stop", self.timeouts.stop):
                await self._read_search_end(self._is_search_end)
            self._searching = False
            self.guard.stopping = False
        await self._sync()

    async def new_game(self) -> None:
        """Tell the engine a new game starts (clears the hash), then sync."""
        async with self._operation():
            await self._send(self._new_game_line(), "isready")
            await self._sync()

    # ------------------------------------------------------------------ options

    def _setoption_line(self, option: Option, wire: str | None) -> str:
        value = f" value {wire}" if wire is not None else ""
        return f"setoption name {option.name}{value}\n"

    def _final_info_line(self, wanted: bool) -> str:
        """The ``setoption`` that turns the engine's ``FinalInfoOnly`` to ``wanted``
        ("" if the engine has no such option or it is already so)."""
        option = self._final_info_only
        if option is None:
            return ""
        wire = "true" if wanted else "false"  # a check option's values
        if self._values.get(self._final_info_key) == wire:
            return ""  # every search asks: the usual answer without the general path
        return self._setoption_if_changed(option, wire)

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
            await self._send(self._setoption_line(option, wire), "configure")
            await self._sync()
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

    def position_command(self, fen: str | None, moves: Sequence[str] = ()) -> str:
        """The ``position`` line for a FEN (None: ``startpos``) and canonical moves,
        with every argument checked and ranks renumbered as the engine writes them.
        Raises :class:`EngineArgumentError` / :class:`UnsafeArgumentError`."""
        return self._position_command(fen, moves, *self._board(fen))

    def _position_command(
        self, fen: str | None, moves: Sequence[str], files: int | None, ranks: int | None
    ) -> str:
        if fen is not None:
            check_safe(fen, "FEN")
            fen = " ".join(fen.split())
            if not fen or "moves" in fen.split(" ") or "startpos" in fen.split(" "):
                raise EngineArgumentError(f"not a FEN: {fen!r}")
            fen = self.fen_letters.write(fen)
        if isinstance(moves, str):
            raise EngineArgumentError("moves must be a sequence of move strings, not a str")
        numbering = self._numbering(ranks)
        moves = tuple(moves)
        board = (files, ranks, numbering)
        written = ""  # the moves as the engine reads them, space-separated
        moves_left = moves
        last = self._last_moves
        if last is not None and last[0] == board:
            # The moves the last position had, checked and written then, are not again.
            done = len(last[1])
            try:
                same = moves[:done] == last[1]
            except Exception:  # not moves at all: check_move says so below
                same = False
            if same:
                written = last[2]
                moves_left = moves[done:]
        added: list[str] = []
        for move in moves_left:
            check_move(move, files=files, ranks=ranks)
            added.append(numbering.to_engine(move) if numbering else move)
        if added:
            written = f"{written} {' '.join(added)}" if written else " ".join(added)
        self._last_moves = (board, moves, written)
        line = "position startpos" if fen is None else f"position fen {fen}"
        return f"{line} moves {written}" if written else line

    def _go_command(self, limit: Limit, turn: chess.Color) -> str:
        return limit.go_command(turn)

    async def refusal(self, fen: str) -> str | None:
        """``position fen …`` then ``isready``: the engine's complaint before ``readyok``,
        on either of its outputs (Sjaak II writes it on stderr)."""
        position = self.position_command(fen)
        async with self._operation():
            mark = self.process.stderr_read
            await self._send(f"{position}\n{self._sync_command()[0]}", self.sync_phase)
            async with self._phase(self.sync_phase, self.timeouts.isready):
                lines = await self._read_until("readyok")
            lines += (await self.process.stderr_since(mark)).splitlines()
        return refusal_line(lines)

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
        """Search a position: [new game], ``position``, ``go`` in one write; read
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
        limit = search_limit(limit)
        files, ranks = self._board(fen)
        position = self._position_command(fen, moves, files, ranks)
        turn = self._turn(fen, len(moves))
        nps = self.timeouts.worst_case_nps
        if self._last_go is not None and self._last_go[0] == (limit, turn):
            go, budget = self._last_go[1]  # a player searches with one limit all game
        else:  # (a limit it cannot send fails here)
            go, budget = self._go_command(limit.resolved(), turn), limit.budget(turn, nps)
            if limit.deadline is None:
                self._last_go = ((limit, turn), (go, budget))
        numbering = self._numbering(ranks)
        convert = numbering.from_engine if numbering else None

        async with self._operation():
            if limit.deadline is not None:
                limit = limit.resolved()  # what is left of the deadline as `go` is written
                go, budget = self._go_command(limit, turn), limit.budget(turn, nps)
            timeout = self.timeouts.search(budget)
            if new_game:
                timeout += self.timeouts.isready
            self.guard.stopping = False
            head = self._final_info_line(on_info is None)
            if new_game:
                head += self._new_game_line()
            started = time.perf_counter()
            await self._send(f"{head}{position}\n{go}\n", "search")
            # `go` is on its way: a cancellation from here on must stop the search and
            # drain its bestmove, or the next search would read it as its own.
            self._searching = True
            infos = InfoMerger(turn, convert, eager=on_info is not None)
            async with self._phase("search", timeout) as deadline:
                self._search_timeout = deadline
                line = await self._read_search(infos, on_info)
                elapsed = time.perf_counter() - started
                self._searching = False
                self._search_timeout = None
                move, ponder, draw, resign = _checked_bestmove(
                    line, convert, files, ranks, validate_move
                )
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

    async def _read_search(
        self, infos: InfoMerger, on_info: Callable[[InfoDict], None] | None
    ) -> str:
        """Read the search's ``info`` lines into ``infos`` (each parsed one to
        ``on_info``) up to the line that ends it, which is returned."""
        reader = self.reader
        while True:
            # Lines already read are taken without a round through the loop.
            line = reader.take() if reader.buffered else None
            if line is None:
                line = await reader.readline()
            if line.startswith("info "):
                info = infos.add(line)
                if on_info is not None and info is not None:
                    on_info(info)
            elif self._is_search_end(line):
                return line
            else:
                self.unknown.add(line)

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
        numbering = self._numbering(ranks)
        counts: dict[str, int] = {}
        async with self._operation():
            await self._send(f"{position}\ngo perft {depth}\n", "perft")
            try:
                async with self._phase("perft", timeout):
                    while True:
                        line = await self.reader.readline()
                        head, sep, tail = line.partition(": ")
                        if head == "Nodes searched":
                            break
                        if sep and tail.isdigit():
                            try:
                                move = numbering.from_engine(head) if numbering else head
                                check_move(move, files=files, ranks=ranks)
                            except EngineArgumentError as exc:
                                raise EngineProtocolError(
                                    f"engine's perft named a malformed move: {line[:200]!r}",
                                    phase="perft",
                                ) from exc
                            counts[move] = int(tail)
                        elif line:
                            self.unknown.add(line)
                    if not tail.isdigit() or int(tail) != sum(counts.values()):
                        raise EngineProtocolError(
                            f"engine's perft total {tail!r} is not the sum of its moves' counts",
                            phase="perft",
                        )
            except asyncio.CancelledError:
                # FSF counts on its search thread and cannot be stopped: its output would
                # reach the next operation, so a cancelled count ends the engine.
                await self.kill()
                raise
        return counts


class UcciEngine(UciEngine):
    """A UCCI engine (see the module docstring)."""

    dialect = Dialect.UCCI
    hello = "ucci"
    default_ranks = None  # found out in the handshake unless the caller says

    async def _handshake(self) -> None:
        await super()._handshake()
        if "usemillisec" in self.options:
            # The specification has the GUI say so even when it is the default, and
            # Sjaak II counts in seconds until told.
            await self.configure({"usemillisec": True})
        else:
            self._clock_millis = False  # UCCI without usemillisec: clocks in seconds
        if self.ranks is None:
            self.ranks = await self._probe_ranks()
            # Sjaak II's `startpos` is its game's first position, which the probe's FEN
            # has become: a new game puts the standard one back.
            await self._send(self._new_game_line(), "handshake")

    async def _probe_ranks(self) -> RankNumbering:
        """Ask for a move where Red's pieces all stand on its first rank; the rank digit
        of the move's from-square is how the engine numbers ranks."""
        await self._send(f"position fen {_RANKS_PROBE_FEN}\ngo depth 1\n", "handshake")
        async with self._phase("handshake", self.timeouts.handshake):
            line = await self._read_search_end(self._is_search_end)
            tokens = line.split()
            square = _SQUARE_RE.match(tokens[1]) if len(tokens) > 1 else None
            numbering = _FIRST_RANK.get(square.group(1)) if square else None
            if numbering is None:
                raise EngineProtocolError(
                    f"cannot tell how the engine numbers ranks from {line[:80]!r} in "
                    f"{_RANKS_PROBE_FEN!r}: say ranks=0-9 or ranks=1-10",
                    phase="handshake",
                )
        return numbering

    def _new_game_line(self) -> str:
        option = self.options.get("newgame")
        if option is not None and option.type == "button":
            return self._setoption_line(option, None)
        return "ucinewgame\n"  # FSF's, in every mode

    def _setoption_line(self, option: Option, wire: str | None) -> str:
        return f"setoption {option.name}" + (f" {wire}" if wire is not None else "") + "\n"

    def _go_command(self, limit: Limit, turn: chess.Color) -> str:
        return limit.go_command(turn, ucci=True, millis=self._clock_millis)
