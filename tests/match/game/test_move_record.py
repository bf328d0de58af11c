"""A move's typed record keeps the stored form the results databases hold (each move a
dict of the keys that are set; a failure one more entry), both ways."""

from __future__ import annotations

from typing import Any

from ladder.match.game.play import GameRecord, MoveRecord

STORED_MOVES: list[dict[str, Any]] = [
    {"seconds": 0.01, "cp": 0, "depth": 5, "nodes": 3000},  # a score of 0 is a score
    {"seconds": 0.02, "mate": -3, "depth": 9, "nodes": 812, "restarts": 1},
    {"seconds": 0.0, "chosen": "random"},
    {"seconds": 0.03, "cp": 12, "depth": 4, "nodes": 90, "chosen": "varied", "best": "h3e3"},
    {"seconds": 0.5, "cp": -40, "clock": 0.0},  # a clock run down to 0 is a clock
]


def stored_game(failure: dict[str, str] | None, reason: str) -> dict[str, Any]:
    return {
        "match_id": "m", "game_no": 0, "pair_no": 0, "opening_no": 0, "variant": "xiangqi",
        "red": "a", "black": "b", "red_slot": "A",
        "start_fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "book_plies": 0, "moves": ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1"],
        "infos": STORED_MOVES + ([failure] if failure else []),
        "result": "0-1", "winner": "black", "reason": reason,
        "search_seconds": {"red": 0.5, "black": 0.1}, "wall_seconds": 1.0,
        "worker": "host:1", "finished_at": 0.0, "opening": "",
        "time_controls": ["10+0.1", "-"],
    }  # fmt: skip


def test_moves_read_back_typed_and_are_stored_as_they_were() -> None:
    for failure, reason in [
        (None, "checkmate"),
        ({"error": "b: no move within 3s"}, "engine-failure"),
        ({"resigned": "b resigns"}, "resignation"),
    ]:
        stored = stored_game(failure, reason)
        record = GameRecord.from_dict(stored)
        assert all(isinstance(m, MoveRecord) for m in record.infos)
        assert record.infos[0].cp == 0 and record.infos[1].restarts == 1
        assert record.infos[4].clock == 0.0
        assert record.failure == (None if failure is None else next(iter(failure.values())))
        assert record.to_dict() == {**stored, "time_controls": ("10+0.1", "-")}
        # a record stored with its PGN in the text as well, as before it had a column
        older = GameRecord.from_dict({**stored, "pgn": '[Event "m"]'})
        assert older.pgn == '[Event "m"]' and older.to_dict() == record.to_dict()
