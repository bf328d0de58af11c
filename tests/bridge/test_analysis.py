"""Analysis for GUIs: the engine at full strength, its lines streamed as they come.

UCI ``go infinite`` and ``UCI_AnalyseMode``, XBoard ``analyze``: the real bridge as a
subprocess, its engine's wire log read from standard error (``--log-level debug``) to
check that an analysis is not the level's node-limited search.
"""

from __future__ import annotations

import time

import pytest

from ladder.rules import Game
from protocol import RankNumbering
from tests.bridge.helpers import DEADLINE, LADDER, LineSession, engine_goes

pytestmark = pytest.mark.timeout(300)


def info_depth(line: str) -> int:
    words = line.split()
    return int(words[words.index("depth") + 1]) if line.startswith("info depth") else -1


def test_uci_go_infinite_streams_until_stop() -> None:
    start = Game.from_fen("xiangqi")
    with LineSession([LADDER, "--log-level", "debug", "uci"]) as gui:
        gui.send("uci", "position startpos", "go infinite")
        # Lines arrive while the analysis runs: deeper than a level-1 search goes.
        lines = gui.expect(lambda line: info_depth(line) >= 8 or line.startswith("bestmove"))
        assert not any(line.startswith("bestmove") for line in lines)
        streamed = [line for line in lines if line.startswith("info depth")]
        assert len(streamed) >= 5
        for line in streamed:
            assert " score " in line and " pv " in line
            assert line.split(" pv ")[1].split()[0] in start.legal_moves()
        gui.send("isready")
        gui.expect("readyok")  # answered during the analysis
        gui.send("stop")
        assert gui.expect("bestmove")[-1].split()[1] in start.legal_moves()
        assert engine_goes(gui, 1) == ["go infinite"]  # no node count: full strength


def test_uci_analyse_mode_uses_the_guis_limits() -> None:
    with LineSession([LADDER, "--log-level", "debug", "uci"]) as gui:
        gui.send("uci", "setoption name OwnBook value false")
        gui.send("setoption name UCI_AnalyseMode value true", "position startpos")
        gui.send("go depth 7")
        lines = gui.expect("bestmove")
        depths = [info_depth(line) for line in lines if line.startswith("info depth")]
        assert depths and max(depths) == 7
        gui.send("setoption name UCI_AnalyseMode value false", "position startpos", "go")
        gui.expect("bestmove")
        analysis, level = engine_goes(gui, 2)
        assert analysis == "go depth 7"
        assert level.startswith("go nodes ")  # the level plays again


def test_uci_analyse_mode_ponders_an_analysis_too() -> None:
    """In analysis mode a ``go ponder`` is an analysis as well (not the level's book
    move): held until ``ponderhit``, then answered from the analysis."""
    with LineSession([LADDER, "--log-level", "debug", "uci", "--level", "8"]) as gui:
        gui.send("uci", "setoption name UCI_AnalyseMode value true", "position startpos")
        gui.send("go ponder depth 6")
        engine_done = time.monotonic() + DEADLINE  # the engine's own bestmove, on the wire log
        while not any(") < bestmove" in line for line in list(gui.stderr)):
            assert time.monotonic() < engine_done, "the engine never answered"
            time.sleep(0.05)
        gui.send("isready")
        lines = gui.expect("readyok")
        assert not any(line.startswith("bestmove") for line in lines)  # held: pondering
        gui.send("ponderhit")
        lines += gui.expect("bestmove")
        depths = [info_depth(line) for line in lines if line.startswith("info depth")]
        assert depths and min(depths) >= 1 and max(depths) == 6, lines
        assert lines[-1].split()[1] in Game.from_fen("xiangqi").legal_moves()
        assert engine_goes(gui, 1) == ["go depth 6"]  # the analysis, not a level's nodes


def test_ucci_go_infinite_in_its_notation() -> None:
    with LineSession([LADDER, "ucci"]) as gui:
        gui.send("ucci", "position startpos moves h2e2", "go depth infinite")
        lines = gui.expect(lambda line: info_depth(line) >= 6)
        after = Game.from_fen("xiangqi", moves=["h3e3"])
        first = lines[-1].split(" pv ")[1].split()[0]
        assert RankNumbering.ZERO_BASED.from_engine(first) in after.legal_moves()
        gui.send("stop")
        move = gui.expect("bestmove")[-1].split()[1]
        assert RankNumbering.ZERO_BASED.from_engine(move) in after.legal_moves()


def test_xboard_analyze_follows_the_moves_until_exit() -> None:
    with LineSession([LADDER, "--log-level", "debug", "xboard"]) as gui:
        gui.send("xboard", "protover 2")
        features = gui.expect("feature done=1")
        assert any(" analyze=1 " in line for line in features)
        gui.send("new", "post", "analyze")

        def thinking(game: Game, depth: int) -> None:
            """Thinking lines about ``game`` down to ``depth`` (ply score time nodes pv)."""
            while True:
                words = gui.expect(lambda line: line[:1].isdigit())[-1].split()
                first = RankNumbering.ZERO_BASED.from_engine(words[4])
                if first not in game.legal_moves():
                    continue  # a line of the position before (already sent)
                assert all(w.lstrip("-").isdigit() for w in words[:4])
                if int(words[0]) >= depth:
                    return

        game = Game.from_fen("xiangqi")
        thinking(game, 7)
        gui.send("ping 1")
        gui.expect("pong 1")  # answered at once: an analysis never ends by itself
        gui.send("usermove h2e2")
        game.push("h3e3")
        thinking(game, 7)  # Black's replies, analysed afresh
        gui.send("undo")
        game.pop()
        thinking(game, 5)
        gui.send("exit", "ping 2")
        lines = gui.expect("pong 2")
        assert not any(line.startswith("move ") for line in lines)  # analysis never moves
        gui.send("ping 3")
        assert gui.expect("pong 3") == ["pong 3"]  # nothing streams after exit
        assert engine_goes(gui, 3) == ["go infinite"] * 3


@pytest.mark.parametrize("command", ["uci", "ucci"])
def test_stop_at_once_after_go_infinite_is_never_lost(command: str) -> None:
    """A `stop` that lands before the engine's `go` is sent again: the analysis ends."""
    with LineSession([LADDER, command]) as gui:
        gui.send(command, "position startpos", "go infinite", "stop", "isready")
        lines = gui.expect("readyok")
        assert [line.split()[0] for line in lines if line.startswith("bestmove")] == ["bestmove"]
