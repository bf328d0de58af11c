"""The committed record: everything a later run needs, written deterministically."""

from __future__ import annotations

from pathlib import Path

from ladder.calibration.record import load_record, record_path, save_record
from ladder.match.output.store import ResultStore
from tests.calibration.synthetic import record


def _fill(store: ResultStore) -> None:
    for mid, (red, black) in {"calibrate:xiangqi:L2-L1:x": ("L2", "L1")}.items():
        store.ensure_match(
            mid,
            tag="calibrate:xiangqi",
            variant="xiangqi",
            player_a=red,
            player_b=black,
            config={"a": "level:2", "games": 4},
        )
        for g in range(3):
            r = record(
                red,
                black,
                ["1-0", "0-1", "1/2-1/2"][g],
                g // 2,
                g,
                mid,
                moves=g + 1,
                seconds=(0.25 * g, 0.5),
            )
            store.add_game(r)
    store.ensure_match(
        "other", tag="match", variant="xiangqi", player_a="a", player_b="b", config={}
    )
    store.add_game(record("a", "b", "1-0", 0, 0, "other"))


def test_a_record_restores_the_games_into_a_new_database(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "a.sqlite") as store:
        _fill(store)
        path, n = save_record(store, tmp_path / "rec", "xiangqi")
        original = list(store.records(["calibrate:xiangqi:L2-L1:x"]))
        matches = store.matches("calibrate:xiangqi")
    assert n == 3 and path == record_path(tmp_path / "rec", "xiangqi")
    with ResultStore(tmp_path / "b.sqlite") as fresh:
        assert load_record(fresh, tmp_path / "rec", "xiangqi") == 3
        assert load_record(fresh, tmp_path / "rec", "xiangqi") == 0  # already there
        restored = list(fresh.records())
        assert fresh.matches("calibrate:xiangqi") == matches
    assert len(restored) == 3
    for a, b in zip(original, restored, strict=True):
        assert (a.match_id, a.game_no, a.pair_no, a.red, a.black, a.result, a.reason) == (
            b.match_id,
            b.game_no,
            b.pair_no,
            b.red,
            b.black,
            b.result,
            b.reason,
        )
        assert a.moves == b.moves and a.start_fen == b.start_fen
        assert a.search_seconds == b.search_seconds and a.winner == b.winner


def test_the_record_is_byte_for_byte_stable(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "a.sqlite") as store:
        _fill(store)
        path, _ = save_record(store, tmp_path, "xiangqi")
        first = path.read_bytes()
        save_record(store, tmp_path, "xiangqi")
        assert path.read_bytes() == first
    assert load_record(ResultStore(tmp_path / "c.sqlite"), tmp_path, "atomic-xiangqi") == 0
