"""The `novice` baseline (ladder/match/players/baselines.py: novice_choice): a person who
has just learned the rules. It answers a check, takes a free piece it sees, and misses a
cannon's capture over its screen; as a player it is a spec like `greedy`."""

from __future__ import annotations

import random

from ladder.level_engine.beginner import loses_at_once
from ladder.match.exit_codes import ExitCode
from ladder.match.players.baselines import novice_choice
from ladder.rules import Game
from tests.match.helpers import run_ladder


def test_the_novice_answers_the_atomic_check_for_every_seed() -> None:
    game = Game.from_fen("atomic-xiangqi", None, ["a1a2", "g7g6", "a2d2"])
    for seed in range(20):
        move = novice_choice(game.copy(), random.Random(seed))
        assert not loses_at_once(game, move), (seed, move)


def test_the_novice_wins_at_once() -> None:
    game = Game.from_fen("atomic-xiangqi", "9/3k5/3c5/9/9/9/9/9/9/3R1K3 w - - 0 1")
    assert {novice_choice(game.copy(), random.Random(s)) for s in range(5)} == {"d1d8"}


def test_the_novice_takes_a_free_chariot() -> None:
    # Black's chariot on a9 hangs to Red's chariot up the open a-file.
    fen = "1nbakabn1/r8/1c5c1/2p1p1p1p/9/9/2P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    game = Game.from_fen("xiangqi", fen)
    assert {novice_choice(game.copy(), random.Random(s)) for s in range(5)} == {"a1a9"}


def test_the_novice_saves_a_piece_from_a_chariot_but_not_from_a_cannon() -> None:
    # Red's chariot on b5 is attacked by Black's chariot on b8 (seen: it moves away or is
    # defended), and in the second position by Black's cannon over the screen b6 (unseen).
    by_chariot = Game.from_fen("xiangqi", "3k5/9/1r7/9/9/1R7/9/9/9/4K4 w - - 0 1")
    by_cannon = Game.from_fen("xiangqi", "3k5/9/1c7/9/1P7/1R7/9/9/9/4K4 w - - 0 1")

    def still_attacked(game: Game, move: str) -> bool:
        game.push(move)
        try:
            return any(m.endswith("b5") for m in game.legal_moves() if m.startswith("b8"))
        finally:
            game.pop()

    seeds = range(30)
    left_to_chariot = sum(
        still_attacked(by_chariot, novice_choice(by_chariot.copy(), random.Random(s)))
        and not novice_choice(by_chariot.copy(), random.Random(s)).startswith("b5b8")
        for s in seeds
    )
    left_to_cannon = sum(
        still_attacked(by_cannon, novice_choice(by_cannon.copy(), random.Random(s))) for s in seeds
    )
    assert left_to_chariot == 0
    # it moves the chariot (or the screen) only by chance: 13 of its 18 moves do
    assert left_to_cannon > 0


def test_novice_plays_a_match_and_a_bad_spec_is_one_line(tmp_path) -> None:
    done = run_ladder(
        "match", "novice", "random", "--variant", "xiangqi", "--games", "2",
        "--db", str(tmp_path / "m.sqlite"), "--json", str(tmp_path / "m.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bad = run_ladder("match", "novice,x=1", "random", "--variant", "xiangqi")
    assert bad.returncode == ExitCode.USAGE
    assert bad.stderr.strip().count("\n") == 0 and "novice" in bad.stderr, bad.stderr
