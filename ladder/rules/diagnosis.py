"""Why a move is illegal, in a sentence a player understands.

The rules checker only needs to know *that* a move is not among the legal ones; when it
refuses one, this says why: whose piece, its movement, a blocked line, a drop's zone,
an atomic blast, or the general left in check.
"""

from __future__ import annotations

from ladder.rules.board import (
    ADVISOR,
    CANNON,
    CHARIOT,
    COLOUR_NAMES,
    ELEPHANT,
    ELEPHANT_MOVES,
    GENERAL,
    GENERAL_MOVES,
    HALF,
    HORSE,
    HORSE_MOVES,
    ORTHO_MASK,
    RAYS,
    SOLDIER,
    SOLDIER_MOVES,
    SOLDIER_POINTS,
    SQUARE_NAMES,
    TYPE_NAMES,
)
from ladder.rules.movegen import DROP_BASE, Position
from ladder.rules.variants import VariantSpec


def why_illegal(pos: Position, variant: VariantSpec, m: int) -> tuple[str, tuple[str, ...]]:
    """A sentence saying why the (well-formed, not legal) move ``m`` is illegal: a
    :class:`~ladder.rules.errors.RulesError` template, and the points in its slots."""
    board = pos.board
    us = pos.turn
    side = COLOUR_NAMES[us].capitalize()
    if pos.kings[0] < 0 or pos.kings[1] < 0:
        return "the game is over: a general has been blown up", ()
    frm, to = divmod(m, 90)
    target = board[to]
    if frm >= DROP_BASE:
        pt = frm - DROP_BASE
        name = TYPE_NAMES[pt]
        if pos.hands is None:
            return f"drops are only allowed in crazyhouse-xiangqi, not {variant.name}", ()
        if not pos.hands[us][pt]:
            return f"{side} has no {name} in hand", ()
        if target:
            return "{} is occupied", (SQUARE_NAMES[to],)
        if pt in (ADVISOR, ELEPHANT) and to not in HALF[us]:
            return f"an {name} may only be dropped on its own half", ()
        if pt == SOLDIER and to not in SOLDIER_POINTS[us]:
            return "a soldier may only be dropped on its ten home points or across the river", ()
        return f"it would leave {side}'s general in check", ()
    p = board[frm]
    if not p:
        return "there is no piece on {}", (SQUARE_NAMES[frm],)
    if p >> 3 != us:
        return f"the piece on {{}} is not {side}'s ({side} is to move)", (SQUARE_NAMES[frm],)
    t = p & 7
    name = TYPE_NAMES[t]
    if target and target >> 3 == us:
        return f"{{}} holds {side}'s own piece", (SQUARE_NAMES[to],)
    if not _follows_movement(pos, variant, frm, to, t):
        return (
            f"a {name} on {{}} cannot move to {{}} (not its movement, or blocked)",
            (SQUARE_NAMES[frm], SQUARE_NAMES[to]),
        )
    if variant.atomic and target:
        if t == GENERAL:
            return "in atomic-xiangqi a general never captures (the blast would take it)", ()
        if t != CANNON and ORTHO_MASK[pos.kings[us]][to]:
            return (
                f"a capture on {{}}, next to {side}'s own general, would blow it up",
                (SQUARE_NAMES[to],),
            )
    return f"it would leave {side}'s general in check (or the generals facing)", ()


def _follows_movement(pos: Position, variant: VariantSpec, frm: int, to: int, t: int) -> bool:
    board = pos.board
    us = pos.turn
    if t == GENERAL:
        return to in GENERAL_MOVES[us][frm]
    if t == ADVISOR:
        return to in variant.advisor_moves[us][frm]
    if t == ELEPHANT:
        return any(d == to and not board[e] for e, d in ELEPHANT_MOVES[us][frm])
    if t == HORSE:
        return any(d == to and not board[leg] for leg, d in HORSE_MOVES[frm])
    if t == SOLDIER:
        return to in SOLDIER_MOVES[us][frm]
    for ray in RAYS[frm]:
        if to not in ray:
            continue
        between = sum(1 for s in ray[: ray.index(to)] if board[s])
        if t == CHARIOT:
            return between == 0
        return (between == 0) if not board[to] else (between == 1)
    return False
