"""`ladder uci` as a GUI drives it: a real subprocess over real pipes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.client import Ladder
from ladder.levels import LEVELS_FILE, elo_range, load_levels
from ladder.rules import Game
from ladder.seeds import derive_seed
from protocol import Dialect, Engine, Limit, RankNumbering, XBoardEngine
from protocol.notation import from_ucci, to_ucci
from tests.bridge.helpers import LADDER, RATED_LEVELS, LineSession, atomic_rated_higher, ladder

pytestmark = pytest.mark.timeout(300)


def bestmove(lines: list[str]) -> str:
    return lines[-1].split()[1]


def test_handshake_lists_the_options(tmp_path: Path) -> None:
    unrated = tmp_path / "unrated.toml"
    unrated.write_text(RATED_LEVELS.split("[variant.")[0])
    with ladder("uci", "--levels", str(unrated)) as gui:
        gui.send("uci")
        lines = gui.expect("uciok")
    assert lines[0].startswith("id name Mistboard ladder")
    options = [line for line in lines if line.startswith("option ")]
    assert options == [
        "option name UCI_Variant type combo default xiangqi var xiangqi var atomic-xiangqi "
        "var crazyhouse-xiangqi",
        "option name Level type spin default 1 min 1 max 8",
        "option name Seed type spin default 0 min 0 max 2147483647",
        "option name OwnBook type check default true",
        "option name UCI_AnalyseMode type check default false",
    ]  # no Elo: nothing is rated in this levels file


def test_the_shipped_levels_offer_elo_only_when_calibrated() -> None:
    rated = any(elo_range(levels) for levels in load_levels(LEVELS_FILE).values())
    with ladder("uci") as gui:
        gui.send("uci")
        lines = gui.expect("uciok")
        assert any(line.startswith("option name Elo ") for line in lines) == rated
        if not rated:
            gui.send("setoption name Elo value 1500", "isready")
            said = gui.expect("readyok")
            assert said[0].startswith("info string error: Elo is unavailable")
            assert "ladder calibrate" in said[0]


async def test_each_move_is_the_services_move_for_the_derived_seed() -> None:
    """`ladder uci --seed S` plays, in each position, the move service's move for the
    seed derived from S and the game so far (the same code: level_move)."""
    games = [("xiangqi", 2, []), ("xiangqi", 3, ["h3e3", "h10g8"]), ("atomic-xiangqi", 1, [])]
    answers = []
    with ladder("uci", "--seed", "11") as gui:
        gui.send("uci")
        gui.expect("uciok")
        for variant, level, moves in games:
            gui.send(
                f"setoption name UCI_Variant value {variant}",
                f"setoption name Level value {level}",
                "position startpos" + (" moves " + " ".join(moves) if moves else ""),
                "go wtime 60000 btime 60000",
            )
            lines = gui.expect("bestmove")
            assert lines[-2].startswith("info depth ")
            answers.append((bestmove(lines), " score " in lines[-2]))
    async with Ladder(engines=1) as service:
        for (variant, level, moves), (played, scored) in zip(games, answers, strict=True):
            start = Game.from_fen(variant).start_fen
            seed = derive_seed(11, start, *moves)
            reply = await service.move(variant=variant, level=level, moves=moves, seed=seed)
            assert reply.move == played
            # A book move is searched by nobody: no score, on either door.
            assert scored == (not reply.book) == (reply.score.cp is not None)


def test_elo_plays_from_a_rated_levels_file(rated_levels: Path) -> None:
    with ladder("uci", "--levels", str(rated_levels)) as gui:
        gui.send("uci")
        lines = gui.expect("uciok")
        assert "option name Elo type spin default 100 min 100 max 800" in lines
        gui.send("setoption name Elo value 450", "position startpos", "go depth 3")
        move = bestmove(gui.expect("bestmove"))
        assert move in Game.from_fen("xiangqi").legal_moves()
        gui.send("setoption name Elo value 5000", "isready")
        said = gui.expect("readyok")
        assert said[0].startswith("info string error: Elo 5000: elo must be between 100")


def test_an_elo_the_next_variant_cannot_play_falls_back_to_the_level(tmp_path: Path) -> None:
    xiangqi_only = tmp_path / "levels.toml"
    xiangqi_only.write_text(
        "\n".join(
            part
            for part in RATED_LEVELS.split("\n\n")
            if not part.startswith(("[variant.atomic", "[variant.crazyhouse"))
        )
    )
    with ladder("uci", "--levels", str(xiangqi_only), "--level", "2") as gui:
        gui.send(
            "uci", "setoption name Elo value 450", "setoption name UCI_Variant value atomic-xiangqi"
        )
        gui.send("position startpos", "go")
        lines = gui.expect("bestmove")
        assert lines[-3].startswith("info string error: Elo is unavailable")
        assert lines[-3].endswith("playing Level 2")
        assert bestmove(lines) in Game.from_fen("atomic-xiangqi").legal_moves()


def test_bad_input_gets_an_error_line_and_a_legal_fallback() -> None:
    with ladder("uci") as gui:
        gui.send("uci")
        gui.expect("uciok")
        gui.send("position fen rnbakabnr/9/9 w - - 0 1 moves h3e3", "go")
        lines = gui.expect("bestmove")
        assert lines[0].startswith("info string error: bad position")
        assert bestmove(lines) in Game.from_fen("xiangqi").legal_moves()  # the start position
        gui.send("position startpos moves h3e3 h10g8 a1a5 b1c3", "go")
        lines = gui.expect("bestmove")
        assert lines[0].startswith("info string error: move 3 of the position: illegal move")
        assert bestmove(lines) in Game.from_fen("xiangqi", moves=["h3e3", "h10g8"]).legal_moves()
        assert gui.proc.stdin is not None
        gui.proc.stdin.write("setoption name Level value nine\nfly me\nisready\x07\n")
        gui.proc.stdin.write("x" * (1 << 21) + "\n")  # a 2 MB line
        gui.proc.stdin.write("setoption name Threads value 4\nisready\n")
        gui.proc.stdin.flush()
        lines = gui.expect("readyok")
        assert [line.split(":")[0] for line in lines] == ["info string error"] * 5 + ["readyok"]
        assert "needs an integer" in lines[0] and "unknown command: 'fly me'" in lines[1]
        assert "unreadable input line" in lines[2] and "over 1048576 bytes" in lines[3]
        assert "unknown option 'Threads'" in lines[4]
        gui.send("position startpos", "go")  # still playing
        assert bestmove(gui.expect("bestmove")) in Game.from_fen("xiangqi").legal_moves()


def test_no_legal_move_is_bestmove_none() -> None:
    with ladder("uci") as gui:
        gui.send("uci", "position fen 1R2k4/R8/9/9/9/9/9/9/9/3K5 b - - 1 1", "go")
        assert gui.expect("bestmove")[-1] == "bestmove (none)"


def test_go_infinite_answers_on_stop_and_isready_meanwhile() -> None:
    with ladder("uci") as gui:
        gui.send("uci", "position startpos", "go infinite", "isready")
        lines = gui.expect(lambda line: line in ("readyok",) or line.startswith("bestmove"))
        assert lines[-1] == "readyok"  # no bestmove before stop
        gui.send("stop")
        assert bestmove(gui.expect("bestmove")) in Game.from_fen("xiangqi").legal_moves()
        gui.send("setoption name Level value 8", "position startpos", "go", "quit")
        assert gui.wait() == 0  # quit does not wait for the level-8 search's bestmove


@pytest.mark.parametrize("dialect", [Dialect.UCI, Dialect.UCCI, Dialect.XBOARD])
async def test_our_clients_drive_the_ladder(dialect: Dialect) -> None:
    """Our own clients against `ladder uci|ucci|xboard`: the UCCI client finds out the
    0-9 ranks by itself, thinking output carries the score (out of the book), every
    move is legal."""
    engine = await Engine.start([LADDER, dialect.value, "--seed", "5"], protocol=dialect)
    try:
        assert engine.id["name"].startswith("Mistboard ladder")
        await engine.configure({"Level": 2})
        await engine.set_variant("xiangqi")
        game = Game.from_fen("xiangqi")
        for _ in range(4):
            result = await engine.search(
                None, game.moves, Limit(depth=1), validate_move=game.is_legal
            )
            # A searched move carries its score; a book move (nothing searched: depth 0,
            # nodes 0) has none.
            assert result.move is not None
            assert "score" in result.info or result.info.get("nodes", 0) == 0, result.info
            game.push(result.move)
        if isinstance(engine, XBoardEngine):
            await engine.send_result("*")
    finally:
        await engine.close()


def test_an_engine_that_keeps_failing_gets_error_lines_and_legal_moves(tmp_path: Path) -> None:
    """The engine crashes at every start: `isready` and `go` are still answered (an
    error line, then readyok, or a random legal move), never a hang."""
    broken = tmp_path / "broken-engine"
    fake = Path(__file__).parents[1] / "protocol" / "fake_engine.py"
    broken.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} crash-at-start\n")
    broken.chmod(0o755)
    gui = LineSession([LADDER, "uci"], env={"LADDER_ENGINE": str(broken)})
    with gui:
        gui.send("uci", "isready")
        lines = gui.expect("readyok")
        assert lines[-2].startswith("info string error: the engine does not start")
        # A position out of the opening book: the level must search.
        gui.send("position startpos moves a4a5", "go")
        lines = gui.expect("bestmove")
        assert any("playing a random legal move" in line for line in lines)
        assert " score " not in lines[-2]  # no score for a move nothing searched
        assert bestmove(lines) in Game.from_fen("xiangqi", moves=["a4a5"]).legal_moves()


@pytest.mark.parametrize(
    ("command", "script"),
    [
        ("uci", "uci\nisready\nposition startpos\ngo\nquit\n"),
        ("xboard", "xboard\nprotover 2\nvariant xiangqi\ngo\nquit\n"),
    ],
)
def test_quit_right_after_go_ends_cleanly(command: str, script: str) -> None:
    """A GUI may quit while a search starts: exit 0 and nothing on stderr (no coroutine
    left unawaited, no traceback)."""
    done = subprocess.run(
        [LADDER, command], input=script, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("command", "script", "answer"),
    [
        ("uci", "uci\nposition startpos moves a4a5\ngo\n", "bestmove "),
        ("ucci", "ucci\nposition startpos moves a3a4\ngo depth 1\n", "bestmove "),
        ("xboard", "xboard\nprotover 2\nnew\nforce\nusermove a3a4\ngo\n", "move "),
    ],
)
def test_input_that_ends_during_a_search_still_gets_the_move(
    command: str, script: str, answer: str
) -> None:
    """`printf '…go\n' | ladder uci|ucci|xboard`: the move asked for is played before the
    bridge exits (as Stockfish answers a piped `go`), out of the book."""
    done = subprocess.run(
        [LADDER, command], input=script, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    moves = [line.split()[1] for line in done.stdout.splitlines() if line.startswith(answer)]
    assert len(moves) == 1, done.stdout
    assert canonical(command, moves[0]) in Game.from_fen("xiangqi", moves=["a4a5"]).legal_moves()


@pytest.mark.parametrize(
    ("command", "first", "reply"), [("uci", "h3e3", "h10g8"), ("ucci", "h2e2", "h9g7")]
)
def test_a_command_during_go_infinite_ends_it_with_an_answer(
    command: str, first: str, reply: str
) -> None:
    """`position`/`go` while `go infinite` holds its answer is the GUI's mistake: the held
    answer is given, then the new search runs (it used to wait forever, deaf even to
    `quit`)."""
    start = Game.from_fen("xiangqi")
    after = Game.from_fen("xiangqi")
    after.push("h3e3")
    with ladder(command) as gui:
        gui.send(command, "position startpos", "go infinite", "isready")
        gui.expect("readyok")
        gui.send(f"position startpos moves {first}", "go", "isready")
        lines = gui.expect("readyok")
        held = [line for line in lines if line.startswith("bestmove")]
        assert len(held) == 1 and canonical(command, bestmove(held)) in start.legal_moves()
        answer = canonical(command, bestmove(gui.expect("bestmove")))
        assert answer in after.legal_moves()
        gui.send(f"position startpos moves {first} {reply}", "go infinite", "go", "quit")
        gui.expect("bestmove")  # the held answer; `quit` need not wait for the second
        assert gui.wait() == 0


@pytest.mark.parametrize("command", ["uci", "ucci"])
def test_input_that_ends_during_a_search_still_gets_the_answer(command: str) -> None:
    """`printf 'position startpos\\ngo\\n' | ladder uci` answers, as Stockfish does."""
    for go in ("go", "go infinite"):
        done = subprocess.run(
            [LADDER, command],
            input=f"position startpos\n{go}\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0 and done.stderr == ""
        lines = done.stdout.splitlines()
        assert lines[-1].startswith("bestmove"), lines
        assert canonical(command, bestmove(lines)) in Game.from_fen("xiangqi").legal_moves()


def canonical(command: str, move: str) -> str:
    ranks = RankNumbering.ZERO_BASED if command in ("ucci", "xboard") else RankNumbering.ONE_BASED
    return ranks.from_engine(move)


@pytest.mark.parametrize("command", ["uci", "ucci"])
def test_an_unknown_variant_and_go_before_any_position(command: str) -> None:
    """An unknown variant changes nothing (an error line); `go` before any `position`
    plays from the variant's start position."""
    setoption = "setoption name UCI_Variant value" if command == "uci" else "setoption UCI_Variant"
    with ladder(command) as gui:
        gui.send(command)
        gui.expect(f"{command}ok")
        gui.send(f"{setoption} chess", "go")
        lines = gui.expect("bestmove")
        assert "unknown variant 'chess'" in lines[0] and "error" in lines[0]
        assert canonical(command, bestmove(lines)) in Game.from_fen("xiangqi").legal_moves()


