"""A GUI's clock bounds the level's search: the time limit the bridge sends the engine.

The real bridge runs as a subprocess with the wire log on (``ladder --log-level debug``):
every line it sends our engine is on its standard error, so the test reads the ``go``
each clock gave and compares its ``movetime`` with the clock rule of ``/v1/move``
(:mod:`ladder.level_engine.clock`). The level's node count stays on the same line.
"""

from __future__ import annotations

from ladder.level_engine.clock import fixed_move_limit_ms, move_time_limit_ms
from ladder.variants import FSF_VARIANT
from tests.bridge.helpers import CLOCK_SLACK_MS, LADDER, LineSession, engine_goes

#: Out of every opening book, Red to move at move 11 (20 plies played).
FEN = "3akab2/9/4b4/p3p1p1p/9/2p6/P3P1P1P/4C4/9/2BAKAB2 w - - 0 11"
BLACK_FEN = FEN.replace(" w ", " b ")


def movetime(go: str) -> int | None:
    words = go.split()
    return int(words[words.index("movetime") + 1]) if "movetime" in words else None


def assert_limit(go: str, expected: int | None) -> None:
    """The ``movetime`` the engine got is the clock rule's limit less what the bridge
    spent since the GUI's ``go`` (never more; at least 1 ms)."""
    sent = movetime(go)
    if expected is None:
        assert sent is None, go
    else:
        assert sent is not None and max(1, expected - CLOCK_SLACK_MS) <= sent <= expected, (
            expected,
            go,
        )


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
        gui.send("uci", "setoption name OwnBook value false", "isready")
        gui.expect("readyok")
        for go, fen, _ in clocks:
            gui.send(f"position fen {fen}", go)
            assert gui.expect("bestmove")[-1] != "bestmove (none)"
        goes = engine_goes(gui, len(clocks))
    for (_, _, expected), go in zip(clocks, goes, strict=True):
        assert_limit(go, expected)
        words = go.split()  # the level's node count, never the GUI's nodes or depth
        assert words[1] == "nodes" and int(words[2]) != 50 and "depth" not in words, go


def test_ucci_clocks_in_milliseconds_and_seconds() -> None:
    with LineSession([LADDER, "--log-level", "debug", "ucci", "--seed", "3"]) as gui:
        gui.send("ucci", "setoption OwnBook false", "isready")
        gui.expect("readyok")
        gui.send(f"position fen {FEN}")
        gui.send("go time 60000 increment 1000 opptime 5000 oppincrement 0")
        gui.expect("bestmove")
        gui.send("setoption usemillisec false", f"position fen {BLACK_FEN}")
        gui.send("go time 45 increment 2 movestogo 20")
        gui.expect("bestmove")
        first, second = engine_goes(gui, 2)
    assert_limit(first, move_time_limit_ms(60000, 1000))
    assert_limit(second, move_time_limit_ms(45000, 2000, 20))


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
    expected = [
        move_time_limit_ms(240000, 0, 30),
        move_time_limit_ms(300000, 0, 30),
        fixed_move_limit_ms(3000),
        move_time_limit_ms(120000, 5000),
    ]
    for go, limit in zip(goes, expected, strict=True):
        assert_limit(go, limit)


def test_isready_sets_the_level_up_so_that_go_only_searches() -> None:
    """The slow part of a setup (level 8's Hash, a new variant) happens at ``isready``,
    out of the clock: after it the engine gets nothing but the search."""
    with LineSession([LADDER, "--log-level", "debug", "uci", "--level", "8"]) as gui:
        gui.send("uci", "setoption name OwnBook value false")
        for variant in ("xiangqi", "atomic-xiangqi"):
            gui.send(f"setoption name UCI_Variant value {variant}", "isready")
            gui.expect("readyok")
            gui.send(f"position fen {FEN}", "go wtime 5000 btime 5000")
            gui.expect("bestmove")
        engine_goes(gui, 2)  # the wire log has come this far
        sent = [line.partition(") > ")[2].strip() for line in list(gui.stderr) if ") > " in line]
    # what went to the engine between its last readiness check and each search
    goes = [i for i, line in enumerate(sent) if line.startswith("go ")]
    assert len(goes) == 2
    for i in goes:
        since = sent[max(j for j in range(i) if sent[j] == "isready") + 1 : i + 1]
        slow = ("setoption name Hash", "setoption name UCI_Variant")  # (MultiPV is cheap)
        assert not any(line.startswith(slow) for line in since), since
    variants = [line for line in sent if "UCI_Variant" in line]
    wanted = [FSF_VARIANT[v] for v in ("xiangqi", "atomic-xiangqi")]
    assert [v.split()[-1] for v in variants][-2:] == wanted, variants
    assert any(line == "setoption name Hash value 64" for line in sent[: goes[0]]), sent


def test_isready_in_analysis_mode_sets_the_analysis_up() -> None:
    """In analysis mode ``isready`` sets the analysis's Hash (not level 1's): the table
    is neither cleared nor reallocated between the GUI's analyses."""
    with LineSession([LADDER, "--log-level", "debug", "uci", "--level", "1"]) as gui:
        gui.send("uci", "setoption name UCI_AnalyseMode value true")
        for _ in range(2):
            gui.send("isready")
            gui.expect("readyok")
            gui.send(f"position fen {FEN}", "go depth 4")
            gui.expect("bestmove")
        engine_goes(gui, 2)
        sent = [line.partition(") > ")[2].strip() for line in list(gui.stderr) if ") > " in line]
    hashes = [line for line in sent if line.startswith("setoption name Hash")]
    assert hashes == ["setoption name Hash value 64"], hashes  # set once, at the first isready
