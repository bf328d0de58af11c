"""A move at level N: the one implementation that the move service, the match runner
and the ladder-as-an-engine bridge all play (:func:`play_level_move`).

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
3. **The search** (:class:`SearchJob`, :func:`search_level`): on an engine built by
   :func:`level_engine` (our patched Fairy-Stockfish, ``Threads`` 1, ``variants.ini``,
   restarted after a fault), ``ucinewgame`` before every search, the level's ``MultiPV``
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
position, ``derive_seed(game seed, start FEN, *moves)`` (:func:`derive_seed`). So a
match's or a GUI's move is the service's move for the same variant, position, moves,
level and seed (tests/level_engine/test_level_move_paths.py plays all three).
"""

from __future__ import annotations

import hashlib
import math
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ladder.engine_binary import engine_path
from ladder.level_engine.book import load_book
from ladder.level_engine.choice_rules import Candidates, Choice, rule_for
from ladder.level_engine.clock import deadline_after
from ladder.level_engine.engine_lines import SearchResult, search_result
from ladder.level_engine.second_look import captures_seen, first_look
from ladder.levels import Level, Variety
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol.errors import EngineFailure, Incident
from protocol.limits import Limit
from protocol.managed import ManagedEngine
from protocol.options import OptionValue
from protocol.process import Timeouts

__all__ = [
    "ENGINE_OPTIONS",
    "RETRIES",
    "Choice",
    "LevelMove",
    "LevelSearch",
    "NoLevelMove",
    "SearchJob",
    "book_move",
    "choose",
    "derive_seed",
    "hurried_move",
    "level_engine",
    "play_level_move",
    "search_level",
]

#: The options a level's engine always runs with: one thread, so that ``go nodes N``
#: after a new game gives one answer.
ENGINE_OPTIONS: dict[str, OptionValue] = {"Threads": 1}
#: After an engine fault the search is tried again on a restarted engine, this many
#: times (the service counts its attempts itself: :class:`ladder.service.mover.MoveService`).
RETRIES = 1


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
    """What :func:`search_level` returns: the answer, and the engine faults (already
    recovered from: killed, restarted, retried) it took to get it."""

    result: SearchResult
    incidents: list[Incident]


# ---------------------------------------------------------------------------------------
# The search and the choice


async def search_level(engine: ManagedEngine, job: SearchJob, legal: frozenset[str]) -> LevelSearch:
    """Run ``job`` on ``engine``: a new game, ``Threads`` 1, the job's MultiPV and Hash,
    ``go nodes`` (and ``movetime`` on a clock); a bestmove outside ``legal`` counts as
    an engine fault.

    The manager restarts a faulted engine and retries as configured; raises
    :class:`protocol.errors.EngineFailure` when it gives up, and
    :class:`protocol.errors.EngineError` for a search refused before sending.
    """
    outcome = await engine.search(
        job.section,
        job.fen,
        job.moves,
        Limit(nodes=job.nodes, deadline=job.deadline, root_moves=job.root_moves),
        options={"Threads": 1, "MultiPV": job.multipv, "Hash": job.hash_mb},
        new_game=True,
        validate_move=legal.__contains__,
    )
    return LevelSearch(search_result(outcome.result), outcome.incidents)


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


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (stable across processes and machines): a match's
    game seeds and move seeds, the bridge's move seeds."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def level_engine(
    command: str | os.PathLike[str] | None = None,
    *,
    variants_ini: Path = VARIANTS_INI,
    retries: int = RETRIES,
    timeouts: Timeouts | None = None,
    max_rss: int | None = None,
) -> ManagedEngine:
    """The engine a level plays on: ``command`` (default: :func:`ladder.engine_binary.engine_path`)
    with :data:`ENGINE_OPTIONS`, our ``variants.ini`` and its variant names, restarted
    and retried ``retries`` times after a fault (the process starts at the first search)."""
    return ManagedEngine(
        [os.fspath(command if command is not None else engine_path())],
        options=ENGINE_OPTIONS,
        variant_path=str(Path(variants_ini).resolve()),
        variant_aliases=FSF_VARIANT,
        timeouts=timeouts,
        retries=retries,
        max_rss=max_rss,
    )


