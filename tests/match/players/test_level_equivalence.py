"""A match's ``level:N`` player makes exactly the move service's move.

For every variant, short games between ladder levels (a variety level, seeded per move,
against a plain one) are played by the match runner's game loop
(:func:`ladder.match.game.play.play_game`); then every engine move is asked of the in-process
service (``Ladder(engines=1)``, one engine that has searched everything else before) with
the same start FEN, the moves before it, the level and the seed the game loop used
(``derive_seed(game seed, ply)``). Move, score, depth and node count must agree, and so
must the position each side sends the engine (FEN at the last capture + moves since; the
whole game in crazyhouse-xiangqi), which is also the one the slow replay rule gives.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ladder.client import Ladder
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.clocks import MoveClocks
from ladder.match.game.play import GameRecord, play_game
from ladder.match.openings import Opening, load_openings
from ladder.match.players.player import MoveInfo, Player
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import make_player
from ladder.rules import Game
from ladder.seeds import MoveSeed, derive_seed
from ladder.variants import VARIANT_IDS
from tests.match.helpers import first_game
from tests.rules.helpers import replay_engine_position

#: (red, black, plies to play after the book, game seed): a variety level against a
#: plain one, then the other variety level.
GAMES = [("level:1", "level:3", 30, 11), ("level:4", "level:2", 10, 12)]


@dataclass
class Seen:
    """What a player was asked at one ply."""

    ply: int
    base_fen: str
    since: tuple[str, ...]
    seed: MoveSeed
    info: MoveInfo


@dataclass
class Recording:
    """A match player that remembers every position and seed it was given."""

    inner: Player
    spec: PlayerSpec
    seen: list[Seen] = field(default_factory=list)

    async def start(self) -> None:
        await self.inner.start()

    async def new_game(self, variant: str, seed: int) -> None:
        await self.inner.new_game(variant, seed)

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        base_fen, since = game.engine_position()
        info = await self.inner.choose(game, seed, clocks)
        self.seen.append(Seen(game.ply, base_fen, since, seed, info))
        return info

    async def close(self) -> None:
        await self.inner.close()


def _positions_sent(records: list[logging.LogRecord]) -> list[str]:
    """The `position` commands in these wire-log records (``NAME (pid N) > position …``)."""
    sent = (r.getMessage().partition(") > ")[2] for r in records if r.name == "protocol.engine")
    return [line for line in sent if line.startswith("position ")]


async def _play(
    variant: str, red: str, black: str, plies: int, seed: int, opening: Opening
) -> tuple[GameRecord, list[Seen]]:
    inner = [make_player(PlayerSpec.parse(s)) for s in (red, black)]
    players = [Recording(p, p.spec) for p in inner]
    for p in players:
        await p.start()
    try:
        task = first_game(
            variant,
            opening,
            players[0].spec,
            players[1].spec,
            match_id="equivalence",
            seed=seed,
            adjudication=Adjudication(max_plies=len(opening.moves) + plies),
        )
        record = await play_game(task, players[0], players[1])
    finally:
        for p in players:
            await p.close()
    seen = sorted(players[0].seen + players[1].seen, key=lambda s: s.ply)
    return record, seen


@pytest.mark.timeout(600)
@pytest.mark.parametrize("variant", VARIANT_IDS)
async def test_level_player_moves_as_the_service(
    variant: str, engine_exe: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="protocol.engine")  # the wire log
    opening = load_openings(variant)[3]
    rebased = 0
    async with Ladder(engines=1) as ladder:
        for red, black, plies, game_seed in GAMES:
            before_game = len(caplog.records)
            record, seen = await _play(variant, red, black, plies, game_seed, opening)
            after_game = len(caplog.records)
            assert record.reason != "engine-failure", record.failure
            book = len(opening.moves)
            assert [s.ply for s in seen] == list(range(book, len(record.moves)))
            assert len(seen) >= 6
            for s in seen:
                moves = record.moves[: s.ply]
                game = Game.from_fen(variant, opening.fen, moves)
                level = int((red if game.turn == "red" else black).split(":")[1])
                # The seed is the game loop's per-move seed.
                assert s.seed.value() == derive_seed(game_seed, s.ply)
                # The position sent: the game loop's, the slow replay rule's, and the
                # service's (from its judged Checked) agree.
                assert (s.base_fen, s.since) == replay_engine_position(
                    variant, game.start_fen, moves
                )
                checked = ladder._service.positions.judge_sync(  # type: ignore[union-attr]
                    variant, opening.fen, tuple(moves)
                )
                assert checked.game.engine_position() == (s.base_fen, s.since)
                rebased += s.base_fen != game.start_fen
                # The move, and the search behind it.
                reply = await ladder.move(
                    variant=variant, fen=opening.fen, moves=moves, level=level, seed=s.seed.value()
                )
                assert reply.move == record.moves[s.ply], (s.ply, level)
                assert (reply.score.cp, reply.score.mate, reply.depth, reply.nodes) == (
                    None if s.info.score is None else s.info.score.score(),
                    None if s.info.score is None else s.info.score.mate(),
                    s.info.depth,
                    s.info.nodes,
                ), (s.ply, level)
            # On the wire: the same `position` commands reached the match's engines and
            # the service's, ply by ply.
            match_sent = _positions_sent(caplog.records[before_game:after_game])
            assert len(match_sent) == len(seen)
            assert _positions_sent(caplog.records[after_game:]) == match_sent
    if variant == "crazyhouse-xiangqi":
        assert rebased == 0  # always the whole game
    else:
        assert rebased > 0  # a capture happened: the FEN after it was sent
