"""The ``FEN`` tag of a match's PGN: none for a game from its variant's start; else in
XBoard's letters (``h`` horse, ``e`` elephant) or, with ``--pgn-fen fsf``,
Fairy-Stockfish's (``n``, ``b``); either read back by ``ladder study``. Through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.match.output.pgn import fsf_fen, read_pgn
from tests.match.helpers import run_ladder

#: A middle game with horses and elephants on the board (FSF's letters).
START = "r1bakab2/9/1cn3nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN3NC1/9/R1BAKAB1R w - - 0 1"


@pytest.mark.parametrize(("dialect", "letters"), [(None, "he"), ("fsf", "nb")])
def test_a_game_from_a_book_position_carries_its_fen_in_the_chosen_letters(
    tmp_path: Path, dialect: str | None, letters: str
) -> None:
    (tmp_path / "book.epd").write_text(" ".join(START.split()[:4]) + ' id "h-and-e";\n')
    args = ["--pgn-fen", dialect] if dialect else []
    done = run_ladder(
        "match", "random", "greedy", "--variant", "xiangqi", "--games", "2",
        "--max-plies", "20", "-j", "1", "--openings", "book.epd", "--db", "m.sqlite",
        "--pgn", "m.pgn", *args, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = list(read_pgn((tmp_path / "m.pgn").read_text()))
    fens = {g.headers["FEN"] for g in games}
    assert len(fens) == 1 and all(g.headers["SetUp"] == "1" for g in games)
    (fen,) = fens
    board = fen.split()[0]
    horse, elephant = letters[0], letters[1]
    assert horse in board and elephant in board and horse.upper() in board
    assert fsf_fen(fen).split()[:2] == START.split()[:2]
    study = run_ladder(
        "study", "m.pgn", "--out", "s.pgn", "--nodes", "200", "--db", "s.sqlite", cwd=tmp_path
    )
    assert study.returncode == 0, study.stderr  # read back, replayed from that position
