"""Game analysis as a service job (``POST /v1/analysis``): a stream, stateless across
instances, sharing the move service's engines without slowing its moves.

**The design.** An analysis is deterministic: each position is searched at a fixed node
budget on a fresh game with one thread and a fixed Hash (:mod:`ladder.analysis.search`),
so the same request gives the same lines on any instance of the same engine build. The
job is therefore no stored resource but a stream: the answer is NDJSON, a ``start``
line, one ``ply`` line per ply as soon as it is done, then a ``summary`` line. Progress
is the lines received; cancelling is closing the stream (the disconnect cancels the
search under way, and the engine is brought back in sync before its next use); a stream
cut short (a lost connection, an instance stopping: its last line is an ``error`` with
``resume_from_ply``) is resumed on any instance with ``from_ply``. Nothing is lost with
an instance but its cache.

**The scheduler.** Every position is one lease of an engine from the move service's own
pool (:mod:`ladder.service.engines.pool`), in its ``long`` lane: the lane that never takes the
engines kept for the fast levels (``--short-engines``), so a level-1 move never waits
behind an analysis. A job holds one engine at a time and gives it back after each
position, so a level-7 or level-8 move waits for at most one analysis position. An
engine that fails mid-job is replaced and that position searched again (the service's
retry policy: at most ``max_attempts`` attempts).

**The cache.** Each instance keeps the last ``analysis_cache_games`` finished analyses,
keyed by variant, start FEN, moves, nodes and engine build: the same game at the same
budget is streamed again without a search. A restart empties it.

**Limits.** ``analysis_max_nodes`` a position, ``analysis_max_plies`` a game,
``analysis_jobs_per_client`` streams at once per key (or client address), per process.
A stream is counted when it is admitted, in the same step as the check (no await
between them: requests sent at the same moment cannot all pass it), and uncounted when
its response ends, whether or not its stream ever started.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from ladder.analysis.plies import PlyAnalysis
from ladder.analysis.runner import AnalysisInputError, GamePositions, analyse
from ladder.analysis.search import Evaluation
from ladder.analysis.summary import summarise
from ladder.engine_binary import engine_build_key
from ladder.notation.by_name import line_in, move_in
from ladder.rules import Game
from ladder.service.domain.analysis_models import (
    AnalysisError,
    AnalysisPly,
    AnalysisRequest,
    AnalysisStart,
    AnalysisSummary,
    SideSummary,
)
from ladder.service.domain.errors import (
    ErrorCode,
    InvalidRequest,
    NoEngineAnswer,
    ServiceError,
    TooManyAnalyses,
)
from ladder.service.domain.models import ErrorDetail
from ladder.service.domain.mover import MoveService
from ladder.service.domain.recent import RecentCache
from ladder.service.domain.status import as_service_error
from ladder.service.engines.pool import PoolError, QueueFull, QueueTimeout
from ladder.service.operations.config import LONG_LANE
from protocol.errors import EngineFailure

log = logging.getLogger("ladder.analysis")

__all__ = ["Admission", "Analyser", "AnalysisCache", "PreparedAnalysis"]

CacheKey = tuple[str, str, tuple[str, ...], int, str]


class AnalysisCache(RecentCache[CacheKey, list[PlyAnalysis]]):
    """The last finished analyses (their plies), least recently used dropped first."""


class Admission:
    """One client's stream counted against its limit until :meth:`release` (idempotent:
    the stream's end and its response's end both call it)."""

    def __init__(self, running: dict[str, int], client: str) -> None:
        self._running = running
        self._client = client
        self._held = True
        running[client] = running.get(client, 0) + 1

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        left = self._running.get(self._client, 1) - 1
        if left > 0:
            self._running[self._client] = left
        else:
            self._running.pop(self._client, None)


@dataclass(frozen=True)
class PreparedAnalysis:
    """A request accepted: the game judged, the budget settled, the client named and
    counted (:attr:`admission`)."""

    game: GamePositions
    nodes: int
    from_ply: int
    client: str
    key: CacheKey
    admission: Admission
    notations: tuple[str, ...] = ()


def _ply_line(ply: PlyAnalysis, job: PreparedAnalysis) -> AnalysisPly:
    """A ply's line, with its moves in the notations the request asked for (written here,
    not cached: the cache holds one analysis for every notation)."""
    line = ply.to_dict()
    if job.notations:
        game, best = job.game.positions[ply.ply - 1], ply.before.best
        line["notations"] = {
            n: {
                "move": move_in(n, game, ply.move),
                "best": None if best is None else move_in(n, game, best),
                "pv": line_in(n, game, ply.before.pv),
            }
            for n in job.notations
        }
    return AnalysisPly.model_validate(line)


def _line(model: AnalysisStart | AnalysisPly | AnalysisSummary | AnalysisError) -> bytes:
    return model.model_dump_json().encode() + b"\n"


class Analyser:
    """The analysis job of one :class:`~ladder.service.domain.mover.MoveService` (its pool,
    positions, settings, metrics and drain)."""

    def __init__(self, service: MoveService) -> None:
        self.service = service
        self.cache = AnalysisCache(service.config.analysis_cache_games)
        self.engine = engine_build_key(service.config.engine_path)
        self._running: dict[str, int] = {}  #: streams running, per client

    @property
    def streams(self) -> int:
        """Analyses streaming now (a stop ends each at its next ply: resumed elsewhere)."""
        return sum(self._running.values())

    async def prepare(self, req: AnalysisRequest, client: str) -> PreparedAnalysis:
        """Judge the request before anything streams: a bad one is refused as
        ``/v1/move`` refuses one (:class:`~ladder.service.domain.errors.RequestRejected`)."""
        cfg = self.service.config
        refused = self.service.metrics.analyses.labels("refused")  # over one of its limits
        nodes = cfg.analysis_nodes if req.nodes is None else req.nodes
        if nodes > cfg.analysis_max_nodes:
            refused.inc()
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"nodes: at most {cfg.analysis_max_nodes} a position on this service",
                field="nodes",
            )
        if req.from_ply > len(req.moves) + 1:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"from_ply: the game has {len(req.moves)} plies",
                field="from_ply",
            )
        # The bound is on the plies searched (from from_ply on), not on the game: a longer
        # game is analysed in parts, each a request from the ply the last one stopped at.
        analysed = len(req.moves) - req.from_ply + 1
        if analysed > cfg.analysis_max_plies:
            refused.inc()
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"moves: at most {cfg.analysis_max_plies} plies are analysed in one request "
                f"({analysed} from ply {req.from_ply}); analyse a longer game in parts with "
                "from_ply",
                field="moves",
            )
        # the rules checker's verdict, worded as /v1/move's (the ply of an illegal move)
        await self.service.positions.judge(req.variant, req.fen, req.moves)
        try:
            game = await asyncio.to_thread(GamePositions, req.variant, req.fen, req.moves)
        except AnalysisInputError as exc:  # judged above: not expected
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, str(exc), field=exc.field) from None
        # checked and counted in one step, after the last await (see the module docstring)
        if self._running.get(client, 0) >= cfg.analysis_jobs_per_client:
            refused.inc()
            raise TooManyAnalyses(
                ErrorCode.TOO_MANY_ANALYSES,
                f"this client runs {cfg.analysis_jobs_per_client} analyses already; close "
                "one or wait for it to finish",
            )
        key = (game.variant, game.start_fen, game.moves, nodes, self.engine)
        return PreparedAnalysis(
            game,
            nodes,
            req.from_ply,
            client,
            key,
            Admission(self._running, client),
            tuple(req.notations),
        )

    async def stream(self, job: PreparedAnalysis) -> AsyncIterator[bytes]:
        """The NDJSON lines of ``job`` (see the module docstring)."""
        m = self.service.metrics
        m.analyses_running.inc()
        cached = self.cache.get(job.key)
        outcome = "cancelled"
        sent = job.from_ply  # the next ply to send
        try:
            g = job.game
            yield _line(
                AnalysisStart(
                    variant=g.variant,
                    fen=g.start_fen,
                    plies=g.plies,
                    from_ply=job.from_ply,
                    nodes=job.nodes,
                    engine=self.engine,
                    cached=cached is not None,
                )
            )
            plies: list[PlyAnalysis] = []
            source = _replay(cached, job.from_ply) if cached is not None else self._search(job)
            try:
                async for ply in source:
                    plies.append(ply)
                    yield _line(_ply_line(ply, job))
                    sent = ply.ply + 1
                    if self.service.drain.draining and sent <= g.plies:
                        raise ServiceError(
                            503,
                            ErrorCode.SHUTTING_DOWN,
                            "this instance is stopping; resume on another",
                            retry_after=self.service.config.retry_after_s,
                        )
            except (PoolError, NoEngineAnswer, ServiceError) as exc:
                outcome = "failed"
                yield self._error_line(exc, sent)
                return
            if cached is None and job.from_ply == 1:
                self.cache.put(job.key, plies)
            summary = summarise(plies)
            yield _line(
                AnalysisSummary(
                    from_ply=job.from_ply,
                    plies=g.plies,
                    red=SideSummary.model_validate(summary["red"].to_dict()),
                    black=SideSummary.model_validate(summary["black"].to_dict()),
                )
            )
            outcome = "cached" if cached is not None else "done"
        finally:
            m.analyses.labels(outcome).inc()
            m.analyses_running.dec()
            job.admission.release()
            if outcome == "cancelled":
                log.info(
                    "analysis cancelled at ply %d of %d",
                    sent,
                    job.game.plies,
                    extra={
                        "event": "analysis_cancelled",
                        "client": job.client,
                        "resume_from_ply": sent,
                    },
                )

    def _error_line(self, exc: Exception, resume: int) -> bytes:
        retry = self.service.config.retry_after_s
        error = exc if isinstance(exc, ServiceError) else as_service_error(exc, retry)
        log.warning(
            "analysis stopped at ply %d: %s",
            resume,
            error.message,
            extra={"event": "analysis_failed", "code": error.code, "resume_from_ply": resume},
        )
        detail = ErrorDetail.model_validate(error.to_dict()["error"])
        return _line(AnalysisError(error=detail, resume_from_ply=resume))

    async def _search(self, job: PreparedAnalysis) -> AsyncIterator[PlyAnalysis]:
        async def evaluate(game: Game) -> Evaluation:
            return await self._evaluate(game, job)

        async for ply in analyse(job.game, [evaluate], job.from_ply):
            yield ply

    async def _evaluate(self, game: Game, job: PreparedAnalysis) -> Evaluation:
        """One position on the pool's long lane under the service's retry policy, one
        attempt per lease (a failed engine is replaced before its next lease)."""
        cfg, pool, m = self.service.config, self.service.pool, self.service.metrics
        legal = frozenset(game.legal_moves())

        async def attempt() -> Evaluation:
            queued = time.perf_counter()
            try:
                async with pool.lease(cfg.queue_timeout_s, job.client, LONG_LANE) as lease:
                    m.analysis_queue_wait_seconds.observe(time.perf_counter() - queued)
                    started = time.perf_counter()
                    try:
                        evaluation = await lease.worker.analyse(game, job.nodes, legal)
                    except EngineFailure:
                        lease.dirty = True  # replaced before its next lease
                        raise
            except (QueueFull, QueueTimeout):  # no engine: the analysis stops (resumable)
                m.busy.inc()  # refused: counted where the refusal is decided
                raise
            m.analysis_search_seconds.observe(time.perf_counter() - started)
            return evaluation

        try:
            evaluation, _ = await cfg.retry_policy().run(attempt)
        except EngineFailure as exc:
            raise NoEngineAnswer(
                f"the engine gave no usable answer for position {game.ply}: {exc}"
            ) from None
        m.analysis_plies.labels(job.game.variant).inc()
        return evaluation


async def _replay(plies: list[PlyAnalysis], from_ply: int) -> AsyncIterator[PlyAnalysis]:
    for ply in plies[from_ply - 1 :]:
        yield ply
