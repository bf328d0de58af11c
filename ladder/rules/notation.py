"""Move notation: canonical strings <-> move ints.

Canonical notation is Fairy-Stockfish's UCI: ``h3e3``, ``b10c8`` (files ``a``..``i``,
ranks ``1``..``10``), drops ``A@e3`` (upper-case piece letter for either side). UCCI's
ranks ``0``..``9`` are the protocol layer's business (:mod:`protocol.notation`), at the
engine boundary and nowhere else.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from ladder.rules.board import GENERAL, LETTER_TYPES, SOLDIER, SQUARE_NAMES, TYPE_LETTERS
from ladder.rules.errors import MAX_MOVE_LENGTH, RulesError, check_text, literal
from ladder.rules.movegen import DROP_BASE

#: The piece types a drop can name (every type but the general).
DROP_TYPES: Final = frozenset(LETTER_TYPES.values()) - {GENERAL}

_MOVE_RE: Final = re.compile(r"([a-z])(\d{1,2})([a-z])(\d{1,2})")
_DROP_RE: Final = re.compile(r"([A-Za-z])@([a-z])(\d{1,2})")


def _point(file_ch: str, rank_text: str, move: str, field: str, ply: int | None) -> int:
    """Index of a point given its file letter and rank number (ranks 1..10)."""
    f = ord(file_ch) - ord("a")
    r = int(rank_text) - 1
    if not (0 <= f < 9 and 0 <= r < 10) or (len(rank_text) > 1 and rank_text[0] == "0"):
        raise RulesError(
            field,
            f"move {move!r}: point {file_ch}{rank_text} is off the board (files a-i, ranks 1-10)",
            ply,
        )
    return r * 9 + f


def parse_move(move: object, field: str = "move", ply: int | None = None) -> int:
    """Parse a move string into a move int (syntax only; legality is the position's)."""
    if type(move) is str:
        known = _CANONICAL_INTS.get(move)
        if known is not None:
            return known
    text = check_text(move, field, MAX_MOVE_LENGTH, "a move", ply)
    m = _MOVE_RE.fullmatch(text)
    if m:
        frm = _point(m[1], m[2], text, field, ply)
        to = _point(m[3], m[4], text, field, ply)
        if frm == to:
            quoted, points = quoted_move(text, frm * 90 + to)
            raise RulesError(
                field, f"move {quoted} does not move: same start and end point", ply, points=points
            )
        return frm * 90 + to
    d = _DROP_RE.fullmatch(text)
    if d:
        ptype = LETTER_TYPES.get(d[1].lower())
        if ptype not in DROP_TYPES:
            why = "a general is never in hand" if ptype else f"unknown piece letter {d[1]!r}"
            quoted, points = quoted_move(text)
            raise RulesError(field, f"drop {quoted}: {literal(why)}", ply, points=points)
        to = _point(d[2], d[3], text, field, ply)
        return (DROP_BASE + ptype) * 90 + to
    raise RulesError(
        field, f"malformed move {text!r}: expected e.g. 'h3e3', 'b10c8' or a drop 'A@e3'", ply
    )


def quoted_move(text: str, m: int | None = None) -> tuple[str, tuple[str, ...]]:
    """``text`` quoted for a :class:`RulesError`'s template, and the points it names: as
    slots when it is the canonical move ``m``, or a drop (of any letter) on a point,
    else the text as it is."""
    if m is not None and text == move_str(m):
        frm, to = divmod(m, 90)
        if frm >= DROP_BASE:
            return f"'{TYPE_LETTERS[frm - DROP_BASE]}@{{}}'", (SQUARE_NAMES[to],)
        return "'{}{}'", (SQUARE_NAMES[frm], SQUARE_NAMES[to])
    if text[1:2] == "@" and text[2:] in _POINTS and text[0].isalpha():
        return f"'{text[0]}@{{}}'", (text[2:],)
    return literal(repr(text)), ()


_POINTS: Final = frozenset(SQUARE_NAMES)


def move_str(m: int) -> str:
    """Canonical string of a move int."""
    frm, to = divmod(m, 90)
    dest = SQUARE_NAMES[to]
    if frm >= DROP_BASE:
        return f"{TYPE_LETTERS[frm - DROP_BASE]}@{dest}"
    return SQUARE_NAMES[frm] + dest


#: Every move int by its canonical string (what :func:`move_str` writes): a game reads the
#: same few thousand strings over and over (an engine's answer, a push), and
#: :func:`parse_move` finds them here before it parses any other text.
_CANONICAL_INTS: Final = {
    move_str(m): m
    for m in range((DROP_BASE + SOLDIER + 1) * 90)
    if (m // 90 != m % 90 and m < DROP_BASE * 90) or m // 90 - DROP_BASE in DROP_TYPES
}


def normalize_move(move: object) -> str:
    """The canonical spelling of a move string (e.g. ``e@e3`` -> ``B@e3``)."""
    return move_str(parse_move(move))


#: The destination point of a canonical move (``h3e3`` -> ``e3``, ``a10a9`` -> ``a9``).
_DESTINATION: Final = re.compile(r"[a-i]\d{1,2}$")


@functools.lru_cache(maxsize=4096)  # a few thousand moves exist; asked per engine line
def destination(move: str) -> str | None:
    """The point a canonical board move lands on (``h3e3`` -> ``e3``); None for a drop."""
    found = _DESTINATION.search(move)
    return found.group(0) if found and "@" not in move else None


#: The origin point of a canonical board move (``h3e3`` -> ``h3``, ``a10a9`` -> ``a10``).
_ORIGIN: Final = re.compile(r"^[a-i]\d{1,2}(?=[a-i]\d{1,2}$)")


@functools.lru_cache(maxsize=4096)
def origin(move: str) -> str | None:
    """The point a canonical board move leaves (``h3e3`` -> ``h3``); None for a drop."""
    found = _ORIGIN.search(move)
    return found.group(0) if found else None
