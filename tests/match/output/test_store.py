"""The results database (`ladder/match/output/store.py`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ladder.match.game.endings import Ending
from ladder.match.output.store import ResultStore
from ladder.match.runner.match_run import run_match
from tests.match.helpers import match_config


def test_games_are_counted_by_ending_match_by_match(tmp_path: Path) -> None:
    """(Baselines never fail or resign: the played games end otherwise.)"""
    db = tmp_path / "c.sqlite"
    config = match_config("random", "greedy", games=1)
    other = match_config("random", "novice", games=1)
    run_match(config, db=db, concurrency=1)
    run_match(other, db=db, concurrency=1)
    with ResultStore(db) as store:
        (played,) = store.records([config.match_id])
        (theirs,) = store.records([other.match_id])
        failed = Ending.ENGINE_FAILURE
        for n, reason in ((1, failed), (2, failed), (3, Ending.CHECKMATE)):
            store.add_game(dataclasses.replace(played, game_no=n, reason=reason))
        store.add_game(dataclasses.replace(theirs, game_no=1, reason=failed))
        assert store.count_games([config.match_id], failed) == 2
        assert store.count_games([config.match_id, other.match_id], failed) == 3
        assert store.count_games([other.match_id], theirs.reason) == 1
        assert store.count_games([other.match_id], Ending.RESIGNATION) == 0
        assert store.count_games([], failed) == 0
