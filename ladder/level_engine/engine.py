"""The level engine: one engine process and everything a level move needs.

A :class:`LevelEngine` owns our patched Fairy-Stockfish as every level plays it (the
options of :data:`ENGINE_OPTIONS`, ``variants.ini`` and its variant names), how often a
search is tried on it (:attr:`LevelEngine.policy`, a :class:`~protocol.retry.RetryPolicy`:
a faulted engine is killed, and the next attempt starts a fresh one), and the two
searches the ladder makes:

- :meth:`LevelEngine.play`: a level's move (:mod:`ladder.level_engine.level_move`: the
  book, the search, the choice), one :class:`~ladder.level_engine.level_move.LevelMove`;
- :meth:`LevelEngine.evaluate`: an analysis search at a node budget, one
  :class:`~ladder.analysis.search.Searched`.

Both run under the policy; :meth:`LevelEngine.play_once` and
:meth:`LevelEngine.evaluate_once` are one attempt each, for a door that runs the same
policy across several engines (the move service, on whichever engine of its pool is free).

Every door is an adapter around it: the service's engine slot, the match's level player,
the bridge's session, the analysis command and the service's analyser.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from ladder.analysis.search import HASH_MB, Searched, evaluation_of
from ladder.engine_binary import engine_path
from ladder.level_engine.choice_rules import Choice
from ladder.level_engine.clock import MoveClock
from ladder.level_engine.engine_lines import search_result
from ladder.level_engine.level_move import (
    LevelMove,
    LevelSearch,
    NoLevelMove,
    SearchJob,
    book_move,
    choose,
)
from ladder.level_engine.second_look import captures_seen
from ladder.levels import Level
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol.errors import Incident
from protocol.limits import Limit
from protocol.managed import ManagedEngine
from protocol.options import OptionValue
from protocol.process import Timeouts
from protocol.retry import RetryPolicy

__all__ = ["ENGINE_OPTIONS", "LevelEngine"]

#: The options a level's engine always runs with: one thread, so that ``go nodes N``
#: after a new game gives one answer.
ENGINE_OPTIONS: dict[str, OptionValue] = {"Threads": 1}


P = ParamSpec("P")
Tried = TypeVar("Tried", LevelMove, Searched)


def _under_policy(
    once: Callable[Concatenate[LevelEngine, P], Awaitable[Tried]],
) -> Callable[Concatenate[LevelEngine, P], Awaitable[Tried]]:
    """A one-attempt search of the level engine run under its :attr:`LevelEngine.policy`,
    the failed attempts' incidents kept with the answer."""

    async def under_policy(engine: LevelEngine, /, *args: P.args, **kwargs: P.kwargs) -> Tried:
        tried = await engine.policy.run(functools.partial(once, engine, *args, **kwargs))
        earlier: list[Incident] = tried[1]
        done: Tried = tried[0]
        return replace(done, incidents=[*earlier, *done.incidents]) if earlier else done

    under_policy.__doc__ = once.__doc__
    return under_policy


