"""One match game: the task that describes it, the game loop, and the record it yields.

The loop asks the side to move for a move, plays it through the rules checker, and
stops at the first of: a rules ending (:meth:`ladder.rules.Game.outcome`), an
adjudication (:mod:`ladder.match.game.adjudication`), a player whose clock runs out (it
loses, ``timeout``; :mod:`ladder.match.game.clocks`), or a player that cannot give a move,
an engine failing for good (it loses, ``engine-failure``). Tasks and records are plain
picklable dataclasses: they cross process boundaries (process pool, Ray).
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field, fields
from typing import Any

from ladder.match.game.adjudication import Adjudication, Adjudicator
from ladder.match.game.clocks import Clock, MoveClocks
from ladder.match.game.endings import Ending, from_rules
from ladder.match.game.move_record import MoveRecord
from ladder.match.openings import Opening
from ladder.match.output.pgn import format_pgn
from ladder.match.players.player import FlagFell, MoveInfo, Player, PlayerError, Resignation
from ladder.match.players.specs import PlayerSpec
from ladder.notation.wxf import WxfWriter
from ladder.rules import Game
from ladder.seeds import MoveSeed, derive_seed
from protocol import EngineFailure

__all__ = ["GameRecord", "GameTask", "MoveRecord", "play_game"]


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game."""

    match_id: str
    game_no: int
    pair_no: int
    opening_no: int
    variant: str
    opening: Opening
    red: PlayerSpec
    black: PlayerSpec
    red_slot: str  #: "A" or "B": which match player has Red (engine reuse key)
    seed: int
    adjudication: Adjudication = field(default_factory=Adjudication)
    event: str = "ladder match"
    #: Whether the game makes its PGN (:func:`play_game`): asked by a run whose ``--pgn``
    #: file takes it as it is (:attr:`~ladder.match.output.pgn.PgnOptions.takes_record_text`).
    #: A run that writes no PGN file, or another form of it, and a calibration, make none.
    pgn: bool = False


