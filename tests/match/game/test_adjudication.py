"""Draw adjudication counted as cutechess counts it: a cutechess-cli line's
`-draw movenumber=N movecount=M score=S`, run through `ladder match` with Debian's
Fairy-Stockfish 11.1, ends each game where cutechess's own rule
(`GameAdjudicator::addEval`, transcribed below from projects/lib/src/gameadjudicator.cpp)
ends it on the game's recorded scores; the ladder's own --draw-after keeps counting
only the moves after its ply."""

from __future__ import annotations

from pathlib import Path

import pytest
from chess.engine import Cp

from ladder.match.game.adjudication import Adjudication, Adjudicator
from ladder.match.game.play import GameRecord
from ladder.match.output.store import ResultStore
from tests.match.helpers import run_ladder

pytestmark = pytest.mark.timeout(600)

FSF = Path("/usr/games/fairy-stockfish")
MOVENUMBER, MOVECOUNT, SCORE = 6, 2, 60


def cutechess_draw_ply(
    record: GameRecord, movenumber: int, movecount: int, score: int
) -> int | None:
    """The ply after which cutechess adjudicates ``record`` a draw (None: it does not):
    a scored move within ``score`` counts, any other resets the count (book moves come
    before it: they reset it too), and the draw is called once
    ``plyCount / 2 >= movenumber`` and the count reaches ``2 * movecount``."""
    count = 0
    for i, info in enumerate(record.infos):
        ply_count = record.book_plies + i + 1  # board->plyCount() after the move
        if info.mate is None and info.cp is not None and abs(info.cp) <= score:
            count += 1
        else:
            count = 0
        if ply_count // 2 >= movenumber and count >= movecount * 2:
            return ply_count
    return None


def test_draw_movenumber_ends_games_where_cutechess_does(tmp_path: Path) -> None:
    if not FSF.exists():
        pytest.fail(f"{FSF} missing: run scripts/install_reference_engines.sh (make test does)")
    engine = ["-engine", f"cmd={FSF}", "proto=uci", "nodes=400", "variants=none"]
    done = run_ladder(
        "match", *engine, "name=A", *engine, "name=B", "-each", "tc=inf",
        "-variant", "xiangqi", "-games", "8", "-concurrency", "2", "-srand", "3",
        "-draw", f"movenumber={MOVENUMBER}", f"movecount={MOVECOUNT}", f"score={SCORE}",
        "--max-plies", "120",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    with ResultStore(tmp_path / "match.sqlite") as store:
        records = list(store.records())
    assert len(records) == 8
    adjudicated = 0
    for record in records:
        theirs = cutechess_draw_ply(record, MOVENUMBER, MOVECOUNT, SCORE)
        if record.reason == "draw-adjudication":
            adjudicated += 1
            assert theirs == len(record.moves), (record.game_no, theirs, len(record.moves))
        else:  # the game ended before cutechess would have called it
            assert theirs is None or theirs > len(record.moves), (record.game_no, theirs)
    assert adjudicated >= 1  # the rule was met (the scores stay small at 400 nodes)


def test_the_two_streaks_differ_where_the_issue_said() -> None:
    # -draw movenumber=40 movecount=8 with every score drawn: cutechess calls it at ply
    # 80 (40 moves played, 16 counted); counting only after ply 80 it came at ply 96
    def first_call(streak: str) -> int:
        rules = Adjudication(draw_cp=10, draw_moves=8, draw_after_ply=80, draw_streak=streak)
        judge = Adjudicator(rules)
        for ply in range(1, 200):
            if judge.update("red" if ply % 2 else "black", ply, Cp(0)) is not None:
                return ply
        raise AssertionError("never called")

    assert (first_call("start"), first_call("after")) == (80, 96)
