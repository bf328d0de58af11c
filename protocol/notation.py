"""Move notation: the canonical form, UCCI's rank numbering, and argument safety.

The project's canonical move notation is Fairy-Stockfish's UCI notation. Squares are a
file letter and a 1-based rank number, so a 10-rank xiangqi board has ranks ``1``..``10``:

    h3e3      Red cannon to the centre
    b10c8     Black horse (rank 10 is Black's back rank)
    A@e3      drop an advisor on e3 (crazyhouse-xiangqi); upper-case piece letter
    e7e8q     chess promotion (the piece letter follows the squares)

UCCI, the Chinese xiangqi protocol, numbers the ten ranks ``0``..``9`` instead, so the
same moves read ``h2e2``, ``b9c7`` and ``A@e2``. Fairy-Stockfish switches to this
numbering in UCCI mode *only on 10-rank boards* (a chess game in UCCI mode keeps ranks
1..8). The conversion happens here, at the protocol boundary, and nowhere else: callers
of :mod:`protocol` only ever see the canonical 1..10 notation.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

from protocol.errors import EngineArgumentError, EngineProtocolError, UnsafeArgumentError

# A square in canonical notation: a file letter and a rank >= 1 without leading zero.
_SQ = r"[a-z](?:[1-9][0-9]?)"
# A canonical move: from-square or a drop prefix (`A@`, `+P@`), a to-square, then an
# optional promotion/gating suffix, and FSF's wall suffix for walling variants.
MOVE_RE = re.compile(
    rf"^(?:\+?[A-Za-z]@|{_SQ}){_SQ}(?:[a-z+\-]|[a-z]{_SQ}|{_SQ})?(?:,{_SQ}{_SQ})?$"
)
_SQUARE_RE = re.compile(r"([a-z])([0-9]+)")
# Everything below 0x20 and DEL, plus the Unicode line/paragraph separators.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")

#: The moves that mean "no move" in a ``bestmove`` line.
NO_MOVE = frozenset({"(none)", "none", "NULL", "0000"})


def check_safe(value: str, what: str) -> str:
    """Refuse a value containing a newline or any other control character.

    Every string that the client interpolates into a command line passes through here,
    so no caller can smuggle a second command (``"x\\nquit"``) into the engine.
    """
    if not isinstance(value, str):
        raise EngineArgumentError(f"{what} must be a string, not {type(value).__name__}")
    if _CONTROL_RE.search(value):
        raise UnsafeArgumentError(f"{what} contains a control character: {value!r}")
    return value


def check_token(value: str, what: str) -> str:
    """A safe value that is also a single, non-empty whitespace-free token."""
    check_safe(value, what)
    # One non-empty token without whitespace (str.split splits where str.isspace is true).
    if value.split() != [value]:
        raise EngineArgumentError(f"{what} must be one token without spaces: {value!r}")
    return value


#: Moves (with the board size) that passed :func:`check_move`: a game sends the same few
#: hundred moves over and over, and the check is a pure function of these three.
_CHECKED_MOVES: dict[tuple[str, int | None, int | None], None] = {}
_CHECKED_MOVES_MAX = 1 << 14


def check_move(move: str, *, files: int | None = None, ranks: int | None = None) -> str:
    """Validate a canonical move's syntax (and geometry when the board size is known).

    This is not a legality check (the protocol layer knows no rules); it catches
    malformed or off-board moves, and from == to. Raises :class:`EngineArgumentError`.
    Moves that passed are remembered (only exact ``str`` moves; a refused one is
    checked again every time, so it raises the same error).
    """
    key = (move, files, ranks)
    cacheable = (
        type(move) is str
        and (files is None or type(files) is int)
        and (ranks is None or type(ranks) is int)
    )
    if cacheable and key in _CHECKED_MOVES:
        return move
    check_token(move, "move")
    if not MOVE_RE.match(move):
        raise EngineArgumentError(f"malformed move {move!r}")
    squares = _SQUARE_RE.findall(move.split(",", 1)[0])
    for file_letter, rank in squares:
        if files is not None and ord(file_letter) - ord("a") >= files:
            raise EngineArgumentError(f"move {move!r} leaves the {files}-file board")
        if ranks is not None and int(rank) > ranks:
            raise EngineArgumentError(f"move {move!r} leaves the {ranks}-rank board")
    if "@" not in move and len(squares) >= 2 and squares[0] == squares[1]:
        raise EngineArgumentError(f"move {move!r} does not move")
    if cacheable:
        if len(_CHECKED_MOVES) >= _CHECKED_MOVES_MAX:
            _CHECKED_MOVES.clear()
        _CHECKED_MOVES[key] = None
    return move


def check_answered_move(
    move: str,
    *,
    files: int | None,
    ranks: int | None,
    validate_move: Callable[[str], bool] | None,
    what: str,
    shown: str,
) -> None:
    """The move an engine answered a search with: malformed (:func:`check_move`), or
    refused by ``validate_move`` (e.g. the rules checker's legality test), it is an
    :class:`EngineProtocolError` naming ``what`` it was and the answer ``shown``."""
    try:
        check_move(move, files=files, ranks=ranks)
    except EngineArgumentError as exc:
        raise EngineProtocolError(
            f"engine answered a malformed {what}: {shown[:200]!r}", phase="search"
        ) from exc
    if validate_move is not None and not validate_move(move):
        raise EngineProtocolError(
            f"engine answered an illegal {what}: {shown[:200]!r}", phase="search"
        )


def ucci_uses_zero_based(ranks: int | None) -> bool:
    """Whether UCCI mode renumbers this board's ranks (FSF: only 10-rank boards)."""
    return ranks is None or ranks == 10


class RankNumbering(enum.Enum):
    """How an engine numbers the ten ranks of a xiangqi board in its moves.

    The UCCI and XBoard specifications say ``0``..``9`` (Fairy-Stockfish in UCCI mode,
    ``maxqi``, XBoard itself); Fairy-Stockfish in UCI mode, and Sjaak II even in UCCI
    mode, write ``1``..``10``, the canonical notation. Boards of another height keep
    their usual numbering in every dialect.
    """

    ONE_BASED = "1-10"
    ZERO_BASED = "0-9"

    def to_engine(self, move: str) -> str:
        """A canonical move as this engine writes it (on a 10-rank board)."""
        return to_ucci(move) if self is RankNumbering.ZERO_BASED else move

    def from_engine(self, move: str) -> str:
        """A move this engine wrote (on a 10-rank board), canonical."""
        return from_ucci(move) if self is RankNumbering.ZERO_BASED else move


def to_ucci(move: str) -> str:
    """Canonical (ranks 1..10) → UCCI (ranks 0..9): ``b10c8`` → ``b9c7``, ``A@e3`` → ``A@e2``.

    >>> to_ucci("b10c8"), to_ucci("A@e3"), to_ucci("h3e3")
    ('b9c7', 'A@e2', 'h2e2')
    """
    if move in NO_MOVE:
        return move

    def shift(m: re.Match[str]) -> str:
        rank = int(m.group(2))
        if not 1 <= rank <= 10:
            raise EngineArgumentError(f"rank {rank} of {move!r} is not on a 10-rank board")
        return f"{m.group(1)}{rank - 1}"

    return _SQUARE_RE.sub(shift, move)


def from_ucci(move: str) -> str:
    """UCCI (ranks 0..9) → canonical (ranks 1..10): ``b9c7`` → ``b10c8``.

    >>> from_ucci("b9c7"), from_ucci("A@e2"), from_ucci("(none)")
    ('b10c8', 'A@e3', '(none)')
    """
    if move in NO_MOVE:
        return move

    def shift(m: re.Match[str]) -> str:
        digits = m.group(2)
        if len(digits) != 1:
            raise EngineArgumentError(f"UCCI square {m.group(0)!r} in {move!r} has no such rank")
        return f"{m.group(1)}{int(digits) + 1}"

    return _SQUARE_RE.sub(shift, move)


class FenLetters(enum.Enum):
    """The letters an engine reads a xiangqi FEN in: Fairy-Stockfish's (``n`` horse,
    ``b`` elephant) or XBoard's (``h``, ``e``: XBoard, Sjaak II, cutechess). The two differ
    only there, and only on a 9x10 board; no FSF xiangqi piece is written ``h`` or ``e``,
    so a FEN in either is read back by :func:`fsf_letters`."""

    FSF = "fsf"
    XBOARD = "xboard"

    def write(self, fen: str) -> str:
        """``fen`` (Fairy-Stockfish's letters) in these letters, board and hand."""
        if self is FenLetters.FSF or board_shape(fen) != (9, 10):
            return fen
        board, sep, rest = fen.partition(" ")
        return board.translate(_TO_XBOARD) + sep + rest


_TO_XBOARD = str.maketrans("nbNB", "heHE")
_TO_FSF = str.maketrans("heHE", "nbNB")


def fsf_letters(fen: str) -> str:
    """A FEN in either :class:`FenLetters` in Fairy-Stockfish's."""
    if board_shape(fen) != (9, 10):
        return fen
    board, sep, rest = fen.partition(" ")
    return board.translate(_TO_FSF) + sep + rest


_SHAPES: dict[str, tuple[int, int]] = {}
_SHAPES_MAX = 1 << 12


def board_shape(fen: str) -> tuple[int, int]:
    """(files, ranks) of a FEN's board field, e.g. (9, 10) for xiangqi.

    Understands FSF's extensions: multi-digit empty counts (``10``), promoted pieces
    (``+P``), ``~`` marks and ``*`` walls; the hand in brackets is ignored.
    """
    shape = _SHAPES.get(fen) if type(fen) is str else None
    if shape is None:
        shape = _board_shape(fen)
        if type(fen) is str:
            if len(_SHAPES) >= _SHAPES_MAX:
                _SHAPES.clear()
            _SHAPES[fen] = shape
    return shape


def _board_shape(fen: str) -> tuple[int, int]:
    board = fen.split(" ", 1)[0].split("[", 1)[0]
    rows = board.split("/")
    files = 0
    digits = ""
    for ch in rows[0] + "/":
        if ch.isdigit():
            digits += ch
            continue
        if digits:
            files += int(digits)
            digits = ""
        if ch.isalpha() or ch == "*":
            files += 1
    return files, len(rows)
