"""What a beginner sees (ladder/level_engine/beginner.py), on planted positions: the immediate ends
of
the game, the exchange a capture wins, and the blind spots."""

from __future__ import annotations

import random

from ladder.level_engine.beginner import (
    NOVICE_SIGHT,
    Sight,
    best_threat,
    loses_at_once,
    opens_line,
    wins_at_once,
)
from ladder.rules import Game
from ladder.rules.notation import origin

#: Black's cannon on b8 can take Red's chariot on b5 over the screen b6; nothing else can.
CANNON_SHOT = "3k5/9/1c7/9/1P7/1R7/9/9/9/4K4 b - - 0 1"


def test_the_atomic_check_of_the_issue_loses_at_once_when_ignored() -> None:
    """After a1a2 g7g6 a2d2 Red's chariot bears on the advisor beside Black's general:
    a move that leaves it there loses at once, a move that covers it does not."""
    game = Game.from_fen("atomic-xiangqi", None, ["a1a2", "g7g6", "a2d2"])
    assert game.is_check()
    legal = game.legal_moves()
    losing = [m for m in legal if loses_at_once(game, m)]
    assert "a7a6" in losing
    assert 0 < len(losing) < len(legal)
    assert game.legal_moves() == legal  # push/pop left the game as it was


def test_a_move_that_wins_at_once() -> None:
    # A chariot taking the cannon on d8 blows up the general on d9 (docs/rules.md worked fact).
    game = Game.from_fen("atomic-xiangqi", "9/3k5/3c5/9/9/9/9/9/9/3R1K3 w - - 0 1")
    assert wins_at_once(game, "d1d8")
    assert not wins_at_once(game, "d1d2")
    assert not loses_at_once(game, "d1d8")


def test_best_threat_names_the_capturer_and_the_novice_misses_the_cannon() -> None:
    game = Game.from_fen("xiangqi", CANNON_SHOT)
    threat = best_threat(game)
    assert threat is not None
    assert (threat.capture, threat.piece, threat.gain_cp) == ("b8b5", "c", 900)
    rng = random.Random(0)
    assert best_threat(game, lambda c, p: NOVICE_SIGHT.sees("a1a2", c, p, rng)) is None
    all_seen = Sight(cannon=1.0, horse=1.0, opened=1.0)
    assert best_threat(game, lambda c, p: all_seen.sees("a1a2", c, p, rng)) == threat


def test_a_recapture_is_counted() -> None:
    # The cannon takes the chariot, and Red's chariot on b1 takes the cannon back: 900 - 450.
    fen = "3k5/9/1c7/9/1P7/1R7/9/9/9/1R2K4 b - - 0 1"
    threat = best_threat(Game.from_fen("xiangqi", fen))
    assert threat is not None and threat.gain_cp == 900 - 450


def test_a_line_the_move_opened() -> None:
    assert opens_line("e5f5", "e9e2")  # e5 left: the e-file opened from e9 to e2
    assert not opens_line("e5f5", "e9e6")  # the capture stops before e5
    assert opens_line("d4c4", "a4e4")
    assert not opens_line("A@e3", "a4e4")  # a drop leaves no point
    assert origin("b10c8") == "b10" and origin("A@e3") is None


def test_sight_draws_only_for_its_blind_spots() -> None:
    sight = Sight(cannon=0.0, horse=0.5, opened=1.0)
    rng = random.Random(3)
    assert sight.sees("a1a2", "b8b5", "r", rng)  # a chariot: always
    assert not sight.sees("a1a2", "b8b5", "c", rng)  # a cannon: never
    seen = sum(sight.sees("a1a2", "b8c6", "n", rng) for _ in range(2000))
    assert 900 < seen < 1100  # a horse: half the time
