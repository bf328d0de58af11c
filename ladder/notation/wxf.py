"""WXF move notation, written and read: the one notation module for xiangqi move text.

WXF (World Xiangqi Federation) moves read ``C2=5``, ``H8+7``, ``R1-1``: the piece letter
(``K A E H R C P``), its file (1-9 from the mover's right), the direction (``+`` forward,
``-`` backward, ``=`` sideways; the federation's own ``.`` is read too), then the file it
goes to, or, for a piece moving along its file, the number of points.

Two like pieces on one file (tandem) are told apart by ``+`` (front) and ``-`` (rear) in
place of the file: ``C-+7``, ``R+-1``. Pawns, per the federation's rules:

* three on a file: ``P+``, ``P<file>`` for the middle one, ``P-``;
* four or five: ``++`` and ``--`` (no letter) for the foremost and the rearmost, then
  ``P+``, (``P<file>``), ``P-``;
* tandem pawns on two files: the file first and no letter, ``3+=4``, ``33=4`` (middle),
  ``3-=4``, ``7+=6``.

Advisors and elephants keep their file even in tandem (their move is never ambiguous in
xiangqi), unless it would be ambiguous (crazyhouse-xiangqi frees them in their own half):
then ``+``/``-`` as for the others. Drops (crazyhouse-xiangqi) are ``A@45``: the piece,
``@``, the point's file and its rank counted from the mover's side. Where the standard has
no rule, since only crazyhouse's hands give a side three chariots on a file, tandems on
two files of a piece other than the pawn, or six pawns, the piece is named by its letter,
file and place: ``R9+``, ``R92``, ``R9-``.

:func:`wxf_move` and :func:`wxf_moves` write; :func:`parse_wxf` reads any standard form
(also ``.`` for ``=``, ``B``/``N`` for ``E``/``H``, lower case) and, for PGNs this project
wrote before, the form Fairy-Stockfish's writer gave a tandem piece (``C8+7``) when it
names exactly one legal move. Chinese notation (``炮二平五``, ``前马进七``, ``马８进７``)
names its pieces as WXF does (:class:`Named`): :mod:`ladder.notation.chinese` writes and reads it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from types import ModuleType
from typing import NamedTuple

from ladder.rules import Game
from ladder.rules.board import piece_letter
from ladder.rules.notation import normalize_move
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol.notation import from_ucci, to_ucci

__all__ = [
    "Named",
    "WxfError",
    "WxfWriter",
    "canonical_from_iccs",
    "iccs_move",
    "named",
    "named_move",
    "named_moves",
    "parse_san",
    "parse_wxf",
    "pyffish_module",
    "read_move",
    "wxf_move",
    "wxf_moves",
]


class WxfError(ValueError):
    """Move text that names no legal move, or more than one."""


#: Piece letters: the rules checker's FEN letter (lower case) -> WXF.
_LETTERS = {"k": "K", "a": "A", "b": "E", "n": "H", "r": "R", "c": "C", "p": "P"}
#: Letters accepted on input for each WXF letter.
_ALIASES = {"B": "E", "N": "H"}
_STRAIGHT = frozenset("KRCP")  # move along a file: the last figure counts points


@lru_cache(maxsize=1)
def pyffish_module() -> ModuleType | None:
    """pyffish with our variants.ini loaded, or None where it is not installed (only the
    reader of older PGNs uses it)."""
    try:
        import pyffish
    except ImportError:  # pragma: no cover - pyffish is part of `make engine`
        return None
    pyffish.load_variant_config(VARIANTS_INI.read_text())
    return pyffish


def _point(text: str) -> tuple[int, int]:
    """(file 0-8 from a, rank 0-9 from 1) of a canonical point such as ``e10``."""
    return ord(text[0]) - ord("a"), int(text[1:]) - 1


def _file_number(file: int, red: bool) -> int:
    """A file as the mover counts it: 1 on its right."""
    return 9 - file if red else file + 1


#: FEN letter of each piece code (the rules checker's ``type | colour << 3``).
_PIECE_LETTERS = tuple(piece_letter(p) if p & 7 else "" for p in range(16))


#: (file, rank) of each of the rules checker's points (``rank * 9 + file``).
_POINTS = tuple((sq % 9, sq // 9) for sq in range(90))


def _board(game: Game) -> dict[tuple[int, int], str]:
    """Every piece, by (file, rank): its FEN letter (upper case Red), read off the rules
    checker's board (the order of its FEN, rank 1 first)."""
    return {xy: _PIECE_LETTERS[p] for xy, p in zip(_POINTS, game.position.board, strict=True) if p}


