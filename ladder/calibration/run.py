"""``ladder calibrate`` itself: load the record, play the rounds, fit, write.

A run never touches the shipped levels file unless asked (``--write``): by default it
writes the calibrated copy to ``--out``.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ladder.calibration.fit import VariantCalibration, fit_pool, fit_variant
from ladder.calibration.measurements import measurement_sections
from ladder.calibration.plan import Plan, pairings
from ladder.calibration.record import load_record, save_record
from ladder.calibration.report import print_calibration, write_docs, write_levels_file
from ladder.calibration.schedule import (
    PairingState,
    first_round,
    in_scope,
    next_games,
    widest_gaps,
)
from ladder.levels import LEVEL_NUMBERS, LEVELS_FILE, load_levels
from ladder.match.game.play import GameRecord, GameTask
from ladder.match.openings import load_openings
from ladder.match.output.store import ResultStore
from ladder.match.runner.backends import Backend, make_backend
from ladder.match.runner.execute import execute
from ladder.match.runner.match_run import register_match

__all__ = ["CalibrationConfig", "run_calibration"]


@dataclass
class CalibrationConfig:
    """Settings of a calibration run."""

    variants: tuple[str, ...]
    plan: Plan
    levels_file: Path = LEVELS_FILE  #: the levels to calibrate
    out: Path = Path("levels-calibrated.toml")  #: where the calibrated copy goes
    budget_seconds: float | None = None  #: stop starting games after this long
    bootstrap: int = 200
    docs: Path | None = None  #: write ladder.md and the plots here
    record: Path | None = None  #: the committed record's folder
    play: bool = True
    max_level: int = LEVEL_NUMBERS[-1]  #: play only the pairings up to this level
    engine: Path | None = None  #: the patched engine the levels run (None: the usual lookup)


def _records(store: ResultStore, states: list[PairingState], variant: str) -> list[GameRecord]:
    """The variant's stored games, each as the fit reads it (:func:`_as_fitted`)."""
    ids = [s.match().match_id for s in states if s.variant == variant]
    return [_as_fitted(r) for r in store.records(ids)]


#: The order :meth:`ResultStore.records` reads games in.
_STORE_ORDER = attrgetter("match_id", "game_no")


def _as_fitted(record: GameRecord) -> GameRecord:
    """``record`` without what the fit and the schedule never read (its moves' records and
    its PGN): a game played here is about 40 KB whole, a few KB so."""
    return replace(record, infos=[], pgn="")


def run_calibration(
    config: CalibrationConfig,
    *,
    db: Path | str,
    concurrency: int | None = None,
    ray_address: str | None = None,
    console: Console | None = None,
) -> list[VariantCalibration]:
    """Play (or resume) the calibration games, fit, report, and write the outputs."""
    console = console or Console(stderr=True)
    levels = load_levels(config.levels_file)
    # The players read their settings from a copy taken now: the games of this run are
    # stored under the settings they were scheduled with, whatever happens to the file.
    snapshot = Path(f"{db}.levels.toml")
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(config.levels_file, snapshot)
    start = time.monotonic()
    with ResultStore(db) as store:
        states: list[PairingState] = []
        for variant in config.variants:
            if config.record is not None:
                added = load_record(store, config.record, variant)
                if added:
                    console.print(f"{variant}: {added} games from the record")
            openings = load_openings(variant)
            for pairing in pairings(variant, config.plan, snapshot):
                pairing = pairing.with_patched_engine(config.engine)
                state = PairingState(variant, pairing, openings, config.plan)
                register_match(store, state.match(pairing.games))
                states.append(state)
        if config.play:
            with store.playing(state.match().match_id for state in states):
                _play(config, store, states, concurrency, ray_address, console, start)
        cals = []
        for variant in config.variants:
            cal = fit_variant(
                _records(store, states, variant),
                variant,
                levels[variant],
                bootstrap=config.bootstrap,
                seed=config.plan.seed,
                max_games=config.plan.max_games,
                plain_twins=config.plan.plain_twins(variant),
                elo_points=config.plan.elo_points(variant),
            )
            cals.append(cal)
            print_calibration(console, cal)
        if config.record is not None:
            for variant in config.variants:
                path, games = save_record(store, config.record, variant)
                console.print(f"{variant}: {games} games in {path}")
    write_levels_file(config.levels_file, config.out, cals)
    console.print(f"wrote {config.out}")
    if config.docs is not None:
        sections = {
            c.variant: measurement_sections(
                config.record,
                c.variant,
                c.levels,
                c.by_name(),
                {e.name: e.spec for e in config.plan.extras if c.variant in e.variants},
            )
            for c in cals
        }
        md = write_docs(cals, config.docs, sections)
        console.print(f"wrote {md}")
    return cals


#: How often (seconds) a running calibration writes its compact record mid-round.
RECORD_EVERY_S = 300.0


