"""The three doors to a level move give one move: the service (``Ladder`` in-process,
:class:`ladder.service.domain.mover.MoveService`), a match's ``level:N``/``elo:N`` player
(:class:`ladder.match.players.engines.LevelPlayer`) and the ladder as an engine
(:class:`ladder.bridge.session.LevelSession`), all through
:func:`ladder.level_engine.engine.LevelEngine.play`.

Each game is played by the bridge's session from an opening of the suite; at every
position the service and the match player are asked for the move with the seed the
bridge used (:meth:`LevelSession.move_seed`), on engines of their own. Move, score,
depth and node count must agree. The strengths: a mistake level (MultiPV 99 and the
temperature rule), an opening-variety level, and an Elo between levels 3 and 4, which
blends the two (each move is one or the other, drawn from the seed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.bridge.session import LevelSession
from ladder.calibration.fit import VariantCalibration
from ladder.calibration.report import write_levels_file
from ladder.client import Ladder
from ladder.levels import LEVELS_FILE, Rating, load_levels
from ladder.match.openings import load_openings
from ladder.match.players.engines import LevelPlayer
from ladder.match.players.specs import PlayerSpec
from ladder.rules import Game
from ladder.seeds import MoveSeed
from ladder.service.operations.config import ServiceConfig
from ladder.variants import VARIANT_IDS

#: Plies each game goes on after its opening.
PLIES = 6


def rated_levels(path: Path) -> Path:
    """The shipped levels with a made-up rating for every level of every variant (the
    blend needs measured levels 3 and 4; this test is about the doors, not strength),
    written by the calibration's own writer."""
    cals = []
    for variant, levels in load_levels().items():
        ratings: dict[int, Rating | None] = {
            n: Rating(300.0 + 300 * n, 240.0 + 300 * n, 360.0 + 300 * n, 100) for n in levels
        }
        cals.append(VariantCalibration(variant, None, levels, ratings))
    write_levels_file(LEVELS_FILE, path, cals)
    return path


def _blend_elo(variant: str, levels_file: Path) -> float:
    """An Elo a third of the way from level 3's to level 4's (a blend of the two)."""
    levels = load_levels(levels_file)[variant]
    low, high = levels[3].rating, levels[4].rating
    assert low is not None and high is not None
    return round(low.elo + (high.elo - low.elo) / 3)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_service_match_and_bridge_play_the_same_move(
    variant: str, engine_exe: Path, tmp_path: Path
) -> None:
    opening = load_openings(variant)[5]
    levels_file = rated_levels(tmp_path / "levels.toml")
    strengths: list[tuple[int | None, float | None]] = [(1, None), (4, None)]
    strengths.append((None, _blend_elo(variant, levels_file)))
    async with Ladder(config=ServiceConfig(engines=1, levels_file=levels_file)) as ladder:
        for level, elo in strengths:
            strength = f"level:{level}" if elo is None else f"elo:{elo:g}"
            player = LevelPlayer(PlayerSpec.parse(f"{strength},levels={levels_file}"))
            await player.start()
            session = LevelSession(
                levels_file=levels_file, variant=variant, level=level or 1, seed=1234
            )
            try:
                if elo is not None:
                    session.set_elo(elo)
                assert session.set_position(opening.fen, list(opening.moves)) is None
                for _ in range(PLIES):
                    game = session.game.copy()
                    seed = session.move_seed()
                    answer = await session.best_move()
                    assert answer is not None
                    reply = await ladder.move(
                        variant=variant,
                        fen=opening.fen,
                        moves=game.moves,
                        level=level,
                        elo=elo,
                        seed=seed,
                    )
                    info = await player.choose(
                        Game.from_fen(variant, opening.fen, game.moves), MoveSeed.fixed(seed)
                    )
                    where = (variant, level, elo, game.ply)
                    assert reply.move == info.move == answer.move, where
                    score = info.score
                    assert (reply.score.cp, reply.score.mate) == (
                        None if score is None else score.score(),
                        None if score is None else score.mate(),
                    ), where
                    assert answer.score == info.score, where
                    assert reply.depth == info.depth == answer.depth, where
                    assert reply.nodes == info.nodes == answer.nodes, where
                    assert session.play(answer.move) is None
            finally:
                await session.close()
                await player.close()