#: A pawn's place in a tandem on one file, front first (None: its file, ``P3``).
_PAWN_PLACES: dict[int, tuple[str | None, ...]] = {
    2: ("P+", "P-"),
    3: ("P+", None, "P-"),
    4: ("++", "P+", "P-", "--"),
    5: ("++", "P+", None, "P-", "--"),
}

Board = dict[tuple[int, int], str]


def _tandem(board: Board, frm: tuple[int, int], red: bool) -> tuple[int, int]:
    """(the moving piece's place on its file counted from the front, how many of its kind
    the mover has on that file)."""
    letter = board[frm]
    ranks = sorted((r for (f, r), p in board.items() if p == letter and f == frm[0]), reverse=red)
    return ranks.index(frm[1]), len(ranks)


class Named(NamedTuple):
    """How a move names its piece and its motion, before a notation spells it: the one
    decision WXF (:func:`wxf_move`) and Chinese notation (:mod:`ladder.notation.chinese`) share.

    ``form``: ``file`` (the piece and its file, ``C2``), ``tandem`` (its ``place``, front
    first, among the ``among`` like pieces on its file: ``C+``, ``P3``, ``++``),
    ``files`` (tandem pawns on two files: the file and the place, ``3+``), ``beyond``
    (past the federation's cases: letter, file and place, ``R9+``), or ``drop``
    (``figure`` is then the point's rank from the mover's side). ``sign`` is ``+``,
    ``-``, ``=`` or ``@``; ``figure`` the file gone to or the points moved.
    """

    letter: str
    file: int
    form: str
    sign: str
    figure: int
    place: int = 0
    among: int = 1

    @property
    def wxf(self) -> str:
        """The move in WXF."""
        if self.form == "drop":
            return f"{self.letter}@{self.file}{self.figure}"
        return self._wxf_piece() + f"{self.sign}{self.figure}"

    def _wxf_piece(self) -> str:
        place, n, letter, file_no = self.place, self.among, self.letter, self.file
        end = "+" if place == 0 else "-" if place == n - 1 else None
        if self.form == "file":
            return f"{letter}{file_no}"
        if self.form == "tandem" and letter != "P":
            return letter + (end or "")
        if self.form == "tandem":
            return _PAWN_PLACES[n][place] or f"P{file_no}"
        if self.form == "files":  # front, middle (the file again), rear
            return f"{file_no}{end or file_no}"
        return f"{letter}{file_no}{end or place + 1}"


def _designator(board: Board, frm: tuple[int, int], red: bool) -> tuple[str, int, int, int]:
    """How the moving piece is named, before the A/E exception (see :func:`wxf_move`):
    (the form, its file as the mover counts it, its place on the file from the front, how
    many of its kind are there)."""
    letter = board[frm]
    wxf = _LETTERS[letter.lower()]
    file_no = _file_number(frm[0], red)
    place, n = _tandem(board, frm, red)
    if n == 1:
        return "file", file_no, 0, 1
    per_file: dict[int, int] = {}
    for (f, _), p in board.items():
        if p == letter:
            per_file[f] = per_file.get(f, 0) + 1
    tandem_files = sum(count > 1 for count in per_file.values())
    if wxf != "P" and n == 2 and tandem_files == 1:
        return "tandem", file_no, place, n
    if wxf == "P" and tandem_files == 1 and n <= 5:
        return "tandem", file_no, place, n
    if wxf == "P" and tandem_files == 2 and n <= 3:
        return "files", file_no, place, n
    # Beyond the federation's cases (only crazyhouse-xiangqi's hands get there: three
    # chariots on a file, two files of tandem cannons, six pawns): the letter, the file
    # and the place, front (+), rear (-) or counted from the front.
    return "beyond", file_no, place, n


def _motion(frm: tuple[int, int], to: tuple[int, int], letter: str, red: bool) -> tuple[str, int]:
    """Direction and figure: ``("=", 5)``, ``("+", 7)``, ``("-", 1)``."""
    if frm[1] == to[1]:
        return "=", _file_number(to[0], red)
    sign = "+" if (to[1] > frm[1]) == red else "-"
    if _LETTERS[letter.lower()] in _STRAIGHT and frm[0] == to[0]:
        return sign, abs(to[1] - frm[1])
    return sign, _file_number(to[0], red)


