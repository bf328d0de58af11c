"""`ladder ucci`, scripted from the UCCI specification (UCCI 3.0, xqbase.com): the
handshake, usemillisec, positions as "FEN after the last capture + moves", go with
clocks, banmoves, stop while idle, probe, quit/bye; moves in the specification's
0..9 ranks."""

from __future__ import annotations

import pytest

from ladder.rules import Game
from protocol.notation import from_ucci, to_ucci
from tests.bridge.helpers import ladder

pytestmark = pytest.mark.timeout(300)

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
# The specification's example: 1. C2=5 C8=5 2. C5+4 A4+5, the 4th position after a capture.
AFTER_CAPTURE = "rnbakabnr/9/1c2c4/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2"


def played(lines: list[str]) -> str:
    """The move of a `bestmove` line, canonical (the line is in UCCI's 0..9 ranks)."""
    words = lines[-1].split()
    assert words[0] == "bestmove" and not any(w in ("draw", "resign") for w in words[2:])
    return from_ucci(words[1])


def test_a_session_from_the_specification() -> None:
    with ladder("ucci", "--seed", "3") as gui:
        gui.send("ucci")
        lines = gui.expect("ucciok")
        assert lines[0].startswith("id name ")
        options = [line for line in lines if line.startswith("option ")]
        assert "option usemillisec type check default true" in options
        assert "option newgame type button" in options
        assert all(not line.startswith("option name ") for line in options)  # UCCI form
        gui.send("setoption usemillisec true", "setoption Level 2", "isready")
        assert gui.expect("readyok") == ["readyok"]
        assert "option OwnBook type check default true" in options
        gui.send("setoption OwnBook false", "isready")  # searched, so its output has a score
        assert gui.expect("readyok") == ["readyok"]

        # The position and the clock of the specification's first example.
        gui.send(f"position fen {START}", "go time 300000 increment 0")
        lines = gui.expect("bestmove")
        depth, time_nodes = lines[-3].split(), lines[-2].split()
        assert depth[:2] == ["info", "depth"] and depth[3] == "score" and depth[5] == "pv"
        int(depth[4])  # a bare score, as UCCI writes it
        assert time_nodes[:2] == ["info", "time"] and time_nodes[3] == "nodes"
        assert depth[6] == lines[-1].split()[1]  # the pv starts with the move played
        assert played(lines) in Game.from_fen("xiangqi", START).legal_moves()

        # Its position 5: the FEN after the capture, then the move since (ranks 0..9).
        gui.send(f"position fen {AFTER_CAPTURE} moves d9e8", "go depth 5")
        after = Game.from_fen("xiangqi", AFTER_CAPTURE, [from_ucci("d9e8")])
        first = played(gui.expect("bestmove"))
        assert first in after.legal_moves()

        # banmoves: the banned move is not played; the next position clears the ban.
        gui.send(f"position fen {AFTER_CAPTURE} moves d9e8", f"banmoves {to_ucci(first)}")
        gui.send("go depth 5")
        second = played(gui.expect("bestmove"))
        assert second != first and second in after.legal_moves()
        gui.send(f"position fen {AFTER_CAPTURE} moves d9e8", "go depth 5")
        assert played(gui.expect("bestmove")) == first

        # A draw offer is declined (a plain bestmove); `ponder` waits for `ponderhit`.
        gui.send(f"position fen {START}", "go draw time 300000 increment 0")
        assert played(gui.expect("bestmove")) in Game.from_fen("xiangqi").legal_moves()
        gui.send(f"position fen {START} moves h2e2", "go ponder time 300000", "isready")
        assert gui.expect(lambda ln: ln == "readyok" or ln.startswith("bestmove"))[-1] == "readyok"
        gui.send("ponderhit")
        assert (
            played(gui.expect("bestmove")) in Game.from_fen("xiangqi", moves=["h3e3"]).legal_moves()
        )

        # stop while idle: nobestmove (so that a confused GUI does not wait forever).
        gui.send("stop")
        assert gui.expect("nobestmove") == ["nobestmove"]
        gui.send("probe startpos")
        assert gui.expect("pophash") == ["pophash"]

        # quit is answered with bye, and the engine exits.
        gui.send("quit")
        assert gui.expect("bye") == ["bye"]
        assert gui.wait() == 0


def test_checkmated_is_nobestmove_and_errors_are_info_messages() -> None:
    with ladder("ucci") as gui:
        gui.send("ucci", "position fen 1R2k4/R8/9/9/9/9/9/9/9/3K5 b - - 1 1", "go depth 3")
        assert gui.expect(lambda ln: ln.endswith("bestmove"))[-1] == "nobestmove"
        gui.send(f"position fen {START} moves h2e2 h9g7 a0a9", "go depth 1")
        lines = gui.expect("bestmove")
        assert lines[0].startswith("info message error: move 3 of the position: illegal")
        assert played(lines) in Game.from_fen("xiangqi", moves=["h3e3", "h10g8"]).legal_moves()
        gui.send("setoption hashsize 64", "banmoves z9z9", "isready")
        lines = gui.expect("readyok")
        assert lines[0].startswith("info message error: unknown option 'hashsize'")
        assert lines[1].startswith("info message error: banmoves: not legal here")
