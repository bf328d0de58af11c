"""The move service in-process: validate, queue, search, validate the answer, retry.

:class:`MoveService` is the whole product without HTTP; :mod:`ladder.service.http.app`
puts it behind FastAPI and :class:`ladder.client.Ladder` can use it directly.

A worker's search is one attempt (:class:`protocol.errors.EngineFailure` when the engine
faults), and :meth:`MoveService.move` runs them under the service's
:class:`~protocol.retry.RetryPolicy` (``max_attempts`` within the request's deadline),
each on whichever engine is free. What it cannot answer it raises as domain exceptions,
never HTTP statuses: the request's
(:class:`~ladder.service.domain.errors.RequestRejected`), the engines'
(:class:`~ladder.service.domain.errors.MoveFailed`) or the pool's
(:class:`~ladder.service.engines.pool.PoolError`); :mod:`ladder.service.domain.status`
maps them to the API's errors.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from ladder.human_reference import human_reference
from ladder.level_engine.clock import MoveClock
from ladder.level_engine.level_move import LevelMove, book_move, hurried_move
from ladder.level_times import expected as expected_level_time
from ladder.levels import (
    Level,
    elo_range,
    largest_hash_mb,
    levels_version,
    load_levels,
)
from ladder.notations import check_notations, moves_in
from ladder.rules import MAX_MOVES, Game
from ladder.service.domain.errors import (
    DeadlineExceeded,
    NoEngineAnswer,
)
from ladder.service.domain.models import (
    EloRange,
    Health,
    LevelInfo,
    LevelsResponse,
    Limits,
    MoveRequest,
    MoveResponse,
    PositionRequest,
    PositionResponse,
    VariantInfo,
    VariantsResponse,
)
from ladder.service.domain.move_answer import (
    check_not_over,
    move_response,
    move_strength,
    request_time_limit_ms,
)
from ladder.service.domain.positions import INLINE_PLIES, Checked, Positions, start_fen
from ladder.service.engines.engine_slot import EngineSlot, SlotFactory, default_slots
from ladder.service.engines.pool import EnginePool, QueueFull, QueueTimeout
from ladder.service.operations.config import ServiceConfig
from ladder.service.operations.drain import Drain
from ladder.service.operations.metrics import Metrics
from ladder.variants import VARIANT_IDS
from protocol.errors import EngineFailure
from protocol.retry import RetryDeadlineExceeded

log = logging.getLogger(__name__)


def _written(notations: list[str], variant: str, game: Game) -> dict[str, list[str]]:
    """``game``'s moves in each of ``notations``, by name."""
    return {n: moves_in(n, variant, game.start_fen, game.moves) for n in notations}


@dataclass
class MoveTrace:
    """What happened to one request, for its log line: filled in as it goes."""

    client: str = "local"  #: the key id (or client address) the request is queued under
    variant: str | None = None
    level: int | None = None
    elo: float | None = None
    queue_wait_s: float | None = None
    engine: int | None = None  #: the pool slot that served it
    attempts: int = 0


