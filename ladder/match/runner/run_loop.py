"""The one run loop of ``ladder match`` and ``ladder tournament``: register the run's
matches in the results database, count the games stored, check the players, play the
games not yet stored on a backend (:func:`~ladder.match.runner.execute.execute`), and
hand each finished game to the run's figures and its outputs
(:mod:`ladder.match.output.registry`), whose ``stop`` can end it; however it ends, the
outputs are finished with its exit code.

What differs between a match and a tournament is the :class:`RunPlan`: its matches, its
schedule, its running figures and its JSON document.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, TextIO

from rich.console import Console

from ladder.match.exit_codes import ExitCode
from ladder.match.game.endings import Ending
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.output.json_document import JSON_INTERVAL
from ladder.match.output.outputs import OutputContext, RunView, StoredGames
from ladder.match.output.pgn import PgnOptions
from ladder.match.output.registry import make_outputs
from ladder.match.output.store import ResultStore
from ladder.match.players.player import PlayerError
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import probe
from ladder.match.runner.backends import Backend, make_backend
from ladder.match.runner.errors import ClusterError, MatchError
from ladder.match.runner.execute import EngineFailureLimit, ExecuteResult, execute
from ladder.rules import Game

__all__ = ["LoopResult", "RunOptions", "RunPlan", "failure_code", "run_games"]


@dataclass
class RunOptions:
    """Where and how a match or tournament runs.

    ``max_engine_failures``:
    see :func:`execute` (None: no limit). ``json_path``, ``json_interval``: see
    :mod:`ladder.match.output.json_document`. ``backend``: a backend to use (and leave
    open) instead of a new local pool or Ray (``concurrency``, ``ray_address``).
    """

    db: Path | str
    pgn: PgnOptions | None = None
    concurrency: int | None = None
    ray_address: str | None = None
    backend: Backend | None = None
    console: Console | None = None
    out: TextIO | None = None
    json_path: Path | str | None = None
    epd_path: Path | None = None  #: ``--epd``: the games' end positions
    json_interval: int = JSON_INTERVAL
    max_engine_failures: int | None = None


class RunPlan(RunView, Protocol):
    """A match or a tournament as the run loop plays it."""

    @property
    def players(self) -> list[PlayerSpec]: ...

    @property
    def variant(self) -> str: ...

    def register(self, store: ResultStore) -> None:
        """Record the run's matches in the database (a resumed run finds them there)."""
        ...

    def tasks(self) -> list[GameTask]:
        """Every scheduled game, in order."""
        ...

    def add(self, record: GameRecord) -> None:
        """Count a finished game (a stored one when resuming, or one just played)."""
        ...

    def exit_code(self) -> ExitCode:
        """The code of a run that played what it had to: DONE, or an SPRT's decision."""
        ...


@dataclass
class LoopResult:
    """How :func:`run_games` ended."""

    result: ExecuteResult
    code: ExitCode
    error: str | None = None  #: the one-line reason when the code is a failure
    #: what stopped the run, for a caller that raises it rather than exit with ``code``
    failure: PlayerError | MatchError | None = None


def failure_code(exc: PlayerError | MatchError) -> ExitCode:
    """The exit code of a run stopped by ``exc``."""
    if isinstance(exc, PlayerError | EngineFailureLimit):
        return ExitCode.ENGINE_FAILURE
    if isinstance(exc, ClusterError):
        return ExitCode.USAGE
    return ExitCode.ABORTED


def run_games(plan: RunPlan, options: RunOptions) -> LoopResult:
    """Run (or resume) ``plan`` and say how it ended: its code, and what stopped it
    (a :class:`MatchError` or :class:`PlayerError`) if anything did; a caller raises that
    if it wants to, after every output has finished."""
    console = options.console or Console(stderr=True)
    with ResultStore(options.db) as store, store.playing(plan.match_ids):
        plan.register(store)
        stored = _resume(plan, store)
        tasks = plan.tasks()
        context = OutputContext(
            run=plan,
            store=store,
            console=console,
            out=options.out or sys.stdout,
            options=options,
        )
        outputs = make_outputs(context)

        def on_record(record: GameRecord) -> bool:
            plan.add(record)
            for output in outputs:
                output.add(record)
            return any([output.stop() for output in outputs])

        result = ExecuteResult(skipped=min(stored.games, len(tasks)))
        code = ExitCode.ABORTED
        error: str | None = None
        failure: PlayerError | MatchError | None = None
        try:
            for output in outputs:
                output.start(stored)
            if not plan.decided and stored.games < len(tasks):
                result = _play(tasks, store, plan, options, on_record)
            code = plan.exit_code()
        except (PlayerError, MatchError) as exc:
            code, error, failure = failure_code(exc), str(exc), exc
        except KeyboardInterrupt:
            code, error = ExitCode.INTERRUPTED, "interrupted"
            raise
        finally:
            context.error = error
            for output in outputs:
                output.finish(code)
        return LoopResult(result, code, error, failure)


def _resume(plan: RunPlan, store: ResultStore) -> StoredGames:
    """Count the games stored already into ``plan``, one at a time as they are read."""
    games = failures = 0
    for record in store.records(plan.match_ids):
        plan.add(record)
        games += 1
        failures += record.reason == Ending.ENGINE_FAILURE
    return StoredGames(games, failures)


def first_set_up(tasks: Sequence[GameTask], variant: str) -> str | None:
    """The first position the games set up from a FEN (an EPD book's), None if every
    game starts from the variant's start: the check before the run sets it up."""
    start = Game.from_fen(variant).start_fen
    for fen in dict.fromkeys(t.opening.fen for t in tasks if t.opening.fen is not None):
        canonical = Game.from_fen(variant, fen).start_fen
        if canonical != start:
            return canonical
    return None


def _play(
    tasks: Sequence[GameTask],
    store: ResultStore,
    plan: RunPlan,
    options: RunOptions,
    on_record: Callable[[GameRecord], bool],
) -> ExecuteResult:
    """Check the players, then :func:`execute` the tasks on the backend.

    Every run that has games to play checks its players first, whoever runs it (the
    commands, :func:`~ladder.match.runner.match_run.run_match`): every engine started
    once (:func:`ladder.match.players.start.probe`), so one that cannot play ends the run
    with :attr:`ExitCode.ENGINE_FAILURE` before anything is played, and the specs the
    games play with are the checked ones (an engine's FEN letters, a measured search
    deadline)."""
    checked = probe(plan.players, plan.variant, first_set_up(tasks, plan.variant))
    # A game's PGN is made by its worker only for a --pgn file that takes it as it is.
    pgn = options.pgn is not None and options.pgn.takes_record_text
    tasks = [
        replace(t, red=checked.get(t.red, t.red), black=checked.get(t.black, t.black), pgn=pgn)
        for t in tasks
    ]
    backend = options.backend or make_backend(options.concurrency, options.ray_address)
    try:
        return execute(
            tasks,
            store,
            backend,
            on_record=on_record,
            max_engine_failures=options.max_engine_failures,
        )
    finally:
        if options.backend is None:
            backend.close()
