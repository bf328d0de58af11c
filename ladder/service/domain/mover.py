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
from ladder.notation.by_name import check_notations, moves_in
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
from ladder.service.operations.metrics import Metrics, MoveSeries
from ladder.variants import VARIANT_IDS
from protocol.errors import EngineFailure
from protocol.retry import RetryDeadlineExceeded, RetryPolicy

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


@dataclass(frozen=True)
class MovePlan:
    """What the service does for a move at one level, worked out once (at start for the
    levels of the table, for each move at an Elo): its lane of the pool, the request's
    deadline and one attempt's budget (:class:`ServiceConfig`), the retry policy, and
    the engines it would rather have."""

    level: Level
    lane: str
    deadline_s: float  #: the queue's wait and every attempt's (ServiceConfig.request_deadline)
    attempt_s: float  #: one attempt's (ServiceConfig.attempt_budget)
    policy: RetryPolicy
    #: An idle engine whose hash table is the level's size already (resizing one, a new
    #: table, cleared, costs more than a short search): the pool's preference.
    prefer: Callable[[EngineSlot], bool]

    @classmethod
    def of(cls, config: ServiceConfig, level: Level) -> MovePlan:
        hash_mb = level.hash_mb
        return cls(
            level,
            config.lane(level),
            config.request_deadline(level),
            config.attempt_budget(level),
            config.retry_policy(level),
            lambda slot: slot.hash_mb == hash_mb,
        )


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
        #: Each level's plan, by the level's id (checked to be that level).
        self._plans = {
            id(lv): MovePlan.of(self.config, lv)
            for table in self.levels.values()
            for lv in table.values()
        }
        m.engines.set(self.pool.size)
        m.set_build(self.config.engine_path)

    def _pool_changed(self) -> None:
        """The pool's gauges, set from its state: when its engines change, at its watch's
        tick (every ``watch_interval_s``) and at every scrape (:meth:`sample_metrics`),
        never on a move's lease and release (under ``--workers N`` another process's
        figures are those of its last tick)."""
        pool, m = self.pool, self.metrics
        m.queue_depth.set(pool.queue_depth)
        m.engines_busy.set(pool.busy_count)
        m.engines_alive.set(pool.alive_count)
        m.engines_live.set(pool.live_count)
        for lane in pool.lanes:
            m.lane_in_flight.labels(lane).set(pool.in_lane(lane))

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
        level = move_strength(self.levels, req.variant, req.level, req.elo)
        checked = await self.positions.judge(req.variant, req.fen, req.moves)
        check_not_over(checked)
        time_limit_ms = request_time_limit_ms(req)
        series = self.metrics.move_series(req.variant, req.level)
        booked = book_move(checked.game, level, seed)
        if booked is not None:  # no engine needed: never queued behind searches
            return self._respond(req, checked, seed, booked, 0.0, time_limit_ms, series)
        plan = self._plans.get(id(level))
        if plan is None or plan.level is not level:  # an Elo's settings: made for this move
            plan = MovePlan.of(self.config, level)
        started = asyncio.get_running_loop().time()  # the request's deadline counts from here
        worker = await self._lease(plan, series, trace, time_limit_ms, clock_started)
        if worker is None:
            return self._hurried(req, checked, level, seed, trace, time_limit_ms, series)
        clock = None if time_limit_ms is None else MoveClock(time_limit_ms, clock_started)
        moved, elapsed = await self._search(
            worker, checked, plan, seed, started, series, trace, clock
        )
        series.search_seconds.observe(elapsed)
        return self._respond(req, checked, seed, moved, elapsed, time_limit_ms, series)

    async def _lease(
        self,
        plan: MovePlan,
        series: MoveSeries,
        trace: MoveTrace,
        time_limit_ms: int | None,
        clock_started: float,
    ) -> EngineSlot | None:
        """An engine for the move, waited for in the queue (counted in ``series``);
        None when the move's time on the clock ran out first (or the queue was full)."""
        # On a clock, the move's time bounds the wait, not --queue-timeout: an engine that
        # frees up after it would lose the game on time, and a 503 before it would refuse
        # a move the clock still has time for. Past it (or at once if the queue is full
        # and nobody's request there is over its fair share) the move is played without a
        # search. (A very long move time is cut where the request's deadline keeps one
        # attempt's time for the search.)
        wait = min(self.config.queue_timeout_s, plan.deadline_s)
        if time_limit_ms is not None:
            on_clock = time_limit_ms / 1000 - (time.monotonic() - clock_started)
            wait = max(0.0, min(on_clock, plan.deadline_s - plan.attempt_s))
        series.queued.inc()
        queued_at = time.perf_counter()
        try:
            return await self.pool.acquire(wait, trace.client, plan.lane, plan.prefer)
        except (QueueTimeout, QueueFull):  # a 503 would lose on time just the same
            if time_limit_ms is None:
                self.metrics.busy.inc()  # refused: counted where the refusal is decided
                raise
            return None
        finally:
            series.queued.dec()
            trace.queue_wait_s = time.perf_counter() - queued_at
            series.queue_wait.observe(trace.queue_wait_s)

    async def _search(
        self,
        worker: EngineSlot,
        checked: Checked,
        plan: MovePlan,
        seed: int,
        started: float,
        series: MoveSeries,
        trace: MoveTrace,
        clock: MoveClock | None,
    ) -> tuple[LevelMove, float]:
        """The level's move searched on the leased ``worker`` (given back after), under the
        plan's retry policy: at most ``max_attempts`` attempts within the request's
        deadline, counted from ``started`` (the loop's time); with the search's time.

        A failed attempt gives its engine back to be replaced in the background, and the
        next one leases an engine anew: one that answers (another slot, or the failed
        one's once its replacement passed its start-up), never a replacement started for
        this attempt, which can fail the same way (killed during its ``isready``)."""
        leased: EngineSlot | None = worker
        elapsed = 0.0
        dirty = True  # until an attempt answers: a failure or cancellation leaves it dirty

        async def attempt() -> LevelMove:
            nonlocal leased, elapsed, dirty
            slot = leased
            if slot is None:
                slot = leased = await self._acquire_again(started + plan.deadline_s, trace, plan)
            trace.engine = slot.index
            trace.attempts += 1
            t0 = time.perf_counter()
            try:
                moved = await slot.play(checked.game, plan.level, seed, checked.legal, clock)
            except EngineFailure:
                leased = None  # replaced in the background
                self.pool.release(slot, dirty=True)
                raise
            elapsed = time.perf_counter() - t0
            dirty = False
            return moved

        series.searching.inc()
        try:
            moved, _ = await plan.policy.run(attempt, since=started)
        except RetryDeadlineExceeded as exc:
            failures = "; ".join(f.reason for f in exc.failures)
            raise DeadlineExceeded(
                f"no engine answer within the request's deadline ({exc.deadline:.1f} s)"
                + (f": {failures}" if failures else "")
            ) from None
        except EngineFailure as exc:
            raise NoEngineAnswer(f"the engine gave no usable answer: {exc}") from None
        finally:
            series.searching.dec()
            if leased is not None:
                self.pool.release(leased, dirty=dirty)
        return moved, elapsed

    async def _acquire_again(self, deadline: float, trace: MoveTrace, plan: MovePlan) -> EngineSlot:
        """An engine for the next attempt, until the request's ``deadline`` (the loop's
        time); a refusal is counted busy."""
        try:
            return await self.pool.acquire(
                deadline - asyncio.get_running_loop().time(), trace.client, plan.lane, plan.prefer
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
        series: MoveSeries,
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
        return self._respond(req, checked, seed, moved, 0.0, time_limit_ms, series)

    def _respond(
        self,
        req: MoveRequest,
        checked: Checked,
        seed: int,
        moved: LevelMove,
        elapsed: float,
        time_limit_ms: int | None,
        series: MoveSeries,
    ) -> MoveResponse:
        """The answer (:func:`~ladder.service.domain.move_answer.move_response`), counted in
        ``moves`` (searched, from the book or hurried), the position after the move judged
        and cached for the game's next request."""
        series.moves.inc()
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


__all__ = ["MoveService", "MoveTrace"]
