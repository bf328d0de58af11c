r"""PGN for match games, as xiangqi tools and PGN viewers read it.

:func:`format_pgn` writes the seven standard tags (``White`` is Red's player), then
``Game "Chinese Chess"`` and ``Format`` (``WXF`` or ``ICCS``: the notation of the moves),
``Red``, ``Variant``, ``FEN``, ``SetUp`` and the match's own tags (a backslash or a
quote in a value escaped, ``\\`` and ``\"``, as the standard asks). Moves are standard
WXF (``C2=5``, ``H8+7``, tandems ``C-+7``, drops ``A@45``: :mod:`ladder.notation.wxf`), or ICCS
(``H2-E2``, ranks 0..9). Comments: ``{book}`` for opening
moves, else ``[%eval 0.35,9]`` (Red's view, pawns or ``#-3``, with the depth),
``[%clk 0:00:59.2]`` (the mover's clock after the move), nodes and search time, and a
mark on a random or varied choice. Chinese moves (``炮二平五``, ``馬８進７``:
:mod:`ladder.notation.chinese`) are ``Format "Chinese"``.

:func:`read_pgn` parses the text back and :func:`replay` turns a parsed game into a
rules-checker :class:`~ladder.rules.Game`, reading each move in whichever notation
xiangqi tools write (:func:`ladder.notation.by_name.read_move`: canonical, ICCS, WXF, XBoard's SAN,
Chinese): it fails on a move that is illegal or ambiguous.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ladder.match.game.clocks import format_clock
from ladder.match.game.move_record import MoveRecord
from ladder.notation.by_name import line_in, move_in, read_move, writer
from ladder.notation.pgn_text import DECIDED_RESULTS, pgn_text
from ladder.notation.wxf import WxfError, WxfWriter, canonical_from_iccs, iccs_move, wxf_moves
from ladder.rules import Game, RulesError
from ladder.variants import FSF_VARIANT
from protocol.notation import FenLetters, fsf_letters, to_ucci

__all__ = [
    "PgnError",
    "PgnGame",
    "PgnOptions",
    "canonical_from_iccs",
    "format_pgn",
    "iccs_move",
    "pgn_line",
    "pgn_move",
    "read_pgn",
    "replay",
    "setup_tags",
    "tag_pair",
    "wxf_moves",
]


class PgnError(ValueError):
    """PGN text that cannot be read back into a legal game."""


#: The PGN notations :func:`format_pgn` writes, with their ``Format`` tag.
NOTATIONS = {
    "wxf": "WXF",
    "iccs": "ICCS",
    "xboard": "ICCS",
    "chinese": "Chinese",
    "chinese-traditional": "Chinese",
}
#: The notations that write each move from its own squares, not from the position:
#: ICCS (``H2-E2``, which cchess reads) and XBoard's lowercase coordinates (``h2e2``,
#: ranks 0..9, which XBoard reads: it reads neither WXF nor ICCS). Both are ``Format
#: "ICCS"`` to the reader here, which takes either spelling.
COORDINATES: dict[str, Callable[[str], str]] = {"iccs": iccs_move, "xboard": to_ucci}


def pgn_move(notation: str, game: Game, move: str) -> str:
    """``move`` (canonical, legal in ``game``'s position) as a PGN in ``notation``
    (:data:`NOTATIONS`) writes it."""
    if notation in COORDINATES:
        return COORDINATES[notation](move)
    return move_in(notation, game, move)


def pgn_line(notation: str, game: Game, line: Sequence[str]) -> list[str]:
    """``line`` (legal from ``game``'s position, which is left unchanged) as a PGN in
    ``notation`` writes it."""
    if notation in COORDINATES:
        return [COORDINATES[notation](move) for move in line]
    return line_in(notation, game, line)


#: The letters a ``FEN`` tag is written in (``--pgn-fen``): XBoard's, which XBoard,
#: Sjaak II and cutechess read (``h`` horse, ``e`` elephant), or Fairy-Stockfish's
#: (``n``, ``b``). Either is read back.
FEN_DIALECTS = (FenLetters.XBOARD.value, FenLetters.FSF.value)


def fen_in(dialect: str, fen: str) -> str:
    """``fen`` (Fairy-Stockfish's letters) with its board and hand in ``dialect``'s."""
    if dialect not in FEN_DIALECTS:
        raise PgnError(f"unknown FEN dialect {dialect!r}: expected one of {list(FEN_DIALECTS)}")
    return FenLetters(dialect).write(fen)


def fsf_fen(fen: str) -> str:
    """A FEN in either dialect in Fairy-Stockfish's letters."""
    return fsf_letters(fen.strip())


@functools.cache
def variant_start(variant: str) -> str:
    """The start FEN of ``variant``: a game from it has no ``FEN`` tag."""
    return Game.from_fen(variant).start_fen


def _eval_text(info: MoveRecord, red_moved: bool) -> str | None:
    """``[%eval ...]`` from Red's point of view (pawns, or ``#N``), with the depth."""
    sign = 1 if red_moved else -1
    if info.mate is not None:
        text = f"#{sign * info.mate}"
    elif info.cp is not None:
        text = f"{sign * info.cp / 100:.2f}"
    else:
        return None
    if info.depth is not None:
        text += f",{info.depth}"
    return f"[%eval {text}]"


def _comment(info: MoveRecord, red_moved: bool, notation: str, best_wxf: str | None) -> str:
    """A move's comment: ``[%eval]`` (Red's view), ``[%clk]``, nodes and time, and how the
    move was chosen when it was not the player's best (``best_wxf``: that best move's
    WXF, from :func:`_written_wxf`)."""
    if info.comment is not None:  # a game read from a PGN file: its comment as it was
        return info.comment
    parts = []
    evaluation = _eval_text(info, red_moved)
    if evaluation:
        parts.append(evaluation)
    if info.clock is not None:
        parts.append(f"[%clk {format_clock(info.clock)}]")
    if info.nodes is not None:
        parts.append(f"{info.nodes}N {info.seconds:.3f}s")
    if info.chosen == "random":
        parts.append("random move")
    elif info.chosen == "varied":
        best = info.best or "?"
        if notation in COORDINATES:
            best = COORDINATES[notation](best)
        elif best_wxf is not None:
            best = best_wxf
        parts.append(f"varied: the engine's best was {best}")
    return " ".join(parts)


def _written_wxf(record: Any, notation: str = "wxf") -> WxfWriter:
    """The WXF (or Chinese: ``notation``) of ``record``'s moves (as :func:`wxf_moves`
    writes them: canonical from the first move the rules checker refuses on), and at each
    ply whose move the variety rule chose, the engine's best move there: one replay of
    the game for all of them (a match game's loop writes WXF as it plays:
    :func:`format_pgn`'s ``written``)."""
    r = record
    bests: dict[int, str] = {}
    for k, info in enumerate(r.infos):
        if info.chosen == "varied":
            bests[r.book_plies + k] = info.best or "?"
    return writer(notation).replay(r.variant, r.start_fen, r.moves, bests)


def _time_control_tags(controls: tuple[str, str] | None) -> list[tuple[str, str]]:
    """``TimeControl`` as cutechess writes it (``40/60+0.6``, ``10+0.1``; ``-`` for games
    without a clock, a node or depth limit), and each side's when they differ."""
    if controls is None:
        return [("TimeControl", "-")]
    red, black = controls
    if red == black:
        return [("TimeControl", red)]
    return [("TimeControl", "?"), ("WhiteTimeControl", red), ("BlackTimeControl", black)]


def format_pgn(
    record: Any,
    date: str | None = None,
    *,
    notation: str = "wxf",
    minimal: bool = False,
    notes: Mapping[int, str] | None = None,
    extra_headers: Sequence[tuple[str, str]] = (),
    written: WxfWriter | None = None,
    fen: str = "xboard",
) -> str:
    """The PGN text of a :class:`~ladder.match.game.play.GameRecord`.

    The seven standard tags (``White`` is Red) come first, then ``Game "Chinese
    Chess"`` and ``Format`` (``WXF`` or ``ICCS``, the notation of the moves), as xqbase-
    style readers expect, then the match's own tags. ``minimal``: the standard tags,
    ``Game``, ``Format``, ``FEN`` and the moves only (no comments), as cutechess's
    ``-pgnout … min`` and for readers that do not skip comments. ``notes``: extra
    comment text after a ply (0-based index into the moves), e.g. a study's;
    ``extra_headers`` follow the others. ``written``: the record's moves as the game
    loop wrote them in WXF (else the game is replayed to write them). ``fen``: the
    letters of the ``FEN`` tag (:data:`FEN_DIALECTS`), which a game from its variant's
    start does not have.
    """
    if notation not in NOTATIONS:
        raise PgnError(f"unknown PGN notation {notation!r}: expected one of {sorted(NOTATIONS)}")
    headers = _headers(record, date, notation, minimal, fen) + list(extra_headers)
    return pgn_text(headers, _movetext(record, notation, minimal, notes, written))


def _headers(
    r: Any, date: str | None, notation: str, minimal: bool, fen: str
) -> list[tuple[str, str]]:
    """The tags of :func:`format_pgn`, in their order."""
    date = date or time.strftime("%Y.%m.%d", time.gmtime(r.finished_at))
    headers = [
        ("Event", r.match_id),
        ("Site", r.worker.split(":")[0]),
        ("Date", date),
        ("Round", f"{r.pair_no + 1}.{r.game_no % 2 + 1}"),
        ("White", r.red),
        ("Black", r.black),
        ("Result", r.result),
        ("Game", "Chinese Chess"),
        ("Format", NOTATIONS[notation]),
        ("Red", r.red),
        ("Variant", r.variant),
        *setup_tags(r.variant, r.start_fen, fen),
        *_time_control_tags(r.time_controls),
    ]
    if not minimal:
        headers += [
            ("Termination", r.reason),
            ("PlyCount", str(len(r.moves))),
            ("Match", r.match_id),
            ("GameNo", str(r.game_no)),
            ("Opening", r.opening or f"#{r.opening_no}"),
            ("OpeningNo", str(r.opening_no)),
        ]
    return headers


def setup_tags(variant: str, start_fen: str, dialect: str = "xboard") -> list[tuple[str, str]]:
    """``FEN`` and ``SetUp``, for a game that does not start from its variant's start (a
    FEN tag at the start confuses readers that do not know our letters), the FEN in
    ``dialect``'s letters (:data:`FEN_DIALECTS`; XBoard refuses Fairy-Stockfish's)."""
    if start_fen == variant_start(variant):
        return []
    return [("FEN", fen_in(dialect, start_fen)), ("SetUp", "1")]


def _movetext(
    r: Any,
    notation: str,
    minimal: bool,
    notes: Mapping[int, str] | None,
    wxf: WxfWriter | None,
) -> list[str]:
    """The movetext tokens of :func:`format_pgn`: numbers, moves, comments, the result."""
    best_wxf: dict[int, str] = {}
    if notation in COORDINATES:
        written = [COORDINATES[notation](m) for m in r.moves]
    else:  # the game loop's writer wrote WXF
        wxf = wxf if wxf is not None and notation == "wxf" else _written_wxf(r, notation)
        written, best_wxf = wxf.moves, wxf.bests
    fields = r.start_fen.split()
    black_first = fields[1] == "b"
    fullmove = int(fields[-1]) if fields[-1].isdigit() else 1
    tokens: list[str] = []
    for i, move in enumerate(written):
        red_moves = (i % 2 == 0) != black_first
        if red_moves:
            tokens.append(f"{fullmove}.")
        elif i == 0:
            tokens.append(f"{fullmove}...")
        tokens.append(move)
        if not minimal:
            comment = "book" if i < r.book_plies else ""
            k = i - r.book_plies
            if k >= 0 and k < len(r.infos):
                comment = _comment(r.infos[k], red_moves, notation, best_wxf.get(i))
            if notes and i in notes:
                comment = f"{comment}; {notes[i]}" if comment else notes[i]
            if comment:
                tokens.append("{" + comment.replace("}", ")") + "}")
        if not red_moves:
            fullmove += 1
    if not minimal and getattr(r, "failure", None) is not None:  # the loser's own words
        tokens.append("{" + str(r.failure).replace("}", ")") + "}")
    tokens.append(r.result)
    return tokens


@dataclass
class PgnGame:
    """A parsed PGN game: headers, move tokens, the comment after each move."""

    headers: dict[str, str]
    moves: list[str] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    result: str | None = None


_HEADER_RE = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
#: An escaped backslash or quote in a tag's value (any other backslash is kept as it is,
#: as older files wrote a path's: ``"C:\engines\"``).
_TAG_ESCAPE_RE = re.compile(r'\\([\\"])')
# Movetext tokens (PGN standard, section 8.2): brace comments (over lines), rest-of-line
# comments, variations' parentheses, NAGs, move numbers, results, and the rest (moves).
_TOKEN_RE = re.compile(
    r"\{[^}]*\}|;[^\n]*|[()]|\$\d+|\d+\.(?:\.\.)?|1-0|0-1|1/2-1/2|\*|[^\s{}();]+"
)
_MOVE_NUMBER_RE = re.compile(r"\d+\.(\.\.)?")
#: A move's suffix annotation (`!`, `?!`, ...): not part of the move.
_SUFFIX_RE = re.compile(r"[!?]+$")


def tag_pair(line: str) -> tuple[str, str] | None:
    """``(name, value)`` of a tag pair's line (``[Event "x"]``; the value unescaped), or
    None for any other line (movetext, a comment's ``[%eval ...]``)."""
    m = _HEADER_RE.match(line.strip())
    return None if m is None else (m[1], _TAG_ESCAPE_RE.sub(r"\1", m[2]))


def read_pgn(text: str) -> Iterator[PgnGame]:
    """The games of a PGN text, in order: the tags of each (their values unescaped), its
    main line, its comments, its result. Variations (``( ... )``, nested), NAGs
    (``$2``), suffix annotations (``!?``) and rest-of-line comments (``;``) are read and
    left out, as the standard allows."""
    game: PgnGame | None = None
    in_moves = False
    movetext: list[str] = []

    def finish() -> PgnGame | None:
        if game is None:
            return None
        depth = 0  # inside how many variations
        for tok in _TOKEN_RE.findall("\n".join(movetext)):
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth = max(depth - 1, 0)
            elif depth or tok.startswith(("$", ";")) or _MOVE_NUMBER_RE.fullmatch(tok):
                continue
            elif tok.startswith("{"):
                if game.comments:
                    game.comments[-1] = tok[1:-1].strip()
            elif tok in DECIDED_RESULTS or tok == "*":
                game.result = tok
            else:
                move = _SUFFIX_RE.sub("", tok)
                if move:
                    game.moves.append(move)
                    game.comments.append(None)
        return game

    for raw in text.splitlines():
        line = raw.strip()
        tag = tag_pair(line)
        if tag is not None:
            if in_moves or game is None:
                done = finish()
                if done is not None:
                    yield done
                game, in_moves, movetext = PgnGame({}), False, []
            game.headers[tag[0]] = tag[1]
        elif line.startswith("%"):
            continue  # an escaped line (PGN standard 6): not for this reader
        elif line:
            if game is None:
                raise PgnError(f"movetext before any header: {line[:40]!r}")
            in_moves = True
            movetext.append(line)
    done = finish()
    if done is not None:
        yield done


def replay(pgn: PgnGame, variant: str | None = None) -> Game:
    """Replay a parsed game through the rules checker (PgnError if a move is illegal or
    ambiguous, or the game does not match its headers).

    The rule set is the ``Variant`` tag's; a game without one is ``variant`` (default:
    plain xiangqi when the ``Game`` tag says ``Chinese Chess``). Moves: see
    :func:`ladder.notation.by_name.read_move` (any token is ICCS when the ``Format`` tag says so).
    """
    tag = pgn.headers.get("Variant")
    if tag is None and pgn.headers.get("Game", "").lower() == "chinese chess":
        tag = variant or "xiangqi"
    tag = tag or variant
    if variant is not None and tag != variant:
        raise PgnError(f"a {tag!r} game where {variant!r} was expected")
    if tag not in FSF_VARIANT:
        raise PgnError(f"unknown or missing Variant header: {tag!r}")
    try:
        fen = pgn.headers.get("FEN")
        game = Game.from_fen(tag, None if fen is None else fsf_fen(fen))
    except RulesError as exc:
        raise PgnError(f"bad FEN header: {exc}") from exc
    iccs = pgn.headers.get("Format", "").upper() == "ICCS"
    for ply, token in enumerate(pgn.moves, start=1):
        try:
            game.push(read_move(game, token, iccs=iccs))
        except WxfError as exc:
            raise PgnError(f"ply {ply}: {exc}") from exc
    return game


@dataclass(frozen=True)
class PgnOptions:
    """Where and how a run writes its games as PGN (:func:`format_pgn`)."""

    path: Path
    notation: str = "wxf"
    minimal: bool = False
    fen: str = "xboard"  #: the FEN tag's letters (:data:`FEN_DIALECTS`)

    @property
    def takes_record_text(self) -> bool:
        """Whether this form is the PGN a game's record carries when its task asks for it
        (:attr:`~ladder.match.game.play.GameTask.pgn`): written by the worker that played
        it, not by the driver."""
        return (self.notation, self.minimal, self.fen) == ("wxf", False, "xboard")

    def render(self, record: Any) -> str:
        if self.takes_record_text and record.pgn:
            return str(record.pgn)  # what the worker wrote, the same text
        return format_pgn(record, notation=self.notation, minimal=self.minimal, fen=self.fen)