def test_the_gui_strength_slider_is_the_elo_curve(rated_levels: Path) -> None:
    """UCI_LimitStrength + UCI_Elo (what GUIs' strength sliders set) play exactly what
    the Elo option plays at that Elo; with UCI_LimitStrength off, the Level plays."""
    moves = []
    for setting in (
        ["setoption name Elo value 450"],
        ["setoption name UCI_Elo value 450", "setoption name UCI_LimitStrength value true"],
    ):
        with ladder("uci", "--levels", str(rated_levels), "--seed", "3") as gui:
            gui.send("uci")
            lines = gui.expect("uciok")
            assert "option name UCI_LimitStrength type check default false" in lines
            assert "option name UCI_Elo type spin default 100 min 100 max 800" in lines
            gui.send(*setting, "position startpos", "go depth 3")
            moves.append(bestmove(gui.expect("bestmove")))
            gui.send("setoption name UCI_Elo value 5000", "isready")
            said = gui.expect("readyok")
            assert said[0].startswith("info string error: Elo 5000: elo must be between 100")
    assert moves[0] == moves[1]


def test_an_elo_beyond_the_variant_plays_its_nearest_end(tmp_path: Path) -> None:
    """The Elo spin spans every variant's ratings; an Elo inside it but beyond the
    variant's own plays that variant's nearest end, and a line says so (a slider at its
    end asks for the weakest or the strongest there is). Beyond the spin: refused."""
    shifted = atomic_rated_higher(tmp_path)  # atomic 200..900, the others 100..800

    def first_move(*setting: str) -> tuple[str, list[str]]:
        with ladder("uci", "--levels", str(shifted), "--seed", "5") as gui:
            gui.send("uci")
            options = gui.expect("uciok")
            assert "option name Elo type spin default 100 min 100 max 900" in options
            gui.send(*setting, "isready")
            said = gui.expect("readyok")[:-1]
            gui.send("position startpos", "go depth 3")
            return bestmove(gui.expect("bestmove")), said

    top, said = first_move("setoption name Elo value 800")
    assert said == []
    clamped, said = first_move("setoption name Elo value 850")
    assert said == ["info string Elo 850 is beyond xiangqi's ratings (100 to 800): playing 800"]
    assert clamped == top
    slider, said = first_move(
        "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 900"
    )
    assert said == ["info string Elo 900 is beyond xiangqi's ratings (100 to 800): playing 800"]
    assert slider == top
    # Atomic plays 850 as set; atomic's 150 is beyond its span, xiangqi's 150 is not.
    with ladder("uci", "--levels", str(shifted)) as gui:
        gui.send("uci", "setoption name Elo value 850")
        gui.send("setoption name UCI_Variant value atomic-xiangqi", "isready")
        assert gui.expect("readyok")[-2:] == [
            "info string Elo 850 is beyond xiangqi's ratings (100 to 800): playing 800",
            "readyok",
        ]
        gui.send("setoption name Elo value 150", "isready")
        assert gui.expect("readyok")[0] == (
            "info string Elo 150 is beyond atomic-xiangqi's ratings (200 to 900): playing 200"
        )
        gui.send("setoption name UCI_Variant value xiangqi", "isready")
        assert gui.expect("readyok") == ["readyok"]
        gui.send("setoption name Elo value 950", "isready")
        said = gui.expect("readyok")
        assert said[0] == "info string error: Elo 950: elo must be between 100 and 900, got 950"


