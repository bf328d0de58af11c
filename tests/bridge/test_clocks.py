"""A GUI's clock bounds the level's search: the time limit the bridge sends the engine.

The real bridge runs as a subprocess with the wire log on (``ladder --log-level debug``):
every line it sends our engine is on its standard error, so the test reads the ``go``
each clock gave and compares its ``movetime`` with the clock rule of ``/v1/move``
(:mod:`ladder.clock`). The level's node count stays on the same line.
"""

from __future__ import annotations

from ladder.clock import fixed_move_limit_ms, move_time_limit_ms
from tests.bridge.helpers import LADDER, LineSession, engine_goes

#: Out of every opening book, Red to move at move 11 (20 plies played).
FEN = "3akab2/9/4b4/p3p1p1p/9/2p6/P3P1P1P/4C4/9/2BAKAB2 w - - 0 11"
BLACK_FEN = FEN.replace(" w ", " b ")


def movetime(go: str) -> int | None:
    words = go.split()
    return int(words[words.index("movetime") + 1]) if "movetime" in words else None


def test_uci_clocks_bound_the_search() -> None:
    clocks = [
        # (the go line, the position's FEN, the limit expected)
        ("go wtime 60000 btime 30000 winc 1000 binc 500", FEN, move_time_limit_ms(60000, 1000)),
        (
            "go wtime 60000 btime 30000 winc 1000 binc 500 movestogo 10",
            BLACK_FEN,
            move_time_limit_ms(30000, 500, 10),
        ),
        ("go movetime 2000", FEN, fixed_move_limit_ms(2000)),
        ("go wtime 60000 btime 60000 movetime 500", FEN, fixed_move_limit_ms(500)),
        ("go wtime 100 btime 100", FEN, move_time_limit_ms(100)),  # 1 ms: never over
        ("go wtime -300 btime 5000", FEN, move_time_limit_ms(0)),  # a GUI past its flag
        ("go", FEN, None),
        ("go nodes 50 depth 3", FEN, None),  # the level's nodes, not the GUI's
    ]
    with LineSession([LADDER, "--log-level", "debug", "uci", "--seed", "3"]) as gui:
        gui.send("uci", "setoption name OwnBook value false")
        for go, fen, _ in clocks:
            gui.send(f"position fen {fen}", go)
            assert gui.expect("bestmove")[-1] != "bestmove (none)"
        goes = engine_goes(gui, len(clocks))
    for (sent, _, expected), go in zip(clocks, goes, strict=True):
        assert movetime(go) == expected, (sent, go)
        words = go.split()  # the level's node count, never the GUI's nodes or depth
        assert words[1] == "nodes" and int(words[2]) != 50 and "depth" not in words, go


def test_ucci_clocks_in_milliseconds_and_seconds() -> None:
    with LineSession([LADDER, "--log-level", "debug", "ucci", "--seed", "3"]) as gui:
        gui.send("ucci", "setoption OwnBook false", f"position fen {FEN}")
        gui.send("go time 60000 increment 1000 opptime 5000 oppincrement 0")
        gui.expect("bestmove")
        gui.send("setoption usemillisec false", f"position fen {BLACK_FEN}")
        gui.send("go time 45 increment 2 movestogo 20")
        gui.expect("bestmove")
        first, second = engine_goes(gui, 2)
    assert movetime(first) == move_time_limit_ms(60000, 1000)
    assert movetime(second) == move_time_limit_ms(45000, 2000, 20)


def test_xboard_level_st_and_time() -> None:
    def engine_moves(gui: LineSession, *clock: str) -> None:
        gui.send("force", f"setboard {FEN}", *clock, "go")
        assert gui.expect(lambda line: line.startswith(("move ", "Error", "Illegal")))[
            -1
        ].startswith("move ")

    with LineSession([LADDER, "--log-level", "debug", "xboard", "--seed", "3"]) as gui:
        gui.send("xboard", "protover 2")
        gui.expect("feature done=1")
        gui.send("new")
        # 40 moves in 5 minutes; Red has made 10 of them (move 11): 30 to go.
        engine_moves(gui, "level 40 5 0", "time 24000", "otim 30000")
        engine_moves(gui, "level 40 5 0")  # no `time` yet: the control's 5 minutes
        engine_moves(gui, "st 3")
        engine_moves(gui, "level 0 2:30 5", "time 12000")  # sudden death + 5 s a move
        goes = engine_goes(gui, 4)
    assert [movetime(go) for go in goes] == [
        move_time_limit_ms(240000, 0, 30),
        move_time_limit_ms(300000, 0, 30),
        fixed_move_limit_ms(3000),
        move_time_limit_ms(120000, 5000),
    ]
