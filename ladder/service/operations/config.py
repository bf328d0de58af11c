"""Service settings: pool size, queue bound, deadlines, limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ladder.cpus import usable_cpus
from ladder.level_times import LevelTimes
from ladder.levels import LEVELS_FILE, Level
from ladder.rules.errors import MAX_FEN_LENGTH, MAX_MOVE_LENGTH
from ladder.variants import VARIANTS_INI
from protocol.retry import ATTEMPTS, RetryPolicy

#: Largest request body accepted (bytes); bigger bodies get 413.
MAX_BODY_BYTES = 64 * 1024
#: Longest FEN accepted (characters): the rules checker's bound.
MAX_FEN_CHARS = MAX_FEN_LENGTH
#: Longest single move string accepted (characters): the rules checker's bound.
MAX_MOVE_CHARS = MAX_MOVE_LENGTH
#: No Elo above this is ever asked for (the ladder's top is far below it).
MAX_ELO = 5000
#: Seeds are 63-bit non-negative integers.
MAX_SEED = 2**63 - 1
#: The pool's lanes for move requests (ladder.service.engines.pool): fast levels, slow levels.
SHORT_LANE = "short"
LONG_LANE = "long"


def _default_engines() -> int:
    """One engine per CPU this process may use (affinity and cgroup quota, not the
    host's cores): a container limited to 2 CPUs on a 64-core host starts 2."""
    return usable_cpus()


@dataclass(frozen=True)
class ServiceConfig:
    """How the move service runs.

    A request waits for a free engine in a queue of at most ``max_queue`` requests; a
    request that finds the queue full is refused at once ("busy"). Each search has a
    timeout of ``search_timeout_base_s + level.nodes / min_nps`` seconds, after which the
    engine counts as hung: it is killed and the search retried on a fresh process, at
    most ``max_attempts`` tries in all. A request's deadline is ``queue_timeout_s`` plus
    ``max_attempts`` attempt budgets, and nothing the service does for a request
    outlives it.
    """

    engines: int = field(default_factory=_default_engines)
    levels_file: Path = LEVELS_FILE  #: the strength levels served
    #: Each level's time a move measured on this machine (`ladder levels --measure`),
    #: what /v1/levels answers; None: the calibrated or estimated times.
    level_times: LevelTimes | None = None
    max_queue: int = 32
    queue_timeout_s: float = 10.0
    search_timeout_base_s: float = 2.0
    min_nps: float = 50_000.0
    max_attempts: int = ATTEMPTS
    startup_timeout_s: float = 10.0
    isready_timeout_s: float = 3.0
    stop_timeout_s: float = 1.0
    engine_path: Path | None = None
    variants_ini: Path = VARIANTS_INI
    max_body_bytes: int = MAX_BODY_BYTES
    retry_after_s: int = 1
    #: Answer valid ``POST /v1/move`` requests without FastAPI's generic request
    #: handling (the fast path of :class:`ladder.service.http.middleware.ServiceGate`);
    #: same answers, less CPU.
    move_fast_path: bool = True
    #: Recycle an engine between searches when its RSS exceeds this (MiB); None: never
    #: (the engine's memory is bounded by its Hash option; the check costs ~0.15 ms).
    engine_max_rss_mb: int | None = None
    #: How often (s) the pool replaces idle engines that died, and CPU and memory are
    #: sampled for the metrics.
    watch_interval_s: float = 1.0
    #: An idle engine is sent ``isready`` when it has not answered anything for this
    #: long (s), and replaced if it does not answer within ``check_timeout_s``: a
    #: frozen engine is found within about the sum of the two and the watch interval.
    check_interval_s: float = 2.0
    check_timeout_s: float = 1.0
    #: Levels searching more nodes than this are *long* jobs (the pool's ``long`` lane,
    #: levels 7 and 8 of the shipped ladder); the others *short* ones.
    long_search_nodes: int = 100_000
    #: Engines a long job never takes: kept for short ones, so that a fast level never
    #: waits for a slow search (None: 1 with two engines or more, else 0).
    short_engines: int | None = None
    #: A file of API keys (one per line, ``#`` comments): every ``/v1/*`` request then
    #: needs ``Authorization: Bearer KEY``. None: no keys.
    api_keys_file: Path | None = None
    #: Requests per minute per key (or per client address without keys); None: no limit.
    rate_limit_per_minute: int | None = None
    #: Requests per minute from one client address without a valid key (when the
    #: service has keys), before they are refused 429: a key cannot be guessed.
    bad_key_limit_per_minute: int = 30
    #: ``Host`` header values accepted (``*.example.com`` matches subdomains); empty: any.
    allowed_hosts: tuple[str, ...] = ()
    #: Origins allowed to call the API from a browser (CORS); empty: none.
    cors_origins: tuple[str, ...] = ()
    #: Serve the /play page (ladder.service.http.play_page); ``ladder serve --no-play`` turns it
    #: off.
    play_page: bool = True
    #: Game analysis (``POST /v1/analysis``, ladder.service.domain.analyser): nodes a position
    #: when the request names none (a 100-ply game in under a minute on one core), the
    #: most a request may ask for, the most plies a game may have, the analyses one
    #: client may run at once, and the finished analyses kept (per process).
    analysis_nodes: int = 150_000
    analysis_max_nodes: int = 2_000_000
    analysis_max_plies: int = 400
    analysis_jobs_per_client: int = 2
    analysis_cache_games: int = 64

    def __post_init__(self) -> None:
        if self.engines < 1:
            raise ValueError(f"engines must be at least 1 (got {self.engines})")
        if self.max_queue < 0:
            raise ValueError(f"max queue must be 0 or more (got {self.max_queue})")
        if self.max_attempts < 1:
            raise ValueError(f"max attempts must be at least 1 (got {self.max_attempts})")
        if self.rate_limit_per_minute is not None and self.rate_limit_per_minute < 1:
            raise ValueError(f"rate limit must be at least 1 (got {self.rate_limit_per_minute})")
        if self.short_engines is not None and self.short_engines < 0:
            raise ValueError(f"short engines must be 0 or more (got {self.short_engines})")
        if not 1 <= self.analysis_nodes <= self.analysis_max_nodes:
            raise ValueError(
                f"analysis nodes must be 1 to the maximum, {self.analysis_max_nodes} "
                f"(got {self.analysis_nodes})"
            )
        if self.analysis_max_plies < 1 or self.analysis_jobs_per_client < 1:
            raise ValueError("analysis max plies and jobs per client must be at least 1")
        if self.analysis_cache_games < 0:
            raise ValueError(f"analysis cache must be 0 or more (got {self.analysis_cache_games})")
        if self.engine_max_rss_mb is not None and self.engine_max_rss_mb < 1:
            raise ValueError(
                f"engine max RSS must be at least 1 MiB (got {self.engine_max_rss_mb})"
            )

    @property
    def lane_caps(self) -> dict[str, int | None]:
        """The pool's lanes: short jobs may take any engine, long ones all but the
        ``short_engines`` (and always at least one)."""
        reserved = min(1, self.engines - 1) if self.short_engines is None else self.short_engines
        return {SHORT_LANE: None, LONG_LANE: max(1, self.engines - reserved)}

    def lane(self, level: Level) -> str:
        """The lane of a move at `level`: long when it may search more than
        ``long_search_nodes``."""
        return LONG_LANE if self.search_nodes(level) > self.long_search_nodes else SHORT_LANE

    def search_nodes(self, level: Level) -> int:
        """The most nodes a search at `level` may take (a blend of two levels may
        search as the stronger one does)."""
        return max(level.nodes, level.blend.stronger.nodes) if level.blend else level.nodes

    def search_timeout(self, level: Level) -> float:
        """Seconds one search at `level` may take before the engine counts as hung (a
        blend of two levels may search as the stronger one does)."""
        return self.search_timeout_base_s + self.search_nodes(level) / self.min_nps

    def attempt_budget(self, level: Level) -> float:
        """Seconds one attempt may take: a restart, a sync and the search."""
        return self.search_timeout(level) + self.isready_timeout_s + 1.0

    def request_deadline(self, level: Level) -> float:
        """Seconds a move request at `level` may take in all, queueing and retries included."""
        return self.queue_timeout_s + self.max_attempts * self.attempt_budget(level)

    def retry_policy(self, level: Level | None = None) -> RetryPolicy:
        """How the service tries a search, each attempt on whichever engine is free:
        ``max_attempts`` attempts, within the request's deadline for a move at
        ``level`` (None, an analysis position: each lease waits ``queue_timeout_s``
        at most, each search its own timeout)."""
        deadline = None if level is None else self.request_deadline(level)
        return RetryPolicy(self.max_attempts, deadline)