def test_the_slider_plays_its_default_and_rules_the_level_while_on(rated_levels: Path) -> None:
    """UCI_LimitStrength on plays UCI_Elo, its default (the lowest rating) when the GUI
    sends only the check box, and a Level sent meanwhile does not replace it (GUIs send
    the options the user touched, in any order); off again, the Level plays."""

    def first_move(*setting: str) -> str:
        with ladder("uci", "--levels", str(rated_levels), "--seed", "4") as gui:
            gui.send("uci", *setting, "position startpos moves h3e3 h8e8", "go")
            return bestmove(gui.expect("bestmove"))

    lowest, level_5 = (
        first_move("setoption name Elo value 100"),
        first_move("setoption name Level value 5"),
    )
    assert lowest != level_5
    assert first_move("setoption name UCI_LimitStrength value true") == lowest
    assert (
        first_move("setoption name UCI_LimitStrength value true", "setoption name Level value 5")
        == lowest
    )
    assert (
        first_move(
            "setoption name UCI_LimitStrength value true",
            "setoption name Level value 5",
            "setoption name UCI_LimitStrength value false",
        )
        == level_5
    )


def test_an_elo_from_the_command_line_is_announced_and_kept(rated_levels: Path) -> None:
    """`ladder uci --elo N`: the engine's name and the Elo spins' defaults say N, and a
    GUI that sends every option with its default (UCI_LimitStrength false among them)
    leaves N playing. `--elo` with `--level` is refused, as `ladder move` does."""
    with ladder("uci", "--levels", str(rated_levels), "--elo", "450", "--seed", "2") as gui:
        gui.send("uci")
        lines = gui.expect("uciok")
        assert lines[0].startswith("id name Mistboard ladder (Elo 450, ladder ")
        assert "option name Elo type spin default 450 min 100 max 800" in lines
        assert "option name UCI_Elo type spin default 450 min 100 max 800" in lines
        gui.send(
            "setoption name Elo value 450",
            "setoption name UCI_LimitStrength value false",
            "setoption name UCI_Elo value 450",
            "position startpos moves h3e3 h8e8",
            "go",
        )
        kept = bestmove(gui.expect("bestmove"))
    with ladder("uci", "--levels", str(rated_levels), "--seed", "2") as gui:
        gui.send("uci", "setoption name Elo value 450", "position startpos moves h3e3 h8e8", "go")
        assert bestmove(gui.expect("bestmove")) == kept
    done = subprocess.run(
        [LADDER, "uci", "--elo", "450", "--level", "1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "not allowed with argument" in done.stderr, done.stderr


def test_a_gui_that_sends_every_option_keeps_the_players_choice(rated_levels: Path) -> None:
    """Some GUIs send every option, in the order the engine listed them, each with its
    value, when they start it: an option sent with the value it shows changes nothing,
    so the one the player changed (Level or Elo) is what plays."""

    def first_move(level: int, elo: int) -> str:
        with ladder("uci", "--levels", str(rated_levels), "--seed", "6") as gui:
            gui.send("uci")
            gui.expect("uciok")
            gui.send(
                "setoption name UCI_Variant value xiangqi",
                f"setoption name Level value {level}",
                "setoption name Seed value 6",
                "setoption name OwnBook value true",
                "setoption name UCI_AnalyseMode value false",
                f"setoption name Elo value {elo}",
                "setoption name UCI_LimitStrength value false",
                "setoption name UCI_Elo value 100",
                "position startpos moves h3e3 h8e8",
                "go",
            )
            return bestmove(gui.expect("bestmove"))

    def alone(setting: str) -> str:
        with ladder("uci", "--levels", str(rated_levels), "--seed", "6") as gui:
            gui.send("uci", setting, "position startpos moves h3e3 h8e8", "go")
            return bestmove(gui.expect("bestmove"))

    assert first_move(5, 100) == alone("setoption name Level value 5")
    # a script that goes back and forth: each change plays
    assert alone(
        "setoption name Elo value 450\nsetoption name Level value 5\nsetoption name Elo value 450"
    ) == alone("setoption name Elo value 450")
    assert alone("setoption name Elo value 450\nsetoption name Level value 1") == alone(
        "setoption name Level value 1"
    )
    assert first_move(1, 450) == alone("setoption name Elo value 450")
    assert first_move(1, 100) == alone("setoption name Level value 1")
    assert alone("setoption name Level value 5") != alone("setoption name Elo value 100")


@pytest.mark.parametrize("command", ["uci", "ucci"])
def test_a_level_chosen_under_an_elo_from_the_command_line_is_kept(
    command: str, rated_levels: Path
) -> None:
    """`ladder uci|ucci --elo N` in a GUI that sends every option: the Level the player
    picked plays, and the Elo sent after it with the value the option shows (N, the
    default) changes nothing (it used to play N again)."""
    setoption = "setoption name {} value {}" if command == "uci" else "setoption {} {}"
    moves = "h3e3 h8e8" if command == "uci" else "h2e2 h7e7"

    def answer(*args: str, options: tuple[tuple[str, int], ...]) -> list[str]:
        with ladder(command, "--levels", str(rated_levels), "--seed", "6", *args) as gui:
            gui.send(command)
            gui.expect(f"{command}ok")
            gui.send(*(setoption.format(*option) for option in options))
            gui.send(f"position startpos moves {moves}", "go")
            lines = gui.expect("bestmove")
        # the move and its search (nodes included), without the time it took
        return [re.sub(r" time \d+", "", line) for line in lines]

    chosen = answer("--elo", "450", options=(("Level", 8), ("Elo", 450)))
    assert chosen == answer(options=(("Level", 8),))
    assert chosen != answer("--elo", "450", options=())


def test_go_searchmoves_restricts_the_move() -> None:
    """`go searchmoves` (UCI): the level plays one of the listed moves; a listed move that
    is not legal is named in an error line; the analysis is restricted too."""
    out_of_book = ["h3e3", "h10g8", "h1g3", "i10h10", "i1i2", "a10a9"]
    legal = Game.from_fen("xiangqi", moves=out_of_book).legal_moves()
    listed = ["a1a2", "b3b7"]  # two quiet moves, both legal there
    assert all(move in legal for move in listed)
    with ladder("uci") as gui:
        gui.send("uci")
        gui.expect("uciok")
        for seed in range(1, 4):
            gui.send(f"setoption name Seed value {seed}")
            gui.send(f"position startpos moves {' '.join(out_of_book)}")
            gui.send(f"go searchmoves {' '.join(listed)} e1e9 wtime 60000 btime 60000")
            lines = gui.expect("bestmove")
            assert bestmove(lines) in listed, lines
            assert any("searchmoves: not legal here, ignored: e1e9" in line for line in lines)
        gui.send("go infinite searchmoves a1a2")
        gui.expect(lambda line: line.startswith("info depth"))
        gui.send("stop")
        assert bestmove(gui.expect("bestmove")) == "a1a2"


@pytest.mark.parametrize("dialect", ["uci", "ucci"])
def test_a_position_past_the_end_our_rules_see_is_played_on(dialect: str) -> None:
    """A GUI that judges repetition by other rules sends moves past the repetition our
    rules end the game at: the bridge answers for the side to move in the GUI's position
    (not for the side to move where our rules stopped), as it does past sixty plies."""
    moves = ["b1c3", "b10c8", "c3b1", "c8b10"] * 2 + ["b1c3"]
    game = Game.from_fen("xiangqi")
    for move in moves[:-1]:
        game.push(move)
    assert game.outcome() is not None  # over by our rules before the last move
    game.push(moves[-1], after_end=True)
    assert game.turn == "black"
    with ladder(dialect) as gui:
        gui.send(dialect)
        gui.expect(f"{dialect}ok")
        shown = moves if dialect == "uci" else [to_ucci(m) for m in moves]
        gui.send(f"position startpos moves {' '.join(shown)}", "go")
        lines = gui.expect(lambda line: line.startswith(("bestmove", "nobestmove")))
        assert not any("error" in line for line in lines), lines
        answer = bestmove(lines)
        assert (answer if dialect == "uci" else from_ucci(answer)) in game.legal_moves(), lines
