"""What a beginner sees, and what it misses: the immediate ends of the game (a move that
wins at once, a move that loses at once) and the pieces the opponent can take next move,
seen through a beginner's eyes (:class:`Sight`).

The `novice` baseline (:mod:`ladder.match.players.baselines`) plays with it alone; the
weak levels' second look (:mod:`ladder.level_engine.second_look`) sees the engine's refutations
through the same eyes; the error profile (:mod:`ladder.calibration.error_profile`) counts one-move
hangs with the same exchange, all seen.

Everything here is the rules checker's (:mod:`ladder.rules`), with the site's piece
values (:mod:`ladder.material`): a capture is judged by a two-ply exchange on the board
(the capture, then the best recapture anywhere), an atomic blast counting what it removes
on both sides. The blind spots are the ones the site itself names for new players:
"New players consistently expect [the cannon] to behave like the chariot all the time"
(so a cannon's capture over its screen goes unseen), the horse's move (an L the eye
misses, hobbled or not), and a line the player's own move opens (a discovered attack).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ladder.material import balance
from ladder.rules import Game, RulesError
from ladder.rules.notation import destination, origin

__all__ = [
    "NOVICE_SIGHT",
    "Sight",
    "Threat",
    "best_threat",
    "exchanges",
    "faces_threat",
    "loses_at_once",
    "loses_by_force",
    "opens_line",
    "parries",
    "threatens",
    "wins_at_once",
]


def wins_at_once(game: Game, move: str) -> bool:
    """Whether legal ``move`` ends the game at once in the mover's favour (a checkmate or
    stalemate, a general blown up, the opponent's perpetual check on the third repetition)."""
    mover = game.turn
    game.push(move, after_end=True)
    try:
        outcome = game.outcome()
        return outcome is not None and outcome.winner == mover
    finally:
        game.pop()


def loses_at_once(game: Game, move: str) -> bool:
    """Whether legal ``move`` loses at once: it ends the game as the mover's loss (a third
    repetition of its own perpetual check), or the opponent then has a reply that wins (a
    checkmate, a stalemate, a capture of the general or, in atomic-xiangqi, an explosion
    beside it). A move that ends the game otherwise (a win, a draw) does not lose."""
    mover = game.turn
    game.push(move, after_end=True)
    try:
        outcome = game.outcome()
        if outcome is not None:
            return outcome.winner not in (None, mover)
        for reply in game.legal_moves():
            game.push(reply, after_end=True)
            try:
                outcome = game.outcome()
            finally:
                game.pop()
            if outcome is not None and outcome.winner is not None and outcome.winner != mover:
                return True
        return False
    finally:
        game.pop()


def threatens(game: Game) -> bool:
    """Whether the side to move can win by force at once: a move that wins at once, or in
    a variant whose captures explode (atomic-xiangqi, where a threat to the general is
    already a check) a check after which every reply loses at once."""
    legal = game.legal_moves()
    if any(wins_at_once(game, move) for move in legal):
        return True
    if not game.variant.atomic:
        return False
    for move in legal:
        game.push(move, after_end=True)
        try:
            if game.outcome() is not None or not game.is_check():
                continue
            replies = game.legal_moves()
            if all(loses_at_once(game, reply) for reply in replies):
                return True
        finally:
            game.pop()
    return False


def faces_threat(game: Game) -> bool:
    """Whether the side to move, not in check, would lose by force if it could pass: the
    opponent :func:`threatens` (a mate in one that is not a check; in atomic-xiangqi a
    check that nothing would answer). False in check, and where passing is no position."""
    if game.is_check() or game.outcome() is not None:
        return False
    fields = game.fen().split(" ")
    fields[1] = "b" if fields[1] == "w" else "w"
    try:
        passed = Game.from_fen(game.variant.name, " ".join(fields))
    except RulesError:
        return False
    return threatens(passed)


def loses_by_force(game: Game, move: str) -> bool:
    """Whether legal ``move`` loses at once (:func:`loses_at_once`) or, in a variant whose
    captures explode, leaves the opponent a check that nothing answers (:func:`threatens`;
    elsewhere that is a loss at once already)."""
    if loses_at_once(game, move):
        return True
    if not game.variant.atomic:
        return False
    game.push(move, after_end=True)
    try:
        return game.outcome() is None and threatens(game)
    finally:
        game.pop()


