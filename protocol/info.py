"""Parsing what the engine says during and at the end of a search.

While searching, the engine reports progress in ``info`` lines, one ``key value`` pair
after another::

    info depth 10 seldepth 12 multipv 1 score cp 25 nodes 100101 nps 219519 tbhits 0
         time 456 pv b1c3 h10g8
    info depth 7 seldepth 7 multipv 1 score cp 4 upperbound nodes 3001 ... pv h9g7 h0f1
    info depth 1 ... score mate 1 ... pv b1b10
    info depth 0 score mate 0                  (the side to move is checkmated)
    info ... score cp 30 wdl 520 400 80 ...    (with UCI_ShowWDL)
    info string classical evaluation enabled   (free text to the end of the line;
                                                UCCI: info message …)

Scores are from the point of view of the side to move, in centipawns (``cp``) or in
moves to mate (``mate``; negative when the engine is getting mated). ``lowerbound`` /
``upperbound`` mark a fail-high / fail-low score. Fairy-Stockfish in UCCI mode writes
the centipawn score as a bare number (``score 29``); older builds keep ``cp``. Both
parse. Scores become python-chess's :class:`chess.engine.PovScore` with Red as
``chess.WHITE``.

The search ends with exactly one ``bestmove`` line::

    bestmove b1c3 ponder h10g8
    bestmove (none)            (no legal move: checkmated or stalemated)
    nobestmove                 (UCCI's way of saying the same)
    bestmove h2e2 draw         (UCCI: the engine offers a draw; `resign`: it resigns)

A search prints many ``info`` lines, but only the merge of each MultiPV line's lines is
kept (:class:`InfoMerger`). Fairy-Stockfish's usual line (the first form above, with
an optional bound and ``hashfull``) is recognised by one regular expression and turned
into its keys (from the expression's groups, not parsed again) only when no later line
of its MultiPV line overrides it; anything else is parsed at once with
:func:`parse_info`. The merged result is the same either way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

import chess
from chess.engine import Cp, Mate, PovScore, PovWdl, Wdl

from protocol.errors import EngineArgumentError, EngineProtocolError
from protocol.notation import MOVE_RE, NO_MOVE

__all__ = [
    "InfoDict",
    "InfoMerger",
    "PlayResult",
    "parse_bestmove",
    "parse_info",
    "parse_xboard_thinking",
]


class InfoDict(TypedDict, total=False):
    """One ``info`` line, parsed (the same keys as :class:`chess.engine.InfoDict`).

    ``time`` is in seconds. Moves (``pv``, ``currmove``, ``refutation``) are in the
    canonical notation (ranks 1..10), whatever the protocol.
    """

    score: PovScore
    lowerbound: bool
    upperbound: bool
    pv: list[str]
    depth: int
    seldepth: int
    multipv: int
    nodes: int
    nps: int
    time: float
    hashfull: int
    tbhits: int
    sbhits: int
    cpuload: int
    wdl: PovWdl
    currmove: str
    currmovenumber: int
    refutation: list[str]
    currline: list[str]
    string: str


@dataclass(slots=True)
class PlayResult:
    """The outcome of one search (compare :class:`chess.engine.PlayResult`)."""

    move: str | None
    """The best move in canonical notation; None when there is no legal move."""
    ponder: str | None = None
    """The move the engine expects in reply, if it said so."""
    info: InfoDict = field(default_factory=lambda: InfoDict())
    """Every ``info`` line of the principal variation (multipv 1) merged, latest last."""
    multipv: list[InfoDict] = field(default_factory=list)
    """The same for each multipv line, in order (as many as the engine reported: the
    ``MultiPV`` option, or fewer when a tiny search ends before it finished them all)."""
    draw_offered: bool = False
    resigned: bool = False
    claim: str | None = None
    """A game result the engine claimed, as it wrote it (XBoard: ``0-1 {Black mates}``,
    with or instead of a move). Whether the claim holds is the caller's rules' call."""
    elapsed: float = 0.0
    """Wall-clock seconds from sending ``go`` to reading ``bestmove`` (with a new game:
    from sending ``ucinewgame``, which goes out with ``go``)."""


_INT_KEYS = frozenset(
    {
        "depth",
        "seldepth",
        "multipv",
        "nodes",
        "nps",
        "hashfull",
        "tbhits",
        "sbhits",
        "cpuload",
        "currmovenumber",
    }
)
_MOVE_LIST_KEYS = frozenset({"pv", "refutation", "currline"})
_KEYS = _INT_KEYS | _MOVE_LIST_KEYS | {"score", "time", "wdl", "currmove", "string", "message"}


def parse_info(
    line: str,
    turn: chess.Color,
    convert: Callable[[str], str] | None = None,
) -> InfoDict:
    """Parse an ``info`` line.

    ``turn`` is the side to move in the searched position (the score's point of view);
    ``convert`` maps engine moves to canonical ones (UCCI rank shift), None = as is.
    Unknown keys are skipped, as UCI asks; a known key with a bad value raises
    :class:`EngineProtocolError` (an engine writing that is not to be trusted).
    """
    tokens = line.split()
    info = InfoDict()
    n = len(tokens)
    i = 1
    try:
        while i < n:
            key = tokens[i]
            i += 1
            if key in _INT_KEYS:
                info[key] = int(tokens[i])  # type: ignore[literal-required]
                i += 1
            elif key == "score":
                kind = tokens[i]
                if kind == "cp":
                    relative: Cp | Mate = Cp(int(tokens[i + 1]))
                    i += 2
                elif kind == "mate":
                    relative = Mate(int(tokens[i + 1]))
                    i += 2
                else:  # UCCI: a bare centipawn number
                    relative = Cp(int(kind))
                    i += 1
                info["score"] = PovScore(relative, turn)
                while i < n and tokens[i] in ("lowerbound", "upperbound"):
                    info[tokens[i]] = True  # type: ignore[literal-required]
                    i += 1
            elif key == "time":
                info["time"] = int(tokens[i]) / 1000.0
                i += 1
            elif key == "wdl":
                wins, draws, losses = (int(t) for t in tokens[i : i + 3])
                info["wdl"] = PovWdl(Wdl(wins, draws, losses), turn)
                i += 3
            elif key == "currmove":
                info["currmove"] = convert(tokens[i]) if convert else tokens[i]
                i += 1
            elif key in _MOVE_LIST_KEYS:
                moves: list[str] = []
                while i < n and tokens[i] not in _KEYS:
                    moves.append(convert(tokens[i]) if convert else tokens[i])
                    i += 1
                info[key] = moves  # type: ignore[literal-required]
            elif key in ("string", "message"):  # UCCI says `message`
                info["string"] = line.split(key, 1)[1].strip()
                break
            # any other key: ignore it, as the UCI spec asks of unknown tokens
    except (IndexError, ValueError, EngineArgumentError) as exc:
        raise EngineProtocolError(f"malformed info line: {line[:200]!r}", phase="search") from exc
    return info


def merge_info(target: InfoDict, info: InfoDict) -> None:
    """Merge a later ``info`` line into what is known of its MultiPV line: a new score
    drops the old score's ``lowerbound``/``upperbound`` flags, every key overrides."""
    if "score" in info:
        target.pop("lowerbound", None)
        target.pop("upperbound", None)
    target.update(info)


# Fairy-Stockfish's usual info line (Stockfish's field order; a bound after the score;
# `hashfull` once the search is a second old). Integers are ASCII digits only, moves
# start like a square or a drop (so no move can be read as a key): a line this matches
# is one that parse_info parses without error into exactly these keys. UCCI's bare
# score (`score 29`) matches too.
_MOVE = r"(?:\+?[A-Za-z]@|[a-z][0-9]{1,2})[a-z][0-9]{1,2}[^ ]*"
_STANDARD_INFO_RE = re.compile(
    r"info depth ([0-9]+) seldepth ([0-9]+) multipv ([0-9]+) "
    r"score (?:(cp|mate) )?(-?[0-9]+)(?: (lowerbound|upperbound))? "
    r"nodes ([0-9]+) nps ([0-9]+)(?: hashfull ([0-9]+))? tbhits ([0-9]+) time ([0-9]+) "
    rf"pv ({_MOVE}(?: {_MOVE})*)"
)
_HASHFULL = 9  # group numbers of _STANDARD_INFO_RE
_MULTIPV = 3


@functools.lru_cache(maxsize=4096)  # immutable, and a position's scores repeat
def _pov_score(kind: str | None, value: str, turn: chess.Color) -> PovScore:
    """The score of a usual line's ``score [cp|mate] <value>`` (a bare value: cp)."""
    return PovScore(Mate(int(value)) if kind == "mate" else Cp(int(value)), turn)


def _info_from_match(match: re.Match[str], turn: chess.Color) -> InfoDict:
    """What :func:`parse_info` makes of a line that :data:`_STANDARD_INFO_RE` matched,
    built from the match's groups (the line is not split and walked again). Its PV moves
    are split on spaces; a PV with any other whitespace (which is not printable) is
    left to :func:`parse_info` (whose split would differ)."""
    (depth, seldepth, multipv, kind, value, bound, nodes, nps, hashfull, tbhits, time, pv) = (
        match.groups()
    )
    if not pv.isprintable():
        return parse_info(match.string, turn)
    score = _pov_score(kind, value, turn)
    if bound is None and hashfull is None:
        # The usual case in one dict display (cheaper than adding the keys one by one).
        usual: InfoDict = {
            "depth": int(depth),
            "seldepth": int(seldepth),
            "multipv": int(multipv),
            "score": score,
            "nodes": int(nodes),
            "nps": int(nps),
            "tbhits": int(tbhits),
            "time": int(time) / 1000.0,
            "pv": pv.split(" "),
        }
        return usual
    info = InfoDict(depth=int(depth), seldepth=int(seldepth), multipv=int(multipv), score=score)
    if bound is not None:
        info[bound] = True  # type: ignore[literal-required]
    info["nodes"] = int(nodes)
    info["nps"] = int(nps)
    if hashfull is not None:
        info["hashfull"] = int(hashfull)
    info["tbhits"] = int(tbhits)
    info["time"] = int(time) / 1000.0
    info["pv"] = pv.split(" ")
    return info


class InfoMerger:
    """The ``info`` lines of one search, merged per MultiPV line (the lines without a
    ``multipv`` count as line 1): each line's keys override the earlier ones'
    (:func:`merge_info`).

    Lazily: a line in Fairy-Stockfish's usual form is only matched against a regular
    expression when it arrives, and is parsed only if it is still the last of its
    MultiPV line when the search ends (or when a line in another form follows it). A
    later usual line overrides every key of an earlier one except ``hashfull``, which
    is carried over. Any other line is parsed (and checked) at once, as before. With
    ``eager=True`` (or a move converter, UCCI) every line is parsed as it comes, which
    is what a caller that wants to see each parsed line needs. The result
    (:meth:`result`) is the same either way (tests/protocol: real engine output).
    An ``info string`` line (UCCI ``info message``) is passed on but kept out of the result.
    """

    __slots__ = ("_convert", "_eager", "_merged", "_pending", "_turn")

    def __init__(
        self, turn: chess.Color, convert: Callable[[str], str] | None = None, *, eager: bool = False
    ) -> None:
        self._turn = turn
        self._convert = convert
        self._eager = eager or convert is not None
        self._merged: dict[int, InfoDict] = {}
        self._pending: dict[int, re.Match[str]] = {}

    def add(self, line: str) -> InfoDict | None:
        """Take one ``info`` line; returns it parsed if it was parsed now (None if it
        was only matched). Raises :class:`EngineProtocolError` for a malformed line."""
        if not self._eager:
            match = _STANDARD_INFO_RE.fullmatch(line)
            if match is not None:
                k = int(match.group(_MULTIPV))
                pending = self._pending
                old = pending.get(k)
                if old is not None:
                    hashfull = old.group(_HASHFULL)
                    if hashfull is not None:
                        self._merged.setdefault(k, InfoDict())["hashfull"] = int(hashfull)
                pending[k] = match
                return None
        info = parse_info(line, self._turn, self._convert)
        if len(info) == 1 and "string" in info:
            # Free text (FSF's "info string classical evaluation enabled" as a search
            # starts, unless FinalInfoOnly) is a message for whoever watches the lines,
            # not a figure of the search: the result is the same with the option or not.
            return info
        k = info.get("multipv", 1)
        target = self._merged.setdefault(k, InfoDict())
        old = self._pending.pop(k, None)
        if old is not None:
            merge_info(target, _info_from_match(old, self._turn))
        merge_info(target, info)
        return info

    def result(self) -> dict[int, InfoDict]:
        """The merged info per MultiPV number."""
        merged, turn = self._merged, self._turn
        for k, match in self._pending.items():
            target = merged.get(k)
            if target:
                merge_info(target, _info_from_match(match, turn))
            else:  # nothing to merge into: the line's own dict, not a copy of it
                merged[k] = _info_from_match(match, turn)
        self._pending.clear()
        return merged


def parse_bestmove(
    line: str, convert: Callable[[str], str] | None = None
) -> tuple[str | None, str | None, bool, bool]:
    """Parse ``bestmove <move> [ponder <move>] [draw|resign]`` or UCCI's ``nobestmove``.

    Returns (move, ponder, draw_offered, resigned); move is None for ``(none)``.
    The move's syntax is checked by the caller (it knows the board).
    """
    tokens = line.split()
    if tokens[0] == "nobestmove":
        return None, None, False, False
    if len(tokens) < 2:
        raise EngineProtocolError(f"bestmove without a move: {line[:200]!r}", phase="search")
    move = None if tokens[1] in NO_MOVE else tokens[1]
    ponder = None
    draw = resign = False
    i = 2
    while i < len(tokens):
        if tokens[i] == "ponder" and i + 1 < len(tokens):
            ponder = None if tokens[i + 1] in NO_MOVE else tokens[i + 1]
            i += 2
        elif tokens[i] == "draw":
            draw = True
            i += 1
        elif tokens[i] == "resign":
            resign = True
            i += 1
        else:
            raise EngineProtocolError(f"malformed bestmove: {line[:200]!r}", phase="search")
    try:
        if convert:
            move = convert(move) if move else None
            ponder = convert(ponder) if ponder else None
    except EngineArgumentError as exc:
        raise EngineProtocolError(f"malformed bestmove: {line[:200]!r}", phase="search") from exc
    return move, ponder, draw, resign


#: XBoard's mate scores: 100000 + N for mate in N moves, -100000 - N for mated in N.
XBOARD_MATE = 100_000
_XBOARD_MOVE_NUMBER_RE = re.compile(r"^[0-9]+\.+$")


def parse_xboard_thinking(
    line: str, turn: chess.Color, convert: Callable[[str], str] | None = None
) -> InfoDict | None:
    """Parse an XBoard thinking-output line, ``ply score time nodes [seldepth [nps]]
    [tbhits] pv``, into an :class:`InfoDict`; None when it is not one (fewer than four
    leading integers).

    The score is in centipawns from the side to move's point of view, a mate as
    ``XBOARD_MATE + N``; the time is in centiseconds. Of the integers between nodes and
    the PV the last is tbhits, the ones before it seldepth and nps (the CECP rule). A
    PV ending in ``?`` is an upper bound, ``!`` a lower bound. PV moves in coordinate
    notation are converted with ``convert`` (the engine's rank numbering); the PV stops
    at the first token that is not one (SAN, comments), skipping move numbers.
    """
    tokens = line.split()
    numbers: list[int] = []
    for token in tokens:
        if not (token.isascii() and token.lstrip("-").isdigit()):
            break
        numbers.append(int(token))
    if len(numbers) < 4:
        return None
    depth, score, centis, nodes = numbers[:4]
    info = InfoDict(depth=depth, time=centis / 100.0, nodes=nodes)
    if score >= XBOARD_MATE:
        relative: Cp | Mate = Mate(score - XBOARD_MATE)
    elif score <= -XBOARD_MATE:
        relative = Mate(score + XBOARD_MATE)
    else:
        relative = Cp(score)
    info["score"] = PovScore(relative, turn)
    extra = numbers[4:]
    if extra:
        info["tbhits"] = extra.pop()
    if extra:
        info["seldepth"] = extra.pop(0)
    if extra:
        info["nps"] = extra.pop(0)
    rest = tokens[len(numbers) :]
    if rest and rest[-1][-1:] in ("?", "!"):
        info["upperbound" if rest[-1].endswith("?") else "lowerbound"] = True
    pv: list[str] = []
    for token in rest:
        if _XBOARD_MOVE_NUMBER_RE.match(token):
            continue
        try:
            move = token.rstrip("?!+#")
            move = convert(move) if convert else move
        except EngineArgumentError:
            break
        if not MOVE_RE.match(move):
            break
        pv.append(move)
    info["pv"] = pv
    return info
