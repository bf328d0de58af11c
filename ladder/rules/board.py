"""Points, pieces and the precomputed move tables the move generator runs on.

The board is a flat list of 90 ints indexed by *point* ``sq = rank * 9 + file``, where
``file`` 0..8 is ``a``..``i`` and ``rank`` 0..9 is the printed rank ``1``..``10`` (Red's
back rank is rank index 0). A piece is ``type | colour``: the type is 1..7 (general,
advisor, elephant, horse, chariot, cannon, soldier) and the colour bit is 0 for Red and
8 for Black, so ``p >> 3`` is the colour and ``p & 7`` the type; 0 is an empty point.

Everything geometric is computed once here, at import time, so that generating moves is
a matter of walking short tuples: rays for chariots and cannons, (leg, destination)
pairs for horses, (eye, destination) pairs for elephants, per-colour steps for generals,
advisors and soldiers, and the reverse tables ("from where can a horse/soldier hit this
point") that the attack test uses.
"""

from __future__ import annotations

from typing import Final

RED: Final = 0
BLACK: Final = 1
COLOUR_NAMES: Final = ("red", "black")

EMPTY: Final = 0
GENERAL: Final = 1
ADVISOR: Final = 2
ELEPHANT: Final = 3
HORSE: Final = 4
CHARIOT: Final = 5
CANNON: Final = 6
SOLDIER: Final = 7
PIECE_TYPES: Final = (GENERAL, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER)
TYPE_NAMES: Final = ("", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")

#: Canonical (Fairy-Stockfish) letter of each piece type, upper case = Red.
TYPE_LETTERS: Final = ".KABNRCP"
#: Input letters, including the synonyms ``e`` (elephant) and ``h`` (horse).
LETTER_TYPES: Final[dict[str, int]] = {
    "k": GENERAL,
    "a": ADVISOR,
    "b": ELEPHANT,
    "e": ELEPHANT,
    "n": HORSE,
    "h": HORSE,
    "r": CHARIOT,
    "c": CANNON,
    "p": SOLDIER,
}

FILES: Final = "abcdefghi"
NUM_FILES: Final = 9
NUM_RANKS: Final = 10
NUM_SQUARES: Final = 90


def piece(colour: int, ptype: int) -> int:
    """The piece code of a type for a colour."""
    return ptype | (colour << 3)


def piece_letter(p: int) -> str:
    """FEN letter of a piece code (upper case Red, lower case Black)."""
    letter = TYPE_LETTERS[p & 7]
    return letter if p >> 3 == RED else letter.lower()


def square(file: int, rank: int) -> int:
    """Point index of 0-based file and rank."""
    return rank * NUM_FILES + file


def file_of(sq: int) -> int:
    return sq % NUM_FILES


def rank_of(sq: int) -> int:
    return sq // NUM_FILES


#: ``SQUARE_NAMES[sq]`` is the canonical name, ``a1`` .. ``i10``.
SQUARE_NAMES: Final = tuple(f"{FILES[s % 9]}{s // 9 + 1}" for s in range(NUM_SQUARES))
SQUARE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def on_board(file: int, rank: int) -> bool:
    return 0 <= file < NUM_FILES and 0 <= rank < NUM_RANKS


def own_half(colour: int, sq: int) -> bool:
    """Whether a point is on the given side's half (ranks 1-5 for Red, 6-10 for Black)."""
    return (rank_of(sq) <= 4) if colour == RED else (rank_of(sq) >= 5)


def in_palace(colour: int, sq: int) -> bool:
    """Whether a point is in the given side's palace (files d-f, ranks 1-3 / 8-10)."""
    f, r = file_of(sq), rank_of(sq)
    return 3 <= f <= 5 and ((r <= 2) if colour == RED else (r >= 7))


def _mirror(sq: int) -> int:
    """The point seen from the other side (rank flipped, file kept)."""
    return square(file_of(sq), 9 - rank_of(sq))


PALACE: Final = tuple(frozenset(s for s in range(90) if in_palace(c, s)) for c in (RED, BLACK))
#: The five points a xiangqi advisor can ever stand on.
ADVISOR_POINTS: Final = tuple(
    frozenset(_m(SQUARE_INDEX[n]) for n in ("d1", "f1", "e2", "d3", "f3"))
    for _m in (lambda s: s, _mirror)
)
#: The seven points a xiangqi elephant can ever stand on.
ELEPHANT_POINTS: Final = tuple(
    frozenset(_m(SQUARE_INDEX[n]) for n in ("c1", "g1", "a3", "e3", "i3", "c5", "g5"))
    for _m in (lambda s: s, _mirror)
)
#: The ten soldier home points: files a, c, e, g, i on ranks 4-5 (Red) / 6-7 (Black).
SOLDIER_HOME: Final = tuple(
    frozenset(square(f, r) for f in (0, 2, 4, 6, 8) for r in ranks) for ranks in ((3, 4), (5, 6))
)
HALF: Final = tuple(frozenset(s for s in range(90) if own_half(c, s)) for c in (RED, BLACK))
#: Points a soldier can ever stand on: its home points or anywhere across the river.
SOLDIER_POINTS: Final = tuple(
    SOLDIER_HOME[c] | frozenset(s for s in range(90) if not own_half(c, s)) for c in (RED, BLACK)
)

_ORTHO: Final = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAG: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _step(sq: int, df: int, dr: int) -> int:
    """Point reached by a (file, rank) step, or -1 off the board."""
    f, r = file_of(sq) + df, rank_of(sq) + dr
    return square(f, r) if on_board(f, r) else -1


#: ``RAYS[sq]``: the four orthogonal rays (up, down, right, left), nearest point first.
RAYS: Final = tuple(
    tuple(
        tuple(
            square(file_of(s) + df * k, rank_of(s) + dr * k)
            for k in range(1, 10)
            if on_board(file_of(s) + df * k, rank_of(s) + dr * k)
        )
        for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0))
    )
    for s in range(90)
)
#: ``BETWEEN[frm][to]``: the points strictly between two points of one rank or file,
#: nearest first (a chariot's or cannon's move from one to the other crosses them);
#: points on no common line are absent.
BETWEEN: Final = tuple(
    {ray[k]: ray[:k] for ray in RAYS[s] for k in range(len(ray))} for s in range(90)
)
#: ``ORTHO[sq]``: the (up to four) orthogonal neighbours, the blast zone in atomic.
ORTHO: Final = tuple(
    tuple(t for t in (_step(s, df, dr) for df, dr in _ORTHO) if t >= 0) for s in range(90)
)
#: ``ORTHO_MASK[sq][t]`` is 1 when t is an orthogonal neighbour of sq.
ORTHO_MASK: Final = tuple(bytes(1 if t in ORTHO[s] else 0 for t in range(90)) for s in range(90))


