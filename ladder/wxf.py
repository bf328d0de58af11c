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
names exactly one legal move. Chinese notation (``炮二平五``, ``前马进七``, ``马８进７``) is
read by :func:`parse_chinese`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from types import ModuleType

from ladder.rules import Game
from ladder.rules.board import piece_letter
from ladder.rules.notation import normalize_move
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol.notation import from_ucci, to_ucci

__all__ = [
    "WxfError",
    "WxfWriter",
    "canonical_from_iccs",
    "iccs_move",
    "parse_chinese",
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


def _board(game: Game) -> dict[tuple[int, int], str]:
    """Every piece, by (file, rank): its FEN letter (upper case Red), read off the rules
    checker's board (point ``rank * 9 + file``; the order of its FEN, rank 1 first)."""
    return {(sq % 9, sq // 9): _PIECE_LETTERS[p] for sq, p in enumerate(game.position.board) if p}


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


def _designator(board: Board, frm: tuple[int, int], red: bool) -> str:
    """How the moving piece is named: letter and file (``C2``), or its place in a tandem
    (``C+``, ``P3``, ``++``, ``3-``), before the A/E exception (see :func:`wxf_move`)."""
    letter = board[frm]
    wxf = _LETTERS[letter.lower()]
    file_no = _file_number(frm[0], red)
    place, n = _tandem(board, frm, red)
    if n == 1:
        return f"{wxf}{file_no}"
    per_file: dict[int, int] = {}
    for (f, _), p in board.items():
        if p == letter:
            per_file[f] = per_file.get(f, 0) + 1
    tandem_files = sum(count > 1 for count in per_file.values())
    if wxf != "P" and n == 2 and tandem_files == 1:
        return wxf + ("+" if place == 0 else "-")
    if wxf == "P" and tandem_files == 1 and n <= 5:
        return _PAWN_PLACES[n][place] or f"P{file_no}"
    if wxf == "P" and tandem_files == 2 and n <= 3:
        # Two files of tandem pawns: the file, then front, middle (the file again), rear.
        mark = "+" if place == 0 else "-" if place == n - 1 else str(file_no)
        return f"{file_no}{mark}"
    # Beyond the federation's cases (only crazyhouse-xiangqi's hands get there: three
    # chariots on a file, two files of tandem cannons, six pawns): the letter, the file
    # and the place, front (+), rear (-) or counted from the front.
    mark = "+" if place == 0 else "-" if place == n - 1 else str(place + 1)
    return f"{wxf}{file_no}{mark}"


def _motion(frm: tuple[int, int], to: tuple[int, int], letter: str, red: bool) -> str:
    """Direction and figure: ``=5``, ``+7``, ``-1``."""
    if frm[1] == to[1]:
        return f"={_file_number(to[0], red)}"
    sign = "+" if (to[1] > frm[1]) == red else "-"
    if _LETTERS[letter.lower()] in _STRAIGHT and frm[0] == to[0]:
        return f"{sign}{abs(to[1] - frm[1])}"
    return f"{sign}{_file_number(to[0], red)}"


_BOARD_MOVE_RE = re.compile(r"([a-i]\d{1,2})([a-i]\d{1,2})")


def _split(move: str) -> tuple[tuple[int, int], tuple[int, int]]:
    m = _BOARD_MOVE_RE.fullmatch(move)
    if m is None:
        raise WxfError(f"not a board move: {move!r}")
    return _point(m[1]), _point(m[2])


def _drop(move: str, red: bool) -> str:
    letter, point = move.split("@")
    file, rank = _point(point)
    own_rank = rank + 1 if red else 10 - rank
    return f"{_LETTERS[letter.lower()]}@{_file_number(file, red)}{own_rank}"


def _plain(board: Board, move: str, red: bool) -> str:
    """A board move with its piece named by letter and file, tandem or not."""
    frm, to = _split(move)
    letter = board[frm]
    return f"{_LETTERS[letter.lower()]}{_file_number(frm[0], red)}" + _motion(frm, to, letter, red)


def _written(board: Board, legal: Callable[[], Sequence[str]], move: str, red: bool) -> str:
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
    return _designator(board, frm, red) + _motion(frm, to, letter, red)


def wxf_move(game: Game, move: str) -> str:
    """The WXF of ``move`` (canonical, legal) in ``game``'s current position."""
    return _written(_board(game), game.legal_moves, move, game.turn == "red")


class WxfWriter:
    """A game's moves in WXF, written one at a time in the position each is played from.

    The game loop writes each move just before it pushes it, so a match game's PGN needs
    no second replay of the game. ``bests``: at a ply whose move the variety rule chose,
    the engine's best move in WXF (when it is legal there). From the first move that WXF
    cannot write, the moves stay canonical (``h3e3``), as :func:`wxf_moves` gives them.
    """

    def __init__(self) -> None:
        self.moves: list[str] = []
        self.bests: dict[int, str] = {}
        self.stopped = False

    def write(self, game: Game, move: str, best: str | None = None) -> None:
        """Write ``move`` (legal in ``game``'s current position, not yet played; any
        spelling the rules checker reads, such as ``h@e5``) and, if given, the engine's
        ``best`` move there."""
        move = normalize_move(move)
        if self.stopped:
            self.moves.append(move)
            return
        self._write_best(game, best)
        try:
            self.moves.append(wxf_move(game, move))
        except WxfError:
            self.stop([move])

    def _write_best(self, game: Game, best: str | None) -> None:
        if best is not None and game.outcome() is None and game.is_legal(best):
            with contextlib.suppress(WxfError):
                self.bests[len(self.moves)] = wxf_move(game, normalize_move(best))

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


# --- Chinese notation ------------------------------------------------------------------

_CN_PIECES = {
    "帥": "K", "帅": "K", "將": "K", "将": "K",
    "仕": "A", "士": "A",
    "相": "E", "象": "E",
    "馬": "H", "马": "H", "傌": "H",
    "車": "R", "车": "R", "俥": "R",
    "炮": "C", "砲": "C", "包": "C",
    "兵": "P", "卒": "P",
}  # fmt: skip
_CN_MOVES = {"進": "+", "进": "+", "退": "-", "平": "="}
#: A place in a tandem, front first: 前 front, 中 middle (of three), 二 三 四 (of four or
#: five, counted from the front), 後/后 rear (-1).
#: Black's figures, full-width digits (U+FF11..U+FF19).
_FULL_WIDTH = "".join(chr(0xFF11 + n) for n in range(9))
_DIGITS = ("一二三四五六七八九", _FULL_WIDTH, "123456789")
#: A place in a tandem, front first: 前 front, 中 middle (of three), 二 三 四 (of four or
#: five, counted from the front, also in Black's figures), 後/后 rear (-1).
_CN_PLACES = {
    "前": 0, "中": 1, "後": -1, "后": -1,
    **{figures[n]: n for figures in _DIGITS[:2] for n in (1, 2, 3)},
}  # fmt: skip


def _cn_figure(ch: str) -> int:
    for digits in _DIGITS:
        if ch in digits:
            return digits.index(ch) + 1
    raise WxfError(f"{ch!r} is not a figure 1-9")


def _cn_starts(board: Board, token: str, red: bool) -> tuple[list[tuple[int, int]], str]:
    """The points the piece that ``token``'s first two characters name may stand on, and
    its WXF letter."""
    first, second = token[0], token[1]
    if first in _CN_PIECES:  # 炮二: the piece and its file
        letter, file_no = _CN_PIECES[first], _cn_figure(second)
        return [
            (f, r) for (f, r), p in board.items()
            if _LETTERS[p.lower()] == letter and p.isupper() == red
            and _file_number(f, red) == file_no
        ], letter  # fmt: skip
    if first not in _CN_PLACES:
        raise WxfError(f"{token!r} is not Chinese notation")
    place = _CN_PLACES[first]
    if second in _CN_PIECES:  # 前炮, 中兵: the one file holding several of them
        letter, files = _CN_PIECES[second], None
    else:  # 前七: pawns on two files; the file is given
        letter, files = "P", {_cn_figure(second)}
    tandems: dict[int, list[int]] = {}
    for (f, r), p in board.items():
        if _LETTERS[p.lower()] == letter and p.isupper() == red:
            tandems.setdefault(f, []).append(r)
    tandems = {f: rs for f, rs in tandems.items() if len(rs) > 1}
    if files is not None:
        tandems = {f: rs for f, rs in tandems.items() if _file_number(f, red) in files}
    if len(tandems) != 1:
        raise WxfError(f"{token!r}: no single file holds several of that piece")
    ((file, ranks),) = tandems.items()
    ranks.sort(reverse=red)  # front first
    if place >= len(ranks) or (first == "中" and len(ranks) != 3):
        raise WxfError(f"{token!r}: no such place among {len(ranks)} on the file")
    return [(file, ranks[place])], letter


def parse_chinese(game: Game, token: str) -> str:
    """The legal move that Chinese-notation ``token`` (``炮二平五``, ``前马进七``,
    ``马８进７``, ``中兵平四``, ``二兵进一``) names, in canonical notation."""
    chars = "".join(token.split())
    if len(chars) != 4 or chars[2] not in _CN_MOVES:
        raise WxfError(f"{token!r} is not Chinese notation (e.g. 炮二平五)")
    board, red = _board(game), game.turn == "red"
    starts, _ = _cn_starts(board, chars, red)
    motion = _CN_MOVES[chars[2]] + str(_cn_figure(chars[3]))
    named = []
    for move in game.legal_moves():
        if "@" in move:
            continue
        frm, to = _split(move)
        if frm in starts and _motion(frm, to, board[frm], red) == motion:
            named.append(move)
    if len(named) != 1:
        what = "no legal move" if not named else f"ambiguous ({', '.join(named)})"
        raise WxfError(f"{token!r} is {what} in {game.fen()}")
    return named[0]


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
    ``iccs``, as a ``Format "ICCS"`` PGN says), WXF (``C2=5``, ``C-+7``, ``A@45``),
    XBoard's SAN (``Ece2``) or Chinese (``炮二平五``). :class:`WxfError` when it names no
    legal move or several."""
    text = token.strip()
    if iccs or _ICCS_RE.match(text):
        try:
            text = canonical_from_iccs(text)
        except ValueError as exc:
            raise WxfError(f"{token!r} is not an ICCS move") from exc
    if game.is_legal(text):
        return normalize_move(text)
    if any(ord(ch) > 0x2E7F for ch in text):
        return parse_chinese(game, text)
    if _normal(text):
        return parse_wxf(game, text)
    if _SAN_RE.match(text):
        return parse_san(game, text)
    raise WxfError(f"{token!r} is no move in any notation read here")
