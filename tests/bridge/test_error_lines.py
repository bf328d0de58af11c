"""Error lines name moves and points in the GUI's notation (UCCI and XBoard: ranks
0..9), not the rules checker's canonical 1..10."""

from __future__ import annotations

import pytest

from tests.bridge.helpers import ladder

pytestmark = pytest.mark.timeout(300)

CHARIOT = "a chariot on a0 cannot move to a5"


def test_xboard_illegal_and_malformed_moves() -> None:
    with ladder("xboard") as gui:
        gui.send(
            "xboard", "protover 2", "new", "force", "usermove a0a5", "usermove z9", "usermove a0a10"
        )
        lines = gui.expect(lambda line: line.endswith(": a0a10"))
        refused = [line for line in lines if line.startswith("Illegal move")]
        assert refused[0] == (
            f"Illegal move (illegal move 'a0a5': {CHARIOT} (not its movement, or blocked)): a0a5"
        )
        assert refused[1] == (
            "Illegal move (malformed move 'z9': expected e.g. 'h2e2', 'b9c7' or a drop 'A@e2'): z9"
        )
        assert refused[2].startswith("Illegal move (malformed move 'a0a10'")


def test_ucci_position_and_banmoves() -> None:
    with ladder("ucci") as gui:
        gui.send("ucci", "position startpos moves h2e2 a9a8 a0a5", "banmoves a0a5 h7h0", "quit")
        lines = gui.expect("bye")
        errors = [line for line in lines if line.startswith("info message error")]
        assert errors == [
            "info message error: move 3 of the position: illegal move 'a0a5': "
            f"{CHARIOT} (not its movement, or blocked); stopped before it",
            "info message error: banmoves: not legal here, ignored: a0a5 h7h0",
        ]


def test_uci_keeps_its_own_ranks() -> None:
    with ladder("uci") as gui:
        gui.send("uci", "position startpos moves a1a6", "isready")
        lines = gui.expect("readyok")
        assert (
            "info string error: move 1 of the position: illegal move 'a1a6': a chariot on "
            "a1 cannot move to a6 (not its movement, or blocked); stopped before it"
        ) in lines
