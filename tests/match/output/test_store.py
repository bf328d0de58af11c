"""The results database (`ladder/match/output/store.py`)."""

from __future__ import annotations

import dataclasses
import json
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


def test_a_games_pgn_is_stored_once_in_its_column_and_read_back_with_it(tmp_path: Path) -> None:
    """The PGN is not escaped into the record's JSON as well (a fifth of a game's row);
    a database whose rows hold it in both, as they did before, reads back the same."""
    db = tmp_path / "p.sqlite"
    config = match_config("random", "greedy", games=1)
    run_match(config, db=db, concurrency=1, pgn=tmp_path / "p.pgn")
    with ResultStore(db) as store:
        (played,) = store.records([config.match_id])
        ((text, pgn),) = store._db.execute("SELECT record, pgn FROM games").fetchall()
        assert pgn.startswith("[Event ") and played.pgn == pgn
        assert "pgn" not in json.loads(text)
        # a row from before: its PGN in the JSON as well
        older = dataclasses.replace(played, game_no=1)
        store._db.execute(
            "INSERT INTO games SELECT match_id, 1, pair_no, opening_no, variant, red, black, "
            "red_slot, result, reason, plies, search_seconds, wall_seconds, worker, "
            "finished_at, ?, pgn FROM games",
            (json.dumps({**older.to_dict(), "pgn": pgn}),),
        )
        assert [r.pgn for r in store.records([config.match_id])] == [pgn, pgn]
    assert (tmp_path / "p.pgn").read_text() == pgn + "\n"