def parries(game: Game, move: str) -> bool:
    """Whether legal ``move`` meets the threat the position faced: it does not lose by
    force (:func:`loses_by_force`)."""
    return not loses_by_force(game, move)


@dataclass(frozen=True)
class Threat:
    """A capture the side to move can make, and what it wins net after the best recapture
    (centipawns, the site's values)."""

    capture: str
    #: the capturing piece's letter, lower case (``c`` cannon, ``n`` horse, ``r`` chariot, ...)
    piece: str
    gain_cp: int


def exchanges(game: Game, seen: Callable[[str, str], bool] | None = None) -> list[Threat]:
    """Every capture of the side to move in ``game`` that ``seen(capture, piece)`` admits
    (default: all), with what it wins net once the opponent's best recapture is counted
    (a two-ply exchange on the board; it may be negative). Captures that end the game are
    left out (:func:`loses_at_once` is about those)."""
    us = game.turn == "red"
    before = balance(game.board_fen(), us)
    out: list[Threat] = []
    for capture in game.legal_moves():
        point = destination(capture)
        if point is None or game.piece_at(point) is None:
            continue
        piece = (game.piece_at(origin(capture) or point) or "?").lower()
        if seen is not None and not seen(capture, piece):
            continue
        game.push(capture, after_end=True)
        try:
            if game.outcome() is not None:
                continue
            worst = balance(game.board_fen(), us)
            for reply in game.legal_moves():
                rpoint = destination(reply)
                if rpoint is None or game.piece_at(rpoint) is None:
                    continue
                game.push(reply, after_end=True)
                worst = min(worst, balance(game.board_fen(), us))
                game.pop()
        finally:
            game.pop()
        out.append(Threat(capture, piece, worst - before))
    return out


def best_threat(game: Game, seen: Callable[[str, str], bool] | None = None) -> Threat | None:
    """The capture of :func:`exchanges` (among those ``seen`` admits) that wins the most,
    the first of them in the legal moves' order; None when none wins anything."""
    best: Threat | None = None
    for threat in exchanges(game, seen):
        if threat.gain_cp > 0 and (best is None or threat.gain_cp > best.gain_cp):
            best = threat
    return best


def opens_line(move: str, capture: str) -> bool:
    """Whether ``capture`` (a reply) runs along a file or rank through the point ``move``
    left: the move opened the line (a discovered attack)."""
    left, start, end = origin(move), origin(capture), destination(capture)
    if left is None or start is None or end is None:
        return False
    (lf, lr), (sf, sr), (ef, er) = _xy(left), _xy(start), _xy(end)
    if sf == ef == lf:
        return min(sr, er) < lr < max(sr, er)
    if sr == er == lr:
        return min(sf, ef) < lf < max(sf, ef)
    return False


@dataclass(frozen=True)
class Sight:
    """How often a player sees each kind of capture it is blind to (a probability each);
    any other capture is always seen. ``cannon``: a cannon's capture over its screen;
    ``horse``: a horse's capture; ``opened``: a capture along a line the player's own
    move opened."""

    cannon: float
    horse: float
    opened: float

    def hard(self, piece: str) -> float:
        """The chance to see a capture by ``piece`` (lower case), the line aside."""
        return self.cannon if piece == "c" else self.horse if piece == "n" else 1.0

    def sees(self, move: str, capture: str, piece: str, rng: random.Random) -> bool:
        """Whether the player, having played ``move``, sees the reply ``capture`` by
        ``piece``: a draw from ``rng`` for each blind spot the capture falls in."""
        chance = self.hard(piece)
        if opens_line(move, capture):
            chance *= self.opened
        return chance >= 1.0 or rng.random() < chance

    def after(self, move: str, rng: random.Random) -> Callable[[str, str], bool]:
        """:meth:`sees` for the replies to ``move``, as :func:`best_threat` asks it."""
        return lambda capture, piece: self.sees(move, capture, piece, rng)


#: The novice's eyes (:func:`ladder.match.players.baselines.novice_choice`): it never sees a
#: cannon's capture over its screen nor a line its own move opened, and sees a horse's
#: capture half the time.
NOVICE_SIGHT = Sight(cannon=0.0, horse=0.5, opened=0.0)


def _xy(point: str) -> tuple[int, int]:
    return ord(point[0]) - ord("a"), int(point[1:])
