"""Small real matches: pairing and colour reversal, PGN round trip, resume, SPRT stop."""

from __future__ import annotations

from pathlib import Path

from ladder.match.output.pgn import read_pgn, replay
from ladder.match.output.store import ResultStore
from ladder.match.runner.match_run import run_match
from ladder.match.statistics.sprt import Sprt, SprtDecision
from ladder.rules import Game
from tests.match.helpers import match_config


def test_match_pairs_pgn_and_resume(tmp_path: Path, engine_exe: Path) -> None:
    db, pgn = tmp_path / "m.sqlite", tmp_path / "m.pgn"
    config = match_config("level:1", "greedy", games=4)
    stats, result = run_match(config, db=db, pgn=pgn, concurrency=2)
    assert (result.played, result.skipped) == (4, 0)
    assert stats.trinomial.games == 4 and stats.pentanomial.pairs == 2

    with ResultStore(db) as store:
        records = sorted(store.records([config.match_id]), key=lambda r: r.game_no)
    assert [r.game_no for r in records] == [0, 1, 2, 3]
    for first, second in (records[0:2], records[2:4]):
        assert first.pair_no == second.pair_no
        assert first.opening_no == second.opening_no
        assert (first.red, first.black) == ("level:1", "greedy")
        assert (second.red, second.black) == ("greedy", "level:1")
        book = first.book_plies
        assert first.moves[:book] == second.moves[:book]

    games = list(read_pgn(pgn.read_text()))
    assert [g.headers["GameNo"] for g in games] == ["0", "1", "2", "3"]
    random_moves = 0
    for parsed, rec in zip(games, records, strict=True):
        assert parsed.headers["Red"] == rec.red and parsed.headers["Variant"] == "xiangqi"
        assert rec.start_fen == Game.from_fen("xiangqi").start_fen  # the suite: moves from it
        assert "FEN" not in parsed.headers and "SetUp" not in parsed.headers
        assert parsed.result == parsed.headers["Result"] == rec.result
        game = replay(parsed)
        assert game.moves == rec.moves
        outcome = game.outcome()
        if rec.reason not in ("max-plies", "engine-failure"):
            assert outcome is not None and outcome.reason.value == rec.reason
            assert outcome.result == rec.result
        engine_moves = [c for c in parsed.comments[rec.book_plies :] if c and c != "random move"]
        assert engine_moves and all("[%eval " in c and "N " in c for c in engine_moves)
        # greedy's random choices (no capture to make) are marked, and only those
        for info, comment in zip(rec.infos, parsed.comments[rec.book_plies :], strict=True):
            marked = comment is not None and comment.endswith("random move")
            assert (info.chosen == "random") == marked, comment
            random_moves += marked
    assert random_moves > 0

    # the same command again resumes: nothing left to play; a larger --games extends it
    _, again = run_match(match_config("level:1", "greedy", games=4), db=db, pgn=pgn, concurrency=2)
    assert (again.played, again.skipped) == (0, 4)
    _, more = run_match(match_config("level:1", "greedy", games=6), db=db, pgn=pgn, concurrency=2)
    assert (more.played, more.skipped) == (2, 4)
    assert len(list(read_pgn(pgn.read_text()))) == 6


def test_sprt_stops_a_decided_match(tmp_path: Path) -> None:
    config = match_config("greedy", "random", games=400, sprt=Sprt(0, 200, 0.05, 0.05))
    stats, result = run_match(config, db=tmp_path / "s.sqlite", concurrency=2)
    assert stats.sprt is not None and stats.sprt.decision is SprtDecision.H1
    assert result.stopped_early and result.played < 200
    assert stats.elo is not None and stats.elo.elo > 0
    # resuming a decided match plays nothing
    _, again = run_match(config, db=tmp_path / "s.sqlite", concurrency=2)
    assert again.played == 0
