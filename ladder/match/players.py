"""Who plays a match game, at run time: a ladder level, any UCI/UCCI/XBoard engine, or a seeded
baseline, from a :class:`~ladder.match.player_specs.PlayerSpec`.

* :class:`LevelPlayer` -- a level of the ladder: the move service's own level move
  (:func:`ladder.level_move.play_level_move`).
* :class:`EnginePlayer` -- any engine under a node/depth/movetime limit or a clock.
* :class:`RandomPlayer` -- a uniformly random legal move; :class:`GreedyPlayer` -- the
  capture that wins the most material (or the game), else a random move. Both seeded
  per game.

Players are started once per worker process and reused for many games (an engine process
per player and colour slot). A player that cannot give a move raises
:class:`PlayerError` (or :class:`protocol.EngineFailure`): the game loop scores the game
as its loss. :func:`probe` checks before a match that a player can play at all.
"""

from __future__ import annotations

import asyncio
import functools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ladder.engine_binary import engine_path
from ladder.level_move import NoLevelMove, level_engine, play_level_move
from ladder.levels import Level
from ladder.match.clocks import MoveClocks
from ladder.match.player_specs import PlayerSpec, PlayerSpecError
from ladder.material import material
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol import (
    Dialect,
    EngineError,
    EngineFailure,
    InfoDict,
    Limit,
    ManagedEngine,
    PlayResult,
    RankNumbering,
    Timeouts,
)
from protocol.options import OptionValue

__all__ = [
    "BaselinePlayer",
    "EnginePlayer",
    "FlagFell",
    "GreedyPlayer",
    "LevelPlayer",
    "MoveInfo",
    "Player",
    "PlayerError",
    "PlayerSpec",
    "PlayerSpecError",
    "RandomPlayer",
    "Resignation",
    "make_player",
    "probe",
]

_DEST_RE = re.compile(r"([a-i])(\d{1,2})$")


class PlayerError(Exception):
    """A player could not give a move (an engine that answered none, a flag that fell):
    the game loop scores it as that player's loss. Anything else a player raises is a
    bug and stops the match."""


class Resignation(Exception):
    """The engine resigned instead of moving (it loses the game)."""


@functools.cache
def _variant_start(variant: str) -> str:
    """The canonical start FEN of ``variant``."""
    return Game.from_fen(variant).start_fen


class FlagFell(PlayerError):
    """The player's clock ran out during its search (the engine was stopped)."""

    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


# ---------------------------------------------------------------------------------------
# Runtime players


@dataclass
class MoveInfo:
    """A move and the search behind it (engine players), from the mover's view."""

    move: str
    cp: int | None = None
    mate: int | None = None
    depth: int | None = None
    nodes: int | None = None
    seconds: float = 0.0  #: search time (go .. bestmove); 0 for baselines
    restarts: int = 0  #: engine restarts this move needed
    chosen: str | None = None  #: "random" or "varied": not the player's best move
    best: str | None = None  #: the engine's best move, when another one was played


class Player(Protocol):
    """A player in a worker process. ``choose`` gets the game being played (it must not
    change it) and, in a game with clocks, the clocks; an engine is sent
    ``game.engine_position()``."""

    spec: PlayerSpec

    async def start(self) -> None: ...

    async def new_game(self, variant: str, seed: int) -> None: ...

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo: ...

    async def close(self) -> None: ...


@dataclass
class BaselinePlayer:
    """Shared part of the seeded baselines."""

    spec: PlayerSpec
    rng: random.Random = field(default_factory=random.Random)

    async def start(self) -> None:
        return None

    async def new_game(self, variant: str, seed: int) -> None:
        self.rng = random.Random(seed)

    async def close(self) -> None:
        return None

    def pick(self, game: Game) -> str:
        return self.rng.choice(sorted(game.legal_moves()))


class RandomPlayer(BaselinePlayer):
    """A uniformly random legal move."""

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        return MoveInfo(self.pick(game), chosen="random")


