"""Short matches against level 1 with the xiangqi engines Debian ships, one per protocol
dialect, through `ladder match` (the door users use): every game ends by the rules (or
a resignation or adjudication), never as an engine failure, and every move replays
through the rules checker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ladder.match.output.store import ResultStore
from ladder.rules import Game

pytestmark = pytest.mark.timeout(600)

LADDER = str(Path(sys.executable).with_name("ladder"))
INSTALL_HINT = "run scripts/install_reference_engines.sh (make test does)"

ENGINES = {
    # Sjaak II: an ANSI banner before `ucciok`, ranks 1..10 in UCCI mode (found out)
    "sjaakii-ucci": "engine:/usr/games/sjaakii,protocol=ucci,depth=3",
    "sjaakii-uci": "engine:/usr/games/sjaakii,protocol=uci,depth=3",
    "sjaakii-xboard": "engine:/usr/games/sjaakii,protocol=xboard,depth=3",
    # fairymax's maxqi: XBoard only, no setboard, ranks 0..9
    "maxqi-xboard": "engine:/usr/games/maxqi,protocol=xboard,depth=3",
    # Debian's Fairy-Stockfish 11.1 in UCCI mode (ranks 0..9), its own xiangqi
    "fairy-stockfish-ucci": "engine:/usr/games/fairy-stockfish,protocol=ucci,nodes=2000,"
    "variants=none",
}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_short_match_against_level_1(name: str, tmp_path: Path) -> None:
    spec = ENGINES[name]
    exe = Path(spec.split(",")[0].removeprefix("engine:"))
    if not exe.exists():
        pytest.fail(f"{exe} missing: {INSTALL_HINT}")
    db = tmp_path / "match.sqlite"
    command = [LADDER, "match", spec, "level:1", "--variant", "xiangqi", "--games", "2"]
    done = subprocess.run(
        [*command, "--db", str(db), "--concurrency", "1"],
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with ResultStore(db) as store:
        records = list(store.records())
    assert len(records) == 2
    for record in records:
        assert record.reason != "engine-failure", record.failure
        game = Game.from_fen(record.variant, record.start_fen)
        for move in record.moves:
            game.push(move)  # RulesError if any move were illegal
        outcome = game.outcome()
        if record.reason not in (
            "resignation",
            "max-plies",
            "resign-adjudication",
            "draw-adjudication",
        ):
            assert outcome is not None and outcome.reason.value == record.reason
            assert outcome.result == record.result
        assert len(record.moves) > record.book_plies
