"""`ladder xboard`, scripted as XBoard drives an engine (CECP, protover 2): features,
new/variant/usermove, force/go/playother, setboard, undo/remove, ping, ``?``, result;
moves with XBoard's 0..9 ranks."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from ladder.rules import Game
from protocol.notation import from_ucci, to_ucci
from tests.bridge.helpers import atomic_rated_higher, ladder

pytestmark = pytest.mark.timeout(300)


def engine_move(lines: list[str]) -> str:
    """The engine's move (canonical) from the lines up to its `move` line."""
    assert lines[-1].startswith("move ")
    return from_ucci(lines[-1].split()[1])


def test_features_and_a_game_as_xboard_plays_it() -> None:
    with ladder("xboard", "--seed", "9") as gui:
        gui.send("xboard", "protover 2")
        lines = gui.expect("feature done=1")
        assert lines[0] == "feature done=0"
        features = dict(
            word.split("=", 1) for line in lines for word in shlex.split(line)[1:] if "=" in word
        )
        assert features["variants"] == "xiangqi,atomic-xiangqi,crazyhouse-xiangqi"
        assert features["setboard"] == features["ping"] == features["usermove"] == "1"
        assert 'feature option="Level -spin 1 1 8"' in lines
        gui.send("accepted setboard", "new", "variant xiangqi", "level 40 5 0", "post", "hard")
        # The engine plays Black, out of its opening book (so it searches and posts).
        gui.send("time 30000", "otim 30000", "usermove a3a4")
        game = Game.from_fen("xiangqi", moves=["a4a5"])
        lines = gui.expect("move ")
        thinking = lines[-2].split()
        assert len(thinking) >= 5 and all(t.lstrip("-").isdigit() for t in thinking[:4])
        assert from_ucci(thinking[4]) == engine_move(lines)
        game.push(engine_move(lines))

        # A bare move (no `usermove`) is a move too; an illegal one is refused.
        reply = game.legal_moves()[0]
        gui.send("a0a9", to_ucci(reply))
        lines = gui.expect("move ")
        assert lines[0].startswith("Illegal move (") and lines[0].endswith(": a0a9")
        game.push(reply)
        game.push(engine_move(lines))

        # ping is answered after the move when the engine is thinking.
        mine = game.legal_moves()[0]
        gui.send(f"usermove {to_ucci(mine)}", "ping 7")
        lines = gui.expect("pong 7")
        assert lines[-2].startswith("move ")
        game.push(mine)
        game.push(engine_move(lines[:-1]))

        # undo/remove take moves back; force then go makes the engine play Red.
        gui.send("force", "remove", "undo", "go")
        game.pop(), game.pop(), game.pop()
        lines = gui.expect("move ")
        assert engine_move(lines) in game.legal_moves()
        gui.send("result 1/2-1/2 {agreed}", "ping 8")
        assert gui.expect("pong 8")[-1] == "pong 8"


def test_setboard_playother_and_the_end_of_the_game() -> None:
    with ladder("xboard") as gui:
        gui.send("xboard", "protover 2", "new", "variant xiangqi", "force", "option Level=5")
        # Red mates in one: the engine plays Red and says the game is over. (Level 5 past
        # its opening variety, ply 40: its best move, not one of the near-equal ones.)
        gui.send("setboard 4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 21", "go")
        lines = gui.expect(lambda line: line.startswith("1-0"))
        assert lines[-2] == "move b0b9" and lines[-1] == "1-0 {checkmate}"
        # A bad position: an error dialog, and the start position instead.
        gui.send("new", "force", "setboard rnbakabnr/9 w - - 0 1", "ping 1")
        lines = gui.expect("pong 1")
        assert lines[0].startswith("tellusererror Illegal position:")
        # XBoard's own xiangqi FEN (H/E letters, no castling or e.p. field) is read.
        xboard_start = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w 0 1"
        gui.send(f"setboard {xboard_start}", "ping 2")
        assert gui.expect("pong 2") == ["pong 2"]
        # playother: the engine takes the side not on move, and replies to Red's move.
        gui.send("playother", "usermove b0c2")
        lines = gui.expect("move ")
        assert engine_move(lines) in Game.from_fen("xiangqi", moves=["b1c3"]).legal_moves()
        # quit right after analyze (before the engine's `go`, maybe) exits at once.
        gui.send("variant chess", "analyze", "quit")
        assert gui.expect("Error (")[-1] == "Error (unsupported variant): chess"
        assert gui.wait() == 0


