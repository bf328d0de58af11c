"""The run loop (`ladder/match/runner/run_loop.py`) resuming a long match."""

from __future__ import annotations

import dataclasses
import itertools
import tracemalloc
from pathlib import Path

from ladder.match.output.pgn import PgnOptions
from ladder.match.output.store import ResultStore
from ladder.match.runner.match_run import register_match, run_match
from tests.match.helpers import match_config


def test_a_resumed_match_is_read_game_by_game_not_held_whole(tmp_path: Path) -> None:
    """Resuming a match counts its stored games as it reads them: a 100,000-game SPRT
    resumed is not 100,000 records in memory at once (about 40 KB each)."""
    db = tmp_path / "r.sqlite"
    run_match(match_config("random", "greedy", games=1), db=db, concurrency=1)
    many = 1500
    config = match_config("random", "greedy", games=many)  # (the same match, more games)
    with ResultStore(db) as store:
        (played,) = store.records([config.match_id])
        register_match(store, config)
        for n in range(1, many):
            store.add_game(dataclasses.replace(played, game_no=n, pair_no=n // 2))

    tracemalloc.start()
    try:
        with ResultStore(db) as store:  # what one game read back takes in memory
            before = tracemalloc.get_traced_memory()[0]
            held = list(itertools.islice(store.records([config.match_id]), 50))
            one = (tracemalloc.get_traced_memory()[0] - before) / len(held)
            del held
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        stats, result = run_match(config, db=db, concurrency=1)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert (result.played, result.skipped, stats.games) == (0, many, many)
    # The plan keeps the last 100 games for the JSON document, and no other game whole.
    assert peak < 300 * one, f"{peak / 1e6:.1f} MB at the peak, {one / 1e3:.0f} KB a game"


def _without_date(pgn: str) -> str:
    return "\n".join(line for line in pgn.splitlines() if not line.startswith("[Date "))


def test_a_games_pgn_is_made_by_its_worker_only_for_a_pgn_file_that_takes_it(
    tmp_path: Path,
) -> None:
    """A run without --pgn has its games make no PGN (the WXF of every move and the text
    are work nobody reads), a --pgn file in the default form takes the worker's text as
    it is, and any other form is written by the driver from the record."""
    config = match_config("random", "greedy", games=2)
    run_match(config, db=tmp_path / "none.sqlite", concurrency=1)
    with ResultStore(tmp_path / "none.sqlite") as store:
        assert [r.pgn for r in store.records([config.match_id])] == ["", ""]

    run_match(config, db=tmp_path / "wxf.sqlite", concurrency=1, pgn=tmp_path / "wxf.pgn")
    with ResultStore(tmp_path / "wxf.sqlite") as store:
        made = [r.pgn for r in store.records([config.match_id])]
    assert all(p.startswith("[Event ") for p in made)
    assert (tmp_path / "wxf.pgn").read_text() == "".join(p + "\n" for p in made)

    iccs = PgnOptions(tmp_path / "iccs.pgn", notation="iccs")
    run_match(config, db=tmp_path / "iccs.sqlite", concurrency=1, pgn=iccs)
    with ResultStore(tmp_path / "iccs.sqlite") as store:
        records = list(store.records([config.match_id]))
    assert [r.pgn for r in records] == ["", ""]
    assert (tmp_path / "iccs.pgn").read_text() == "".join(iccs.render(r) + "\n" for r in records)
    assert '[Format "ICCS"]' in (tmp_path / "iccs.pgn").read_text()


def test_a_match_played_without_pgn_then_resumed_with_it_writes_the_same_file(
    tmp_path: Path,
) -> None:
    """Games stored without their PGN get it from the driver when a later run of the
    match asks for a --pgn file: the same text their workers would have made."""
    first, more = match_config("random", "greedy", games=2), match_config("random", "greedy", 4)
    run_match(more, db=tmp_path / "worker.sqlite", concurrency=1, pgn=tmp_path / "worker.pgn")
    run_match(first, db=tmp_path / "driver.sqlite", concurrency=1)
    run_match(more, db=tmp_path / "driver.sqlite", concurrency=1, pgn=tmp_path / "driver.pgn")
    with ResultStore(tmp_path / "driver.sqlite") as store:
        stored = [r.pgn != "" for r in store.records([more.match_id])]
    assert stored == [False, False, True, True]  # the resumed run's games made theirs
    worker, driver = ((tmp_path / f"{n}.pgn").read_text() for n in ("worker", "driver"))
    assert worker.count("[Event ") == 4
    assert _without_date(driver) == _without_date(worker)
