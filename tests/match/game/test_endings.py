"""Every way a match game ends, through :func:`ladder.match.game.play.play_game`.

Scripted players (fixed moves and scores) reach each rules ending from a crafted
position, and each adjudication; one real engine game checks the loop end to end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chess.engine import Cp, Mate

from ladder.levels import load_levels
from ladder.match.game.adjudication import Adjudication, Adjudicator
from ladder.match.game.clocks import MoveClocks
from ladder.match.game.play import GameRecord, GameTask, play_game
from ladder.match.openings import Opening
from ladder.match.output.pgn import format_pgn, read_pgn, replay
from ladder.match.players.player import MoveInfo, PlayerError
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import make_player
from ladder.rules import Game
from ladder.seeds import MoveSeed
from protocol import EngineFailure, Limit
from tests.match.helpers import first_game


@dataclass
class Scripted:
    """Plays its moves in order, reporting a fixed score; raises once out of moves."""

    moves: list[str]
    cp: int | None = None
    fail: bool = False
    spec: PlayerSpec = field(default_factory=lambda: PlayerSpec.parse("random"))
    seconds: float = 0.001
    seen: list[Limit | None] = field(default_factory=list)  #: the clocks as an engine sees them

    async def start(self) -> None:
        return None

    async def new_game(self, variant: str, seed: int) -> None:
        return None

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        self.seen.append(None if clocks is None else clocks.limit(game.turn == "red", Limit()))
        if self.fail:
            raise EngineFailure("scripted crash", [])
        move = self.moves.pop(0)
        return MoveInfo(
            move,
            score=None if self.cp is None else Cp(self.cp),
            depth=1,
            nodes=1,
            seconds=self.seconds,
        )

    async def close(self) -> None:
        return None


def _task(
    variant: str,
    fen: str | None,
    moves: tuple[str, ...] = (),
    adjudication: Adjudication | None = None,
) -> GameTask:
    return first_game(
        variant,
        Opening(fen, moves),
        PlayerSpec.parse("random"),
        PlayerSpec.parse("greedy"),
        match_id="t",
        adjudication=adjudication,
    )


async def _play(task: GameTask, red: Scripted, black: Scripted) -> GameRecord:
    record = await play_game(task, red, black)  # type: ignore[arg-type]
    # the PGN the loop wrote as it played is the one a replay of the record writes
    assert record.pgn == format_pgn(record)
    # every game's PGN replays legally to the same moves
    (parsed,) = list(read_pgn(record.pgn))
    assert replay(parsed).moves == record.moves
    assert parsed.headers["Termination"] == record.reason
    return record


async def test_checkmate() -> None:
    # Black general e10 between its horses; the chariot to e9, guarded by the horse d7.
    fen = "3nkn3/R8/9/3N5/9/9/9/9/9/3K5 w - - 0 1"
    rec = await _play(_task("xiangqi", fen), Scripted(["a9e9"]), Scripted([]))
    assert (rec.result, rec.winner, rec.reason) == ("1-0", "red", "checkmate")


async def test_stalemate_loses() -> None:
    # Lone Black general d10, d9 covered by the chariot i9; the other chariot to e5
    # covers e10: no legal move, not in check.
    fen = "3k5/8R/9/9/9/8R/9/9/9/5K3 w - - 0 1"
    rec = await _play(_task("xiangqi", fen), Scripted(["i5e5"]), Scripted([]))
    assert (rec.result, rec.reason) == ("1-0", "stalemate")


async def test_general_exploded() -> None:
    fen = "9/3k5/3c5/9/9/9/9/9/9/3R1K3 w - - 0 1"
    rec = await _play(_task("atomic-xiangqi", fen), Scripted(["d1d8"]), Scripted([]))
    assert (rec.result, rec.reason) == ("1-0", "general-exploded")


async def test_perpetual_check_loses() -> None:
    # Red checks with the chariot along rank 10 / 9, Black's general steps back and forth.
    fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1"
    red = Scripted(["a1a10", "a10a9", "a9a10", "a10a9", "a9a10"])
    black = Scripted(["e10e9", "e9e10", "e10e9", "e9e10", "e10e9"])
    rec = await _play(_task("xiangqi", fen), red, black)
    assert (rec.result, rec.winner, rec.reason) == ("0-1", "black", "perpetual-check")


async def test_repetition_draw() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    red = Scripted(["a1a2", "a2a1", "a1a2", "a2a1"])
    black = Scripted(["d10d9", "d9d10", "d10d9", "d9d10"])
    rec = await _play(_task("xiangqi", fen), red, black)
    assert (rec.result, rec.reason) == ("1/2-1/2", "repetition")


async def test_sixty_plies() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 58 40"
    rec = await _play(_task("xiangqi", fen), Scripted(["a1a2"]), Scripted(["d10d9"]))
    assert (rec.result, rec.reason) == ("1/2-1/2", "sixty-plies")


async def test_resign_adjudication() -> None:
    adj = Adjudication(resign_cp=500, resign_moves=3)
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    red = Scripted(["a1a2", "a2a3", "a3a4"], cp=-900)
    black = Scripted(["d10d9", "d9d10", "d10d9"], cp=900)
    rec = await _play(_task("xiangqi", fen, adjudication=adj), red, black)
    assert (rec.result, rec.winner, rec.reason) == ("0-1", "black", "resign-adjudication")
    assert len(rec.moves) == 5


async def test_draw_adjudication() -> None:
    adj = Adjudication(draw_cp=20, draw_moves=2, draw_after_ply=0)
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    red = Scripted(["a1a2", "a2a3", "a3a4"], cp=5)
    black = Scripted(["d10d9", "d9d10", "d10d9"], cp=-5)
    rec = await _play(_task("xiangqi", fen, adjudication=adj), red, black)
    assert (rec.result, rec.reason) == ("1/2-1/2", "draw-adjudication")
    assert len(rec.moves) == 4


async def test_max_plies() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    adj = Adjudication(max_plies=3)
    rec = await _play(
        _task("xiangqi", fen, adjudication=adj), Scripted(["a1a2", "a2a3"]), Scripted(["d10d9"])
    )
    assert (rec.result, rec.reason, len(rec.moves)) == ("1/2-1/2", "max-plies", 3)


async def test_engine_failure_loses() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    rec = await _play(_task("xiangqi", fen), Scripted(["a1a2"]), Scripted([], fail=True))
    assert (rec.result, rec.winner, rec.reason) == ("1-0", "red", "engine-failure")


async def test_a_player_error_loses_but_a_bug_stops_the_game() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"

    @dataclass
    class Broken(Scripted):
        error: Exception = field(default_factory=lambda: PlayerError("no move"))

        async def choose(
            self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
        ) -> MoveInfo:
            raise self.error

    rec = await _play(_task("xiangqi", fen), Broken([]), Scripted([]))
    assert (rec.result, rec.reason) == ("0-1", "engine-failure")
    assert rec.failure is not None and "no move" in rec.failure
    with pytest.raises(RuntimeError, match="a bug"):
        await play_game(
            _task("xiangqi", fen), Broken([], error=RuntimeError("a bug")), Scripted([])
        )  # type: ignore[arg-type]


def _clocked(task: GameTask, red_tc: str | None, black_tc: str | None) -> GameTask:
    def spec(tc: str | None, base: PlayerSpec) -> PlayerSpec:
        return base if tc is None else PlayerSpec.parse(f"engine:/x,tc={tc},timemargin=50")

    return GameTask(
        **{**task.__dict__, "red": spec(red_tc, task.red), "black": spec(black_tc, task.black)}
    )


async def test_clocks_count_down_and_a_fallen_flag_loses() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1"
    # 2/1+0.5: one second per two moves, half a second back after each move.
    task = _clocked(_task("xiangqi", fen, adjudication=Adjudication(max_plies=7)), "2/1+0.5", None)
    red = Scripted(["a1a2", "a2a3", "a3a4", "a4a5"], seconds=0.6)
    black = Scripted(["d10d9", "d9d10", "d10d9"])
    rec = await _play(task, red, black)
    clocks = [i.clock for i in rec.infos[0::2]]
    # 1 - 0.6 + 0.5 = 0.9; 0.9 - 0.6 + 0.5 + 1 (next period) = 1.8; 1.8 - 0.6 + 0.5 = 1.7 ...
    assert clocks[:3] == [0.9, 1.8, 1.7]
    seen = [(round(c.white_clock or 0, 6), c.remaining_moves) for c in red.seen if c]
    assert seen == [(1.0, 2), (0.9, 1), (1.8, 2), (1.7, 1)]
    assert red.seen[0] is not None and red.seen[0].black_clock == 1.0  # black's: red's own
    assert all(c is None for c in black.seen)  # black plays without a clock
    assert "[%clk 0:00:00.9]" in rec.pgn

    # a move that overruns the clock by more than the margin loses on time
    slow = Scripted(["a1a2", "a2a3"], seconds=1.2)
    rec = await _play(_clocked(_task("xiangqi", fen), "1+0", None), slow, Scripted(["d10d9"]))
    assert (rec.result, rec.winner, rec.reason) == ("0-1", "black", "timeout")
    assert rec.moves == []
    # ... within the margin it does not
    ok = Scripted(["a1a2", "a2a3"], seconds=1.04)
    adj = Adjudication(max_plies=2)
    rec = await _play(
        _clocked(_task("xiangqi", fen, adjudication=adj), "1+0", None), ok, Scripted(["d10d9"])
    )
    assert rec.reason == "max-plies" and rec.infos[0].clock == 0.0


def test_adjudicator_resets_streaks() -> None:
    adj = Adjudicator(Adjudication(resign_cp=300, resign_moves=2))
    assert adj.update("red", 1, Cp(-400)) is None
    assert adj.update("red", 3, Cp(-100)) is None  # streak broken
    assert adj.update("red", 5, Mate(-3)) is None  # mate against counts
    assert adj.update("red", 7, Cp(-400)) is not None


async def _play_real(task: GameTask) -> GameRecord:
    """Play ``task`` with freshly started real players, closing them afterwards."""
    red, black = make_player(task.red), make_player(task.black)
    await red.start()
    await black.start()
    try:
        return await play_game(task, red, black)
    finally:
        await red.close()
        await black.close()


async def test_real_engines_play_to_a_rules_ending(engine_exe: Path) -> None:
    """level:5 (a plain node limit) with two chariots against greedy's bare general."""
    fen = "4k4/9/9/9/9/9/9/9/9/RR3K3 w - - 0 1"
    task = _task("xiangqi", fen)
    task = GameTask(
        **{**task.__dict__, "red": PlayerSpec.parse("level:5"), "black": PlayerSpec.parse("greedy")}
    )
    rec = await _play_real(task)
    assert rec.result == "1-0" and rec.reason in ("checkmate", "stalemate")
    # The node count of an early move is drawn within half to twice the level's.
    nodes = rec.infos[0].nodes
    assert nodes is not None and nodes >= 0.9 * load_levels()["xiangqi"][5].nodes / 2
    assert rec.infos[0].cp is not None or rec.infos[0].mate is not None