_BOARD_MOVE_RE = re.compile(r"([a-i]\d{1,2})([a-i]\d{1,2})")


def _split(move: str) -> tuple[tuple[int, int], tuple[int, int]]:
    m = _BOARD_MOVE_RE.fullmatch(move)
    if m is None:
        raise WxfError(f"not a board move: {move!r}")
    return _point(m[1]), _point(m[2])


def _drop(move: str, red: bool) -> Named:
    letter, point = move.split("@")
    file, rank = _point(point)
    own_rank = rank + 1 if red else 10 - rank
    return Named(_LETTERS[letter.lower()], _file_number(file, red), "drop", "@", own_rank)


def _plain(board: Board, move: str, red: bool) -> Named:
    """A board move with its piece named by letter and file, tandem or not."""
    frm, to = _split(move)
    letter = board[frm]
    return Named(
        _LETTERS[letter.lower()], _file_number(frm[0], red), "file", *_motion(frm, to, letter, red)
    )


def named_move(board: Board, legal: Callable[[], Sequence[str]], move: str, red: bool) -> Named:
    """How ``move`` (canonical, legal on ``board``, whose ``legal`` moves are listed on
    demand) names its piece and motion, ``red`` to move."""
    if "@" in move:
        return _drop(move, red)
    frm, to = _split(move)
    letter = board.get(frm)
    if letter is None:
        raise WxfError(f"no piece on the start point of {move!r}")
    if _LETTERS[letter.lower()] in "AE":
        # Their file is enough unless it is not (crazyhouse frees them in their half).
        plain = _plain(board, move, red)
        if _tandem(board, frm, red)[1] == 1 or not any(
            m != move and "@" not in m and board.get(_split(m)[0]) == letter
            and _plain(board, m, red) == plain
            for m in legal()
        ):  # fmt: skip
            return plain
    form, file_no, place, n = _designator(board, frm, red)
    sign, figure = _motion(frm, to, letter, red)
    return Named(_LETTERS[letter.lower()], file_no, form, sign, figure, place, n)


def _written(board: Board, legal: Callable[[], Sequence[str]], move: str, red: bool) -> str:
    return named_move(board, legal, move, red).wxf


def named(game: Game, move: str) -> Named:
    """How ``move`` (canonical, legal) names its piece in ``game``'s current position."""
    piece = _alone_on_file(game, move)
    if piece:
        return _named_alone(move, piece)
    return named_move(_board(game), game.legal_moves, move, game.turn == "red")


def _alone_on_file(game: Game, move: str) -> int:
    """The piece (the rules checker's code) that plays board move ``move`` when it is the
    only one of its kind on its file (most moves), else 0: read off the rules checker's
    points (rank * 9 + file) without making the whole board a dict."""
    if "@" in move:
        return 0
    point, file = _start(move)
    points = game.position.board
    piece = points[point]
    return piece if piece and points[file::9].count(piece) == 1 else 0


@lru_cache(maxsize=4096)  # a few thousand board moves exist, written every game
def _start(move: str) -> tuple[int, int]:
    """The start point of board move ``move`` (``rank * 9 + file``) and its file."""
    (file, rank), _ = _split(move)
    return rank * 9 + file, file


@lru_cache(maxsize=8192)  # a move and the piece playing it: a few thousand in play
def _named_alone(move: str, piece: int) -> Named:
    """:func:`named` of a piece alone of its kind on its file: its letter and file (the
    mover is the piece's colour), as :func:`named_move` names it."""
    frm, to = _split(move)
    letter = _PIECE_LETTERS[piece]
    red = piece < 8
    return Named(
        _LETTERS[letter.lower()], _file_number(frm[0], red), "file", *_motion(frm, to, letter, red)
    )


@lru_cache(maxsize=8192)
def _wxf_alone(move: str, piece: int) -> str:
    return _named_alone(move, piece).wxf


def named_moves(game: Game) -> dict[str, Named]:
    """Every legal move of ``game``'s current position, by how it names its piece (one
    board and one list of legal moves for all of them: what a reader compares)."""
    board, legal, red = _board(game), game.legal_moves(), game.turn == "red"
    return {m: named_move(board, lambda: legal, m, red) for m in legal}


