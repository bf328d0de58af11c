"""The weak levels' rule (:attr:`ladder.levels.Variety.second_look`), as the site
describes its computer opponents: "how many candidate moves get a second look at the
reply, and how often a merely good move gets played instead of insisting on the exact
best one".

A player first sees what each capture takes (:func:`first_look`: the site's piece
values, an atomic blast's balance), then the other moves in a seeded order, natural
moves first; the first candidates get a second look at the reply, and one the engine
rates far below the best is put aside when the player sees the refutation (a beginner's
eyes, :class:`ladder.level_engine.beginner.Sight`); a move about to be played that loses at once is
put aside when the player guards against it (always in check:
:func:`second_look_pick`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

from ladder.level_engine.beginner import Sight, best_threat, loses_at_once, loses_by_force
from ladder.level_engine.engine_lines import Line
from ladder.levels import Variety
from ladder.material import PIECE_VALUES, balance
from ladder.rules import Game
from ladder.rules.notation import destination, origin

__all__ = [
    "INTUITION_CAP_CP",
    "WINNING_CAPTURE_CP",
    "captures_seen",
    "first_look",
    "second_look_pick",
]


#: A capture that ends the game at once (an atomic blast that takes the general) is
#: seen at first sight as worth this much.
WINNING_CAPTURE_CP = 10_000


#: Scores beyond this many centipawns (mates) count as this much in the second-look
#: rule's intuition (:func:`second_look_pick`).
INTUITION_CAP_CP = 1_500


def first_look(game: Game) -> dict[str, int]:
    """What each capture in ``game`` takes at first sight, in centipawns of material
    (:data:`ladder.material.PIECE_VALUES`), the replies unseen: the captured piece, and
    in a variant whose captures explode (atomic-xiangqi) the material the blast removes
    from the opponent less what it removes from the mover (a blast that wins the game:
    :data:`WINNING_CAPTURE_CP`). Moves that take nothing are left out."""
    out: dict[str, int] = {}
    explodes = game.variant.atomic
    red = game.turn == "red"
    mover = game.turn
    before = balance(game.board_fen(), red) if explodes else 0
    for move in game.legal_moves():
        point = destination(move)
        if point is None:  # a drop takes nothing
            continue
        taken = game.piece_at(point)
        if taken is None:
            continue
        if explodes:
            game.push(move)
            try:
                outcome = game.outcome()
                won = outcome is not None and outcome.winner == mover
                gain = balance(game.board_fen(), red) - before
                out[move] = WINNING_CAPTURE_CP if won else gain
            finally:
                game.pop()
        else:
            out[move] = PIECE_VALUES.get(taken.lower(), 0)
    return out


def captures_seen(game: Game, variety: Variety | None) -> dict[str, int] | None:
    """:func:`first_look` where ``variety`` needs it (the second-look rule), else None."""
    return first_look(game) if variety is not None and variety.second_look is not None else None


def second_look_pick(
    lines: list[Line],
    top: int,
    variety: Variety,
    captures: Mapping[str, int],
    rng: random.Random,
    game: Game | None = None,
) -> Line | None:
    """The second-look rule's move (:class:`ladder.levels.Variety`): the captures first,
    the most material first (ties in a seeded order), then the other moves drawn without
    replacement with weights ``exp(-loss / temperature_cp)``; the first
    ``variety.second_look`` of them (a fraction: the next one with that probability) are
    put aside when they lose ``variety.reject_cp`` or more against ``top`` (the best
    line's value) and the player sees the refutation (the line's reply, through the eyes
    of ``variety.sight``); a candidate that loses at once is put aside when the player
    guards (``variety.guard``; always in check: :func:`ladder.level_engine.beginner.loses_by_force`,
    which in atomic-xiangqi also sees a check nothing would answer); the first one left
    is played. ``game`` (the position, left as it is) is needed for the sight and the
    guard. None when there are no lines."""
    takes: list[Line] = []
    others: list[Line] = []
    taken = captures.get
    for ln in lines:
        (takes if taken(ln.move, 0) > 0 else others).append(ln)
    rng.shuffle(takes)
    takes.sort(key=lambda ln: -captures[ln.move])
    temperature = max(variety.temperature_cp, 1.0)
    # Weighted order without replacement: sort by Exp(1) / weight (Efraimidis-Spirakis).
    # The intuition's loss is capped: a mate the player does not look for weighs like a
    # lost piece, not like the end of the game. (Exp(1) drawn as rng.expovariate(1.0)
    # draws it, inline: this runs once per legal move.)
    felt_top = _felt(top)
    draw = rng.random
    keyed: list[tuple[float, Line]] = []
    for ln in others:
        loss = max(0, felt_top - _felt(ln.value()))
        keyed.append((-math.log(1.0 - draw()) * math.exp(min(700.0, loss / temperature)), ln))
    keyed.sort(key=_first)
    order = takes + [ln for _, ln in keyed]
    looks = variety.second_look or 0.0
    whole = int(looks)
    looks_at = whole + (rng.random() < looks - whole)
    guards = (
        game is not None
        and variety.guard is not None
        and (game.is_check() or rng.random() < variety.guard)
    )
    losing: set[str] = set()
    for i, ln in enumerate(order):
        if i < looks_at and _refuted(ln, top, taken(ln.move, 0), variety, game, rng):
            continue
        if guards and game is not None and loses_by_force(game, ln.move):
            losing.add(ln.move)
            continue
        return ln
    # Every candidate was put aside: the one that loses least, among those the guard did
    # not find losing (a guarded player in check answers it whenever it can).
    kept = [ln for ln in order if ln.move not in losing]
    if guards and game is not None:
        kept = (
            [ln for ln in kept if not loses_by_force(game, ln.move)]
            or [ln for ln in order if not loses_at_once(game, ln.move)]
            or order
        )
    return max(kept or order, key=lambda ln: ln.value(), default=None)


def _refuted(
    line: Line,
    top: int,
    took: int,
    variety: Variety,
    game: Game | None,
    rng: random.Random,
) -> bool:
    """The second look at ``line``'s move (which took ``took`` at first sight): put aside
    when the engine rates it ``reject_cp`` or more below ``top`` and the player sees the
    refutation, or (through a beginner's eyes) when the rules checker shows the opponent
    winning back ``reject_cp`` or more beyond what it took."""
    if top - line.value() >= variety.reject_cp and (
        game is None or _sees_refutation(game, line, variety.sight, rng)
    ):
        return True
    return (
        game is not None
        and variety.sight < 1
        and _seen_loss(game, line.move, variety.sight, rng) - took >= variety.reject_cp
    )


def _seen_loss(game: Game, move: str, sight: float, rng: random.Random) -> int:
    """What the player sees the opponent win after ``move`` in ``game`` (the two-ply
    exchange of :func:`ladder.level_engine.beginner.best_threat`, through eyes of ``sight``): the
    look
    at the reply the rules checker gives, where a shallow line of the engine saw nothing."""
    eyes = Sight(cannon=sight, horse=sight, opened=sight)
    game.push(move, after_end=True)
    try:
        if game.outcome() is not None:
            return 0
        threat = best_threat(game, eyes.after(move, rng))
        return threat.gain_cp if threat is not None else 0
    finally:
        game.pop()


def _sees_refutation(game: Game, line: Line, sight: float, rng: random.Random) -> bool:
    """Whether the player sees ``line``'s reply (the engine's refutation of its move in
    ``game``): a capture by a piece a beginner always sees, on a line the move did not
    open, is seen; a cannon's or a horse's capture, a capture along the opened line, and a
    reply that takes nothing yet (a deeper threat) only with the chance ``sight``."""
    if sight >= 1.0:
        return True
    move = line.pv[0]
    if len(line.pv) >= 2:
        reply = line.pv[1]
    else:  # a line too shallow to name its reply: the capture that wins most after it
        game.push(move, after_end=True)
        try:
            threat = best_threat(game) if game.outcome() is None else None
        finally:
            game.pop()
        if threat is None:
            return rng.random() < sight
        reply = threat.capture
    target = destination(reply)
    start = origin(reply)
    ours = target is not None and (
        target == destination(move)
        or (game.piece_at(target) is not None and target != origin(move))
    )
    if not ours or start is None:  # a quiet reply: the threat is deeper than one move
        return rng.random() < sight
    piece = (game.piece_at(start) or "?").lower()
    return Sight(cannon=sight, horse=sight, opened=sight).sees(move, reply, piece, rng)


def _first(pair: tuple[float, Line]) -> float:
    return pair[0]


def _felt(value: int) -> int:
    """A score as the second-look rule's intuition weighs it: mates count as a lost or won
    piece or two (:data:`INTUITION_CAP_CP`)."""
    return max(-INTUITION_CAP_CP, min(INTUITION_CAP_CP, value))