async def _level_game(
    variant: str, book: tuple[str, ...], black: str, seed: int, plies: int
) -> GameRecord:
    """level:1 against ``black`` from the start position and ``book``, with real engines:
    the record's PGN (written by the loop as it played) is the one a replay writes, and
    reads back to the same moves."""
    task = first_game(
        variant,
        Opening(None, book),
        PlayerSpec.parse("level:1"),
        PlayerSpec.parse(black),
        match_id="c",
        seed=seed,
        adjudication=Adjudication(max_plies=plies),
    )
    rec = await _play_real(task)
    assert rec.pgn == format_pgn(rec)
    (parsed,) = list(read_pgn(rec.pgn))
    assert replay(parsed).moves == rec.moves
    return rec


async def test_real_engine_game_in_crazyhouse_pgn_roundtrip(engine_exe: Path) -> None:
    rec = await _level_game("crazyhouse-xiangqi", (), "level:1", seed=7, plies=30)
    assert any("@" in m for m in rec.moves)  # drops were played and written


async def test_real_game_pgn_written_as_played_is_the_replays(engine_exe: Path) -> None:
    """The loop writes each move's WXF (and a varied move's best) in the position it is
    played from; the record's PGN is what a replay of the whole game writes."""
    rec = await _level_game("xiangqi", ("h3e3", "h10g8"), "level:2", seed=3, plies=80)
    assert "{book}" in rec.pgn and "varied: the engine's best was" in rec.pgn
