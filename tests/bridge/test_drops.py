"""Drops from a GUI (crazyhouse-xiangqi): the piece letter in either case and either
name of a piece (``N@``, ``n@``, ``h@``), as the HTTP API and the rules checker take
it; the move played is the canonical one."""

from __future__ import annotations

import pytest

from ladder.rules.game import Game
from protocol import RankNumbering
from tests.bridge.helpers import ladder

pytestmark = pytest.mark.timeout(300)

VARIANT = "crazyhouse-xiangqi"
#: Red's cannon takes Black's horse and Black's chariot takes it back: each side has the
#: other's piece in hand, and Red drops the horse.
PLAYED = ["h3h10", "i10h10"]


@pytest.mark.parametrize("drop", ["N@e6", "n@e6", "h@e6"])
@pytest.mark.parametrize(
    ("dialect", "script", "answer"),
    [
        (
            "uci",
            [
                f"setoption name UCI_Variant value {VARIANT}",
                "position startpos moves h3h10 i10h10 {drop}",
                "go",
            ],
            "bestmove ",
        ),
        (
            "ucci",
            [
                f"setoption UCI_Variant {VARIANT}",
                "position startpos moves h2h9 i9h9 {drop}",
                "go depth 1",
            ],
            "bestmove ",
        ),
        (
            "xboard",
            [
                "protover 2",
                "new",
                f"variant {VARIANT}",
                "force",
                "usermove h2h9",
                "usermove i9h9",
                "{drop}",  # a move without `usermove`, as older GUIs send it
                "go",
            ],
            "move ",
        ),
    ],
)
def test_a_drop_in_any_spelling_is_played(
    dialect: str, script: list[str], answer: str, drop: str
) -> None:
    ranks = RankNumbering.ONE_BASED if dialect == "uci" else RankNumbering.ZERO_BASED
    lines = [line.format(drop=ranks.to_engine(drop)) for line in script]
    with ladder(dialect, "--seed", "3") as gui:
        gui.send(dialect, *lines)
        said = gui.expect(answer)
    assert not [line for line in said if "rror" in line or "Illegal" in line], said
    reply = ranks.from_engine(said[-1].split()[1])
    game = Game.from_fen(VARIANT, moves=[*PLAYED, "N@e6"])
    assert reply in game.legal_moves(), (reply, said)
