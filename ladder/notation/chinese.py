"""Chinese move notation, written and read, in simplified and traditional characters.

A move reads piece, file, direction, figure: ``炮二平五``, ``马８进７``. Red's files and
figures are Chinese numerals (一 to 九), counted from Red's right; Black's are full-width
digits (１ to ９), counted from Black's right. 进 forward, 退 backward, 平 sideways; the
last figure is the file gone to, or for a piece moving along its file the points moved.

=============  ==========================  ==========================
               simplified                  traditional
=============  ==========================  ==========================
Red            帅 仕 相 马 车 炮 兵        帥 仕 相 傌 俥 炮 兵
Black          将 士 象 马 车 炮 卒        將 士 象 馬 車 砲 卒
moves          进 退 平                    進 退 平
places         前 中 后                    前 中 後
=============  ==========================  ==========================

Like pieces on one file are named as WXF names them (:class:`ladder.notation.wxf.Named`, one
decision for both): two, 前 and 后 in place of the file (``前炮平五``); three pawns, 前 中
后; four or five, 前, then counted from the front in the side's figures (二 三 四, Black
２ ３ ４), then 后 (``二兵平四``); tandem pawns on two files, the place and the file with
no piece (``前七平六``, ``中三平四``). Where the standard has no rule (only
crazyhouse-xiangqi's hands get there: three chariots on a file, two files of tandem
cannons, six pawns), the place, the piece and its file: ``前车九进一``, ``中车九进一``.

Crazyhouse drops, which have no standard: the piece, 打 ("drop", as in shogi's 打), the
point's file and its rank counted from the mover's side, in the mover's figures (Red's
tenth rank 十, Black's １０): ``马打五五`` (Red drops a horse on e5), ``士打４１``.

:func:`chinese_move` writes; :func:`parse_chinese` reads both scripts, and the variants
players type: 包 for the cannon, either side's characters, ASCII or either side's figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ladder.notation.wxf import Named, WxfError, WxfWriter, named, named_moves
from ladder.rules import Game

__all__ = ["SCRIPTS", "chinese_move", "chinese_moves", "chinese_writer", "parse_chinese"]


@dataclass(frozen=True)
class _Script:
    """One script's characters: the pieces by WXF letter (Red, Black), the directions."""

    red: dict[str, str]
    black: dict[str, str]
    moves: dict[str, str]
    rear: str


_SIMPLIFIED = _Script(
    red=dict(zip("KAEHRCP", "帅仕相马车炮兵", strict=True)),
    black=dict(zip("KAEHRCP", "将士象马车炮卒", strict=True)),
    moves={"+": "进", "-": "退", "=": "平"},
    rear="后",
)
_TRADITIONAL = _Script(
    red=dict(zip("KAEHRCP", "帥仕相傌俥炮兵", strict=True)),
    black=dict(zip("KAEHRCP", "將士象馬車砲卒", strict=True)),
    moves={"+": "進", "-": "退", "=": "平"},
    rear="後",
)
#: The scripts by name.
SCRIPTS = {"simplified": _SIMPLIFIED, "traditional": _TRADITIONAL}

_RED_FIGURES = "一二三四五六七八九"
_BLACK_FIGURES = "".join(chr(0xFF11 + n) for n in range(9))  # full-width １..９
_DROP = "打"


def _figure(n: int, red: bool) -> str:
    """1-10 in the side's figures (Red's 10 is 十, Black's １０)."""
    if n == 10:
        return "十" if red else _BLACK_FIGURES[0] + chr(0xFF10)
    return (_RED_FIGURES if red else _BLACK_FIGURES)[n - 1]


def _place(place: int, count: int, red: bool, script: _Script) -> str:
    """A piece's place among ``count`` like pieces on its file, front first."""
    if place == 0:
        return "前"
    if place == count - 1:
        return script.rear
    if count == 3:
        return "中"
    return _figure(place + 1, red)


def _spelled(name: Named, red: bool, script: _Script) -> str:
    pieces = script.red if red else script.black
    piece = pieces[name.letter]
    if name.form == "drop":
        return piece + _DROP + _figure(name.file, red) + _figure(name.figure, red)
    file_no = _figure(name.file, red)
    place = _place(name.place, name.among, red, script)
    head = {
        "file": piece + file_no,
        "tandem": place + piece,
        "files": place + file_no,
        "beyond": place + piece + file_no,
    }[name.form]
    return head + script.moves[name.sign] + _figure(name.figure, red)


def chinese_move(game: Game, move: str, traditional: bool = False) -> str:
    """``move`` (canonical, legal) in Chinese notation in ``game``'s current position."""
    script = _TRADITIONAL if traditional else _SIMPLIFIED
    return _spelled(named(game, move), game.turn == "red", script)


