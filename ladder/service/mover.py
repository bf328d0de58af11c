"""The move service in-process: validate, queue, search, validate the answer, retry.

:class:`MoveService` is the whole product without HTTP; :mod:`ladder.service.app` puts
it behind FastAPI and :class:`ladder.client.Ladder` can use it directly.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from types import TracebackType

from ladder.level_move import Choice, SearchJob, SearchResult, choose
from ladder.levels import Level, load_levels
from ladder.service.config import ServiceConfig
from ladder.service.errors import ServiceError, deadline_exceeded, engine_failed
from ladder.service.metrics import Metrics
from ladder.service.models import (
    Health,
    LevelInfo,
    LevelsResponse,
    MoveRequest,
    MoveResponse,
    PositionRequest,
    PositionResponse,
    Score,
    VariantInfo,
    VariantsResponse,
)
from ladder.service.pool import EnginePool
from ladder.service.positions import Checked, Positions, start_fen
from ladder.service.worker import EngineWorker, WorkerFactory, WorkerFailure, default_factory
from ladder.variants import FSF_VARIANT, VARIANT_IDS

log = logging.getLogger(__name__)


class MoveService:
    """The ladder's "move at level N" service, in-process.

    ``async with MoveService(ServiceConfig(engines=2)) as svc:``
    ``    reply = await svc.move(MoveRequest(variant="xiangqi", moves=["h3e3"], level=3))``

    Raises :class:`ladder.service.errors.ServiceError` for anything it cannot answer.
    """

    def __init__(
        self,
        config: ServiceConfig | None = None,
        *,
        levels: dict[str, dict[int, Level]] | None = None,
        metrics: Metrics | None = None,
        worker_factory: WorkerFactory | None = None,
    ) -> None:
        self.config = config or ServiceConfig()
        self.levels = levels if levels is not None else load_levels()
        self.metrics = metrics or Metrics()
        self.positions = Positions()
        factory = worker_factory or default_factory(
            self.config, lambda kind: self.metrics.engine_failures.inc(kind)
        )
        self.pool: EnginePool[EngineWorker] = EnginePool(
            factory,
            self.config.engines,
            self.config.max_queue,
            self.config.retry_after_s,
            on_busy=self.metrics.busy.inc,
        )
        m = self.metrics
        m.restart_counter = lambda: float(self.pool.restarts)
        m.add_gauge(
            "ladder_queue_depth", "Requests waiting for an engine.", lambda: self.pool.queue_depth
        )
        m.add_gauge(
            "ladder_engines_busy", "Engines searching or recovering.", lambda: self.pool.busy_count
        )
        m.add_gauge(
            "ladder_engines_alive", "Engine processes running.", lambda: self.pool.alive_count
        )
        m.add_gauge("ladder_engines", "Engines in the pool.", lambda: self.pool.size)

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

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- the API ----------------------------------------------------------------------

    async def move(self, req: MoveRequest) -> MoveResponse:
        """The engine's move at ``req.level`` in the given game."""
        level = self.levels[req.variant][req.level]
        seed = req.seed if req.seed is not None else secrets.randbits(63)
        checked = await self.positions.judge(req.variant, req.fen, req.moves)
        if checked.outcome is not None:
            o = checked.outcome
            raise ServiceError(
                409,
                "game_over",
                f"the game is already over: {o.reason} ({o.result})",
                outcome=o.model_dump(),
            )
        ply = checked.game.game_ply
        variety = level.variety_at(ply)
        fen, moves = checked.game.engine_position()
        job = SearchJob.for_level(FSF_VARIANT[req.variant], fen, moves, level, ply)
        cfg = self.config
        loop = asyncio.get_running_loop()
        budget = cfg.request_deadline(level)
        deadline = loop.time() + budget
        failures: list[str] = []
        choice: Choice | None = None
        result: SearchResult | None = None
        elapsed = 0.0
        async with self.pool.lease(min(cfg.queue_timeout_s, budget)) as lease:
            worker = lease.worker
            try:
                async with asyncio.timeout_at(deadline):
                    for _attempt in range(cfg.max_attempts):
                        t0 = time.perf_counter()
                        try:
                            result = await worker.search(job, checked.legal)
                        except WorkerFailure as exc:
                            lease.dirty = True
                            failures.append(f"engine {worker.index}: {exc}")
                            break  # the manager has already restarted and retried
                        elapsed = time.perf_counter() - t0
                        choice = choose(result, variety, seed, checked.legal)
                        if choice is not None:
                            break
                        # `(none)` or nonsense: replace the process and try again.
                        kind = "none" if result.bestmove is None else "illegal"
                        self.metrics.engine_failures.inc(kind)
                        failures.append(
                            f"engine {worker.index} answered {result.bestmove or '(none)'}"
                        )
                        await worker.kill()
            except TimeoutError:
                lease.dirty = True
                raise deadline_exceeded(
                    f"no engine answer within the request's deadline ({budget:.1f} s)"
                    + (f": {'; '.join(failures)}" if failures else ""),
                    cfg.retry_after_s,
                ) from None
        if choice is None or result is None:
            raise engine_failed(
                "the engine gave no usable answer: " + ("; ".join(failures) or "unknown failure"),
                cfg.retry_after_s,
            )
        self.metrics.search_seconds.observe(elapsed, req.variant, str(req.level))
        self.metrics.moves.inc(req.variant, str(req.level))
        after = self.positions.after(req.variant, req.fen, tuple(req.moves), checked, choice.move)
        return self._answer(req, seed, after, choice, result, elapsed)

    def _answer(
        self,
        req: MoveRequest,
        seed: int,
        after: Checked,
        choice: Choice,
        result: SearchResult,
        elapsed: float,
    ) -> MoveResponse:
        ponder = choice.ponder if choice.ponder in after.legal else None
        line = choice.line
        score = Score(cp=line.cp, mate=line.mate) if line is not None else Score()
        return MoveResponse(
            variant=req.variant,
            level=req.level,
            move=choice.move,
            ponder=ponder,
            score=score,
            depth=line.depth if line is not None else result.depth,
            nodes=result.nodes,
            time_ms=round(elapsed * 1000),
            seed=seed,
            fen=after.fen,
            gives_check=after.check,
            outcome=after.outcome,
        )

    async def position(self, req: PositionRequest) -> PositionResponse:
        """The rules checker's verdict on a position."""
        checked = await self.positions.judge(req.variant, req.fen, req.moves)
        return PositionResponse(
            variant=req.variant,
            fen=checked.fen,
            turn=checked.game.turn,  # type: ignore[arg-type]
            legal_moves=sorted(checked.legal),
            check=checked.check,
            outcome=checked.outcome,
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
                )
                for _, lv in sorted(table.items())
            ]
        return LevelsResponse(levels=out)

    def variants(self) -> VariantsResponse:
        """The rule sets served."""
        return VariantsResponse(
            variants=[VariantInfo(id=v, start_fen=start_fen(v)) for v in VARIANT_IDS]
        )

    def health(self) -> Health:
        """Liveness and load."""
        pool = self.pool
        return Health(
            status="ok" if pool.alive_count == pool.size else "degraded",
            engines=pool.size,
            engines_alive=pool.alive_count,
            engines_busy=pool.busy_count,
            queue_depth=pool.queue_depth,
            max_queue=pool.max_queue,
        )


__all__ = ["MoveService"]
