"""Run game tasks on a backend: :func:`execute` skips the games already in the results
database, keeps every slot busy, stores each record as it arrives, and stops early when
a callback says so (a decided SPRT), a time budget runs out, or engine failures pass
the run's limit."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ladder.match.game.endings import Ending
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.output.store import ResultStore
from ladder.match.runner.backends import Backend
from ladder.match.runner.errors import MatchError
from ladder.match.runner.interrupts import interrupts_deferred

__all__ = ["EngineFailureLimit", "ExecuteResult", "execute"]

#: How long the driver waits for a game before it looks for a SIGINT again: an
#: interrupt is acted on within this (:func:`~ladder.match.runner.interrupts.interrupts_deferred`).
#: A backend whose wait an interrupt may cut short is waited on without slices.
WAIT_SLICE_S = 0.1


class EngineFailureLimit(MatchError):
    """More games were lost to engine failures than the match allows (``--recover`` /
    ``--max-engine-failures``). The game over the limit is not stored."""


@dataclass
class ExecuteResult:
    """What one :func:`execute` call did."""

    played: int = 0  #: games played and stored by this call
    skipped: int = 0  #: games found already stored (resumed)
    stopped_early: bool = False  #: the stop callback or the budget ended it
    wall_seconds: float = 0.0
    search_seconds: float = 0.0  #: engine search time of the games played by this call
    slots: int = 1

    def time_text(self) -> str:
        """How close the run was to engine-bound: the engines' own search time against
        the time the run's slots had (wall time times slots)."""
        had = self.wall_seconds * self.slots
        share = f" ({100 * self.search_seconds / had:.0f}% of it)" if had > 0 else ""
        return (
            f"this run: {self.played} games in {self.wall_seconds:.1f} s on {self.slots} "
            f"workers ({had:.1f} worker-seconds); the engines searched "
            f"{self.search_seconds:.1f} s{share}"
        )


def execute(
    tasks: Sequence[GameTask],
    store: ResultStore,
    backend: Backend,
    *,
    on_record: Callable[[GameRecord], bool] | None = None,
    budget_seconds: float | None = None,
    progress: Callable[[GameRecord | None], None] | None = None,
    max_engine_failures: int | None = None,
) -> ExecuteResult:
    """Play the tasks not yet stored; ``on_record`` returning True stops the run (the
    games in flight are finished and stored; none is started after).

    ``max_engine_failures``: how many games lost to an engine failure (stored ones
    included) the matches may hold; the game over it is not stored, the run stops and
    :class:`EngineFailureLimit` is raised once the games in flight are done. None: no
    limit (every failure is a stored loss).
    """
    res = ExecuteResult(slots=backend.slots)
    failures = 0
    if max_engine_failures is not None:
        match_ids = {t.match_id for t in tasks}
        failures = store.count_games(match_ids, Ending.ENGINE_FAILURE)
    over_limit: GameRecord | None = None
    pending = _not_stored(tasks, store)
    res.skipped = len(tasks) - len(pending)
    pending.reverse()  # pop() from the end keeps the schedule order
    start = time.perf_counter()
    in_flight: dict[Any, GameTask] = {}
    stop = False
    failure: BaseException | None = None
    with interrupts_deferred() as interrupt:
        try:
            while pending or in_flight:
                interrupt.check()
                if budget_seconds is not None and time.perf_counter() - start > budget_seconds:
                    stop = True
                while pending and not stop and len(in_flight) < backend.slots * backend.batch:
                    task = pending.pop()
                    try:
                        handle = backend.submit(task)
                    except Exception as exc:
                        # The backend broke (a worker died before its game's failure was
                        # seen): the games in flight end, no other starts, and the run
                        # fails as when a game does (it raised a traceback here).
                        pending.append(task)
                        failure = failure or exc
                        stop = True
                        break
                    in_flight[handle] = task
                if not in_flight:
                    break
                if backend.interruptible:
                    # until a game ends: only then can a game start (or the budget matter)
                    with interrupt.raising():
                        done = backend.wait(list(in_flight), timeout=None)
                else:
                    done = backend.wait(list(in_flight), timeout=WAIT_SLICE_S)
                for handle, outcome in done:
                    task = in_flight.pop(handle)
                    if isinstance(outcome, BaseException):
                        failure = failure or outcome
                        stop = True
                        continue
                    if outcome.reason == Ending.ENGINE_FAILURE and max_engine_failures is not None:
                        if failures >= max_engine_failures:
                            over_limit = over_limit or outcome
                            stop = True
                            continue
                        failures += 1
                    if store.add_game(outcome):
                        res.played += 1
                        res.search_seconds += sum(outcome.search_seconds.values())
                        if progress is not None:
                            progress(outcome)
                        if on_record is not None and on_record(outcome):
                            stop = True
                if progress is not None:
                    progress(None)
            interrupt.check()
        except BaseException:
            backend.close(cancel=True)
            raise
    res.stopped_early = stop and bool(pending)
    res.wall_seconds = time.perf_counter() - start
    if failure is not None:
        raise MatchError(f"a game failed: {type(failure).__name__}: {failure}") from failure
    if over_limit is not None:
        raise _over_the_limit(over_limit, max_engine_failures)
    return res


def _not_stored(tasks: Sequence[GameTask], store: ResultStore) -> list[GameTask]:
    """The tasks whose games are not in ``store`` yet, in their order."""
    done_by_match: dict[str, set[int]] = {}
    pending: list[GameTask] = []
    for t in tasks:
        done = done_by_match.setdefault(t.match_id, store.done_games(t.match_id))
        if t.game_no not in done:
            pending.append(t)
    return pending


def _over_the_limit(record: GameRecord, max_engine_failures: int | None) -> EngineFailureLimit:
    """The error of the game lost to an engine failure over the limit."""
    error = record.failure or "?"
    allowed = (
        "no engine failure is allowed without --recover"
        if not max_engine_failures
        else f"more than the {max_engine_failures} allowed"
    )
    return EngineFailureLimit(
        f"game {record.game_no} of {record.match_id} lost to an engine failure ({allowed}): {error}"
    )
