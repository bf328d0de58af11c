"""FEN in Fairy-Stockfish's format: parse (with validation) and print.

``rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1``: ten ranks from
rank 10 (Black's back rank) down to rank 1, then the side to move (``w`` Red, ``b``
Black), two unused fields (``-``), the plies since the last capture and the move number.
Crazyhouse hands follow the board in brackets: ``.../RN2K2NR[AABBaabb] w - - 0 1``.

Input synonyms (``e`` elephant, ``h`` horse, ``r`` for Red to move) are accepted; output
is canonical: FSF letters, ``w``/``b``, hands always bracketed in crazyhouse-xiangqi (``[]``
when empty), each hand in FSF's order (elephants, horses, soldiers, cannons, advisors,
chariots; Red's first), so a printed FEN equals the one FSF prints for the position.

Validation is stricter than FSF: every position accepted is one the rule set can reach
in shape (generals in palaces, advisors/elephants/soldiers only on points they can ever
stand on, no more pieces of a type than the game has, the side not to move not in check).
Each problem raises :class:`~ladder.rules.errors.RulesError` with ``field="fen"``.
"""

from __future__ import annotations

import functools
from typing import Final

from ladder.rules.board import (
    ADVISOR,
    ADVISOR_POINTS,
    BLACK,
    CANNON,
    CHARIOT,
    COLOUR_NAMES,
    ELEPHANT,
    ELEPHANT_POINTS,
    GENERAL,
    HALF,
    HORSE,
    LETTER_TYPES,
    PALACE,
    RED,
    SOLDIER,
    SOLDIER_POINTS,
    SQUARE_NAMES,
    TYPE_LETTERS,
    TYPE_NAMES,
    piece_letter,
)
from ladder.rules.errors import MAX_FEN_COUNTER, MAX_FEN_LENGTH, RulesError, check_text
from ladder.rules.movegen import Position, attacked
from ladder.rules.variants import VariantSpec

#: Hand printing order, FSF's (its internal piece-type order, highest first).
HAND_ORDER: Final = (ELEPHANT, HORSE, SOLDIER, CANNON, ADVISOR, CHARIOT)
#: Most pieces of a type one side can have (xiangqi, atomic-xiangqi: no promotions).
MAX_PER_SIDE: Final = {
    GENERAL: 1,
    ADVISOR: 2,
    ELEPHANT: 2,
    HORSE: 2,
    CHARIOT: 2,
    CANNON: 2,
    SOLDIER: 5,
}


def _plural(ptype: int, n: int) -> str:
    return f"{n} {TYPE_NAMES[ptype]}{'' if n == 1 else 's'}"


def _err(reason: str) -> RulesError:
    return RulesError("fen", reason)


def _parse_board(text: str) -> list[int]:
    ranks = text.split("/")
    if len(ranks) != 10:
        raise _err(f"the board has {len(ranks)} ranks; expected 10 separated by '/'")
    board = [0] * 90
    for i, row in enumerate(ranks):
        rank = 9 - i
        name = f"rank {rank + 1} (the {_ordinal(i + 1)} rank field)"
        f = 0
        j = 0
        while j < len(row):
            ch = row[j]
            if ch.isdigit():
                k = j
                while k < len(row) and row[k].isdigit():
                    k += 1
                n = int(row[j:k])
                if row[j] == "0":
                    raise _err(
                        f"{name}: empty-point count {row[j:k]!r} (count 0 or a leading "
                        "zero) is not allowed"
                    )
                f += n
                j = k
            else:
                ptype = LETTER_TYPES.get(ch.lower())
                if ptype is None:
                    raise _err(f"{name}: unknown piece letter {ch!r}")
                if f < 9:
                    board[rank * 9 + f] = ptype | ((RED if ch.isupper() else BLACK) << 3)
                f += 1
                j += 1
            if f > 9:
                raise _err(f"{name} has more than 9 files")
        if f != 9:
            raise _err(f"{name} has {f} files; expected 9")
    return board


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def _parse_hands(text: str) -> list[list[int]]:
    hands = [[0] * 8, [0] * 8]
    for ch in text:
        ptype = LETTER_TYPES.get(ch.lower())
        if ptype is None:
            raise _err(f"hand: unknown piece letter {ch!r}")
        if ptype == GENERAL:
            raise _err("hand: a general can never be in hand")
        hands[RED if ch.isupper() else BLACK][ptype] += 1
    return hands


def _parse_counter(text: str, what: str, minimum: int) -> int:
    if not text.isdigit():
        raise _err(f"{what} {text!r} is not a non-negative whole number")
    if len(text.lstrip("0")) > len(str(MAX_FEN_COUNTER)) or int(text) > MAX_FEN_COUNTER:
        raise _err(f"{what} must be at most {MAX_FEN_COUNTER:,}, not {text[:20]!r}")
    value = int(text)
    if value < minimum:
        raise _err(f"{what} must be at least {minimum}, not {value}")
    return value


