"""A position and its legal moves: the hot path of the rules checker.

Moves are ints inside this module (``frm * 90 + to``; a drop has ``frm = 90 + type``),
strings only at the API boundary (:mod:`ladder.rules.notation`).

How legality is decided quickly. A pseudo-legal move (one that follows the piece's
movement rule) is legal when, afterwards, the mover's general is not attacked, the
flying-general rule counting as an attack by the enemy general along the open file.
Instead of making every move and running a full attack scan, the generator first
asks :func:`attacked` once for the general's point. When the side is not in check, a
move that neither leaves nor enters one of the general's *sensitive* points (its rank,
its file, its four diagonal neighbours: see :data:`ladder.rules.board.SENSITIVE`) cannot
open a line or a horse leg onto it, so it is accepted without a test; only general moves,
moves touching a sensitive point, and every move when in check are tried on the board
(set two points, one attack test, set them back). Atomic captures are always tried,
since the blast changes more than two points.

A game loop asks of one move only ("is the engine's answer legal?", "is there a legal
move?"): :meth:`Position.is_legal_move` checks that move alone against its piece's rule,
through the same tables, and judges it as the generator would;
:meth:`Position.has_legal_move` stops at the first legal move. Both must answer exactly
as the full generation does (tests/rules/test_movegen.py compares them on every move int
of many positions).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ladder.rules.board import (
    ADVISOR,
    BETWEEN,
    CANNON,
    CHARIOT,
    DROP_POINTS,
    DROP_ZONES,
    ELEPHANT,
    ELEPHANT_EYES,
    ELEPHANT_MOVES,
    GENERAL,
    GENERAL_MOVES,
    HORSE,
    HORSE_ATTACKERS,
    HORSE_LEGS,
    HORSE_MOVES,
    ORTHO,
    ORTHO_MASK,
    RAYS,
    SENSITIVE,
    SOLDIER,
    SOLDIER_ATTACKERS,
    SOLDIER_MOVES,
)
from ladder.rules.variants import VARIANT_SPECS, VariantSpec

DROP_BASE = 90
#: Undo record of :meth:`Position.make`: captured piece, removed (point, piece) list for
#: atomic captures (else None), previous halfmove clock, fullmove number and generals.
Undo = tuple[int, list[tuple[int, int]] | None, int, int, tuple[int, int]]


def attacked(board: list[int], sq: int, us: int) -> bool:
    """Whether the enemy of ``us`` attacks the point ``sq`` where ``us``'s general stands.

    Covers chariots, cannons (over exactly one screen), horses (leg free), soldiers, and
    the enemy general along an open file (the flying-general rule). Advisors and
    elephants never leave their own half, so they can never reach a general.
    """
    tb = (us ^ 1) << 3
    n = HORSE | tb
    for h, leg in HORSE_ATTACKERS[sq]:
        if board[h] == n and not board[leg]:
            return True
    s = SOLDIER | tb
    for h in SOLDIER_ATTACKERS[us ^ 1][sq]:
        if board[h] == s:
            return True
    r = CHARIOT | tb
    c = CANNON | tb
    k = GENERAL | tb
    for ray in RAYS[sq]:
        it = iter(ray)
        for t in it:
            q = board[t]
            if q:
                if q in (r, k):
                    return True
                for t2 in it:
                    q2 = board[t2]
                    if q2:
                        if q2 == c:
                            return True
                        break
                break
    return False


def blast_attacked(board: list[int], sq: int, by: int) -> bool:
    """Whether side ``by`` has a non-cannon, non-general capture onto ``sq``.

    This is the atomic "wide check" question for a point next to a general: a chariot,
    horse or soldier of ``by`` that can take the piece on ``sq`` would blow up the
    general beside it. (Advisors and elephants never cross the river, and the other
    general is in its own palace, so neither can reach a point next to our general.)
    """
    tb = by << 3
    n = HORSE | tb
    for h, leg in HORSE_ATTACKERS[sq]:
        if board[h] == n and not board[leg]:
            return True
    s = SOLDIER | tb
    for h in SOLDIER_ATTACKERS[by][sq]:
        if board[h] == s:
            return True
    r = CHARIOT | tb
    for ray in RAYS[sq]:
        for t in ray:
            q = board[t]
            if q:
                if q == r:
                    return True
                break
    return False


#: ``_REACH[rule set][colour][type][point]``: the points a piece of that type and colour
#: reaches from that point, blockers aside (a line's, nearest first):
#: :meth:`Position.has_legal_move` tries them.
_REACH: dict[str, tuple[tuple[Sequence[Iterable[int]], ...], ...]] = {
    spec.name: tuple(
        (
            (),
            GENERAL_MOVES[us],
            spec.advisor_moves[us],
            ELEPHANT_EYES[us],
            HORSE_LEGS,
            BETWEEN,
            BETWEEN,
            SOLDIER_MOVES[us],
        )
        for us in (0, 1)
    )
    for spec in VARIANT_SPECS.values()
}


#: The order :meth:`Position.has_legal_move` scans the points in for each side: from its
#: soldiers' ranks forward, then its back ranks (where the general and the pieces on
#: its rank, which need a board test, stand).
_SCAN: tuple[tuple[int, ...], ...] = (
    tuple(range(27, 90)) + tuple(range(27)),
    tuple(range(62, -1, -1)) + tuple(range(63, 90)),
)


def _leaves_unattacked(
    board: list[int], frm: int, to: int, p: int, q: int, watched: int, us: int
) -> bool:
    """Whether piece ``p`` moved from ``frm`` to ``to`` (where ``q`` stands) leaves the
    point ``watched`` (the general's, after the move) unattacked by the other side; the
    board is as it was afterwards."""
    board[to] = p
    board[frm] = 0
    safe = not attacked(board, watched, us)
    board[frm] = p
    board[to] = q
    return safe


class Position:
    """Pieces, hands, side to move and counters, with move generation and make/unmake.

    Attributes:
        variant: the rule set.
        board: 90 piece codes (see :mod:`ladder.rules.board`).
        turn: 0 Red, 1 Black.
        hands: ``hands[colour][type]`` piece counts (crazyhouse), else None.
        halfmove: plies since the last capture.
        fullmove: move number (starts at 1, grows after Black's move).
        kings: point of each side's general, -1 once blown up (atomic).
    """

    __slots__ = ("board", "fullmove", "halfmove", "hands", "kings", "turn", "variant")

    def __init__(
        self,
        variant: VariantSpec,
        board: list[int],
        turn: int,
        hands: list[list[int]] | None,
        halfmove: int,
        fullmove: int,
    ) -> None:
        self.variant = variant
        self.board = board
        self.turn = turn
        self.hands = hands
        self.halfmove = halfmove
        self.fullmove = fullmove
        kings = [-1, -1]
        for sq, p in enumerate(board):
            if p & 7 == GENERAL:
                kings[p >> 3] = sq
        self.kings = kings

    def copy(self) -> Position:
        hands = [list(h) for h in self.hands] if self.hands is not None else None
        return Position(
            self.variant, list(self.board), self.turn, hands, self.halfmove, self.fullmove
        )

    def key(self) -> bytes:
        """Exact identity for repetition: pieces on points, hands, side to move."""
        k = bytes(self.board)
        if self.hands is not None:
            k += bytes(self.hands[0]) + bytes(self.hands[1])
        return k + (b"w" if self.turn == 0 else b"b")

    @classmethod
    def from_key(cls, variant: VariantSpec, key: bytes, halfmove: int, fullmove: int) -> Position:
        """The position whose :meth:`key` is ``key`` (a rule set without hands), with the
        counters the key does not hold."""
        if variant.drops:
            raise ValueError("a position with hands is not made from its key")
        return cls(variant, list(key[:90]), 0 if key[90:] == b"w" else 1, None, halfmove, fullmove)

    # ----------------------------------------------------------------- check

    def in_direct_check(self, side: int | None = None) -> bool:
        """Whether ``side``'s general (default: side to move) is attacked in the
        ordinary xiangqi sense, flying general included. False if it is gone."""
        if side is None:
            side = self.turn
        k = self.kings[side]
        return k >= 0 and attacked(self.board, k, side)

    def in_check(self, side: int | None = None) -> bool:
        """Check as docs/rules.md defines it for this rule set (wide sense in atomic)."""
        if side is None:
            side = self.turn
        if not self.variant.atomic:
            return self.in_direct_check(side)
        return self.in_wide_check(side)

    def in_wide_check(self, side: int) -> bool:
        """Atomic check, wide sense: could the opponent remove ``side``'s general now?

        Either by capturing it (a direct attack), or by a non-cannon capture of a piece
        orthogonally next to it, provided that capture would not blow up the
        opponent's own general.
        """
        board = self.board
        g = self.kings[side]
        if g < 0:
            return False
        if attacked(board, g, side):
            return True
        them = side ^ 1
        eg = self.kings[them]
        for q in ORTHO[g]:
            p = board[q]
            if p and p >> 3 == side:
                if eg >= 0 and ORTHO_MASK[eg][q]:
                    continue
                if blast_attacked(board, q, them):
                    return True
        return False

    # ----------------------------------------------------------------- moves

    def legal_moves(self, only: int | None = None, in_check: bool | None = None) -> list[int]:
        """All legal moves (and drops) of the side to move, as move ints; ``only``: just
        those that start there (a move int's ``// 90``: a point 0-89, or ``DROP_BASE +
        type`` for the drops of a piece type), by the same code. ``in_check``: whether
        the side to move's general is attacked, when the caller knows (else found out)."""
        board = self.board
        us = self.turn
        ksq = self.kings[us]
        ek = self.kings[us ^ 1]
        if ksq < 0 or ek < 0:
            return []
        atomic = self.variant.atomic
        if in_check is None:
            in_check = attacked(board, ksq, us)
        sens = SENSITIVE[ksq]
        out: list[int] = []
        test: list[int] = []
        caps: list[int] = []  # atomic captures, judged separately
        add = out.append
        tadd = test.append
        cadd = caps.append if atomic else tadd
        adv_tab = self.variant.advisor_moves[us]
        for frm in range(90) if only is None else (only,) if only < DROP_BASE else ():
            p = board[frm]
            if not p or p >> 3 != us:
                continue
            t = p & 7
            base = frm * 90
            fs = in_check or sens[frm]
            # Each piece type's loop is written out in full on purpose: a shared helper
            # per target point would cost a call per move on the checker's hottest path.
            if t == CHARIOT:
                for ray in RAYS[frm]:
                    for to in ray:
                        q = board[to]
                        if q:
                            if q >> 3 != us:
                                if atomic:
                                    cadd(base + to)
                                elif fs or sens[to]:
                                    tadd(base + to)
                                else:
                                    add(base + to)
                            break
                        if fs or sens[to]:
                            tadd(base + to)
                        else:
                            add(base + to)
            elif t == CANNON:
                for ray in RAYS[frm]:
                    it = iter(ray)
                    for to in it:
                        if board[to]:
                            for to2 in it:
                                q = board[to2]
                                if q:
                                    if q >> 3 != us:
                                        if atomic:
                                            cadd(base + to2)
                                        elif fs or sens[to2]:
                                            tadd(base + to2)
                                        else:
                                            add(base + to2)
                                    break
                            break
                        if fs or sens[to]:
                            tadd(base + to)
                        else:
                            add(base + to)
            elif t == HORSE:
                for leg, to in HORSE_MOVES[frm]:
                    if not board[leg]:
                        q = board[to]
                        if q:
                            if q >> 3 == us:
                                continue
                            if atomic:
                                cadd(base + to)
                                continue
                        if fs or sens[to]:
                            tadd(base + to)
                        else:
                            add(base + to)
            elif t == SOLDIER:
                for to in SOLDIER_MOVES[us][frm]:
                    q = board[to]
                    if q:
                        if q >> 3 == us:
                            continue
                        if atomic:
                            cadd(base + to)
                            continue
                    if fs or sens[to]:
                        tadd(base + to)
                    else:
                        add(base + to)
            elif t == ELEPHANT:
                for eye, to in ELEPHANT_MOVES[us][frm]:
                    if not board[eye]:
                        q = board[to]
                        if q:
                            if q >> 3 == us:
                                continue
                            if atomic:
                                cadd(base + to)
                                continue
                        if fs or sens[to]:
                            tadd(base + to)
                        else:
                            add(base + to)
            elif t == ADVISOR:
                for to in adv_tab[frm]:
                    q = board[to]
                    if q:
                        if q >> 3 == us:
                            continue
                        if atomic:
                            cadd(base + to)
                            continue
                    if fs or sens[to]:
                        tadd(base + to)
                    else:
                        add(base + to)
            else:  # general: always tested; in atomic it never captures
                for to in GENERAL_MOVES[us][frm]:
                    q = board[to]
                    if q and (q >> 3 == us or atomic):
                        continue
                    board[to] = p
                    board[frm] = 0
                    if not attacked(board, to, us):
                        add(base + to)
                    board[frm] = p
                    board[to] = q

        for m in test:
            frm, to = divmod(m, 90)
            p = board[frm]
            q = board[to]
            board[to] = p
            board[frm] = 0
            if not attacked(board, ksq, us):
                add(m)
            board[frm] = p
            board[to] = q

        if caps:
            self._atomic_captures(caps, out, ksq, ek, us)

        hands = self.hands
        if hands is not None and (only is None or only >= DROP_BASE):
            hand = hands[us]
            zones = DROP_ZONES[us]
            for pt in (ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER):
                if not hand[pt] or (only is not None and only != DROP_BASE + pt):
                    continue
                p = pt | (us << 3)
                base = (DROP_BASE + pt) * 90
                for to in zones[pt]:
                    if board[to]:
                        continue
                    if sens[to]:
                        board[to] = p
                        if not attacked(board, ksq, us):
                            add(base + to)
                        board[to] = 0
                    elif not in_check:
                        add(base + to)
        return out

    def is_legal_move(self, m: int, in_check: bool | None = None) -> bool:
        """Whether move int ``m`` is legal: the answer of ``m in self.legal_moves(m //
        90)`` (``in_check`` as there), found without generating the piece's other moves.

        The move is checked against its piece's movement rule by the same tables the
        generator walks (a line's points between, a horse's leg, an elephant's eye, a
        step's destinations), then judged as the generator judges it: a general's move
        and a move touching a sensitive point (every move in check) tried on the board,
        an atomic capture by :meth:`_atomic_captures`.
        """
        board = self.board
        us = self.turn
        ksq = self.kings[us]
        ek = self.kings[us ^ 1]
        if ksq < 0 or ek < 0 or m < 0:
            return False
        frm, to = divmod(m, 90)
        if frm >= DROP_BASE:
            return self._is_legal_drop(frm - DROP_BASE, to, ksq, in_check)
        p = board[frm]
        if not p or p >> 3 != us:
            return False
        q = board[to]
        if q and q >> 3 == us:
            return False
        t = p & 7
        # (loops, not any() or sum() over a generator: this runs once a move or more)
        if t == CHARIOT:
            between = BETWEEN[frm].get(to)
            if between is None:
                return False
            for b in between:
                if board[b]:
                    return False
        elif t == CANNON:
            between = BETWEEN[frm].get(to)
            if between is None:
                return False
            screens = 0
            for b in between:
                if board[b]:
                    screens += 1
            if screens != (1 if q else 0):
                return False
        elif t == HORSE:
            leg = HORSE_LEGS[frm].get(to)
            if leg is None or board[leg]:
                return False
        elif t == SOLDIER:
            if to not in SOLDIER_MOVES[us][frm]:
                return False
        elif t == ELEPHANT:
            eye = ELEPHANT_EYES[us][frm].get(to)
            if eye is None or board[eye]:
                return False
        elif t == ADVISOR:
            if to not in self.variant.advisor_moves[us][frm]:
                return False
        else:  # general: always tested; in atomic it never captures
            if to not in GENERAL_MOVES[us][frm] or (q and self.variant.atomic):
                return False
            return _leaves_unattacked(board, frm, to, p, q, to, us)
        if q and self.variant.atomic:
            out: list[int] = []
            self._atomic_captures([m], out, ksq, ek, us)
            return bool(out)
        sens = SENSITIVE[ksq]
        if not sens[frm] and not sens[to]:
            if in_check is None:
                in_check = attacked(board, ksq, us)
            if not in_check:
                return True
        return _leaves_unattacked(board, frm, to, p, q, ksq, us)

    def _is_legal_drop(self, pt: int, to: int, ksq: int, in_check: bool | None) -> bool:
        """:meth:`is_legal_move` for a drop of piece type ``pt`` on ``to``."""
        hands = self.hands
        us = self.turn
        if hands is None:
            return False
        zone = DROP_POINTS[us].get(pt)
        board = self.board
        if zone is None or not hands[us][pt] or not zone[to] or board[to]:
            return False
        if SENSITIVE[ksq][to]:
            board[to] = pt | (us << 3)
            safe = not attacked(board, ksq, us)
            board[to] = 0
            return safe
        if in_check is None:
            in_check = attacked(board, ksq, us)
        return not in_check

    def has_legal_move(self, in_check: bool | None = None) -> bool:
        """Whether the side to move has a legal move (``bool(self.legal_moves())``;
        ``in_check`` as in :meth:`legal_moves`, found out once for all pieces): each
        piece's reachable points are tried one move at a time by :meth:`is_legal_move`
        until one is legal, so a position with moves is answered by its first."""
        board = self.board
        us = self.turn
        ksq = self.kings[us]
        if ksq < 0 or self.kings[us ^ 1] < 0:
            return False
        if in_check is None:
            in_check = attacked(board, ksq, us)
        is_legal = self.is_legal_move
        reach = _REACH[self.variant.name][us]
        # Out of check, a piece off the general's sensitive points usually has a move
        # legal without a board test: such pieces are tried first.
        sens = SENSITIVE[ksq]
        later = []
        for sq in _SCAN[us]:
            p = board[sq]
            if p and p >> 3 == us:
                if sens[sq] and not in_check:
                    later.append(sq)
                    continue
                base = sq * 90
                for to in reach[p & 7][sq]:
                    if is_legal(base + to, in_check):
                        return True
        for sq in later:
            base = sq * 90
            for to in reach[board[sq] & 7][sq]:
                if is_legal(base + to, in_check):
                    return True
        hands = self.hands
        if hands is not None:
            hand = hands[us]
            for pt, zone in DROP_ZONES[us].items():
                if hand[pt]:
                    base = (DROP_BASE + pt) * 90
                    if any(is_legal(base + to, in_check) for to in zone):
                        return True
        return False

    def _atomic_captures(self, caps: list[int], out: list[int], ksq: int, ek: int, us: int) -> None:
        """Judge atomic captures (docs/rules.md "atomic-xiangqi") and append the legal ones.

        A cannon capture is a trade (cannon and target go, nothing else); a capture
        that removes the enemy general is legal outright; a non-cannon capture next to
        the mover's own general is illegal; otherwise the blast is applied and the
        mover's general must not be attacked afterwards.
        """
        board = self.board
        own_zone = ORTHO_MASK[ksq]
        enemy_zone = ORTHO_MASK[ek]
        for m in caps:
            frm, to = divmod(m, 90)
            p = board[frm]
            q = board[to]
            if p & 7 == CANNON:
                if to == ek:
                    out.append(m)
                    continue
                board[frm] = 0
                board[to] = 0
                if not attacked(board, ksq, us):
                    out.append(m)
                board[frm] = p
                board[to] = q
                continue
            if own_zone[to]:
                continue
            if to == ek or enemy_zone[to]:
                out.append(m)
                continue
            board[frm] = 0
            board[to] = 0
            removed = []
            for n in ORTHO[to]:
                b = board[n]
                if b and b & 7 != SOLDIER:
                    removed.append((n, b))
                    board[n] = 0
            if not attacked(board, ksq, us):
                out.append(m)
            board[frm] = p
            board[to] = q
            for n, b in removed:
                board[n] = b

    # ----------------------------------------------------------- make/unmake

    def make(self, m: int) -> Undo:
        """Play a move (assumed legal) and return what :meth:`unmake` needs."""
        board = self.board
        us = self.turn
        frm, to = divmod(m, 90)
        undo: Undo = (0, None, self.halfmove, self.fullmove, (self.kings[0], self.kings[1]))
        if frm >= DROP_BASE:
            pt = frm - DROP_BASE
            board[to] = pt | (us << 3)
            self.hands[us][pt] -= 1  # type: ignore[index]
            self.halfmove += 1
        else:
            p = board[frm]
            cap = board[to]
            if not cap:
                board[to] = p
                board[frm] = 0
                self.halfmove += 1
                if p & 7 == GENERAL:
                    self.kings[us] = to
            elif self.variant.atomic:
                removed = [(frm, p), (to, cap)]
                board[frm] = 0
                board[to] = 0
                if cap & 7 == GENERAL:
                    self.kings[cap >> 3] = -1
                if p & 7 != CANNON:
                    for n in ORTHO[to]:
                        b = board[n]
                        if b and b & 7 != SOLDIER:
                            removed.append((n, b))
                            board[n] = 0
                            if b & 7 == GENERAL:
                                self.kings[b >> 3] = -1
                self.halfmove = 0
                undo = (cap, removed, undo[2], undo[3], undo[4])
            else:
                board[to] = p
                board[frm] = 0
                if self.hands is not None:
                    self.hands[us][cap & 7] += 1
                if p & 7 == GENERAL:
                    self.kings[us] = to
                self.halfmove = 0
                undo = (cap, None, undo[2], undo[3], undo[4])
        if us:
            self.fullmove += 1
        self.turn = us ^ 1
        return undo

    def unmake(self, m: int, undo: Undo) -> None:
        """Take back move ``m`` given the record :meth:`make` returned for it."""
        board = self.board
        us = self.turn ^ 1
        self.turn = us
        cap, removed, self.halfmove, self.fullmove, kings = undo
        self.kings[0], self.kings[1] = kings
        frm, to = divmod(m, 90)
        if frm >= DROP_BASE:
            board[to] = 0
            self.hands[us][frm - DROP_BASE] += 1  # type: ignore[index]
        elif removed is not None:
            for s, b in removed:
                board[s] = b
        else:
            board[frm] = board[to]
            board[to] = cap
            if cap and self.hands is not None:
                self.hands[us][cap & 7] -= 1

    def is_capture(self, m: int) -> bool:
        frm, to = divmod(m, 90)
        return frm < DROP_BASE and self.board[to] != 0
