"""Opening books in EPD and PGN, for every variant, with order and plies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.match.openings import OpeningError, load_openings, schedule
from ladder.rules import Game

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
ZH_START = "rn2k2nr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RN2K2NR[AABBaabb]"

EPD = f"""\
{START} w - - id "start";
{START} b - - hmvc 3; fmvn 2; id "black to move";

# a comment line
3k5/9/9/9/9/9/9/9/9/R4K3 w - - id "chariot ending";
"""

PGN = """\
[Event "book 1"]
[Game "Chinese Chess"]
[Format "WXF"]

1. C2=5 H8+7 2. H2+3 R9=8 *

[Event "book 2"]
[Game "Chinese Chess"]
[Format "ICCS"]

1. H2-E2 {a comment} H9-G7 2. H0-G2 *

[Event "book 3"]
[FEN "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"]

1. a1a2 d10d9 *
"""


def test_epd_book(tmp_path: Path) -> None:
    path = tmp_path / "book.epd"
    path.write_text(EPD)
    book = load_openings("xiangqi", path)
    assert [o.comment for o in book] == ["start", "black to move", "chariot ending"]
    assert all(o.moves == () for o in book)
    assert book[1].fen == f"{START} b - - 3 2"
    assert Game.from_fen("xiangqi", book[1].fen).turn == "black"


def test_epd_book_in_crazyhouse_and_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "zh.epd"
    path.write_text(f"{ZH_START} w - -\n")
    (opening,) = load_openings("crazyhouse-xiangqi", path)
    assert Game.from_fen("crazyhouse-xiangqi", opening.fen).hands is not None
    with pytest.raises(OpeningError, match=r"zh\.epd:1"):
        load_openings("xiangqi", path)  # hands: not a xiangqi position
    path.write_text("4k4/9/9/9/9/9/9/9/9/4K4 w - -\n")  # generals facing
    with pytest.raises(OpeningError, match=r"zh\.epd:1"):
        load_openings("xiangqi", path)


def test_pgn_book_in_wxf_iccs_and_canonical(tmp_path: Path) -> None:
    path = tmp_path / "book.pgn"
    path.write_text(PGN)
    book = load_openings("xiangqi", path)
    assert [o.moves for o in book] == [
        ("h3e3", "h10g8", "h1g3", "i10h10"),
        ("h3e3", "h10g8", "h1g3"),
        ("a1a2", "d10d9"),
    ]
    assert book[2].fen == "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    assert [o.moves for o in load_openings("xiangqi", path, plies=2)][:2] == [
        ("h3e3", "h10g8"),
        ("h3e3", "h10g8"),
    ]
    with pytest.raises(OpeningError, match="atomic-xiangqi"):
        path.write_text('[Variant "atomic-xiangqi"]\n\n1. h3e3 *\n')
        load_openings("xiangqi", path)
    path.write_text('[Event "x"]\n\n1. C2=5 K5+5 *\n')
    with pytest.raises(OpeningError, match="game 1: ply 2"):
        load_openings("xiangqi", path)


@pytest.mark.parametrize(
    ("variant", "pgn", "moves", "epd"),
    [
        (
            "atomic-xiangqi",
            "1. C2=5 C8=5 2. H2+3 *",
            ("h3e3", "h8e8", "h1g3"),
            f'{START} b - - id "black first";',
        ),
        # drops in WXF (A@52: an advisor onto the centre of the mover's second rank)
        (
            "crazyhouse-xiangqi",
            "1. C2=5 C8=5 2. A@52 A@52 3. H2+3 *",
            ("h3e3", "h8e8", "A@e2", "A@e9", "h1g3"),
            f'{ZH_START} b - - id "black first";',
        ),
    ],
)
def test_pgn_and_epd_books_in_every_variant(
    tmp_path: Path, variant: str, pgn: str, moves: tuple[str, ...], epd: str
) -> None:
    path = tmp_path / "book.pgn"
    path.write_text(f'[Event "book"]\n[Variant "{variant}"]\n\n{pgn}\n')
    assert [o.moves for o in load_openings(variant, path)] == [moves]
    assert [o.moves for o in load_openings(variant, path, plies=3)] == [moves[:3]]
    epd_path = tmp_path / "book.epd"
    epd_path.write_text(epd + "\n")
    (opening,) = load_openings(variant, epd_path)
    assert Game.from_fen(variant, opening.fen).turn == "black" and opening.moves == ()


def test_sequential_order_walks_the_book() -> None:
    slots = schedule(3, 8, seed=5, order="sequential")
    assert [s.opening_no for s in slots] == [0, 0, 1, 1, 2, 2, 0, 0]
    assert schedule(3, 8, seed=5) != slots  # random: shuffled (seeded)
    with pytest.raises(OpeningError):
        schedule(3, 8, seed=5, order="backwards")


def test_match_with_an_epd_book_in_order(tmp_path: Path) -> None:
    book, out = tmp_path / "book.epd", tmp_path / "m.json"
    book.write_text(EPD)
    done = subprocess.run(
        [sys.executable, "-m", "ladder.cli", "match", "greedy", "random", "--variant", "xiangqi",
         "--games", "6", "--openings", str(book), "--openings-order", "sequential",
         "--db", str(tmp_path / "m.sqlite"), "--json", str(out), "--max-plies", "40"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["settings"]["openings_order"] == "sequential"
    assert [g["opening"] for g in doc["games"]] == [0, 0, 1, 1, 2, 2]
    assert [g["start_fen"].split()[1] for g in doc["games"]][2:4] == ["b", "b"]
