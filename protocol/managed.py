"""A supervised engine: restarts after faults, re-applies its settings, tells the caller.

:class:`ManagedEngine` is what the service's engine pool holds, one per engine slot::

    managed = ManagedEngine(
        [".cache/fairy-stockfish"],
        options={"Threads": 1, "Hash": 64},
        variant_path="/abs/variants.ini",
        variant_aliases={"xiangqi": "mistboard-xiangqi"},   # ladder.variants.FSF_VARIANT
        max_rss=512 * 2**20,
    )
    outcome = await managed.search("xiangqi", None, ["h3e3"], Limit(nodes=100_000))
    outcome.result.move        # 'b10c8'
    outcome.incidents          # [] — or what went wrong and what was done about it
    await managed.close()

On every call it makes sure a healthy engine is there:

* no engine yet, or the last one died: start one (after a capped, jittered exponential
  backoff when the previous start or search failed), do the handshake, set the base
  options and the VariantPath;
* the engine's RSS is over ``max_rss``: quit it and start a fresh one (the memory guard;
  it acts between searches only);
* then the per-search options and the variant (both only when they changed), and the
  search itself.

Each call is one attempt. When the engine faults during it (exit, hang, garbage, bad
bestmove), the fault is recorded as an :class:`Incident`, the engine is killed and
:class:`~protocol.errors.EngineFailure` is raised, carrying the incidents; the next call
starts a fresh engine. How often a call is tried is its owner's
:class:`~protocol.retry.RetryPolicy`, which runs it again. Caller errors (bad FEN,
unknown option…) are raised as they are, with the engine left running.
:meth:`ManagedEngine.ping` does the same for a readiness check (a GUI's ``isready``:
start the engine now, or make sure it answers).

Any dialect (``protocol=Dialect.XBOARD``, ``ranks="1-10"``…). For engines we did not
build, ``variant_path_optional=True`` loads the variants file only into an engine that
has ``VariantPath`` (the aliases then apply); the others play the variant by its own
name.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from protocol.engine import Dialect, Engine
from protocol.errors import (
    EngineFailure,
    EngineFault,
    Incident,
    incident_kind,
)
from protocol.info import InfoDict, PlayResult
from protocol.limits import Limit
from protocol.notation import FenLetters, RankNumbering
from protocol.options import OptionValue
from protocol.process import Backoff, Timeouts

T = TypeVar("T")
#: Incidents kept in :attr:`ManagedEngine.history` (the oldest are dropped: a service
#: that runs for months must not keep every incident, nor the exceptions they hold).
HISTORY = 256


@dataclass(slots=True)
class SearchOutcome:
    """What :meth:`ManagedEngine.search` returns."""

    result: PlayResult
    incidents: list[Incident]
    """Faults and restarts during this call, oldest first (empty when all went well)."""
    pid: int
    """The engine process that produced the result."""

    @property
    def restarted(self) -> bool:
        return bool(self.incidents)


class ManagedEngine:
    """A supervised :class:`~protocol.engine.Engine` (see the module docstring)."""

    def __init__(
        self,
        command: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        protocol: Dialect = Dialect.UCI,
        ranks: RankNumbering | None = None,
        fen_letters: FenLetters | None = None,
        options: Mapping[str, OptionValue] | None = None,
        variant_path: str | os.PathLike[str] | None = None,
        variant_aliases: Mapping[str, str] | None = None,
        variant_path_optional: bool = False,
        timeouts: Timeouts | None = None,
        backoff: Backoff | None = None,
        max_rss: int | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.command = command
        self.protocol = protocol
        self.ranks = ranks
        self.fen_letters = fen_letters
        self.variant_path_optional = variant_path_optional
        self.base_options = dict(options or {})
        self.variant_path = os.fspath(variant_path) if variant_path is not None else None
        self.variant_aliases = dict(variant_aliases or {})
        self.timeouts = timeouts or Timeouts()
        self.backoff = backoff or Backoff()
        self.max_rss = max_rss
        self._env = env
        self._cwd = cwd
        self._rng = rng or random.Random()
        self._engine: Engine | None = None
        self._failures = 0  # consecutive faults, for the backoff
        self._lock = asyncio.Lock()
        self._closed = False
        # The engine the names below were found for, and variant -> its name there.
        self._variant_names: tuple[Engine | None, dict[str, str]] = (None, {})
        #: The last HISTORY incidents (the pool may export them as metrics).
        self.history: deque[Incident] = deque(maxlen=HISTORY)
        #: Number of engine processes started.
        self.starts = 0

    @property
    def engine(self) -> Engine | None:
        """The current engine (None before the first search or after a fault)."""
        return self._engine

    def _record(self, incidents: list[Incident], incident: Incident) -> None:
        incidents.append(incident)
        self.history.append(incident)

    async def _start(self, incidents: list[Incident]) -> Engine:
        delay = self.backoff.delay(self._failures, self._rng)
        if delay and incidents:
            last = incidents[-1]
            incidents[-1] = Incident(
                last.kind, last.phase, last.message, last.pid, last.at, delay, last.error
            )
            self.history[-1] = incidents[-1]
        if delay:
            await asyncio.sleep(delay)
        self.starts += 1
        engine = await Engine.start(
            self.command,
            protocol=self.protocol,
            ranks=self.ranks,
            fen_letters=self.fen_letters,
            timeouts=self.timeouts,
            env=self._env,
            cwd=self._cwd,
        )
        try:
            if self.variant_path is not None and self._loads_variants(engine):
                await engine.load_variants(self.variant_path)
            if self.base_options:
                await engine.configure(self.base_options)
        except BaseException:
            await engine.close()
            raise
        return engine

    def _loads_variants(self, engine: Engine) -> bool:
        """Whether ``variant_path`` is loaded into ``engine`` (with
        ``variant_path_optional``, only into an engine that has ``VariantPath``)."""
        return not self.variant_path_optional or "VariantPath" in engine.options

    def engine_variant(self, engine: Engine, variant: str) -> str:
        """The name ``engine`` knows ``variant`` by: its alias in the variants file when
        that file is loaded into the engine, else ``variant`` itself (found once per
        engine and variant: every search asks)."""
        known, names = self._variant_names
        if known is not engine:
            names = {}
            self._variant_names = (engine, names)
        name = names.get(variant)
        if name is None:
            name = variant
            if self.variant_path is not None and self._loads_variants(engine):
                name = self.variant_aliases.get(variant, variant)
            names[variant] = name
        return name

    async def _ensure(self, incidents: list[Incident]) -> Engine:
        engine = self._engine
        if engine is not None and (engine.closed or not engine.process.alive()):
            self._record(
                incidents,
                Incident("died-idle", "idle", "engine died between searches", engine.pid),
            )
            await engine.kill()
            self._engine = engine = None
            self._failures += 1
        if engine is not None and self.max_rss is not None:
            rss = engine.process.stats().rss
            if rss > self.max_rss:
                self._record(
                    incidents,
                    Incident(
                        "memory",
                        "idle",
                        f"RSS {rss} bytes over the {self.max_rss} bound: recycled",
                        engine.pid,
                    ),
                )
                await engine.close()
                self._engine = engine = None
        if engine is None:
            try:
                engine = await self._start(incidents)
            except EngineFault as exc:
                self._failures += 1
                self._record(
                    incidents,
                    Incident("start-failed", exc.phase, str(exc), None, error=exc),
                )
                raise
            self._engine = engine
        return engine

    async def search(
        self,
        variant: str | None,
        fen: str | None,
        moves: Sequence[str],
        limit: Limit,
        options: Mapping[str, OptionValue] | None = None,
        *,
        new_game: bool = True,
        validate_move: Callable[[str], bool] | None = None,
        on_info: Callable[[InfoDict], None] | None = None,
    ) -> SearchOutcome:
        """Search ``fen`` + ``moves`` of ``variant`` under ``limit``, on a healthy engine.

        ``variant`` is an engine variant name or one of ``variant_aliases`` (None: leave
        as is; the aliases apply when ``variant_path`` is loaded into the engine).
        ``options`` are set before the search (only those that changed). With
        ``new_game`` (the default) the hash is cleared first, so ``go nodes`` results
        are reproducible. One attempt (see the module docstring and
        :class:`SearchOutcome`). ``on_info`` sees every ``info`` line as it comes (an
        analysis shown live).
        """

        async def run(engine: Engine) -> PlayResult:
            await self._set_up(engine, variant, options)
            return await engine.search(
                fen, moves, limit, new_game=new_game, validate_move=validate_move, on_info=on_info
            )

        result, incidents, pid = await self._supervised(run)
        return SearchOutcome(result, incidents, pid)

    def use_fen_letters(self, letters: FenLetters | None) -> None:
        """Send FENs in ``letters`` from now on (None: the dialect's), this engine and
        any restarted one."""
        self.fen_letters = letters
        if self._engine is not None:
            self._engine.fen_letters = letters or self._engine.default_fen_letters

    async def refusal(self, variant: str | None, fen: str) -> str | None:
        """The engine's own words refusing ``fen`` of ``variant`` (see
        :meth:`Engine.refusal <protocol.engine.Engine.refusal>`), None if it took it; a
        fault is an :class:`EngineFailure` as for a search."""

        async def run(engine: Engine) -> str | None:
            await self._set_up(engine, variant, None)
            return await engine.refusal(fen)

        return (await self._supervised(run))[0]

    async def ping(self) -> None:
        """Make sure a healthy engine runs (starting one if needed) and answers a
        readiness check (``isready``/``ping``); a fault is an :class:`EngineFailure` as
        for a search."""
        await self.prepare()

    async def prepare(
        self, variant: str | None = None, options: Mapping[str, OptionValue] | None = None
    ) -> None:
        """:meth:`ping`, with ``options`` and ``variant`` set first (as :meth:`search`
        sets them): the slow part of a setup (a new hash table, a new variant) done now,
        for a GUI's ``isready``, instead of in the next search's time."""

        async def run(engine: Engine) -> None:
            await self._set_up(engine, variant, options)
            await engine.ping()

        await self._supervised(run)

    async def _set_up(
        self, engine: Engine, variant: str | None, options: Mapping[str, OptionValue] | None
    ) -> None:
        """``options`` (only those that changed are sent), then ``variant``."""
        if options:
            await engine.configure(options)
        if variant is not None:
            await engine.set_variant(self.engine_variant(engine, variant))

    async def _supervised(
        self, action: Callable[[Engine], Awaitable[T]]
    ) -> tuple[T, list[Incident], int]:
        """Run ``action`` on a healthy engine, once; a fault is recorded, the engine
        killed and :class:`EngineFailure` raised. Returns the action's value, the
        incidents and the pid of the engine that gave the value."""
        if self._closed:
            raise EngineFailure("the managed engine is closed", [])
        incidents: list[Incident] = []
        async with self._lock:
            pid: int | None = None
            try:
                engine = await self._ensure(incidents)
                pid = engine.pid
                value = await action(engine)
                self._failures = 0
                return value, incidents, engine.pid
            except EngineFault as exc:
                if pid is not None:  # a fault of the running engine (not of a start)
                    self._failures += 1
                    self._record(
                        incidents,
                        Incident(incident_kind(exc), exc.phase, str(exc), pid, error=exc),
                    )
                if self._engine is not None and self._engine.closed:
                    self._engine = None
                raise EngineFailure(str(exc), incidents) from exc

    async def discard(self) -> None:
        """Kill the current engine for a fault its owner found and reported (frozen, or a
        refused answer): the next search starts a fresh one, and the dead process is not
        reported again as an engine that died between searches."""
        engine, self._engine = self._engine, None
        if engine is not None:
            self._failures += 1  # a fault like any other, for the restart backoff
            await engine.kill()

    async def stop(self) -> None:
        """Stop the running search (its result is returned to the searching caller)."""
        if self._engine is not None:
            await self._engine.stop()

    async def close(self) -> None:
        """Quit the engine (killing it if it does not exit in time). Idempotent."""
        self._closed = True
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.close()

    async def __aenter__(self) -> ManagedEngine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
