"""The error profile's measurement (:mod:`ladder.calibration.error_profile`) on planted positions,
with the real engine as the reference: a chariot left to a one-move capture is a gross
blunder and a hang, a free chariot is found, and the masters' row judges a master move."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ladder.calibration.error_profile import GROSS_CP, Reference, Spot, hangs
from ladder.rules import Game

#: Red: general, advisors, a soldier and the a1 chariot; Black: general, advisors, a
#: soldier and the c8 horse (which takes on a7 over an empty b8). Red is a chariot up;
#: the planted blunder is a1a7, the chariot to the horse.
PLANTED = "3aka3/9/2n6/4p4/9/9/4P4/9/9/R2AKA3 w - - 0 1"


def test_a_chariot_left_to_a_horse_is_a_gross_blunder_and_a_hang() -> None:
    async def run() -> None:
        ref = Reference(20_000, None)
        try:
            spot = Spot("xiangqi", PLANTED, ())
            game = spot.game()
            assert "a1a7" in game.legal_moves()
            blunder = await ref.loss(spot, "a1a7")
            best = (await ref.root(spot))[0][0]
            assert best != "a1a7" and await ref.loss(spot, best) == 0
            assert blunder >= GROSS_CP
            game.push("a1a7")
            assert hangs(game)
            safe = spot.game()
            safe.push(best)
            assert not hangs(safe)
            # After the blunder, Black's capture of the chariot is a free piece.
            after = Spot("xiangqi", PLANTED, ("a1a7",))
            assert await ref.free_point(after) == "a7"
        finally:
            await ref.engine.close()

    asyncio.run(run())


def test_a_defended_piece_taken_by_a_cheaper_one_still_hangs(tmp_path: Path) -> None:
    """Black's soldier takes Red's defended horse: a soldier for a horse is a piece won
    net, so leaving the horse there hangs it."""
    game = Game.from_fen("xiangqi", "4k4/9/9/9/4p4/4N4/9/9/9/4RK3 b - - 0 1")
    # Black to move, but the question is about what Red left: Black's e6xe5 nets a horse
    # (400) for a soldier (100) even after R e1xe5.
    assert hangs(game)