def chinese_writer(traditional: bool = False) -> WxfWriter:
    """A writer of a game's moves in Chinese notation, in the script asked for."""
    return WxfWriter(lambda game, move: chinese_move(game, move, traditional))


def chinese_moves(
    variant: str, start_fen: str, moves: Sequence[str], traditional: bool = False
) -> list[str]:
    """``moves`` played from ``start_fen`` in Chinese notation; from the first move the
    rules checker refuses on, canonical notation (``h3e3``) for the rest."""
    return chinese_writer(traditional).replay(variant, start_fen, moves).moves


# --- reading ------------------------------------------------------------------------------

#: Piece characters of both scripts and both sides (and 包, a cannon's common variant).
_PIECES = {
    ch: letter
    for script in SCRIPTS.values()
    for side in (script.red, script.black)
    for letter, ch in side.items()
} | {"包": "C"}
_MOVES = {ch: sign for script in SCRIPTS.values() for sign, ch in script.moves.items()}
#: Figures as typed: Red's numerals, Black's full-width digits, ASCII (either side).
_FIGURES = {
    ch: n + 1
    for figures in (_RED_FIGURES, _BLACK_FIGURES, "123456789")
    for n, ch in enumerate(figures)
}
_TEN = ("十", "１０", "10")
#: The place words: front (0), middle (1, of three), rear (-1); a figure counts from the
#: front (二: the second).
_PLACES = {"前": 0, "中": 1, "后": -1, "後": -1}


@dataclass(frozen=True)
class _Reading:
    """What a Chinese token says: each field None where the token does not say it."""

    letter: str | None
    file: int | None
    place: str | None  # 前 中 后 or a figure
    sign: str
    figure: int

    def names(self, name: Named) -> bool:
        """Whether a move so named is what the token says."""
        if (name.sign, name.figure) != (self.sign, self.figure):
            return False
        if self.letter is not None and name.letter != self.letter:
            return False
        if self.file is not None and name.file != self.file:
            return False
        if self.place is None:
            return True
        if name.form == "drop" or name.among < 2:
            return False
        at = _PLACES.get(self.place)
        if at is None:  # a figure: counted from the front
            return name.place == _FIGURES[self.place] - 1
        if self.place == "中" and name.among != 3:
            return False
        return name.place == at % name.among


def _not_chinese(token: str) -> WxfError:
    return WxfError(f"{token!r} is not Chinese notation (e.g. 炮二平五, 马８进７, 马打五五)")


def _figure_of(text: str, token: str) -> int:
    if text in _TEN:
        return 10
    if text not in _FIGURES:
        raise _not_chinese(token)
    return _FIGURES[text]


def _read(token: str) -> _Reading:
    """The parts of a Chinese token, by their form (:data:`_Reading`)."""
    chars = "".join(token.split())
    if len(chars) >= 4 and chars[1] == _DROP and chars[0] in _PIECES:
        file = _figure_of(chars[2], token)
        return _Reading(_PIECES[chars[0]], file, None, "@", _figure_of(chars[3:], token))
    if len(chars) not in (4, 5) or chars[-2] not in _MOVES:
        raise _not_chinese(token)
    sign, figure = _MOVES[chars[-2]], _figure_of(chars[-1], token)
    head = chars[:-2]
    place = head[0] if head[0] in _PLACES or head[0] in _FIGURES else None
    if len(head) == 2 and head[0] in _PIECES and head[1] in _FIGURES:  # 炮二
        return _Reading(_PIECES[head[0]], _FIGURES[head[1]], None, sign, figure)
    if place is None:
        raise _not_chinese(token)
    if len(head) == 2 and head[1] in _PIECES:  # 前炮, 二兵
        return _Reading(_PIECES[head[1]], None, place, sign, figure)
    if len(head) == 2 and head[1] in _FIGURES:  # 前七: pawns on two files
        return _Reading("P", _FIGURES[head[1]], place, sign, figure)
    if len(head) == 3 and head[1] in _PIECES and head[2] in _FIGURES:  # 前车九
        return _Reading(_PIECES[head[1]], _FIGURES[head[2]], place, sign, figure)
    raise _not_chinese(token)


def parse_chinese(game: Game, token: str) -> str:
    """The legal move of ``game`` that Chinese-notation ``token`` names (``炮二平五``,
    ``馬８進７``, ``前马进七``, ``中兵平四``, ``二兵进一``, ``前七平六``, ``马打五五``), in
    canonical notation; :class:`WxfError` if none or several do.

    A piece named by its file is read even where the standard names it by its place
    (``炮二平五`` for the front one of two cannons, when only it can go there)."""
    reading = _read(token)
    named = [move for move, name in named_moves(game).items() if reading.names(name)]
    if len(named) != 1:
        what = "no legal move" if not named else f"ambiguous ({', '.join(named)})"
        raise WxfError(f"{token!r} is {what} in {game.fen()}")
    return named[0]
