"""`ladder xboard` in a GUI none of us wrote: Debian's XBoard, headless under Xvfb, in
xiangqi mode, plays a whole game between the ladder (level 1) and ``maxqi``; the saved
game is then replayed move by move through the rules checker."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ladder.match.output.pgn import read_pgn, replay
from ladder.rules import Game
from tests.bridge.helpers import LADDER

pytestmark = pytest.mark.timeout(600)

XBOARD = Path("/usr/games/xboard")
MAXQI = Path("/usr/games/maxqi")
INSTALL_HINT = "run scripts/install_reference_engines.sh (make test does)"

# XBoard's xiangqi SAN: piece letter (none for a soldier), optional from-file and/or
# from-rank, x for a capture, the destination; ranks 0..9.
_SAN_RE = re.compile(
    r"^(?P<piece>[KAEHRCP])?(?P<file>[a-i])?(?P<rank>[0-9])?x?(?P<dest>[a-i][0-9])[+#]?$"
)
# XBoard's piece letters -> ours (FEN letters, lower case).
_PIECES = {"K": "k", "A": "a", "E": "b", "H": "n", "R": "r", "C": "c", "P": "p"}


def san_to_move(game: Game, san: str) -> str:
    """The one legal move ``san`` names in ``game`` (canonical), else AssertionError."""
    m = _SAN_RE.match(san)
    assert m, f"not XBoard xiangqi SAN: {san!r}"
    piece = _PIECES[m["piece"] or "P"]
    dest = m["dest"][0] + str(int(m["dest"][1]) + 1)
    found = []
    for move in game.legal_moves():
        squares = re.findall(r"[a-i][0-9]+", move)
        origin, target = squares[0], squares[1]
        on_origin = game.piece_at(origin)
        if target != dest or on_origin is None or on_origin.lower() != piece:
            continue
        if m["file"] and origin[0] != m["file"]:
            continue
        if piece == "p" and not m["file"] and origin[0] != target[0]:
            continue  # a soldier's move without a from-file is straight ahead ("e4")
        if m["rank"] and int(origin[1:]) != int(m["rank"]) + 1:
            continue
        found.append(move)
    assert len(found) == 1, f"{san!r} names {found} in {game.fen()}"
    return found[0]


def pgn_moves(text: str) -> tuple[dict[str, str], list[str]]:
    """(tags, SAN moves) of one PGN game as XBoard saves it."""
    tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', text, re.M))
    body = re.sub(r"^\[.*\]$", "", text, flags=re.M)
    body = re.sub(r"\{[^}]*\}|\([^)]*\)", " ", body)
    tokens = [t for t in body.split() if not re.match(r"^\d+\.+$", t)]
    return tags, [t for t in tokens if t not in ("1-0", "0-1", "1/2-1/2", "*")]


def test_xboard_plays_a_whole_game_against_maxqi(tmp_path: Path) -> None:
    for exe in (XBOARD, MAXQI):
        if not exe.exists():
            pytest.fail(f"{exe} missing: {INSTALL_HINT}")
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.fail(f"xvfb-run missing: {INSTALL_HINT}")
    saved = tmp_path / "game.pgn"
    debug = tmp_path / "xboard.debug"
    command = [
        xvfb_run,
        "-a",
        str(XBOARD),
        "-xncp",  # engines play (not the "no chess program" mode)
        "-variant",
        "xiangqi",
        "-fcp",
        f"{LADDER} xboard --level 1 --seed 5",
        "-scp",
        str(MAXQI),
        "-mm",  # match mode: play the games, save them, exit
        "-mg",
        "1",
        "-sgf",
        str(saved),
        "-searchDepth",
        "2",  # maxqi's depth: a short game
        "-tc",
        "10",  # 40 moves in 10 minutes each: no time trouble on a loaded machine
        "-testClaims",
        "false",  # our rules end games XBoard's xiangqi rules do not (docs/rules.md)
        "-popupExitMessage",
        "false",
        "-oldSaveStyle",
        "false",  # PGN
        "-settingsFile",
        str(tmp_path / "xboardrc"),  # no settings of the machine's user: read
        "-saveSettingsOnExit",
        "false",  # nor written
        "-debug",
        "-nameOfDebugFile",
        str(debug),
    ]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=540)
    log = debug.read_text(errors="replace") if debug.exists() else ""
    assert done.returncode == 0, done.stderr[-2000:]
    assert saved.exists(), f"no game saved; xboard said: {done.stderr[-2000:]}\n{log[-3000:]}"
    tags, sans = pgn_moves(saved.read_text())
    assert tags["Variant"] == "xiangqi"
    assert tags["White"].startswith("Mistboard ladder")  # Red: the first engine
    assert "Illegal move" not in log and "forfeit" not in log.lower()
    game = Game.from_fen("xiangqi")
    for ply, san in enumerate(sans, start=1):
        try:
            move = san_to_move(game, san)
        except AssertionError as exc:
            raise AssertionError(f"ply {ply}: {exc}") from None
        game.push(move)
    assert len(sans) >= 10
    # What `ladder study` and the book reader make of the same file: the same game.
    (saved_game,) = read_pgn(saved.read_text())
    assert replay(saved_game).moves == game.moves
    assert tags["Result"] in ("1-0", "0-1", "1/2-1/2")
    outcome = game.outcome()
    if outcome is not None:  # ended by our rules: the result XBoard saved is ours
        assert tags["Result"] == outcome.result
