"""A move at level N, step by step: what :meth:`ladder.level_engine.engine.LevelEngine.play`
plays for the move service, the match runner and the ladder-as-an-engine bridge alike.

A level (:mod:`ladder.levels`) is a node limit, a Hash size and a variety rule. One
level move, given a game that the rules checker holds, a level and a seed, is:

1. **The settings** (:meth:`ladder.levels.Level.at_move`): the level itself, or for an
   Elo between two levels of different kinds the weaker or the stronger one, drawn from
   the seed; and its variety rule at the game's ply (:meth:`~ladder.levels.Level.variety_at`).
2. **The position sent** (:meth:`ladder.rules.Game.engine_position`): the FEN right after
   the last capture and the canonical moves since, so that the engine sees every
   repetition that can still happen; in a variant with drops (crazyhouse-xiangqi)
   captured material comes back, so a position from before a capture can recur: the
   game's start FEN and every move.
3. **The search** (:class:`SearchJob`): on a :class:`~ladder.level_engine.engine.LevelEngine`
   (our patched Fairy-Stockfish, ``Threads`` 1, ``variants.ini``, restarted after a
   fault), ``ucinewgame`` before every search, the level's ``MultiPV``
   and ``Hash``, ``go nodes N``, the bestmove checked against the rules checker's legal
   moves. With the patched engine (engine/patches/0002: ``ucinewgame`` clears every
   per-thread table) the answer depends only on the job, never on what the engine
   searched before.
4. **The choice** (:func:`choose`): the rule the level's variety names
   (:mod:`ladder.level_engine.choice_rules`: the engine's best move, a weighted pick among the lines
   within a window, the weak levels' second look, or a random legal move), drawn with
   ``random.Random(seed)``.

The seed is the caller's: the service takes the request's (or draws one and returns
it); a match derives one per move, ``derive_seed(game seed, ply)``; the bridge one per
position, ``derive_seed(game seed, start FEN, *moves)`` (:mod:`ladder.seeds`). So a
match's or a GUI's move is the service's move for the same variant, position, moves,
level and seed (tests/level_engine/test_level_move_paths.py plays all three).

Without an engine: the book move (:func:`book_move`) and, when a clock ran out before an
engine was free, the hurried move (:func:`hurried_move`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ladder.level_engine.book import load_book
from ladder.level_engine.choice_rules import Candidates, Choice, rule_for
from ladder.level_engine.clock import deadline_after
from ladder.level_engine.engine_lines import SearchResult
from ladder.level_engine.second_look import first_look
from ladder.levels import Level, Variety
from ladder.rules import Game
from protocol.errors import EngineFailure, Incident

if TYPE_CHECKING:  # python-chess only when a search is read (not for a book move)
    from chess.engine import Score

__all__ = [
    "Choice",
    "LevelMove",
    "LevelSearch",
    "NoLevelMove",
    "SearchJob",
    "book_move",
    "choose",
    "hurried_move",
]

# ---------------------------------------------------------------------------------------
# Jobs and results


@dataclass(frozen=True)
class SearchJob:
    """One search: everything here has passed the rules checker (canonical strings)."""

    section: str  #: the variants.ini section (UCI_Variant value)
    fen: str  #: canonical FEN (see :meth:`ladder.rules.Game.engine_position`)
    moves: tuple[str, ...]  #: canonical moves from ``fen``
    nodes: int  #: `go nodes` limit
    multipv: int = 1
    hash_mb: int = 16
    root_moves: tuple[str, ...] | None = None  #: `searchmoves`: only these (legal) moves
    #: on a clock, when the search must end (``time.monotonic()``; the `go movetime` is
    #: what is left of it): counted from when the move was asked for, so what comes
    #: before the search is taken out of it; None: nodes only
    deadline: float | None = None

    @classmethod
    def for_level(
        cls,
        section: str,
        fen: str,
        moves: tuple[str, ...] | list[str],
        level: Level,
        ply: int,
        seed: int | None = None,
        time_limit_ms: int | None = None,
        clock_started: float | None = None,
    ) -> SearchJob:
        """The search ``level`` makes for the move at game ply ``ply``: its node limit
        (drawn within the variety rule's jitter with ``seed``, where it applies) and
        Hash, and MultiPV = the variety rule's line count where it applies (else 1); on
        a clock also `time_limit_ms` (it stops at whichever comes first), counted from
        ``clock_started`` (``time.monotonic()``; default: now)."""
        variety = level.variety_at(ply)
        nodes = level.nodes
        if variety is not None and variety.node_jitter_pct and seed is not None:
            # Log-uniform between 1/(1 + j) and (1 + j) times the level's: Elo is close to
            # linear in log nodes, so the level's strength is kept on average.
            span = math.log1p(variety.node_jitter_pct / 100)
            nodes = round(nodes * math.exp(random.Random(f"nodes:{seed}").uniform(-span, span)))
        return cls(
            section=section,
            fen=fen,
            moves=tuple(moves),
            nodes=max(1, nodes),
            multipv=variety.multipv if variety else 1,
            hash_mb=level.hash_mb,
            deadline=deadline_after(time_limit_ms, clock_started),
        )


@dataclass(frozen=True)
class LevelSearch:
    """What :meth:`~ladder.level_engine.engine.LevelEngine.search` returns: the answer,
    and the engine faults (already recovered from: killed, restarted, retried) it took
    to get it."""

    result: SearchResult
    incidents: list[Incident]


# ---------------------------------------------------------------------------------------
# The search and the choice


def choose(
    result: SearchResult,
    variety: Variety | None,
    seed: int,
    legal: frozenset[str],
    captures: Mapping[str, int] | None = None,
    game: Game | None = None,
) -> Choice | None:
    """The move to play, drawn with ``random.Random(seed)`` by the rule ``variety``
    names (:func:`ladder.level_engine.choice_rules.rule_for`: the best move without one). Under the
    second-look rule ``captures`` (:func:`~ladder.level_engine.second_look.first_look`) is the
    material each capture takes at first sight, and ``game`` (the position) gives its
    sight and guard.

    Returns None when the engine gave no legal move (the caller treats it as a failure).
    """
    if result.bestmove is None or result.bestmove not in legal:
        return None
    best_line = result.lines.get(1)
    if best_line is not None and best_line.move != result.bestmove:
        best_line = next((ln for ln in result.lines.values() if ln.move == result.bestmove), None)
    candidates = Candidates(result, best_line, legal, captures or {}, game)
    return rule_for(variety).pick(candidates, random.Random(seed))


# ---------------------------------------------------------------------------------------
# The whole level move


class NoLevelMove(EngineFailure):
    """The engine answered ``bestmove (none)`` in a position with legal moves: it is
    broken (the caller replaces it, or scores the game as its loss)."""


@dataclass(frozen=True)
class LevelMove:
    """What a level move is (:meth:`~ladder.level_engine.engine.LevelEngine.play`): the
    move played (with its ponder move and the line behind it), the search, and the
    engine faults recovered on the way. Each door's answer is made of the properties
    below (the service's :func:`ladder.service.domain.move_answer.move_response`, a match's
    :class:`~ladder.match.players.player.MoveInfo`, the bridge's
    :class:`~ladder.bridge.session.Answer`)."""

    choice: Choice
    result: SearchResult
    incidents: list[Incident]
    #: The move came from the opening book (:mod:`ladder.level_engine.book`): nothing was searched.
    book: bool = False
    #: Chosen without a search because the clock ran out first (:func:`hurried_move`).
    hurried: bool = False

    @property
    def move(self) -> str:
        return self.choice.move

    @property
    def ponder(self) -> str | None:
        return self.choice.ponder

    @property
    def score(self) -> Score | None:
        """The chosen line's score, from the mover's side (None: no line behind the move)."""
        line = self.choice.line
        return line.score if line is not None else None

    @property
    def depth(self) -> int:
        """The chosen line's depth, else the search's."""
        line = self.choice.line
        return line.depth if line is not None else self.result.depth

    @property
    def pv(self) -> tuple[str, ...]:
        """The chosen line, else the move alone."""
        line = self.choice.line
        return line.pv if line is not None else (self.move,)

    @property
    def nodes(self) -> int:
        return self.result.nodes

    @property
    def seconds(self) -> float:
        """The search's time (0 without one)."""
        return self.result.time_s

    @property
    def varied(self) -> bool:
        """Whether the move is not the engine's best move (the variety rule chose it)."""
        return not self.book and self.choice.move != self.result.bestmove


def hurried_move(
    game: Game, level: Level, seed: int, legal: frozenset[str] | None = None
) -> LevelMove:
    """``level``'s move in ``game`` without a search, for a clock that ran out before an
    engine was free (a player in time trouble moves at a glance), out of the book (the
    caller looked there first: :func:`book_move` needs no engine): the capture that takes
    the most at first sight (:func:`ladder.level_engine.second_look.first_look`; ties in
    ``seed``'s order), else a legal move drawn with ``seed``."""
    gains = {move: gain for move, gain in first_look(game).items() if gain > 0}
    best = max(gains.values(), default=0)
    candidates = sorted(
        [m for m, gain in gains.items() if gain == best]
        if gains
        else (legal if legal is not None else game.legal_moves())
    )
    move = random.Random(seed).choice(candidates)
    return LevelMove(Choice(move, None, None), SearchResult(None, None), [], hurried=True)


def book_move(
    game: Game, level: Level, seed: int, allowed: frozenset[str] | None = None
) -> LevelMove | None:
    """``level``'s book move in ``game`` drawn with ``seed`` (among ``allowed``), if the
    settings that play this move (:meth:`ladder.levels.Level.at_move`) play from the book
    and the book has one: what a level plays there, without an engine."""
    if not level.at_move(seed).book:
        return None
    book = load_book(game.variant.name)
    move = book.pick(game, seed) if book is not None else None
    if move is None or (allowed is not None and move not in allowed):
        return None
    return LevelMove(Choice(move, None, None), SearchResult(move, None), [], book=True)