class LevelEngine:
    """One engine a level plays on (see the module docstring). The process starts at the
    first search; :attr:`managed` is the supervised process itself, for a door's life
    cycle (readiness checks, replacing it, stopping an analysis)."""

    def __init__(
        self,
        command: str | os.PathLike[str] | None = None,
        *,
        variants_ini: Path = VARIANTS_INI,
        policy: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
        max_rss: int | None = None,
    ) -> None:
        """``command``: the engine (default: :func:`ladder.engine_binary.engine_path`);
        ``policy``: how often a search is tried, and within what deadline (default:
        :class:`~protocol.retry.RetryPolicy`'s)."""
        self.policy = policy if policy is not None else RetryPolicy()
        self.managed = ManagedEngine(
            [os.fspath(command if command is not None else engine_path())],
            options=ENGINE_OPTIONS,
            variant_path=str(Path(variants_ini).resolve()),
            variant_aliases=FSF_VARIANT,
            timeouts=timeouts,
            max_rss=max_rss,
        )

    async def close(self) -> None:
        """Quit the engine (killed if it does not exit in time)."""
        await self.managed.close()

    async def prepare(self, variant: str | None = None, hash_mb: int | None = None) -> None:
        """Start the engine now, or check that it answers, with ``variant`` (a rule set's
        id) and a ``hash_mb`` table set up ahead of a search (their setup off a move's
        clock: a GUI's ``isready``, ``ladder move``). Runs under :attr:`policy`."""
        section = None if variant is None else FSF_VARIANT[variant]
        options = None if hash_mb is None else {"Hash": hash_mb}
        await self.policy.run(lambda: self.managed.prepare(section, options))

    # -- the searches -----------------------------------------------------------------

    async def search(self, job: SearchJob, legal: frozenset[str]) -> LevelSearch:
        """Run ``job``, one attempt: a new game, the job's MultiPV and Hash, ``go nodes``
        (and ``movetime`` on a clock); a bestmove outside ``legal`` counts as an engine
        fault, and so does ``(none)`` with legal moves left (:class:`NoLevelMove`).

        Raises :class:`protocol.errors.EngineFailure` when the engine faulted (it is
        killed: the next search starts a fresh one), and
        :class:`protocol.errors.EngineError` for a search refused before sending."""
        outcome = await self.managed.search(
            job.section,
            job.fen,
            job.moves,
            Limit(nodes=job.nodes, deadline=job.deadline, root_moves=job.root_moves),
            options={"MultiPV": job.multipv, "Hash": job.hash_mb},
            new_game=True,
            validate_move=legal.__contains__,
        )
        result = search_result(outcome.result)
        if result.bestmove is None and legal:  # a broken engine: replaced
            reason = f"answered (none) with {len(legal)} legal moves"
            pid = outcome.pid
            await self.managed.discard()
            raise NoLevelMove(reason, [*outcome.incidents, Incident("none", "search", reason, pid)])
        return LevelSearch(result, outcome.incidents)

    async def play_once(
        self,
        game: Game,
        strength: Level,
        seed: int,
        clock: MoveClock | None = None,
        *,
        legal: frozenset[str] | None = None,
        allowed: frozenset[str] | None = None,
    ) -> LevelMove:
        """``strength``'s move in ``game`` (not changed; it must have a legal move) drawn
        with ``seed``: its book move (:func:`~ladder.level_engine.level_move.book_move`),
        else searched and chosen (:meth:`searched_move`); one attempt. :meth:`play` is
        the same under :attr:`policy`.

        ``legal`` is ``game``'s legal moves when the caller has them already. ``allowed``
        (default: every legal move) narrows the choice, as UCCI's ``banmoves`` does: when
        the engine's best move is not allowed, the best allowed line is played, else a
        random allowed move. On a ``clock`` the search also stops at its time; the node
        limit stays."""
        booked = book_move(game, strength, seed, allowed)
        if booked is not None:
            return booked
        return await self.searched_move(game, strength, seed, clock, legal=legal, allowed=allowed)

    async def searched_move(
        self,
        game: Game,
        strength: Level,
        seed: int,
        clock: MoveClock | None = None,
        *,
        legal: frozenset[str] | None = None,
        allowed: frozenset[str] | None = None,
    ) -> LevelMove:
        """The level move out of the book: the search (:meth:`search`, one attempt) and
        the choice (:mod:`ladder.level_engine.level_move`), as :meth:`play_once` plays
        it once the book has no move. A door that looked in the book before it took an
        engine (the move service: a book move is never queued) asks for this."""
        legal = legal if legal is not None else frozenset(game.legal_moves())
        settings = strength.at_move(seed)
        ply = game.game_ply
        fen, moves = game.engine_position()
        job = SearchJob.for_level(
            FSF_VARIANT[game.variant.name],
            fen,
            moves,
            settings,
            ply,
            seed,
            None if clock is None else clock.limit_ms,
            None if clock is None else clock.started,
        )
        searched = await self.search(job, legal)
        result = searched.result
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

    async def evaluate_once(
        self, game: Game, nodes: int, legal: frozenset[str] | None = None
    ) -> Searched:
        """Evaluate ``game``'s current position (not finished) with a ``nodes`` search
        (``ucinewgame``, the analysis's fixed Hash, one line): reproducible on any machine
        and engine process (:mod:`ladder.analysis.search`); one attempt (:meth:`search`).
        :meth:`evaluate` is the same under :attr:`policy`."""
        legal = legal if legal is not None else frozenset(game.legal_moves())
        fen, moves = game.engine_position()
        job = SearchJob(FSF_VARIANT[game.variant.name], fen, moves, nodes, hash_mb=HASH_MB)
        searched = await self.search(job, legal)
        return Searched(evaluation_of(game, searched.result), searched.incidents)

    #: :meth:`play_once` under :attr:`policy`: the level move every door plays
    #: (:class:`protocol.errors.EngineFailure` when every attempt failed).
    play = _under_policy(play_once)
    #: :meth:`evaluate_once` under :attr:`policy`.
    evaluate = _under_policy(evaluate_once)
