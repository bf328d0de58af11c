"""``ladder match``: one head-to-head match from a :class:`~ladder.match.config.MatchConfig`.

:func:`match_tasks` schedules its games (paired openings, colours reversed, a seed per
game); :func:`play_match` registers the match in the results database, resumes it,
runs the games not yet stored on a backend (:func:`~ladder.match.runner.execute.execute`),
stops on a decided SPRT, shows progress, and writes the PGN and JSON files;
:class:`RunOptions` says where and how (shared with tournaments).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ladder.level_move import derive_seed
from ladder.match.config import MatchConfig
from ladder.match.exit_codes import ExitCode
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import schedule
from ladder.match.output.json_document import document_head, game_entry, write_json
from ladder.match.output.pgn_file import PgnOptions, PgnWriter
from ladder.match.output.store import MatchConflict, ResultStore
from ladder.match.output.summary import MatchStats, match_stats
from ladder.match.players.player import PlayerError
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import probe
from ladder.match.runner.backends import Backend, make_backend
from ladder.match.runner.execute import EngineFailureLimit, ExecuteResult, MatchError, execute
from ladder.match.statistics.sprt import SprtDecision

__all__ = [
    "MatchRun",
    "RunOptions",
    "failure_code",
    "match_document",
    "match_exit_code",
    "match_tasks",
    "play_match",
    "progress_bar",
    "register_match",
    "run_match",
]


def match_tasks(config: MatchConfig) -> list[GameTask]:
    """The scheduled games of a match, in order (:func:`~ladder.match.openings.schedule`)."""
    mid = config.match_id
    out = []
    order, repeat = config.openings_order, config.repeat
    for slot in schedule(len(config.openings), config.games, config.seed, order, repeat):
        a, b = config.player_a, config.player_b
        red, black = (a, b) if slot.a_is_red else (b, a)
        out.append(
            GameTask(
                match_id=mid,
                game_no=slot.game_no,
                pair_no=slot.pair_no,
                opening_no=slot.opening_no,
                variant=config.variant,
                opening=config.openings[slot.opening_no],
                red=red,
                black=black,
                red_slot="A" if slot.a_is_red else "B",
                seed=derive_seed(config.seed, mid, slot.game_no),
                adjudication=config.adjudication,
                event=f"ladder {config.tag}",
            )
        )
    return out


def register_match(store: ResultStore, config: MatchConfig) -> None:
    """Record the match and its settings in the results database (once; a resumed
    match finds itself there). A match named on the command line (``--name``,
    cutechess's ``-event``) that the database holds with other settings is a
    :class:`MatchConflict`: its games would be counted as this match's."""
    stored = store.stored_config(config.match_id)
    if stored is not None and config.name is not None and config.tag == "match":
        now = json.loads(json.dumps(config.identity()))  # as stored: lists, not tuples
        stored.pop("games", None)
        differ = sorted(k for k in stored.keys() | now.keys() if stored.get(k) != now.get(k))
        if differ:
            raise MatchConflict(
                f"--name {config.name}: {store.path} holds a match of that name played "
                f"with other settings ({', '.join(differ)} differ); give this one another "
                "--name (cutechess: -event), or another --db"
            )
    store.ensure_match(
        config.match_id,
        tag=config.tag,
        variant=config.variant,
        player_a=config.player_a.name,
        player_b=config.player_b.name,
        config={**config.identity(), "games": config.games},
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
    """The ``--json`` document of a match (:mod:`ladder.match.output.json_document`)."""
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
    :func:`ladder.match.tournament.run.play_tournament`).

    ``check_players``: start every engine once before the first game
    (:func:`ladder.match.players.start.probe`): one that cannot play ends the run with
    :attr:`ExitCode.ENGINE_FAILURE` before anything is played. ``max_engine_failures``:
    see :func:`execute` (None: no limit). ``json_path``: see
    :mod:`ladder.match.output.json_document`. ``backend``: a backend to use (and leave open)
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
    with ResultStore(options.db) as store, store.playing([config.match_id]):
        register_match(store, config)
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
        tasks = match_tasks(config)
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
