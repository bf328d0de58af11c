"""The move notations the product writes beside the coordinate move (``h3e3``), by name:
the one list the service, ``ladder move`` and the PGN writers offer.

``wxf`` (``C2=5``, :mod:`ladder.notation.wxf`), ``chinese`` (``炮二平五``, simplified characters)
and ``chinese-traditional`` (``炮二平五``, ``馬８進７``; :mod:`ladder.notation.chinese`). A move a
notation cannot write (one the rules checker refuses) stays in coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial

from ladder.notation import wxf
from ladder.notation.chinese import chinese_move, parse_chinese
from ladder.notation.wxf import WxfError, WxfWriter, wxf_move
from ladder.rules import Game

__all__ = [
    "NOTATIONS",
    "UnknownNotation",
    "check_notation",
    "check_notations",
    "line_in",
    "move_in",
    "moves_in",
    "read_move",
    "writer",
]

_SPELL: dict[str, Callable[[Game, str], str]] = {
    "wxf": wxf_move,
    "chinese": chinese_move,
    "chinese-traditional": partial(chinese_move, traditional=True),
}
#: The notations' names, in the order the docs list them.
NOTATIONS = tuple(_SPELL)


class UnknownNotation(ValueError):
    """A notation's name that is none of :data:`NOTATIONS`."""


def check_notation(name: str) -> str:
    """``name`` if it is a notation's, else :class:`UnknownNotation` naming it."""
    if name not in _SPELL:
        raise UnknownNotation(f"unknown notation {name!r}: expected one of {', '.join(NOTATIONS)}")
    return name


def check_notations(names: Iterable[str]) -> list[str]:
    """``names`` without repeats, each checked (:func:`check_notation`)."""
    return list(dict.fromkeys(check_notation(n) for n in names))


def writer(name: str) -> WxfWriter:
    """A writer of a game's moves in notation ``name`` (its ``moves``, ``bests``)."""
    return WxfWriter(_SPELL[check_notation(name)])


def move_in(name: str, game: Game, move: str) -> str:
    """``move`` (canonical, legal in ``game``'s position) in notation ``name``; the move
    itself where the notation cannot write it."""
    try:
        return _SPELL[check_notation(name)](game, move)
    except WxfError:
        return move


def moves_in(name: str, variant: str, start_fen: str, moves: Sequence[str]) -> list[str]:
    """``moves`` played from ``start_fen`` in notation ``name``; from the first move the
    rules checker refuses on, canonical notation for the rest."""
    return writer(name).replay(variant, start_fen, moves).moves


def line_in(name: str, game: Game, line: Sequence[str]) -> list[str]:
    """``line`` (legal from ``game``'s position, which is left unchanged) in notation
    ``name``."""
    board = game.copy()
    out: list[str] = []
    for move in line:
        out.append(move_in(name, board, move))
        board.push(move)
    return out


def read_move(game: Game, token: str, iccs: bool = False) -> str:
    """The legal move of ``game`` that ``token`` names in any notation read here:
    Chinese (``炮二平五``, either script: :func:`ladder.notation.chinese.parse_chinese`), or any
    :func:`ladder.notation.wxf.read_move` reads (canonical, ICCS, WXF, XBoard's SAN).
    :class:`WxfError` when it names no legal move or several."""
    if any(ord(ch) > 0x2E7F for ch in token):  # CJK: Chinese notation
        return parse_chinese(game, token.strip())
    return wxf.read_move(game, token, iccs=iccs)