class NoLevelMove(EngineFailure):
    """The engine answered ``bestmove (none)`` in a position with legal moves: it is
    broken (the caller replaces it, or scores the game as its loss)."""


@dataclass(frozen=True)
class LevelMove:
    """What :func:`play_level_move` returns: the move played (with its ponder move and
    the line behind it), the search, and the engine faults recovered on the way."""

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
    def varied(self) -> bool:
        """Whether the move is not the engine's best move (the variety rule chose it)."""
        return not self.book and self.choice.move != self.result.bestmove


async def play_level_move(
    engine: ManagedEngine,
    game: Game,
    level: Level,
    seed: int,
    *,
    legal: frozenset[str] | None = None,
    allowed: frozenset[str] | None = None,
    time_limit_ms: int | None = None,
    clock_started: float | None = None,
    book_checked: bool = False,
) -> LevelMove:
    """``level``'s move in ``game`` (not changed; it must have a legal move) drawn with
    ``seed``, searched on ``engine`` (:func:`level_engine`), or the level's book move
    (:func:`book_move`) unless ``book_checked`` (the caller found none already).

    ``legal`` is ``game``'s legal moves when the caller has them already. ``allowed``
    (default: every legal move) narrows the choice, as UCCI's ``banmoves`` does: when
    the engine's best move is not allowed, the best allowed line is played, else a
    random allowed move. ``time_limit_ms`` (on a clock, :func:`ladder.level_engine.clock.
    move_time_limit_ms`) stops the search early, counted from ``clock_started``
    (``time.monotonic()`` when the move was asked for; default: now), so what comes
    before the search (a queue, new engine options) is taken out of it; the node limit
    stays. Raises
    :class:`NoLevelMove` for a ``(none)`` answer, and
    :class:`protocol.errors.EngineFailure` when the engine keeps failing.
    """
    legal = legal if legal is not None else frozenset(game.legal_moves())
    booked = None if book_checked else book_move(game, level, seed, allowed)
    if booked is not None:
        return booked
    settings = level.at_move(seed)
    ply = game.game_ply
    fen, moves = game.engine_position()
    job = SearchJob.for_level(
        FSF_VARIANT[game.variant.name],
        fen,
        moves,
        settings,
        ply,
        seed,
        time_limit_ms,
        clock_started,
    )
    searched = await search_level(engine, job, legal)
    result = searched.result
    if result.bestmove is None:
        raise NoLevelMove(f"answered (none) with {len(legal)} legal moves", searched.incidents)
    variety = settings.variety_at(ply)
    choice = choose(
        result,
        variety,
        seed,
        legal if allowed is None else allowed,
        captures_seen(game, variety),
        game.copy() if variety is not None and variety.second_look is not None else None,
    )
    if choice is None:  # the engine's best move is not allowed: its best allowed line
        assert allowed is not None  # (the bestmove is legal: the engine checked it)
        lines = sorted(
            (ln for ln in result.lines.values() if ln.move in allowed),
            key=lambda ln: ln.multipv,
        )
        line = lines[0] if lines else None
        move = line.move if line else random.Random(seed).choice(sorted(allowed))
        choice = Choice(move, line.pv[1] if line and len(line.pv) > 1 else None, line)
    return LevelMove(choice, result, searched.incidents)


def hurried_move(
    game: Game, level: Level, seed: int, legal: frozenset[str] | None = None
) -> LevelMove:
    """``level``'s move in ``game`` without a search, for a clock that ran out before an
    engine was free (a player in time trouble moves at a glance): the level's
    book move where :func:`play_level_move` would play one (the same move), else the
    capture that takes the most at first sight (:func:`ladder.level_engine.second_look.first_look`;
    ties in ``seed``'s order), else a legal move drawn with ``seed``."""
    booked = book_move(game, level, seed)
    if booked is not None:
        return LevelMove(booked.choice, booked.result, [], book=True, hurried=True)
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
    and the book has one: what :func:`play_level_move` plays there, without an engine."""
    if not level.at_move(seed).book:
        return None
    book = load_book(game.variant.name)
    move = book.pick(game, seed) if book is not None else None
    if move is None or (allowed is not None and move not in allowed):
        return None
    return LevelMove(Choice(move, None, None), SearchResult(move, None), [], book=True)
