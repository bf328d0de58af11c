"""The match driver: schedule, resume, run on a backend, store, stop on SPRT, show progress.

:func:`execute` runs a list of game tasks through a backend, skipping those already in
the database, keeping every slot busy, storing each record as it arrives, and stopping
early when a callback says so (a decided SPRT) or a time budget runs out.
:func:`run_match` is ``ladder match``: one head-to-head match built from a
:class:`MatchConfig`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ladder.level_move import derive_seed
from ladder.match.adjudication import Adjudication
from ladder.match.backends import Backend, make_backend
from ladder.match.exit_codes import ExitCode
from ladder.match.json_output import document_head, game_entry, write_json
from ladder.match.openings import Opening, schedule, suite_digest
from ladder.match.pgn import format_pgn
from ladder.match.play import GameRecord, GameTask
from ladder.match.player_specs import PlayerSpec
from ladder.match.players import PlayerError, probe
from ladder.match.sprt import Sprt, SprtDecision
from ladder.match.store import ResultStore
from ladder.match.summary import MatchStats, match_stats

__all__ = [
    "EngineFailureLimit",
    "ExecuteResult",
    "MatchConfig",
    "MatchError",
    "MatchRun",
    "PgnOptions",
    "RunOptions",
    "execute",
    "failure_code",
    "play_match",
    "progress_bar",
    "run_match",
]


class MatchError(RuntimeError):
    """A game task failed (a worker died, a bug): the match stops; what was stored
    stays, and running the command again resumes."""


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
        failures = sum(r.reason == "engine-failure" for r in store.records(match_ids))
    over_limit: GameRecord | None = None
    pending: list[GameTask] = []
    done_by_match: dict[str, set[int]] = {}
    for t in tasks:
        done = done_by_match.setdefault(t.match_id, store.done_games(t.match_id))
        if t.game_no in done:
            res.skipped += 1
        else:
            pending.append(t)
    pending.reverse()  # pop() from the end keeps the schedule order
    start = time.perf_counter()
    in_flight: dict[Any, GameTask] = {}
    stop = False
    failure: BaseException | None = None
    try:
        while pending or in_flight:
            if budget_seconds is not None and time.perf_counter() - start > budget_seconds:
                stop = True
            while pending and not stop and len(in_flight) < backend.slots:
                task = pending.pop()
                in_flight[backend.submit(task)] = task
            if not in_flight:
                break
            for handle, outcome in backend.wait(list(in_flight), timeout=1.0):
                task = in_flight.pop(handle)
                if isinstance(outcome, BaseException):
                    failure = failure or outcome
                    stop = True
                    continue
                if outcome.reason == "engine-failure" and max_engine_failures is not None:
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
    except BaseException:
        backend.close(cancel=True)
        raise
    res.stopped_early = stop and bool(pending)
    res.wall_seconds = time.perf_counter() - start
    if failure is not None:
        raise MatchError(f"a game failed: {type(failure).__name__}: {failure}") from failure
    if over_limit is not None:
        error = next((i["error"] for i in reversed(over_limit.infos) if "error" in i), "?")
        allowed = (
            "no engine failure is allowed without --recover"
            if not max_engine_failures
            else f"more than the {max_engine_failures} allowed"
        )
        raise EngineFailureLimit(
            f"game {over_limit.game_no} of {over_limit.match_id} lost to an engine "
            f"failure ({allowed}): {error}"
        )
    return res


@dataclass
class MatchConfig:
    """One head-to-head match (``ladder match``)."""

    variant: str
    player_a: PlayerSpec
    player_b: PlayerSpec
    openings: list[Opening]
    games: int = 100
    seed: int = 1
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    tag: str = "match"
    name: str | None = None
    openings_order: str = "random"  #: "random" or "sequential" (see openings.schedule)
    repeat: int = 2  #: 2: each opening twice, colours swapped; 1: a new one every game

    def identity(self) -> dict[str, Any]:
        """What decides the games (the match id is its digest; ``games`` is not part of
        it, so a bigger ``--games`` extends a match)."""
        ident: dict[str, Any] = {
            "variant": self.variant,
            "a": self.player_a.identity_text(),
            "b": self.player_b.identity_text(),
            "a_name": self.player_a.name,
            "b_name": self.player_b.name,
            "openings": suite_digest(self.openings),
            "seed": self.seed,
            "adjudication": asdict(self.adjudication),
        }
        # Only when set, so that the ids of matches without them stay as they were.
        for key, spec in (("a_settings", self.player_a), ("b_settings", self.player_b)):
            if settings := spec.settings(self.variant):
                ident[key] = settings
        if self.openings_order != "random":
            ident["openings_order"] = self.openings_order
        if self.repeat != 2:
            ident["repeat"] = self.repeat
        return ident

    def digest(self) -> str:
        """Short digest of :meth:`identity`."""
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]

    @property
    def match_id(self) -> str:
        if self.name:
            return self.name
        return f"{self.variant}:{self.player_a.name}-vs-{self.player_b.name}:{self.digest()}"

    def tasks(self) -> list[GameTask]:
        """The scheduled games, in order."""
        mid = self.match_id
        out = []
        order, repeat = self.openings_order, self.repeat
        for slot in schedule(len(self.openings), self.games, self.seed, order, repeat):
            a, b = self.player_a, self.player_b
            red, black = (a, b) if slot.a_is_red else (b, a)
            out.append(
                GameTask(
                    match_id=mid,
                    game_no=slot.game_no,
                    pair_no=slot.pair_no,
                    opening_no=slot.opening_no,
                    variant=self.variant,
                    opening=self.openings[slot.opening_no],
                    red=red,
                    black=black,
                    red_slot="A" if slot.a_is_red else "B",
                    seed=derive_seed(self.seed, mid, slot.game_no),
                    adjudication=self.adjudication,
                    event=f"ladder {self.tag}",
                )
            )
        return out

    def register(self, store: ResultStore) -> None:
        store.ensure_match(
            self.match_id,
            tag=self.tag,
            variant=self.variant,
            player_a=self.player_a.name,
            player_b=self.player_b.name,
            config={**self.identity(), "games": self.games},
        )


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[figures]}"),
        console=console,
        disable=not console.is_terminal,
        refresh_per_second=4,
    )


@dataclass(frozen=True)
class PgnOptions:
    """Where and how a run writes its games as PGN (:func:`ladder.match.pgn.format_pgn`)."""

    path: Path
    notation: str = "wxf"
    minimal: bool = False

    def render(self, record: GameRecord) -> str:
        if self.notation == "wxf" and not self.minimal and record.pgn:
            return record.pgn  # what the worker wrote, the same text
        return format_pgn(record, notation=self.notation, minimal=self.minimal)


class PgnWriter:
    """A run's PGN file: rewritten from the database at the start, appended to as games
    finish, rewritten in game order at the end (which also repairs a killed run's)."""

    def __init__(self, options: PgnOptions | None, store: ResultStore, match_ids: list[str]):
        self.options, self.store, self.match_ids = options, store, match_ids
        self._file: TextIO | None = None
        if options is not None:
            self._rewrite()
            self._file = options.path.open("a")

    def add(self, record: GameRecord) -> None:
        if self._file is not None and self.options is not None:
            self._file.write(self.options.render(record) + "\n")
            self._file.flush()

    def _rewrite(self) -> None:
        assert self.options is not None
        path = self.options.path
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w") as f:
            for record in self.store.records(self.match_ids):
                f.write(self.options.render(record) + "\n")
        tmp.replace(path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._rewrite()


def match_exit_code(stats: MatchStats) -> ExitCode:
    """DONE, or the SPRT's decision."""
    if stats.sprt is not None and stats.sprt.decision is SprtDecision.H0:
        return ExitCode.SPRT_H0
    if stats.sprt is not None and stats.sprt.decision is SprtDecision.H1:
        return ExitCode.SPRT_H1
    return ExitCode.DONE


def match_document(
    config: MatchConfig, stats: MatchStats, records: Sequence[GameRecord], code: ExitCode | None
) -> dict[str, Any]:
    """The ``--json`` document of a match (:mod:`ladder.match.json_output`)."""
    head = document_head(
        "match",
        code,
        config,
        games=config.games,
        sprt=None if config.sprt is None else asdict(config.sprt),
    )
    return {
        **head,
        "match_id": config.match_id,
        "players": {
            "a": {**config.player_a.describe(), **config.player_a.settings(config.variant)},
            "b": {**config.player_b.describe(), **config.player_b.settings(config.variant)},
        },
        "result": stats.as_dict(),
        "games": [game_entry(r) for r in sorted(records, key=lambda r: r.game_no)],
    }


@dataclass
class MatchRun:
    """What :func:`play_match` did: the figures over all stored games, this run's work,
    and the exit code."""

    stats: MatchStats
    result: ExecuteResult
    code: ExitCode
    error: str | None = None  #: the one-line reason when the code is a failure


@dataclass
class RunOptions:
    """Where and how a match or tournament runs (shared by :func:`play_match` and
    :func:`ladder.match.tournament.play_tournament`).

    ``check_players``: start every engine once before the first game
    (:func:`ladder.match.players.probe`): one that cannot play ends the run with
    :attr:`ExitCode.ENGINE_FAILURE` before anything is played. ``max_engine_failures``:
    see :func:`execute` (None: no limit). ``json_path``: see
    :mod:`ladder.match.json_output`. ``backend``: a backend to use (and leave open)
    instead of a new local pool or Ray (``concurrency``, ``ray_address``).
    """

    db: Path | str
    pgn: PgnOptions | None = None
    concurrency: int | None = None
    ray_address: str | None = None
    backend: Backend | None = None
    console: Console | None = None
    out: TextIO | None = None
    json_path: Path | str | None = None
    max_engine_failures: int | None = None
    check_players: bool = True

    def play(
        self,
        tasks: Sequence[GameTask],
        store: ResultStore,
        players: list[PlayerSpec],
        variant: str,
        bar: Progress,
        on_record: Callable[[GameRecord], bool],
    ) -> ExecuteResult:
        """Check the players, then :func:`execute` the tasks on the backend."""
        if self.check_players:
            probe(players, variant)
        backend = self.backend or make_backend(self.concurrency, self.ray_address)
        try:
            with bar:
                return execute(
                    tasks,
                    store,
                    backend,
                    on_record=on_record,
                    max_engine_failures=self.max_engine_failures,
                )
        finally:
            if self.backend is None:
                backend.close()

    def writes_json(self, final: bool) -> bool:
        """Whether the JSON document is written now (``-``: only at the end)."""
        return self.json_path is not None and (final or str(self.json_path) != "-")


def failure_code(exc: PlayerError | MatchError) -> ExitCode:
    """The exit code of a run stopped by ``exc``."""
    if isinstance(exc, PlayerError | EngineFailureLimit):
        return ExitCode.ENGINE_FAILURE
    return ExitCode.ABORTED


def run_match(
    config: MatchConfig, *, pgn: Path | str | PgnOptions | None = None, **options: Any
) -> tuple[MatchStats, ExecuteResult]:
    """Run (or resume) a match without the check before it; returns its figures over
    all stored games and what this run did; a failure raises. ``options``: those of
    :class:`RunOptions`."""
    pgn_options = PgnOptions(Path(pgn)) if isinstance(pgn, str | Path) else pgn
    run = play_match(
        config,
        RunOptions(pgn=pgn_options, **{"check_players": False, **options}),
        raise_errors=True,
    )
    return run.stats, run.result


def play_match(config: MatchConfig, options: RunOptions, raise_errors: bool = False) -> MatchRun:
    """Run (or resume) a match and say how it ended. With ``raise_errors`` a failure
    raises (:class:`MatchError`, :class:`PlayerError`) instead of returning its code."""
    console = options.console or Console(stderr=True)
    out = options.out or sys.stdout
    with ResultStore(options.db) as store:
        config.register(store)
        mid = config.match_id
        records = list(store.records([mid]))
        a, b = config.player_a.name, config.player_b.name

        def figures() -> MatchStats:
            return match_stats(records, a, b, config.sprt)

        def write(code: ExitCode | None) -> None:
            if options.writes_json(code is not None):
                assert options.json_path is not None
                write_json(options.json_path, match_document(config, stats, records, code))

        stats = figures()
        if stats.decided:
            console.print(f"SPRT already decided for {mid}: nothing to play")
        tasks = config.tasks()
        bar = progress_bar(console)
        tid = bar.add_task(
            f"{a} vs {b}", total=len(tasks), completed=len(records), figures=stats.line()
        )
        last_print = [time.monotonic()]
        writer = PgnWriter(options.pgn, store, [mid])

        def on_record(rec: GameRecord) -> bool:
            nonlocal stats
            records.append(rec)
            writer.add(rec)
            stats = figures()
            write(None)
            bar.update(tid, advance=1, figures=stats.line())
            if not console.is_terminal and time.monotonic() - last_print[0] > 10:
                last_print[0] = time.monotonic()
                print(f"[{len(records)}/{len(tasks)}] {stats.line()}", file=out, flush=True)
            return stats.decided

        result = ExecuteResult(skipped=min(len(records), len(tasks)))
        code: ExitCode | None = None
        error: str | None = None
        try:
            if not stats.decided and len(records) < len(tasks):
                players = [config.player_a, config.player_b]
                result = options.play(tasks, store, players, config.variant, bar, on_record)
            code = match_exit_code(stats)
        except (PlayerError, MatchError) as exc:
            code, error = failure_code(exc), str(exc)
            if raise_errors:
                raise
        except KeyboardInterrupt:
            code, error = ExitCode.INTERRUPTED, "interrupted"
            raise
        finally:
            writer.close()
            stats = figures()
            write(code if code is not None else ExitCode.ABORTED)
        return MatchRun(stats, result, code, error)