def test_a_claim_then_play_on_when_the_gui_does() -> None:
    """Our rules end the game (sixty plies without a capture): the engine claims it once.
    A GUI that judges by other rules plays on (`go` again, or a move): so does the
    engine, without claiming again."""
    fen = "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 60 1"
    with ladder("xboard") as gui:
        gui.send("xboard", "protover 2", "new", "force", f"setboard {fen}", "go")
        lines = gui.expect(lambda line: line.startswith(("1/2-1/2", "move ")))
        assert lines[-1] == "1/2-1/2 {sixty-plies}"
        gui.send("go")  # the GUI plays on
        lines = gui.expect(lambda line: line.startswith(("move ", "1/2-1/2")))
        red = engine_move(lines)
        game = Game.from_fen("xiangqi", fen)
        assert red in game.legal_moves()
        game.push(red, after_end=True)
        black = sorted(game.legal_moves())[0]
        game.push(black, after_end=True)
        gui.send(f"usermove {to_ucci(black)}")
        lines = gui.expect(lambda line: line.startswith(("move ", "1/2-1/2", "Illegal")))
        assert engine_move(lines) in game.legal_moves()


def test_impossible_clocks_are_named_errors() -> None:
    """`st`/`level` times that are no clock (0, negative, inf, nan, over a day, 75 seconds
    in a minute) are an error line each,
    naming the command, not an internal error or a 1 ms search."""
    with ladder("xboard") as gui:
        bad = ["st 0", "st -1", "st inf", "level 40 5 inf", "level 40 5 nan", "level -1 5 0"]
        bad += ["level 40 100000 0", "level 40 5:-30 0", "level 40 5:75 0"]
        gui.send("xboard", "protover 2", *bad, "ping 1")
        lines = [line for line in gui.expect("pong 1") if line.startswith("Error")]
        assert len(lines) == len(bad), lines
        for command, line in zip(bad, lines, strict=True):
            name, value = command.split(" ", 1)
            assert line.startswith(f"Error ({name} needs "), line
            assert line.endswith(f"not {value!r})"), line
        gui.send("st 0.5", "level 40 5 1.5", "level 40 5:30 0", "ping 2")
        assert gui.expect("pong 2") == ["pong 2"]  # real clocks: no error
        gui.send("quit")
        assert gui.wait() == 0


def test_the_elo_option_spans_every_variant(tmp_path: Path) -> None:
    """XBoard's Elo spin spans every variant's ratings; beyond the variant's own, its
    nearest end plays and a comment line says so; beyond the spin, an error."""
    levels = atomic_rated_higher(tmp_path)  # atomic 200..900, the others 100..800
    with ladder("xboard", "--levels", str(levels)) as gui:
        gui.send("xboard", "protover 2")
        assert 'feature option="Elo -spin 100 100 900"' in gui.expect("feature done=1")
        gui.send("new", "variant xiangqi", "option Elo=850", "ping 1")
        assert gui.expect("pong 1") == [
            "# Elo 850 is beyond xiangqi's ratings (100 to 800): playing 800",
            "pong 1",
        ]
        gui.send("variant atomic-xiangqi", "ping 2")
        assert gui.expect("pong 2") == ["pong 2"]
        gui.send("option Elo=950", "ping 3")
        assert gui.expect("pong 3") == [
            "Error (Elo 950: elo must be between 100 and 900, got 950)",
            "pong 3",
        ]
        gui.send("new", "ping 4")  # back to xiangqi, where 850 is beyond the ratings
        assert gui.expect("pong 4")[0].startswith("# Elo 850 is beyond xiangqi's")
        gui.send("force", "go")
        assert engine_move(gui.expect("move ")) in Game.from_fen("xiangqi").legal_moves()


def test_a_level_chosen_under_an_elo_from_the_command_line_is_kept(rated_levels: Path) -> None:
    """`ladder xboard --elo N`, whose options XBoard sends each time it starts it: the
    Level the player picked plays, and the Elo sent after it with the value the option
    shows (N, the default) changes nothing (it used to play N again)."""

    def answer(*args: str, options: tuple[str, ...]) -> list[str]:
        with ladder("xboard", "--levels", str(rated_levels), "--seed", "6", *args) as gui:
            gui.send("xboard", "protover 2")
            gui.expect("feature done=1")
            gui.send(*(f"option {option}" for option in options))
            gui.send("new", "force", "post", "usermove h2e2", "usermove h7e7", "go")
            lines = gui.expect("move ")
        # the move and its search (ply score time nodes pv), without the time it took
        return [" ".join(w for i, w in enumerate(line.split()) if i != 2) for line in lines]

    chosen = answer("--elo", "450", options=("Level=8", "Elo=450"))
    assert chosen == answer(options=("Level=8",))
    assert chosen != answer("--elo", "450", options=())