def wxf_move(game: Game, move: str) -> str:
    """The WXF of ``move`` (canonical, legal) in ``game``'s current position."""
    piece = _alone_on_file(game, move)
    if piece:
        return _wxf_alone(move, piece)
    return named(game, move).wxf


@lru_cache(maxsize=4096)  # a few thousand moves exist, written every game
def _canonical(move: str) -> str:
    return normalize_move(move)


class WxfWriter:
    """A game's moves in WXF (or in the notation ``spell`` writes, such as
    :func:`ladder.notation.chinese.chinese_move`), written one at a time in the position each is
    played from.

    The game loop writes each move just before it pushes it, so a match game's PGN needs
    no second replay of the game. ``bests``: at a ply whose move the variety rule chose,
    the engine's best move in WXF (when it is legal there). From the first move that WXF
    cannot write, the moves stay canonical (``h3e3``), as :func:`wxf_moves` gives them.
    """

    def __init__(self, spell: Callable[[Game, str], str] = wxf_move) -> None:
        self.spell = spell
        self.moves: list[str] = []
        self.bests: dict[int, str] = {}
        self.stopped = False

    def write(self, game: Game, move: str, best: str | None = None) -> None:
        """Write ``move`` (legal in ``game``'s current position, not yet played; any
        spelling the rules checker reads, such as ``h@e5``) and, if given, the engine's
        ``best`` move there."""
        move = _canonical(move) if type(move) is str else normalize_move(move)
        if self.stopped:
            self.moves.append(move)
            return
        if best is not None:
            self._write_best(game, best)
        try:
            self.moves.append(self.spell(game, move))
        except WxfError:
            self.stop([move])

    def _write_best(self, game: Game, best: str | None) -> None:
        if best is not None and game.outcome() is None and game.is_legal(best):
            with contextlib.suppress(WxfError):
                self.bests[len(self.moves)] = self.spell(game, normalize_move(best))

    def stop(self, rest: Sequence[str]) -> None:
        """The rest of the game in canonical notation (a move WXF or the rules refused)."""
        self.stopped = True
        self.moves += rest

    def replay(
        self,
        variant: str,
        start_fen: str,
        moves: Sequence[str],
        bests: dict[int, str] | None = None,
    ) -> WxfWriter:
        """Write ``moves`` played from ``start_fen`` (with the engine's ``bests`` by ply),
        replaying them on a new game; canonical from the first one the rules refuse (whose
        ply still gets its best move)."""
        bests = bests or {}
        game = Game.from_fen(variant, start_fen)
        for i, move in enumerate(moves):
            if self.stopped:
                self.stop(moves[i:])
                break
            if game.outcome() is not None or not game.is_legal(move):
                self._write_best(game, bests.get(i))
                self.stop(moves[i:])
                break
            self.write(game, move, bests.get(i))
            game.push(move)
        return self


def wxf_moves(variant: str, start_fen: str, moves: Sequence[str]) -> list[str]:
    """WXF of ``moves`` played from ``start_fen``; from the first move the rules checker
    refuses on, canonical notation (``h3e3``) for the rest."""
    return WxfWriter().replay(variant, start_fen, moves).moves


_WXF_RE = re.compile(r"^([KAEBHNRCP]?)([1-9+\-]{0,2})([+\-=.])([1-9])$")
_DROP_RE = re.compile(r"^([KAEBHNRCP])@([1-9])(10|[1-9])$")


def _normal(token: str) -> str:
    """A WXF token in the spelling :func:`wxf_move` writes (or "" if it is none)."""
    text = token.strip().upper().replace(".", "=")
    text = text.rstrip("#!?")
    m = _DROP_RE.match(text)
    if m:
        return f"{_ALIASES.get(m[1], m[1])}@{m[2]}{m[3]}"
    m = _WXF_RE.match(text)
    if m is None:
        return ""
    letter = _ALIASES.get(m[1], m[1])
    return f"{letter}{m[2]}{m[3]}{m[4]}"


def parse_wxf(game: Game, token: str) -> str:
    """The legal move of ``game`` that WXF ``token`` names (canonical notation);
    :class:`WxfError` if none or several do."""
    text = _normal(token)
    if not text:
        raise WxfError(f"{token!r} is not WXF")
    board, legal, red = _board(game), game.legal_moves(), game.turn == "red"
    named = [m for m in legal if _written(board, lambda: legal, m, red) == text]
    if len(named) == 1:
        return named[0]
    if not named:
        named = _legacy(game, text)
        if len(named) == 1:
            return named[0]
    what = "no legal move" if not named else f"ambiguous ({', '.join(named)})"
    raise WxfError(f"{token!r} is {what} in {game.fen()}")