def greedy_choice(game: Game, rng: random.Random) -> tuple[str, bool]:
    """The capture that gains the most material (a winning move first), else random;
    and whether the move was a random one.

    Material is counted on the board after the move, so an atomic explosion counts
    what it removes on both sides. Ties are broken by ``rng``.
    """
    red = game.turn == "red"
    before_us, before_them = (
        material(game.board_fen(), red),
        material(game.board_fen(), not red),
    )
    best: list[str] = []
    best_gain = 0
    for move in sorted(game.legal_moves()):
        dest = _DEST_RE.search(move)
        if "@" in move or dest is None or game.piece_at(dest.group(0)) is None:
            continue
        game.push(move)
        try:
            outcome = game.outcome()
            if outcome is not None and outcome.winner == ("red" if red else "black"):
                return move, False
            bf = game.board_fen()
            gain = (before_them - material(bf, not red)) - (before_us - material(bf, red))
        finally:
            game.pop()
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain and gain > 0:
            best.append(move)
    if best:
        return rng.choice(best), False
    return rng.choice(sorted(game.legal_moves())), True


def greedy_move(game: Game, rng: random.Random) -> str:
    """:func:`greedy_choice`'s move."""
    return greedy_choice(game, rng)[0]


class GreedyPlayer(BaselinePlayer):
    """The most valuable capture it can make, else a random move."""

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        move, at_random = greedy_choice(game, self.rng)
        return MoveInfo(move, chosen="random" if at_random else None)


class EnginePlayer:
    """A UCI/UCCI/XBoard engine under a node/depth/time limit or a clock (``engine`` specs)."""

    def __init__(self, spec: PlayerSpec) -> None:
        self.spec = spec
        self.engine: ManagedEngine | None = None
        self._first_search = True

    def _executable(self) -> str:
        return self.spec.path or str(engine_path())

    def _options(self) -> dict[str, OptionValue]:
        opts: dict[str, OptionValue] = {"Threads": 1}
        opts.update(dict(self.spec.options))
        return opts

    def base_limit(self) -> Limit:
        """The spec's node, depth and movetime limit (a clock comes on top)."""
        s = self.spec
        return Limit(
            nodes=s.nodes,
            depth=s.depth,
            time=None if s.movetime_ms is None else s.movetime_ms / 1000,
        )

    def _timeouts(self) -> Timeouts:
        """A clocked engine is stopped once its clock and margin are gone (plus a second
        for the pipes): a search deadline that long is its flag falling."""
        if self.spec.time_control is None:
            return Timeouts()
        return Timeouts(search_margin=self.spec.time_margin_ms / 1000 + 1.0)

    async def start(self) -> None:
        variants = self.spec.variants
        path = (
            None
            if variants is None
            else (VARIANTS_INI if variants == "default" else Path(variants).resolve())
        )
        self.engine = ManagedEngine(
            [self._executable(), *self.spec.args],
            protocol=Dialect(self.spec.protocol),
            ranks=RankNumbering(self.spec.ranks) if self.spec.ranks else None,
            options=self._options(),
            variant_path=path,
            variant_aliases=FSF_VARIANT,
            variant_path_optional=variants == "default",
            timeouts=self._timeouts(),
            retries=1,
            cwd=self.spec.workdir,
        )

    async def new_game(self, variant: str, seed: int) -> None:
        self._first_search = True

    async def _search(
        self, game: Game, limit: Limit, retries: int | None = None
    ) -> tuple[PlayResult, int]:
        if self.engine is None:
            raise RuntimeError("EnginePlayer.start() was not called")
        new_game = self._first_search or self.spec.newgame_every_move
        self._first_search = False
        # An engine we did not build is given the game from its start: `startpos` (no
        # FEN) when that is the variant's start (Sjaak II reads xiangqi FENs with h/e,
        # not FSF's n/b; XBoard engines may not offer setboard, and keep the game
        # themselves), and every move since, so it sees every repetition.
        fen = None if game.start_fen == _variant_start(game.variant.name) else game.start_fen
        moves = tuple(game.moves)
        outcome = await self.engine.search(
            game.variant.name if self.spec.uci_variant else None,
            fen,
            moves,
            limit,
            new_game=new_game,
            retries=retries,
            validate_move=game.is_legal,
        )
        return outcome.result, len(outcome.incidents)

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        if clocks is None:
            result, incidents = await self._search(game, self.base_limit())
        else:
            # On a clock a failed search is not tried again: its time is gone.
            limit = clocks.limit(game.turn == "red", self.base_limit())
            try:
                result, incidents = await self._search(game, limit, retries=0)
            except EngineFailure as exc:
                last = exc.incidents[-1] if exc.incidents else None
                if last is not None and last.kind == "timeout" and last.phase == "search":
                    raise FlagFell(
                        f"{self.spec.name} did not move within its clock", clocks.own.remaining
                    ) from exc
                raise
        if result.resigned:
            raise Resignation(
                f"{self.spec.name} resigned" + (f": {result.claim}" if result.claim else "")
            )
        if result.move is None:
            claimed = f" (it claimed {result.claim})" if result.claim else ""
            raise PlayerError(
                f"{self.spec.name} answered no move in a position with legal moves{claimed}"
            )
        cp, mate = _score(result.info)
        return MoveInfo(
            result.move,
            cp,
            mate,
            result.info.get("depth"),
            result.info.get("nodes"),
            result.elapsed,
            incidents,
        )

    async def evaluate(self, game: Game, limit: Limit) -> PlayResult:
        """One search of ``game``'s position under ``limit`` (a study's reference)."""
        return (await self._search(game, limit))[0]

    async def probe(self, variant: str) -> None:
        """One depth-1 search from ``variant``'s start position, not retried."""
        await self._search(Game.from_fen(variant), Limit(depth=1), retries=0)

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.close()
        self.engine = None