def _play(
    config: CalibrationConfig,
    store: ResultStore,
    states: list[PairingState],
    concurrency: int | None,
    ray_address: str | None,
    console: Console,
    start: float,
) -> None:
    backend: Backend = make_backend(concurrency, ray_address)
    columns = (
        TextColumn("[bold]calibration[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
    )
    scope = [s for s in states if in_scope(s, config.max_level)]
    chain = [s for s in scope if not s.pairing.extra]
    extras = [s for s in scope if s.pairing.extra]
    try:
        with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
            tasks = _first_games(store, chain)
            progress_id = bar.add_task("games", total=len(tasks), status="first games")
            rounds = 0
            # Read once; each game played is added as it is stored (not every stored game
            # read again after every round).
            played = {v: _records(store, states, v) for v in config.variants}
            while tasks:
                bar.update(progress_id, total=bar.tasks[0].completed + len(_unplayed(store, tasks)))
                if not _execute(config, store, backend, tasks, bar, progress_id, start, played):
                    console.print("calibration: time budget spent; run again to continue")
                    return
                for games in played.values():  # in the store's order, as read: the same sums
                    games.sort(key=_STORE_ORDER)
                if config.record is not None:
                    for variant in config.variants:
                        save_record(store, config.record, variant)
                fits = {}
                for variant in config.variants:
                    fit = fit_pool(played[variant])
                    if fit is not None:
                        fits[variant] = fit
                unsure = widest_gaps(chain, fits, played)  # (the gaps this run plays)
                rounds += 1
                status = ", ".join(
                    f"{w.state.variant} {w.state.pairing.weaker.name}-"
                    f"{w.state.pairing.stronger.name} ±{w.half_width:.0f}"
                    for w in unsure[:3]
                )
                bar.update(progress_id, status=f"round {rounds}: widest {status or 'none'}")
                if not console.is_terminal:
                    console.print(f"round {rounds}: widest gaps {status or 'none: done'}")
                tasks, started = next_games(chain, extras, fits, backend.slots, played)
                if started:
                    _resume(store, started)
                    extras = [e for e in extras if all(e is not s for s in started)]
                    # A resumed run starts extras whose games are all stored: not news.
                    playing = {t.match_id for t in _unplayed(store, tasks)}
                    names = ", ".join(
                        sorted({_pairing_name(e) for e in started if e.match().match_id in playing})
                    )
                    if names:
                        console.print(f"the chain is decided below them: {names}")
    finally:
        backend.close()


def _pairing_name(state: PairingState) -> str:
    return f"{state.variant} {state.pairing.stronger.name}-{state.pairing.weaker.name}"


def _first_games(store: ResultStore, states: list[PairingState]) -> list[GameTask]:
    """The first round of ``states``, as far as the store does not hold it already."""
    tasks = first_round(states)
    _resume(store, states)
    return tasks


def _resume(store: ResultStore, states: list[PairingState]) -> None:
    """A resumed pairing may hold more games than its first round: schedule on from them."""
    for s in states:
        stored = len(store.done_games(s.match().match_id))
        s.scheduled = max(s.scheduled, stored + stored % 2)


def _unplayed(store: ResultStore, tasks: list[GameTask]) -> list[GameTask]:
    """The tasks whose games the store does not hold yet (one query per match)."""
    done: dict[str, set[int]] = {}
    for t in tasks:
        if t.match_id not in done:
            done[t.match_id] = store.done_games(t.match_id)
    return [t for t in tasks if t.game_no not in done[t.match_id]]


def _execute(
    config: CalibrationConfig,
    store: ResultStore,
    backend: Backend,
    tasks: list[GameTask],
    bar: Progress,
    progress_id: TaskID,
    start: float,
    played: dict[str, list[GameRecord]],
) -> bool:
    """Play ``tasks``, each game stored also added to ``played`` (by variant); False when
    the budget ran out before they were all played."""
    budget = None
    if config.budget_seconds is not None:
        budget = config.budget_seconds - (time.monotonic() - start)
        if budget <= 0:
            return False

    saved = time.monotonic()

    def progress(rec: GameRecord | None) -> None:
        nonlocal saved
        if rec is not None:
            played[rec.variant].append(_as_fitted(rec))
            bar.advance(progress_id)
            # A round can take hours: the record is also written every few minutes, so
            # that a run stopped mid-round resumes from it (on this or another machine).
            if config.record is not None and time.monotonic() - saved >= RECORD_EVERY_S:
                for variant in config.variants:
                    save_record(store, config.record, variant)
                saved = time.monotonic()
            task = bar.tasks[0]
            if bar.disable and task.completed % 20 == 0:  # a log, not a terminal
                left = task.time_remaining
                eta = f", about {left / 60:.0f} min left in this round" if left else ""
                bar.console.print(f"{task.completed:.0f}/{task.total:.0f} games{eta}")

    result = execute(tasks, store, backend, budget_seconds=budget, progress=progress)
    return not result.stopped_early