def _legacy(game: Game, text: str) -> list[str]:
    """The legal moves Fairy-Stockfish's WXF writer gave as ``text`` (the PGNs and books
    of earlier versions name a tandem piece that way, ``C8+7``)."""
    sf = pyffish_module()
    if sf is None:
        return []
    section = FSF_VARIANT.get(game.variant.name, game.variant.name)
    fen = game.fen()
    out = []
    for move in game.legal_moves():
        try:
            if sf.get_san(section, fen, move, False, sf.NOTATION_XIANGQI_WXF) == text:
                out.append(move)
        except ValueError:
            continue
    return out


# --- ICCS and XBoard's SAN ----------------------------------------------------------------


def iccs_move(move: str) -> str:
    """A canonical move in ICCS, as xqbase-style tools write it: ``h3e3`` → ``H2-E2``
    (ranks 0..9), a drop ``A@e3`` → ``A@E2``."""
    ucci = to_ucci(move)
    if "@" in ucci:
        return ucci.upper()
    return f"{ucci[:2]}-{ucci[2:]}".upper()


def canonical_from_iccs(token: str) -> str:
    """An ICCS move (``H2-E2``, ``h2e2``, ``A@E2``) in canonical notation."""
    return from_ucci(
        token.replace("-", "").lower() if "@" not in token else token[0] + token[1:].lower()
    )


#: XBoard's xiangqi SAN: piece letter (none for a soldier), optional from-file and/or
#: from-rank, ``x`` for a capture, the destination (ranks 0..9), a check mark.
_SAN_RE = re.compile(r"^([KAEHRCPN B]?)([a-i])?([0-9])?x?([a-i][0-9])[+#]?$".replace(" ", ""))


def parse_san(game: Game, token: str) -> str:
    """The legal move that XBoard's SAN-like xiangqi ``token`` (``Ece2``, ``Hg7``,
    ``Rxa9``, ``e4``) names, in canonical notation."""
    m = _SAN_RE.match(token)
    if m is None:
        raise WxfError(f"{token!r} is not XBoard SAN")
    letter = _ALIASES.get(m[1], m[1]) or "P"
    dest = m[4][0] + str(int(m[4][1]) + 1)
    named = []
    for move in game.legal_moves():
        if "@" in move:
            continue
        origin = re.match(r"[a-i]\d+", move)
        assert origin is not None
        frm, to = origin[0], move[origin.end() :]
        piece = game.piece_at(frm)
        if to != dest or piece is None or _LETTERS[piece.lower()] != letter:
            continue
        if m[2] and frm[0] != m[2]:
            continue
        if letter == "P" and not m[2] and frm[0] != to[0]:
            continue  # a soldier's move without a from-file is straight ahead ("e4")
        if m[3] and int(frm[1:]) != int(m[3]) + 1:
            continue
        named.append(move)
    if len(named) != 1:
        what = "no legal move" if not named else f"ambiguous ({', '.join(named)})"
        raise WxfError(f"{token!r} is {what} in {game.fen()}")
    return named[0]


_ICCS_RE = re.compile(r"^[A-Ia-i]\d-[A-Ia-i]\d$")


def read_move(game: Game, token: str, iccs: bool = False) -> str:
    """The legal move of ``game`` that ``token`` names, in canonical notation, whichever
    way xiangqi tools write moves: canonical (``h3e3``), ICCS (``H2-E2``; any token when
    ``iccs``, as a ``Format "ICCS"`` PGN says), WXF (``C2=5``, ``C-+7``, ``A@45``) or
    XBoard's SAN (``Ece2``); Chinese notation too through
    :func:`ladder.notation.by_name.read_move`. :class:`WxfError` when it names no legal move or
    several."""
    text = token.strip()
    if iccs or _ICCS_RE.match(text):
        try:
            text = canonical_from_iccs(text)
        except ValueError as exc:
            raise WxfError(f"{token!r} is not an ICCS move") from exc
    if game.is_legal(text):
        return normalize_move(text)
    if _normal(text):
        return parse_wxf(game, text)
    if _SAN_RE.match(text):
        return parse_san(game, text)
    raise WxfError(f"{token!r} is no move in any notation read here")