def _validate_placement(
    variant: VariantSpec, board: list[int], hands: list[list[int]] | None
) -> None:
    counts = [[0] * 8, [0] * 8]
    for sq, p in enumerate(board):
        if not p:
            continue
        c, t = p >> 3, p & 7
        counts[c][t] += 1
        who = f"{COLOUR_NAMES[c].capitalize()} {TYPE_NAMES[t]} on {SQUARE_NAMES[sq]}"
        if t == GENERAL and sq not in PALACE[c]:
            raise _err(f"{who} is outside its palace")
        if t in (ADVISOR, ELEPHANT):
            if variant.drops:
                if sq not in HALF[c]:
                    raise _err(f"{who} is across the river; it must stay on its own half")
            elif t == ADVISOR and sq not in ADVISOR_POINTS[c]:
                raise _err(f"{who} is not on one of the 5 advisor points of its palace")
            elif t == ELEPHANT and sq not in ELEPHANT_POINTS[c]:
                raise _err(f"{who} is not on one of the 7 elephant points of its side")
        if t == SOLDIER and sq not in SOLDIER_POINTS[c]:
            raise _err(
                f"{who} is on a point a soldier can never reach (on its own half a soldier "
                "stands only on its five home files, on its start rank or the one ahead)"
            )
    for c in (RED, BLACK):
        side = COLOUR_NAMES[c].capitalize()
        if counts[c][GENERAL] == 0:
            raise _err(f"{side} has no general")
        if counts[c][GENERAL] > 1:
            raise _err(f"{side} has {counts[c][GENERAL]} generals; exactly one is required")
    if variant.drops:
        assert hands is not None
        for t in (ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER):
            total = counts[0][t] + counts[1][t] + hands[0][t] + hands[1][t]
            limit = 2 * MAX_PER_SIDE[t]
            if total > limit:
                raise _err(
                    f"{_plural(t, total)} on the board and in hands; the game has only {limit}"
                )
    else:
        for c in (RED, BLACK):
            for t, limit in MAX_PER_SIDE.items():
                if counts[c][t] > limit:
                    raise _err(
                        f"{COLOUR_NAMES[c].capitalize()} has {_plural(t, counts[c][t])}; "
                        f"a side has at most {limit}"
                    )


def parse_fen(variant: VariantSpec, fen: object) -> Position:
    """Parse and validate a FEN for a rule set; RulesError(field="fen") if it is wrong."""
    text = check_text(fen, "fen", MAX_FEN_LENGTH, "FEN")
    parts = text.split()
    if len(parts) < 2:
        raise _err("a FEN needs at least the board and the side to move")
    if len(parts) > 6:
        raise _err(f"a FEN has at most 6 space-separated fields, not {len(parts)}")
    board_text = parts[0]
    hands: list[list[int]] | None = None
    if "[" in board_text or "]" in board_text:
        lb = board_text.find("[")
        if (
            lb < 0
            or not board_text.endswith("]")
            or board_text.count("[") != 1
            or board_text.count("]") != 1
        ):
            raise _err(
                "a hand must be written once, in brackets right after the board: 'board[hand]'"
            )
        hand_text = board_text[lb + 1 : -1]
        board_text = board_text[:lb]
        hands = _parse_hands(hand_text)
        if not variant.drops and hand_text:
            raise _err(f"{variant.name} has no hands, but the FEN has hand {hand_text!r}")
    board = _parse_board(board_text)
    if variant.drops:
        if hands is None:
            hands = [[0] * 8, [0] * 8]
    else:
        hands = None
    side = parts[1]
    if side in ("w", "r"):
        turn = RED
    elif side == "b":
        turn = BLACK
    else:
        raise _err(f"side to move {side!r} must be 'w' (or 'r') for Red or 'b' for Black")
    for idx, what in ((2, "castling field"), (3, "en-passant field")):
        if len(parts) > idx and parts[idx] != "-":
            raise _err(f"the {what} must be '-' in xiangqi, not {parts[idx]!r}")
    halfmove = _parse_counter(parts[4], "halfmove clock", 0) if len(parts) > 4 else 0
    fullmove = _parse_counter(parts[5], "move number", 1) if len(parts) > 5 else 1
    _validate_placement(variant, board, hands)
    pos = Position(variant, board, turn, hands, halfmove, fullmove)
    other = turn ^ 1
    if attacked(board, pos.kings[other], other):
        raise _err(
            f"{COLOUR_NAMES[other].capitalize()}, not to move, is in check (or the generals "
            "face each other): the position is illegal"
        )
    return pos


@functools.lru_cache(maxsize=8192)  # a game's ranks repeat from move to move
def _rank_fen(rank: tuple[int, ...]) -> str:
    """One rank of the board field (``rank``: its nine piece codes, 0 for empty)."""
    row = []
    empty = 0
    for p in rank:
        if p:
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(piece_letter(p))
        else:
            empty += 1
    if empty:
        row.append(str(empty))
    return "".join(row)


def board_fen(pos: Position) -> str:
    """The board field (with the hands in brackets, for crazyhouse-xiangqi)."""
    board = pos.board
    rows = [_rank_fen(tuple(board[start : start + 9])) for start in range(81, -1, -9)]
    text = "/".join(rows)
    if pos.hands is not None:
        hand = "".join(
            (TYPE_LETTERS[t] if c == RED else TYPE_LETTERS[t].lower()) * pos.hands[c][t]
            for c in (RED, BLACK)
            for t in HAND_ORDER
        )
        text += f"[{hand}]"
    return text


def position_fen(pos: Position) -> str:
    """The full canonical FEN of a position."""
    side = "w" if pos.turn == RED else "b"
    return f"{board_fen(pos)} {side} - - {pos.halfmove} {pos.fullmove}"
