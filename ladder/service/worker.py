"""One engine slot of the pool: a supervised engine process (protocol.ManagedEngine).

The worker runs a :class:`~ladder.level_move.SearchJob` with
:func:`ladder.level_move.search_level` (the level search the match runner plays too:
Threads=1, ``ucinewgame`` before every search, the level's node limit, MultiPV and Hash
only re-sent when they change, the variant switched only when it changes). The manager
restarts an engine that crashes, hangs, writes garbage, breaks its pipe or answers an
illegal move (judged by the rules checker's legal moves) and retries the search a bounded
number of times; this module turns what it gives up on into :class:`WorkerFailure`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from ladder.engine_binary import engine_path
from ladder.level_move import SearchJob, SearchResult, search_level
from ladder.service.config import ServiceConfig
from ladder.variants import FSF_VARIANT
from protocol.errors import EngineError, EngineFailure, EngineFault
from protocol.limits import Limit
from protocol.managed import ManagedEngine
from protocol.process import Timeouts

log = logging.getLogger(__name__)

#: No RSS guard: the engine's memory is bounded by its Hash option (at most the level's
#: `hash_mb`), and the guard's psutil reads cost ~0.15 ms per search.
MAX_RSS: int | None = None


class WorkerFailure(Exception):
    """The engine gave no usable answer (after the manager's restarts and retries)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class EngineWorker:
    """A pool slot holding one supervised engine process."""

    def __init__(
        self, index: int, config: ServiceConfig, on_incident: Callable[[str], None] | None = None
    ) -> None:
        self.index = index
        self.config = config
        self._on_incident = on_incident
        exe: Path = config.engine_path or engine_path()
        self.managed = ManagedEngine(
            [str(exe)],
            options={"Threads": 1},
            variant_path=str(Path(config.variants_ini).resolve()),
            variant_aliases=FSF_VARIANT,
            timeouts=Timeouts(
                handshake=config.startup_timeout_s,
                startup=config.startup_timeout_s,
                isready=config.isready_timeout_s,
                stop=config.stop_timeout_s,
                quit=config.stop_timeout_s,
                search_margin=config.search_timeout_base_s,
                worst_case_nps=config.min_nps,
            ),
            retries=config.max_attempts - 1,
            max_rss=MAX_RSS,
        )

    # -- state ------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """True while the engine process runs."""
        engine = self.managed.engine
        return engine is not None and not engine.closed and engine.process.alive()

    @property
    def restarts(self) -> int:
        """Engine processes started after the first."""
        return max(0, self.managed.starts - 1)

    @property
    def pid(self) -> int | None:
        """The engine's process id, if it runs."""
        engine = self.managed.engine
        return engine.pid if engine is not None and not engine.closed else None

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the engine and load the variants (a one-node search does both)."""
        await self.managed.search(FSF_VARIANT["xiangqi"], None, [], Limit(nodes=1))

    async def close(self) -> None:
        """Quit the engine (killed if it does not exit in time)."""
        await self.managed.close()

    async def recover(self) -> None:
        """Bring the engine back in sync after an interrupted search: ``stop``, drain the
        ``bestmove``, ``isready``. An engine that does not answer in time is killed (and
        the next search starts a fresh process); one that faulted is already gone."""
        engine = self.managed.engine
        if engine is None or engine.closed:
            return
        # A fault (a broken pipe too) kills and reaps it: the next search starts a fresh one.
        with contextlib.suppress(EngineFault):
            await engine.ping()

    async def kill(self) -> None:
        """Kill the engine process now (the next search starts a fresh one)."""
        engine = self.managed.engine
        if engine is not None:
            await engine.kill()

    # -- searching --------------------------------------------------------------------

    async def search(self, job: SearchJob, legal: frozenset[str]) -> SearchResult:
        """Run one level search; raises :class:`WorkerFailure` if no usable answer came."""
        try:
            searched = await search_level(self.managed, job, legal)
        except EngineFailure as exc:
            for incident in exc.incidents:
                self._incident(incident.kind)
            kinds = ", ".join(sorted({i.kind for i in exc.incidents})) or "engine"
            raise WorkerFailure(kinds, str(exc)) from exc
        except EngineError as exc:  # refused before sending: never expected here
            log.error("engine refused a checked search: %s", exc)
            raise WorkerFailure("argument", f"engine refused the search: {exc}") from exc
        for incident in searched.incidents:
            self._incident(incident.kind)
        return searched.result

    def _incident(self, kind: str) -> None:
        if self._on_incident is not None:
            self._on_incident(kind)


WorkerFactory = Callable[[int], EngineWorker]


def default_factory(
    config: ServiceConfig, on_incident: Callable[[str], None] | None = None
) -> WorkerFactory:
    """Workers on the configured (or built) engine."""
    return lambda i: EngineWorker(i, config, on_incident)