def _score(info: InfoDict) -> tuple[int | None, int | None]:
    """(cp, mate) from the mover's point of view."""
    score = info.get("score")
    if score is None:
        return None, None
    rel = score.relative
    return rel.score(), rel.mate()


class LevelPlayer(EnginePlayer):
    """Level N of the ladder, playing exactly the move service's move
    (:func:`ladder.level_move.play_level_move`) with the seed the game loop gives for
    the move (``derive_seed(game seed, ply)``, see :func:`ladder.match.play.play_game`)."""

    def __init__(self, spec: PlayerSpec) -> None:
        super().__init__(spec)
        self.levels: dict[str, Level] = {}

    async def start(self) -> None:
        self.engine = level_engine(self.spec.path)

    def level(self, variant: str) -> Level:
        """This player's settings in ``variant``."""
        if variant not in self.levels:
            self.levels[variant] = self.spec.level_settings(variant)
        return self.levels[variant]

    async def choose(self, game: Game, seed: int, clocks: MoveClocks | None = None) -> MoveInfo:
        if self.engine is None:
            raise RuntimeError("LevelPlayer.start() was not called")
        try:
            moved = await play_level_move(self.engine, game, self.level(game.variant.name), seed)
        except NoLevelMove as exc:
            raise PlayerError(f"{self.spec.name} gave no legal move (None)") from exc
        result, line = moved.result, moved.choice.line
        return MoveInfo(
            moved.move,
            line.cp if line else None,
            line.mate if line else None,
            line.depth if line else result.depth,
            result.nodes,
            result.time_s,
            len(moved.incidents),
            chosen="varied" if moved.varied else None,
            best=result.bestmove if moved.varied else None,
        )

    async def probe(self, variant: str) -> None:
        """One search of the level from ``variant``'s start position."""
        self.level(variant)
        await self.choose(Game.from_fen(variant), 0)


def make_player(spec: PlayerSpec) -> Player:
    """A runtime player for ``spec`` (call ``await player.start()`` next)."""
    if spec.kind == "random":
        return RandomPlayer(spec)
    if spec.kind == "greedy":
        return GreedyPlayer(spec)
    if spec.kind == "level":
        return LevelPlayer(spec)
    return EnginePlayer(spec)


async def _probe_one(spec: PlayerSpec, variant: str) -> None:
    player = make_player(spec)
    if not isinstance(player, EnginePlayer):
        return
    await player.start()
    try:
        await player.probe(variant)
    except (EngineError, PlayerSpecError) as exc:
        reason = exc.reason if isinstance(exc, EngineFailure) else str(exc)
        raise PlayerError(f"{spec.name} cannot play {variant}: {reason}") from exc
    finally:
        await player.close()


def probe(specs: list[PlayerSpec], variant: str) -> None:
    """Start every engine of ``specs`` once (handshake, options, variant, a depth-1
    search) before a match, so that an engine that cannot play stops the match before
    its first game: :class:`PlayerError` with a one-line reason."""

    async def run() -> None:
        results = await asyncio.gather(
            *(_probe_one(s, variant) for s in dict.fromkeys(specs)), return_exceptions=True
        )
        for outcome in results:
            if isinstance(outcome, BaseException):
                raise outcome

    asyncio.run(run())