@dataclass
class GameRecord:
    """A finished game, as stored and written to PGN."""

    match_id: str
    game_no: int
    pair_no: int
    opening_no: int
    variant: str
    red: str
    black: str
    red_slot: str
    start_fen: str
    book_plies: int
    moves: list[str]
    infos: list[MoveRecord]  #: per move after the book
    result: str  #: "1-0", "0-1", "1/2-1/2" (a study's PGN may also hold "*")
    winner: str | None
    reason: str  #: an :class:`Ending` (a study's game from another tool's PGN: its own text)
    search_seconds: dict[str, float]
    wall_seconds: float
    worker: str
    finished_at: float
    pgn: str = ""  #: its PGN, if its task asked for it ("" if not)
    opening: str = ""  #: the opening's source and id (:meth:`Opening.describe`)
    time_controls: tuple[str, str] | None = None  #: Red's and Black's ``tc=``, if clocked
    #: Why the loser of a game it lost without a move (a fallen flag, an engine failure,
    #: a resignation) could not move: its own words.
    failure: str | None = None
    #: :meth:`stored`'s text, when the record was read from it (not copied by ``replace``)
    _stored: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def red_score(self) -> float:
        """Red's score: 1, 0.5 or 0."""
        return {"1-0": 1.0, "0-1": 0.0}.get(self.result, 0.5)

    @property
    def a_score(self) -> float:
        """Player A's score in this game."""
        return self.red_score if self.red_slot == "A" else 1.0 - self.red_score

    def to_dict(self) -> dict[str, Any]:
        """The stored form (as before the moves were typed: each move's dict, and a
        failure as one more entry, ``error`` or, for a resignation, ``resigned``). The PGN
        is not in it: the results database keeps it in a column of its own."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_STORED}
        out["infos"] = [m.to_dict() for m in self.infos]
        if self.failure is not None:
            key = "resigned" if self.reason == Ending.RESIGNATION else "error"
            out["infos"].append({key: self.failure})
        return out

    def stored(self) -> str:
        """The stored form as the results database holds it (JSON text)."""
        return self._stored if self._stored is not None else json.dumps(self.to_dict())

    def __reduce__(self) -> tuple[Any, ...]:
        # A record crosses from the worker that played it to the driver as its stored
        # form, made in the worker: the driver stores that text as it is and reads the
        # moves back from it, instead of unpickling an object per move and encoding them
        # again (half a millisecond of the driver's CPU a game; scripts/bench_match.py).
        # A record is not changed after its game ends, so the text stays its own. Its PGN
        # goes beside it, as the database keeps it (not escaped into the JSON).
        return (_from_stored, (self.stored(), self.pgn))

    @classmethod
    def read(cls, text: str, pgn: str) -> GameRecord:
        """A record from its stored text (:meth:`stored`) and its PGN, as the results
        database keeps them (the text of a record stored before the PGN had a column of
        its own alone holds it too)."""
        record = cls.from_dict(json.loads(text))
        if pgn:
            record.pgn = pgn
        return record

    @classmethod
    def from_dict(cls, stored: dict[str, Any]) -> GameRecord:
        """A record from its stored form (:meth:`to_dict`)."""
        infos = list(stored.get("infos", []))
        failure = None
        if infos and ("error" in infos[-1] or "resigned" in infos[-1]):
            last = infos.pop()
            failure = str(last.get("error", last.get("resigned")))
        controls = stored.get("time_controls")
        return cls(
            **{
                **stored,
                "infos": [MoveRecord.from_dict(i) for i in infos],
                "time_controls": None if controls is None else tuple(controls),
            },
            failure=failure,
        )


#: Fields that are not in the stored form as they are (see :meth:`GameRecord.to_dict`).
_NOT_STORED = frozenset({"failure", "_stored", "pgn"})


def _from_stored(text: str, pgn: str) -> GameRecord:
    """A record unpickled (:meth:`GameRecord.__reduce__`): its text kept, to be stored."""
    record = GameRecord.read(text, pgn)
    record._stored = text
    return record


def _move_record(info: MoveInfo, clock: Clock | None) -> MoveRecord:
    score = info.score
    return MoveRecord(  # by position: keywords cost a tenth of the loop's record a move
        round(info.seconds, 6),
        None if score is None else score.score(),
        None if score is None else score.mate(),
        info.depth,
        info.nodes,
        info.restarts,
        info.chosen or None,
        info.best or None,
        None if clock is None else round(clock.remaining, 3),
    )


def _clock(spec: PlayerSpec) -> Clock | None:
    if spec.time_control is None:
        return None
    return Clock(spec.time_control, spec.time_margin_ms / 1000)


#: How a game ended: its result, the winner (None: a draw) and the reason.
GameEnd = tuple[str, str | None, Ending]


async def play_game(task: GameTask, red: Player, black: Player) -> GameRecord:
    """Play ``task`` between two started players and return its record, with its PGN
    (WXF, the notes of :func:`~ladder.match.output.pgn.format_pgn`) if the task asks."""
    t0 = time.perf_counter()
    opening = task.opening
    game = Game.from_fen(task.variant, opening.fen, opening.moves)
    start_fen = game.start_fen
    # The PGN's WXF is written as the game is played (no second replay), if it is made.
    written = WxfWriter().replay(task.variant, start_fen, opening.moves) if task.pgn else None
    await red.new_game(task.variant, derive_seed(task.seed, "red"))
    await black.new_game(task.variant, derive_seed(task.seed, "black"))
    infos: list[MoveRecord] = []
    seconds = {"red": 0.0, "black": 0.0}
    failure: list[str] = []
    result, winner, reason = await _play_moves(
        task, game, {"red": red, "black": black}, infos, seconds, written, failure
    )
    record = GameRecord(
        match_id=task.match_id,
        game_no=task.game_no,
        pair_no=task.pair_no,
        opening_no=task.opening_no,
        variant=task.variant,
        red=task.red.name,
        black=task.black.name,
        red_slot=task.red_slot,
        start_fen=start_fen,
        book_plies=len(opening.moves),
        moves=game.moves,
        infos=infos,
        result=result,
        winner=winner,
        reason=reason,
        search_seconds=seconds,
        wall_seconds=time.perf_counter() - t0,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        finished_at=time.time(),
        opening=opening.describe(),
        time_controls=_time_controls(task),
        failure=failure[0] if failure else None,
    )
    if written is not None:
        record.pgn = format_pgn(record, written=written)
    return record


async def _play_moves(
    task: GameTask,
    game: Game,
    players: dict[str, Player],
    infos: list[MoveRecord],
    seconds: dict[str, float],
    written: WxfWriter | None,
    failure: list[str],
) -> GameEnd:
    """Play ``game`` on to its ending: each move's record appended to ``infos`` (why a
    player lost without a move to ``failure``), its search time added to the mover's
    ``seconds``, the move ``written`` in WXF (if given) in the position it is played
    from, just before it is played."""
    adjudicator = Adjudicator(task.adjudication)
    max_plies = task.adjudication.max_plies
    clocks = {"red": _clock(task.red), "black": _clock(task.black)}
    while True:
        outcome = game.outcome()
        if outcome is not None:
            return outcome.result, outcome.winner, from_rules(outcome.reason)
        ply = game.ply  # (read once a move: the loop's own work is per move)
        if ply >= max_plies:
            return "1/2-1/2", None, Ending.MAX_PLIES
        mover = game.turn
        other = "black" if mover == "red" else "red"
        player = players[mover]
        own = clocks[mover]
        move_clocks = None if own is None else MoveClocks(own, clocks[other])
        # The move's seed: derive_seed(game seed, ply), the game seed being
        # derive_seed(match seed, match id, game number) (runner.py), derived only if the
        # player reads it. A level player uses it as the move service uses a request's
        # seed (ladder.level_engine.level_move), so the service answers this move for it.
        try:
            info = await player.choose(game, MoveSeed(task.seed, ply), move_clocks)
            if own is not None and not own.spend(info.seconds):
                raise FlagFell(f"{player.spec.name} overran its clock", own.remaining)
        except Resignation as exc:
            failure.append(str(exc)[:500])
            return _won_by(other, Ending.RESIGNATION)
        except FlagFell as exc:
            failure.append(f"{player.spec.name}: {exc}"[:500])
            return _won_by(other, Ending.TIMEOUT)
        except (EngineFailure, PlayerError) as exc:
            failure.append(f"{player.spec.name}: {exc}"[:500])
            return _won_by(other, Ending.ENGINE_FAILURE)
        if written is not None:
            written.write(game, info.move, info.best if info.chosen == "varied" else None)
        game.push(info.move)
        seconds[mover] += info.seconds
        infos.append(_move_record(info, own))
        verdict = adjudicator.update(mover, ply + 1, info.score)
        if verdict is not None and game.outcome() is None:
            return verdict.result, verdict.winner, verdict.reason


def _won_by(winner: str, reason: Ending) -> GameEnd:
    return ("1-0" if winner == "red" else "0-1"), winner, reason


def _time_controls(task: GameTask) -> tuple[str, str] | None:
    controls = (task.red.time_control, task.black.time_control)
    if controls == (None, None):
        return None
    return (controls[0].text() if controls[0] else "-", controls[1].text() if controls[1] else "-")