def _horse_moves(s: int) -> tuple[tuple[int, int], ...]:
    out = []
    for df, dr in _ORTHO:
        leg = _step(s, df, dr)
        if leg < 0:
            continue
        # outward diagonal: continue along (df, dr) and one sideways
        for sf, sr in ((dr, df), (-dr, -df)):
            dest = _step(leg, df + sf, dr + sr)
            if dest >= 0:
                out.append((leg, dest))
    return tuple(out)


#: ``HORSE_MOVES[sq]``: (leg, destination) pairs; the move is blocked when leg is occupied.
HORSE_MOVES: Final = tuple(_horse_moves(s) for s in range(90))
#: ``HORSE_LEGS[frm][to]``: the leg of a horse's move from frm to to (each destination
#: has one), for testing one move; destinations a horse cannot reach are absent.
HORSE_LEGS: Final = tuple({to: leg for leg, to in HORSE_MOVES[s]} for s in range(90))
#: ``HORSE_ATTACKERS[sq]``: (horse point, leg) pairs from which a horse reaches sq.
HORSE_ATTACKERS: Final = tuple(
    tuple((h, leg) for h in range(90) for leg, d in HORSE_MOVES[h] if d == s) for s in range(90)
)


def _general_moves(c: int, s: int) -> tuple[int, ...]:
    return tuple(t for t in (_step(s, df, dr) for df, dr in _ORTHO) if t >= 0 and t in PALACE[c])


