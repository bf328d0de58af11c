"""`--epd FILE` (cutechess-cli's `-epdout FILE`) through `ladder match`: each game's
end position, one EPD line in XBoard's letters, appended as games finish (a resumed
run adds its own), and the file is an EPD book the match reads again."""

from __future__ import annotations

from pathlib import Path

from ladder.match.openings import load_openings
from ladder.match.output.store import ResultStore
from ladder.rules import Game
from tests.match.helpers import run_ladder


def _end_fens(db: Path) -> list[str]:
    with ResultStore(db) as store:
        records = list(store.records())
    return [Game.from_fen(r.variant, r.start_fen, r.moves).fen() for r in records]


def test_epdout_appends_each_game_s_end_position(tmp_path: Path) -> None:
    db, epd = tmp_path / "e.sqlite", tmp_path / "end.epd"
    common = ["match", "greedy", "random", "--db", str(db), "--max-plies", "20"]
    done = run_ladder(*common, "-variant", "xiangqi", "-games", "2", "-epdout", str(epd))
    assert done.returncode == 0, done.stderr
    lines = epd.read_text().splitlines()
    assert len(lines) == 2
    assert all(" - - hmvc " in line and "n" not in line.split()[0].lower() for line in lines)
    # more games, the ladder's own option: the new games' lines are appended
    done = run_ladder(*common, "--variant", "xiangqi", "--games", "4", "--epd", str(epd))
    assert done.returncode == 0, done.stderr
    assert epd.read_text().splitlines()[:2] == lines
    book = load_openings("xiangqi", epd)
    # in the order the games finished; FSF's letters back
    assert sorted(o.fen or "" for o in book) == sorted(_end_fens(db))

    done = run_ladder(*common, "--variant", "xiangqi", "--epd", str(tmp_path / "no" / "e.epd"))
    assert done.returncode == 2 and "--epd" in done.stderr and "Traceback" not in done.stderr
