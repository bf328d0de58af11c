"""One engine slot of the pool (:class:`EngineSlot`): a supervised engine process.

The slot is the service's adapter around a :class:`~ladder.level_engine.engine.LevelEngine`
(the level move the match runner and the bridge play too): the level's MultiPV and Hash
only re-sent when they change, the variant switched only when it changes.

One call is one attempt (the level engine's ``play_once``, ``evaluate_once``): an engine
that crashes, hangs, writes garbage, breaks its pipe, answers an illegal move (judged by
the rules checker's legal moves) or ``(none)`` is killed and reported at once as
:class:`protocol.errors.EngineFailure`; its next search starts a fresh process (after
the manager's backoff). The service runs the attempts under its
:class:`~protocol.retry.RetryPolicy`, each on whichever engine of the pool is free
(:meth:`ladder.service.domain.mover.MoveService.move`), within the request's deadline.

Every incident is logged (logger ``ladder.engine``, one structured line each, with the
engine's stderr tail) and counted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ladder.analysis.search import Evaluation
from ladder.level_engine.clock import MoveClock
from ladder.level_engine.engine import LevelEngine
from ladder.level_engine.level_move import LevelMove
from ladder.levels import Level
from ladder.rules import Game
from ladder.service.operations.config import ServiceConfig
from ladder.variants import FSF_VARIANT
from protocol.errors import (
    EngineError,
    EngineFailure,
    EngineFault,
    Incident,
    incident_kind,
)
from protocol.limits import Limit
from protocol.process import Timeouts

log = logging.getLogger("ladder.engine")
T = TypeVar("T")

#: Longest stderr tail put in a log line (characters).
STDERR_TAIL = 2000


class EngineSlot:
    """A pool slot holding one supervised engine process."""

    def __init__(
        self,
        index: int,
        config: ServiceConfig,
        start_hash_mb: int,
        on_incident: Callable[[str], None] | None = None,
        on_restart: Callable[[], None] | None = None,
        *,
        start_up_check: bool = False,
    ) -> None:
        self.index = index
        self.config = config
        self._on_incident = on_incident
        self._on_restart = on_restart
        self._last_pid: int | None = None
        self._answered = False  #: the engine answered its last search or check
        #: the Hash the engine starts with: the largest a level it plays uses
        self._start_hash_mb = start_hash_mb
        #: ``ladder serve``'s check that the engine starts, before the pool's own
        self.start_up_check = start_up_check
        max_rss = config.engine_max_rss_mb * 2**20 if config.engine_max_rss_mb else None
        self.level_engine = LevelEngine(
            config.engine_path,
            variants_ini=config.variants_ini,
            timeouts=Timeouts(
                handshake=config.startup_timeout_s,
                startup=config.startup_timeout_s,
                isready=config.isready_timeout_s,
                stop=config.stop_timeout_s,
                quit=config.stop_timeout_s,
                search_margin=config.search_timeout_base_s,
                worst_case_nps=config.min_nps,
            ),
            max_rss=max_rss,
        )
        #: the supervised process, for the slot's life cycle
        self.managed = self.level_engine.managed

    # -- state ------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """True while the engine process runs."""
        engine = self.managed.engine
        return engine is not None and not engine.closed and engine.process.alive()

    @property
    def live(self) -> bool:
        """True while the engine runs and answered its last search or check (a frozen
        engine is alive until its check times out, never live after)."""
        return self._answered and self.alive

    @property
    def pid(self) -> int | None:
        """The engine's process id, if it runs."""
        engine = self.managed.engine
        return engine.pid if engine is not None and not engine.closed else None

    @property
    def hash_mb(self) -> int | None:
        """The size of the engine's hash table now (MB), as last set; None before the
        engine runs. A search at another size resizes it first, which a pool that has a
        choice of engines avoids (:meth:`EnginePool.acquire`'s ``prefer``)."""
        engine = self.managed.engine
        value = engine.option_value("Hash") if engine is not None and not engine.closed else None
        return int(value) if value is not None and value.isdigit() else None

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the engine and load the variants (a one-node search does both), and
        touch the largest hash table a level uses: a process's first table of that size
        costs its page faults (the next ones of that size are much cheaper),
        which belong here, not in the first clocked request of a top level."""
        self._answered = False
        try:
            outcome = await self.managed.search(
                FSF_VARIANT["xiangqi"], None, [], Limit(nodes=1), {"Hash": self._start_hash_mb}
            )
        except EngineFailure as exc:
            self._report(exc.incidents)
            raise
        self._report(outcome.incidents)
        self._note_pid(outcome.pid)
        self._answered = True

    async def close(self) -> None:
        """Quit the engine (killed if it does not exit in time)."""
        await self.managed.close()

    async def recover(self) -> None:
        """Bring the engine back in sync after an interrupted search (``stop``, drain the
        ``bestmove``, ``isready``); an engine that does not answer in time, or that is
        gone, is replaced by a fresh process."""
        engine = self.managed.engine
        if engine is not None and not engine.closed and engine.process.alive():
            try:
                await engine.ping()
                self._answered = True
                return
            except EngineFault as exc:  # killed and reaped by the client
                self._report_fault(exc, "recover")
                await self.managed.discard()  # reported: not a died-idle incident too
        await self.start()

    async def check(self) -> None:
        """An idle engine's readiness check: ``isready`` must be answered within
        ``config.check_timeout_s``; an engine that does not answer (frozen: stopped,
        swapped out, deadlocked) or that died is killed and replaced by a fresh one."""
        engine = self.managed.engine
        if engine is None or engine.closed or not engine.process.alive():
            await self.start()
            return
        bound = self.config.check_timeout_s
        try:
            async with asyncio.timeout(bound):
                await engine.ping()
            self._answered = True
            return
        except EngineFault as exc:  # its own isready timeout, or it died: killed by the client
            self._answered = False
            self._report_fault(exc, "idle check")
            await self.managed.discard()  # reported: not a died-idle incident too
        except TimeoutError:
            self._answered = False
            self._count("timeout")
            log.error(
                "engine %d: no answer to isready within %g s while idle (frozen); replaced",
                self.index,
                bound,
                extra={
                    "event": "engine_incident",
                    "engine": self.index,
                    "kind": "timeout",
                    "phase": "idle check",
                    "pid": engine.pid,
                },
            )
            await self.managed.discard()  # one incident: not a died-idle one on restart
        await self.start()

    # -- searching --------------------------------------------------------------------

    async def play(
        self,
        game: Game,
        level: Level,
        seed: int,
        legal: frozenset[str],
        clock: MoveClock | None = None,
    ) -> LevelMove:
        """``level``'s move in ``game`` with ``seed`` (within its time on a ``clock``) out
        of the book (the service looks there before it takes an engine), one attempt
        (:meth:`~ladder.level_engine.engine.LevelEngine.searched_move`); raises
        :class:`protocol.errors.EngineFailure`."""
        moved = await self._attempt(
            self.level_engine.searched_move(game, level, seed, clock, legal=legal)
        )
        self._answered_with(moved.incidents)
        return moved

    async def analyse(self, game: Game, nodes: int, legal: frozenset[str]) -> Evaluation:
        """An analysis search of ``game``'s position (not finished) at ``nodes``
        (:meth:`~ladder.level_engine.engine.LevelEngine.evaluate_once`), one attempt;
        raises :class:`protocol.errors.EngineFailure`."""
        searched = await self._attempt(self.level_engine.evaluate_once(game, nodes, legal))
        self._answered_with(searched.incidents)
        return searched.evaluation

    async def _attempt(self, search: Awaitable[T]) -> T:
        """One search attempt: an engine that failed (killed, its incidents reported) or
        refused the search is an :class:`EngineFailure`."""
        try:
            return await search
        except EngineFailure as exc:
            self._answered = False
            self._report(exc.incidents)
            raise
        except EngineError as exc:  # refused before sending: never expected here
            log.error(
                "engine %d refused a checked search: %s",
                self.index,
                exc,
                extra={"event": "engine_incident", "engine": self.index, "kind": "argument"},
            )
            raise EngineFailure(f"engine refused the search: {exc}", []) from exc

    def _answered_with(self, incidents: list[Incident]) -> None:
        """The engine answered: the faults it took on the way reported, a new process
        noted."""
        if incidents:
            self._report(incidents)
        pid = self.pid
        if pid != self._last_pid:
            self._note_pid(pid)
        self._answered = True

    # -- incidents --------------------------------------------------------------------

    def _count(self, kind: str) -> None:
        if self._on_incident is not None:
            self._on_incident(kind)

    def _report(self, incidents: list[Incident]) -> None:
        for incident in incidents:
            self._count(incident.kind)
            stderr = getattr(incident.error, "stderr", "") or ""
            log.error(
                "engine %d: %s during %s: %s",
                self.index,
                incident.kind,
                incident.phase,
                incident.message,
                extra={
                    "event": "engine_incident",
                    "engine": self.index,
                    "kind": incident.kind,
                    "phase": incident.phase,
                    "pid": incident.pid,
                    "restart_delay_s": round(incident.restart_delay, 3),
                    "stderr_tail": stderr[-STDERR_TAIL:],
                },
            )

    def _report_fault(self, exc: EngineFault, phase: str) -> None:
        self._report([Incident(incident_kind(exc), phase, str(exc), self._last_pid, error=exc)])

    def _note_pid(self, pid: int | None) -> None:
        """Log (and count) a new engine process."""
        if pid is None or pid == self._last_pid:
            return
        if self.start_up_check:  # not a pool engine: not an "engine 0 started" line
            log.info(
                "start-up check: the engine starts (process %d)",
                pid,
                extra={"event": "engine_checked", "pid": pid},
            )
            self._last_pid = pid
            return
        first = self._last_pid is None
        log.info(
            "engine %d: process %d %s",
            self.index,
            pid,
            "started" if first else f"started in place of {self._last_pid}",
            extra={
                "event": "engine_started" if first else "engine_restarted",
                "engine": self.index,
                "pid": pid,
                "previous_pid": self._last_pid,
            },
        )
        if not first and self._on_restart is not None:
            self._on_restart()
        self._last_pid = pid


SlotFactory = Callable[[int], EngineSlot]


def default_slots(
    config: ServiceConfig,
    start_hash_mb: int,
    on_incident: Callable[[str], None] | None = None,
    on_restart: Callable[[], None] | None = None,
) -> SlotFactory:
    """Slots on the configured (or built) engine, each started with ``start_hash_mb``."""
    return lambda i: EngineSlot(i, config, start_hash_mb, on_incident, on_restart)
