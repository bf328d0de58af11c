"""The run loop (`ladder/match/runner/run_loop.py`) resuming a long match."""

from __future__ import annotations

import dataclasses
import itertools
import tracemalloc
from pathlib import Path

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
