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

from ladder.match.adjudication import Adjudication
from ladder.match.backends import Backend, make_backend
from ladder.match.openings import Opening, schedule, suite_digest
from ladder.match.play import GameRecord, GameTask, derive_seed
from ladder.match.players import PlayerSpec
from ladder.match.sprt import Sprt
from ladder.match.store import ResultStore
from ladder.match.summary import MatchStats, match_stats

__all__ = ["ExecuteResult", "MatchConfig", "MatchError", "execute", "run_match"]


class MatchError(RuntimeError):
    """A game task failed (an engine that will not start, a bug): the match stops;
    what was stored stays, and running the command again resumes."""


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
) -> ExecuteResult:
    """Play the tasks not yet stored; ``on_record`` returning True stops the run (the
    games in flight are finished and stored; none is started after)."""
    res = ExecuteResult(slots=backend.slots)
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
        # Only when set, so that the ids of matches without levels stay as they were.
        for key, spec in (("a_settings", self.player_a), ("b_settings", self.player_b)):
            if settings := spec.settings(self.variant):
                ident[key] = settings
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
        for slot in schedule(len(self.openings), self.games, self.seed):
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


def _progress_bar(console: Console) -> Progress:
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


def run_match(
    config: MatchConfig,
    *,
    db: Path | str,
    pgn: Path | str | None = None,
    concurrency: int | None = None,
    ray_address: str | None = None,
    backend: Backend | None = None,
    console: Console | None = None,
    out: TextIO | None = None,
) -> tuple[MatchStats, ExecuteResult]:
    """Run (or resume) a match; returns its figures over all stored games and what
    this run did. The PGN file is rewritten from the database, appended to as games
    finish, and rewritten in game order at the end."""
    console = console or Console(stderr=True)
    out = out or sys.stdout
    with ResultStore(db) as store:
        config.register(store)
        mid = config.match_id
        records = list(store.records([mid]))
        a, b = config.player_a.name, config.player_b.name
        pgn_path = None if pgn is None else Path(pgn)
        pgn_file = None
        if pgn_path is not None:
            pgn_file = pgn_path.open("w")
            for text in store.pgn([mid]):
                pgn_file.write(text + "\n")
            pgn_file.flush()

        def figures() -> MatchStats:
            return match_stats(records, a, b, config.sprt)

        stats = figures()
        if stats.decided:
            console.print(f"SPRT already decided for {mid}: nothing to play")
        tasks = config.tasks()
        bar = _progress_bar(console)
        tid = bar.add_task(
            f"{a} vs {b}", total=len(tasks), completed=len(records), figures=stats.line()
        )
        last_print = [time.monotonic()]

        def on_record(rec: GameRecord) -> bool:
            nonlocal stats
            records.append(rec)
            if pgn_file is not None:
                pgn_file.write(rec.pgn + "\n")
                pgn_file.flush()
            stats = figures()
            bar.update(tid, advance=1, figures=stats.line())
            if not console.is_terminal and time.monotonic() - last_print[0] > 10:
                last_print[0] = time.monotonic()
                print(f"[{len(records)}/{len(tasks)}] {stats.line()}", file=out, flush=True)
            return stats.decided

        try:
            if stats.decided:
                result = ExecuteResult()
            else:
                own = backend is None
                backend = backend or make_backend(concurrency, ray_address)
                try:
                    with bar:
                        result = execute(tasks, store, backend, on_record=on_record)
                finally:
                    if own:
                        backend.close()
        finally:
            if pgn_file is not None and pgn_path is not None:
                pgn_file.close()
                _rewrite_pgn(store, mid, pgn_path)
        return figures(), result


def _rewrite_pgn(store: ResultStore, match_id: str, path: Path) -> None:
    """The PGN file in game order, from the database (games are appended as they
    finish during a run; this puts them in order and repairs a killed run's file)."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        for text in store.pgn([match_id]):
            f.write(text + "\n")
    tmp.replace(path)