class MoveService:
    """The ladder's "move at level N" service, in-process.

    ``async with MoveService(ServiceConfig(engines=2)) as svc:``
    ``    reply = await svc.move(MoveRequest(variant="xiangqi", moves=["h3e3"], level=3))``

    Raises :class:`ladder.service.domain.errors.RequestRejected` for a request that cannot be
    answered as asked, :class:`~ladder.service.domain.errors.MoveFailed` and
    :class:`~ladder.service.engines.pool.PoolError` when the engines could not answer it
    (:mod:`ladder.service.domain.status` maps them all).
    """

    def __init__(
        self,
        config: ServiceConfig | None = None,
        *,
        levels: dict[str, dict[int, Level]] | None = None,
        metrics: Metrics | None = None,
        slot_factory: SlotFactory | None = None,
    ) -> None:
        self.config = config or ServiceConfig()
        self.levels = levels if levels is not None else load_levels(self.config.levels_file)
        self.levels_version = levels_version(self.config.levels_file)
        self.metrics = metrics or Metrics()
        self.positions = Positions()
        #: The server's stop, as the requests see it (ladder.service.operations.drain).
        self.drain = Drain()
        m = self.metrics
        factory = slot_factory or default_slots(
            self.config,
            largest_hash_mb(self.levels),
            on_incident=lambda kind: m.engine_incidents.labels(kind).inc(),
            on_restart=m.engine_restarts.inc,
        )
        self.pool: EnginePool[EngineSlot] = EnginePool(
            factory,
            self.config.engines,
            self.config.max_queue,
            lanes=self.config.lane_caps,
            on_change=self._pool_changed,
            watch_interval=self.config.watch_interval_s,
            check_interval=self.config.check_interval_s,
        )
        m.engines.set(self.pool.size)
        m.set_build(self.config.engine_path)

    def _pool_changed(self, engines: bool = True) -> None:
        pool, m = self.pool, self.metrics
        m.queue_depth.set(pool.queue_depth)
        m.engines_busy.set(pool.busy_count)
        if engines:  # a system call per engine: not on every lease (the watch refreshes)
            m.engines_alive.set(pool.alive_count)
            m.engines_live.set(pool.live_count)
        for lane in pool.lanes:
            m.labelled(m.lane_in_flight, lane).set(pool.in_lane(lane))

    def sample_metrics(self) -> None:
        """Refresh the sampled metrics (CPU and memory of the server and its engines)."""
        self.metrics.sample((w.index, w.pid) for w in self.pool.workers)
        self._pool_changed()

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Start the engine pool."""
        await self.pool.start()

    async def close(self) -> None:
        """Stop every engine."""
        await self.pool.close()

    async def __aenter__(self) -> MoveService:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- the API ----------------------------------------------------------------------

    async def move(self, req: MoveRequest, trace: MoveTrace | None = None) -> MoveResponse:
        """The engine's move at ``req.level`` (or ``req.elo``) in the given game."""
        clock_started = time.monotonic()  # a clock runs from here: checks, queue and setup count
        trace = trace if trace is not None else MoveTrace()
        trace.variant, trace.level, trace.elo = req.variant, req.level, req.elo
        seed = req.seed if req.seed is not None else secrets.randbits(53)
        level = self.strength(req.variant, req.level, req.elo)
        checked = await self.positions.judge(req.variant, req.fen, req.moves)
        check_not_over(checked)
        time_limit_ms = request_time_limit_ms(req)
        booked = book_move(checked.game, level, seed)
        if booked is not None:  # no engine needed: never queued behind searches
            return self._respond(req, checked, seed, booked, 0.0, time_limit_ms)
        label = self._label(req)
        budget = self.config.request_deadline(level)  # the queue's wait and the search's
        deadline = asyncio.get_running_loop().time() + budget
        worker = await self._lease(level, label, budget, trace, time_limit_ms, clock_started)
        if worker is None:
            return self._hurried(req, checked, level, seed, trace, time_limit_ms)
        moved, elapsed = await self._search(
            worker, checked, level, seed, label, deadline, trace, time_limit_ms, clock_started
        )
        self.metrics.labelled(self.metrics.search_seconds, req.variant, label).observe(elapsed)
        return self._respond(req, checked, seed, moved, elapsed, time_limit_ms)

    async def _lease(
        self,
        level: Level,
        label: str,
        budget: float,
        trace: MoveTrace,
        time_limit_ms: int | None,
        clock_started: float,
    ) -> EngineSlot | None:
        """An engine for the move, waited for in the queue (counted under ``label``);
        None when the move's time on the clock ran out first (or the queue was full)."""
        cfg = self.config
        m = self.metrics
        waiting = m.labelled(m.queued_moves, label)
        queue_wait = m.labelled(m.queue_wait_seconds, label)
        # On a clock, the move's time bounds the wait, not --queue-timeout: an engine that
        # frees up after it would lose the game on time, and a 503 before it would refuse
        # a move the clock still has time for. Past it (or at once if the queue is full
        # and nobody's request there is over its fair share) the move is played without a
        # search. (A very long move time is cut where the request's deadline keeps one
        # attempt's time for the search.)
        wait = min(cfg.queue_timeout_s, budget)
        hurries = time_limit_ms is not None
        if time_limit_ms is not None:
            on_clock = time_limit_ms / 1000 - (time.monotonic() - clock_started)
            wait = max(0.0, min(on_clock, budget - cfg.attempt_budget(level)))
        waiting.inc()
        queued_at = time.perf_counter()
        try:
            return await self.pool.acquire(
                wait, trace.client, cfg.lane(level), _hash_sized_for(level)
            )
        except (QueueTimeout, QueueFull):  # a 503 would lose on time just the same
            if not hurries:
                m.busy.inc()  # refused: counted where the refusal is decided
                raise
            return None
        finally:
            waiting.dec()
            trace.queue_wait_s = time.perf_counter() - queued_at
            queue_wait.observe(trace.queue_wait_s)

    async def _search(
        self,
        worker: EngineSlot,
        checked: Checked,
        level: Level,
        seed: int,
        label: str,
        deadline: float,
        trace: MoveTrace,
        time_limit_ms: int | None,
        clock_started: float,
    ) -> tuple[LevelMove, float]:
        """The level's move searched on the leased ``worker`` (given back after), under the
        service's retry policy: at most ``max_attempts`` attempts until the request's
        ``deadline`` (the loop's time); with the search's time.

        A failed attempt gives its engine back to be replaced in the background, and the
        next one leases an engine anew: one that answers (another slot, or the failed
        one's once its replacement passed its start-up), never a replacement started for
        this attempt, which can fail the same way (killed during its ``isready``)."""
        searching = self.metrics.labelled(self.metrics.searches_in_flight, label)
        clock = None if time_limit_ms is None else MoveClock(time_limit_ms, clock_started)
        leased: EngineSlot | None = worker
        elapsed = 0.0
        dirty = True  # until an attempt answers: a failure or cancellation leaves it dirty

        async def attempt() -> LevelMove:
            nonlocal leased, elapsed, dirty
            slot = leased
            if slot is None:
                slot = leased = await self._acquire_again(deadline, trace.client, level)
            trace.engine = slot.index
            trace.attempts += 1
            t0 = time.perf_counter()
            try:
                moved = await slot.play(checked.game, level, seed, checked.legal, clock)
            except EngineFailure:
                leased = None  # replaced in the background
                self.pool.release(slot, dirty=True)
                raise
            elapsed = time.perf_counter() - t0
            dirty = False
            return moved

        searching.inc()
        try:
            since = deadline - self.config.request_deadline(level)
            moved, _ = await self.config.retry_policy(level).run(attempt, since=since)
        except RetryDeadlineExceeded as exc:
            failures = "; ".join(f.reason for f in exc.failures)
            raise DeadlineExceeded(
                f"no engine answer within the request's deadline ({exc.deadline:.1f} s)"
                + (f": {failures}" if failures else "")
            ) from None
        except EngineFailure as exc:
            raise NoEngineAnswer(f"the engine gave no usable answer: {exc}") from None
        finally:
            searching.dec()
            if leased is not None:
                self.pool.release(leased, dirty=dirty)
        return moved, elapsed

    async def _acquire_again(self, deadline: float, client: str, level: Level) -> EngineSlot:
        """An engine for the next attempt, until the request's ``deadline`` (the loop's
        time); a refusal is counted busy."""
        try:
            return await self.pool.acquire(
                deadline - asyncio.get_running_loop().time(),
                client,
                self.config.lane(level),
                _hash_sized_for(level),
            )
        except (QueueTimeout, QueueFull):
            self.metrics.busy.inc()
            raise

    def _hurried(
        self,
        req: MoveRequest,
        checked: Checked,
        level: Level,
        seed: int,
        trace: MoveTrace,
        time_limit_ms: int | None,
    ) -> MoveResponse:
        """The answer when the clock ran out before an engine of the request's lane was
        free: the level's move without a search
        (:func:`ladder.level_engine.level_move.hurried_move`),
        logged and counted."""
        moved = hurried_move(checked.game, level, seed, checked.legal)
        self.metrics.hurried_moves.inc()
        log.warning(
            "no engine was free within the move's time on the clock: moved without a search",
            extra={
                "event": "clock_hurried",
                "variant": req.variant,
                "level": req.level,
                "elo": req.elo,
                "time_limit_ms": time_limit_ms,
                "queue_wait_ms": round((trace.queue_wait_s or 0.0) * 1000, 3),
            },
        )
        return self._respond(req, checked, seed, moved, 0.0, time_limit_ms)

    @staticmethod
    def _label(req: MoveRequest) -> str:
        """The request's `level` label in the metrics: its level, or `elo`."""
        return str(req.level) if req.level is not None else "elo"

    def strength(self, variant: str, level: int | None, elo: float | None) -> Level:
        """The settings a request asks for: a level's, or those interpolated at an Elo
        (:class:`InvalidRequest` when the Elo is off the measured curve)."""
        return move_strength(self.levels, variant, level, elo)

    def _respond(
        self,
        req: MoveRequest,
        checked: Checked,
        seed: int,
        moved: LevelMove,
        elapsed: float,
        time_limit_ms: int | None,
    ) -> MoveResponse:
        """The answer (:func:`~ladder.service.domain.move_answer.move_response`), counted in
        ``moves`` (searched, from the book or hurried), the position after the move judged
        and cached for the game's next request."""
        self.metrics.labelled(self.metrics.moves, req.variant, self._label(req)).inc()
        after = self.positions.after(req.variant, req.fen, tuple(req.moves), checked, moved.move)
        return move_response(
            req, seed, checked.game, after, moved, elapsed, time_limit_ms, self.levels_version
        )

    async def position(self, req: PositionRequest) -> PositionResponse:
        """The rules checker's verdict on a position."""
        checked = await self.positions.judge(req.variant, req.fen, req.moves)
        game = checked.game
        asked = check_notations([*(["wxf"] if req.wxf else []), *req.notations])
        written = (
            # A long game's notation is written off the event loop, like its replay.
            await asyncio.to_thread(_written, asked, req.variant, game)
            if len(req.moves) > INLINE_PLIES
            else _written(asked, req.variant, game)
        )
        return PositionResponse(
            variant=req.variant,
            fen=checked.fen,
            turn=checked.game.turn,  # type: ignore[arg-type]
            # none once the game is over (a draw too): /v1/move refuses every move then
            legal_moves=[] if checked.outcome is not None else sorted(checked.legal),
            check=checked.check,
            outcome=checked.outcome,
            wxf=written["wxf"] if req.wxf else None,
            notations={n: written[n] for n in req.notations} if req.notations else None,
        )

    def level_table(self) -> LevelsResponse:
        """Every level of every variant."""
        out: dict[str, list[LevelInfo]] = {}
        for variant, table in self.levels.items():
            out[variant] = [
                LevelInfo(
                    level=lv.level,
                    nodes=lv.nodes,
                    hash_mb=lv.hash_mb,
                    variety=lv.variety,
                    rating=lv.rating,
                    seconds_per_move=lv.seconds_per_move,
                    expected_seconds=expected[0],
                    expected_source=expected[1],
                    human_reference=human_reference(variant, lv),
                )
                for _, lv in sorted(table.items())
                for expected in [expected_level_time(variant, lv, self.config.level_times)]
            ]
        spans = {v: elo_range(table) for v, table in self.levels.items()}
        return LevelsResponse(
            levels_version=self.levels_version,
            levels=out,
            elo_range={
                v: None if span is None else EloRange(low=span[0], high=span[1])
                for v, span in spans.items()
            },
        )

    def variants(self) -> VariantsResponse:
        """The rule sets served."""
        return VariantsResponse(
            variants=[VariantInfo(id=v, start_fen=start_fen(v)) for v in VARIANT_IDS],
            limits=Limits(max_moves=MAX_MOVES, analysis_max_plies=self.config.analysis_max_plies),
        )

    def health(self) -> Health:
        """Liveness and load."""
        pool = self.pool
        return Health(
            status="ok" if pool.live_count == pool.size else "degraded",
            ready=pool.live_count > 0 and not pool.closed and not self.drain.draining,
            draining=self.drain.draining,
            engines=pool.size,
            engines_alive=pool.alive_count,
            engines_live=pool.live_count,
            engines_busy=pool.busy_count,
            queue_depth=pool.queue_depth,
            max_queue=pool.max_queue,
        )


def _hash_sized_for(level: Level) -> Callable[[EngineSlot], bool]:
    """The pool's preference for `level`: an idle engine whose hash table is the level's
    size already (resizing one, a new table, cleared, costs more than a short search)."""
    hash_mb = level.hash_mb
    return lambda slot: slot.hash_mb == hash_mb


__all__ = ["MoveService", "MoveTrace"]