def _advisor_moves(c: int, s: int, region: frozenset[int]) -> tuple[int, ...]:
    return tuple(t for t in (_step(s, df, dr) for df, dr in _DIAG) if t >= 0 and t in region)


def _elephant_moves(c: int, s: int) -> tuple[tuple[int, int], ...]:
    out = []
    for df, dr in _DIAG:
        eye, dest = _step(s, df, dr), _step(s, 2 * df, 2 * dr)
        if dest >= 0 and own_half(c, dest):
            out.append((eye, dest))
    return tuple(out)


def _forward(c: int) -> int:
    return 1 if c == RED else -1


def _soldier_moves(c: int, s: int) -> tuple[int, ...]:
    out = [_step(s, 0, _forward(c))]
    if not own_half(c, s):
        out += [_step(s, 1, 0), _step(s, -1, 0)]
    return tuple(t for t in out if t >= 0)


GENERAL_MOVES: Final = tuple(tuple(_general_moves(c, s) for s in range(90)) for c in (RED, BLACK))
#: Advisors confined to the palace (xiangqi, atomic-xiangqi).
ADVISOR_MOVES_PALACE: Final = tuple(
    tuple(_advisor_moves(c, s, PALACE[c]) for s in range(90)) for c in (RED, BLACK)
)
#: Advisors free on their own half (crazyhouse-xiangqi).
ADVISOR_MOVES_HALF: Final = tuple(
    tuple(_advisor_moves(c, s, HALF[c]) for s in range(90)) for c in (RED, BLACK)
)
#: (eye, destination) pairs; the same table serves both rule sets, because a two-point
#: diagonal step that stays on its own half from an elephant point lands on another one.
ELEPHANT_MOVES: Final = tuple(tuple(_elephant_moves(c, s) for s in range(90)) for c in (RED, BLACK))
#: ``ELEPHANT_EYES[colour][frm][to]``: the eye of an elephant's move (one per
#: destination), for testing one move.
ELEPHANT_EYES: Final = tuple(
    tuple({to: eye for eye, to in ELEPHANT_MOVES[c][s]} for s in range(90)) for c in (RED, BLACK)
)
SOLDIER_MOVES: Final = tuple(tuple(_soldier_moves(c, s) for s in range(90)) for c in (RED, BLACK))
#: ``SOLDIER_ATTACKERS[c][sq]``: points from which a soldier of colour c reaches sq.
SOLDIER_ATTACKERS: Final = tuple(
    tuple(tuple(h for h in range(90) if s in SOLDIER_MOVES[c][h]) for s in range(90))
    for c in (RED, BLACK)
)


def _sensitive(s: int) -> bytes:
    """Points whose change can alter whether a general on s is attacked.

    A piece leaving or entering one of them may open or close a chariot/cannon line (the
    rank and file of s, which includes the flying-general file) or a horse leg (the four
    diagonal neighbours of s). A move touching none of them cannot change whether s is
    attacked, unless it captures the attacker, which only matters when already in check.
    """
    f, r = file_of(s), rank_of(s)
    marks = bytearray(90)
    for t in range(90):
        if file_of(t) == f or rank_of(t) == r:
            marks[t] = 1
    for df, dr in _DIAG:
        t = _step(s, df, dr)
        if t >= 0:
            marks[t] = 1
    return bytes(marks)


SENSITIVE: Final = tuple(_sensitive(s) for s in range(90))

#: Drop zones in crazyhouse-xiangqi per colour and piece type (empty points only apply).
DROP_ZONES: Final = tuple(
    {
        ADVISOR: tuple(sorted(HALF[c])),
        ELEPHANT: tuple(sorted(HALF[c])),
        HORSE: tuple(range(90)),
        CHARIOT: tuple(range(90)),
        CANNON: tuple(range(90)),
        SOLDIER: tuple(sorted(SOLDIER_POINTS[c])),
    }
    for c in (RED, BLACK)
)
#: ``DROP_POINTS[colour][type][sq]`` is 1 where ``DROP_ZONES`` lets that piece be dropped.
DROP_POINTS: Final = tuple(
    {pt: bytes(1 if sq in zone else 0 for sq in range(90)) for pt, zone in zones.items()}
    for zones in DROP_ZONES
)
