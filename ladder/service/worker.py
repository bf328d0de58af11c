"""One engine slot of the pool: a supervised engine process (protocol.ManagedEngine).

The worker turns a :class:`~ladder.service.search.SearchJob` into ``ManagedEngine.search``
(Threads=1, ``ucinewgame`` before every search, the level's node limit, MultiPV and Hash
only re-sent when they change, the variant switched only when it changes), and the
engine's answer into a :class:`~ladder.service.search.SearchResult`. The manager restarts
an engine that crashes, hangs, writes garbage or answers an illegal move (judged by the
rules checker's legal moves) and retries the search a bounded number of times.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from chess.engine import PovScore

from ladder.engine_binary import engine_path
from ladder.service.config import ServiceConfig
from ladder.service.search import Line, SearchJob, SearchResult
from ladder.variants import FSF_VARIANT
from protocol.errors import EngineError, EngineFault
from protocol.errors import EngineFailure as ManagedFailure
from protocol.info import InfoDict
from protocol.limits import Limit
from protocol.managed import ManagedEngine, SearchOutcome
from protocol.process import Timeouts

log = logging.getLogger(__name__)

#: No RSS guard: the engine's memory is bounded by its Hash option (at most the level's
#: `hash_mb`), and the guard's psutil reads cost ~0.15 ms per search.
MAX_RSS: int | None = None

# Why ``Threads`` is set before every search (ServiceConfig.reset_threads). Fairy-
# Stockfish's ``ucinewgame`` clears the hash table and the histories but not the
# per-thread pawn and material tables (Thread::clear), so with only ``ucinewgame`` a
# `go nodes N` result depends on what the engine searched before (measured: the same
# request gave h1g3 +74 on a fresh engine and b1c3 +81 after one other MultiPV search).
# ``setoption name Threads`` rebuilds the search threads (and re-allocates the hash),
# which makes every search start from the same state. The protocol client does not
# re-send an option whose value it already set, so the worker forgets the last
# ``Threads`` value before each search (`_fresh_threads`).


class EngineFailure(Exception):
    """The engine gave no usable answer (after the manager's restarts and retries)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _line(info: InfoDict, index: int) -> Line | None:
    pv = tuple(info.get("pv") or ())
    score: PovScore | None = info.get("score")
    if not pv or score is None:
        return None
    rel = score.relative
    mate = rel.mate()
    return Line(multipv=int(info.get("multipv", index)), pv=pv,
                cp=None if mate is not None else rel.score(),
                mate=mate, depth=int(info.get("depth", 0)), nodes=int(info.get("nodes", 0)))


class EngineWorker:
    """A pool slot holding one supervised engine process."""

    def __init__(self, index: int, config: ServiceConfig,
                 on_incident: Callable[[str], None] | None = None) -> None:
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
                handshake=config.startup_timeout_s, startup=config.startup_timeout_s,
                isready=config.isready_timeout_s, stop=config.stop_timeout_s,
                quit=config.stop_timeout_s, search_margin=config.search_timeout_base_s,
                worst_case_nps=config.min_nps),
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
        try:
            await engine.ping()
        except EngineFault:
            pass  # a fault kills and reaps it: the next search starts a fresh one
        except (RuntimeError, OSError) as exc:  # the pipe went away under the client
            log.warning("engine %d: %s; killing it", self.index, exc)
            await engine.kill()

    async def kill(self) -> None:
        """Kill the engine process now (the next search starts a fresh one)."""
        engine = self.managed.engine
        if engine is not None:
            await engine.kill()

    # -- searching --------------------------------------------------------------------

    def _fresh_threads(self) -> None:
        """Make the next search re-send ``Threads`` (see the note at the top)."""
        engine = self.managed.engine
        values = getattr(engine, "_values", None) if engine is not None else None
        if isinstance(values, dict):
            values.pop("threads", None)

    async def search(self, job: SearchJob, legal: frozenset[str]) -> SearchResult:
        """Run one search; raises :class:`EngineFailure` if no usable answer came."""
        outcome = await self._managed_search(job, legal)
        for incident in outcome.incidents:
            self._incident(incident.kind)
        result = outcome.result
        lines: dict[int, Line] = {}
        for i, info in enumerate(result.multipv, start=1):
            line = _line(info, i)
            if line is not None:
                lines[line.multipv] = line
        main = result.info
        return SearchResult(bestmove=result.move, ponder=result.ponder, lines=lines,
                            nodes=int(main.get("nodes", 0)), depth=int(main.get("depth", 0)),
                            time_s=result.elapsed)

    async def _managed_search(self, job: SearchJob, legal: frozenset[str]) -> SearchOutcome:
        tries = self.config.max_attempts
        for attempt in range(1, tries + 1):
            if self.config.reset_threads:
                self._fresh_threads()
            try:
                return await self.managed.search(
                    job.section, job.fen, job.moves, Limit(nodes=job.nodes),
                    options={"Threads": 1, "MultiPV": job.multipv, "Hash": job.hash_mb},
                    new_game=True, validate_move=legal.__contains__)
            except ManagedFailure as exc:
                for incident in exc.incidents:
                    self._incident(incident.kind)
                kinds = ", ".join(sorted({i.kind for i in exc.incidents})) or "engine"
                raise EngineFailure(kinds, str(exc)) from exc
            except EngineError as exc:  # refused before sending: never expected here
                log.error("engine refused a checked search: %s", exc)
                raise EngineFailure("argument", f"engine refused the search: {exc}") from exc
            except (RuntimeError, OSError) as exc:
                # The engine's pipe closed under the client (the process died between the
                # manager's liveness check and the write): a crash like any other.
                self._incident("crash")
                await self.kill()
                if attempt == tries:
                    raise EngineFailure("crash", f"engine pipe closed: {exc}") from exc
        raise AssertionError("unreachable")

    def _incident(self, kind: str) -> None:
        if self._on_incident is not None:
            self._on_incident(kind)


WorkerFactory = Callable[[int], EngineWorker]


def default_factory(config: ServiceConfig,
                    on_incident: Callable[[str], None] | None = None) -> WorkerFactory:
    """Workers on the configured (or built) engine."""
    return lambda i: EngineWorker(i, config, on_incident)
