"""The engine players: :class:`EnginePlayer` drives any UCI/UCCI/XBoard engine under a
node/depth/movetime limit or a clock, through :class:`protocol.ManagedEngine`;
:class:`LevelPlayer` is a level of the ladder, the move service's own level move
(:meth:`ladder.level_engine.engine.LevelEngine.play`).

Players are started once per game process and reused for many games (an engine process
per player and colour slot). A player that cannot give a move raises
:class:`~ladder.match.players.player.PlayerError` (or :class:`protocol.EngineFailure`):
the game loop scores the game as its loss.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from ladder.level_engine.engine import ENGINE_OPTIONS, LevelEngine
from ladder.level_engine.level_move import NoLevelMove
from ladder.levels import Level
from ladder.match.game.clocks import MoveClocks
from ladder.match.players.player import FlagFell, MoveInfo, PlayerError, Resignation
from ladder.match.players.specs import PlayerSpec
from ladder.rules import Game
from ladder.seeds import MoveSeed
from ladder.variants import FSF_VARIANT, VARIANTS_INI
from protocol import (
    Dialect,
    EngineArgumentError,
    EngineFailure,
    FenLetters,
    Limit,
    ManagedEngine,
    PlayResult,
    RankNumbering,
    Timeouts,
)
from protocol.options import OptionValue
from protocol.retry import RetryPolicy

__all__ = ["EnginePlayer", "LevelPlayer", "searched_deadline"]

#: A depth- or node-limited engine's search deadline is this many times its search at
#: that limit in the check before a match, and at least :data:`MIN_SEARCH_DEADLINE` s.
DEADLINE_FACTOR = 20
MIN_SEARCH_DEADLINE = 30.0
#: The check's search stops after this long (s): an engine whose limit takes longer
#: (``nodes=500000000``) keeps the default search timeouts, as it cannot be timed here.
CHECK_SEARCH_BOUND = 10.0


def searched_deadline(seconds: float) -> float:
    """The search deadline of an engine whose search at its limit took ``seconds``."""
    return max(MIN_SEARCH_DEADLINE, DEADLINE_FACTOR * seconds)


@functools.cache
def _variant_start(variant: str) -> str:
    """The canonical start FEN of ``variant``."""
    return Game.from_fen(variant).start_fen


class EnginePlayer:
    """A UCI/UCCI/XBoard engine under a node/depth/time limit or a clock (``engine`` specs)."""

    def __init__(self, spec: PlayerSpec) -> None:
        self.spec = spec
        self.engine: ManagedEngine | None = None
        #: How often a search without a clock is tried (a faulted engine restarted between).
        self.policy = RetryPolicy()
        self._first_search = True
        self._base_limit: Limit | None = None

    def _executable(self) -> str:
        return self.spec.executable()

    def _options(self) -> dict[str, OptionValue]:
        opts: dict[str, OptionValue] = dict(ENGINE_OPTIONS)
        opts.update(dict(self.spec.options))
        return opts

    def base_limit(self) -> Limit:
        """The spec's node, depth and movetime limit (a clock comes on top)."""
        if self._base_limit is None:  # made once: a player searches with it every move
            s = self.spec
            self._base_limit = Limit(
                nodes=s.nodes,
                depth=s.depth,
                time=None if s.movetime_ms is None else s.movetime_ms / 1000,
            )
        return self._base_limit

    def _timeouts(self) -> Timeouts:
        """A clocked engine is stopped once its clock and margin are gone (plus a second
        for the pipes): a search deadline that long is its flag falling. Otherwise its
        ``timeout=``, or the deadline the check before the match measured."""
        if self.spec.time_control is None:
            return Timeouts(search_deadline=self.spec.search_timeout_s)
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
            fen_letters=FenLetters(self.spec.fen) if self.spec.fen else None,
            options=self._options(),
            variant_path=path,
            variant_aliases=FSF_VARIANT,
            variant_path_optional=variants == "default",
            timeouts=self._timeouts(),
            cwd=self.spec.workdir,
        )

    async def new_game(self, variant: str, seed: int) -> None:
        self._first_search = True

    def _attempt(self, game: Game, limit: Limit) -> Callable[[], Awaitable[tuple[PlayResult, int]]]:
        """One attempt of a search of ``game``'s position under ``limit``, made again
        as it is (the same ``ucinewgame`` or not) when :attr:`policy` retries it."""
        engine = self.engine
        if engine is None:
            raise RuntimeError("EnginePlayer.start() was not called")
        new_game = self._first_search or self.spec.newgame_every_move
        self._first_search = False
        return lambda: _search(engine, self.spec, game, limit, new_game)

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        if clocks is None:
            (result, restarts), earlier = await self.policy.run(
                self._attempt(game, self.base_limit())
            )
            incidents = restarts + len(earlier)
        else:
            # On a clock a search is made once, not under the policy: its time is gone.
            limit = clocks.limit(game.turn == "red", self.base_limit())
            try:
                result, incidents = await self._attempt(game, limit)()
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
        score = result.info.get("score")
        return MoveInfo(
            result.move,
            None if score is None else score.relative,
            result.info.get("depth"),
            result.info.get("nodes"),
            result.elapsed,
            incidents,
        )

    async def evaluate(self, game: Game, limit: Limit) -> PlayResult:
        """One search of ``game``'s position under ``limit`` (a study's reference)."""
        return (await self.policy.run(self._attempt(game, limit)))[0][0]

    async def probe(self, variant: str) -> None:
        """One search from ``variant``'s start position, one attempt (:meth:`check`)."""
        await self.check(variant, None)

    async def check(self, variant: str, fen: str | None) -> PlayerSpec:
        """Before a match: the spec its games play with. ``fen`` (a position the match
        sets up, None if it sets up none) is set up first, in the engine's ``fen=``
        letters or, without one, its protocol's then the other ones: the first it does
        not refuse are the spec's ``fen``. Then one search from there (one attempt) at
        the engine's own limit (depth 1 on a clock), abandoned after
        :data:`CHECK_SEARCH_BOUND`; a depth- or node-limited engine without ``timeout=``
        gets :func:`searched_deadline` of that search's time, if it ended in time (the
        caller closes the engine after the check).
        An engine that refuses the position in every letters, or cannot set one up
        (XBoard without ``setboard``), raises :class:`PlayerError` in its own words."""
        if self.engine is None:
            raise RuntimeError("EnginePlayer.start() was not called")
        spec = self.spec
        if fen is not None:
            spec = dataclasses.replace(spec, fen=(await self._readable_letters(variant, fen)).value)
        clocked = spec.time_control is not None
        limit = Limit(depth=1) if clocked else self.base_limit()
        started = time.perf_counter()
        try:  # (abandoned, not stopped: XBoard cannot bound a node limit's time)
            async with asyncio.timeout(CHECK_SEARCH_BOUND):
                await self._attempt(Game.from_fen(variant, fen), limit)()
        except TimeoutError:
            return spec  # the engine is closed after the check
        took = time.perf_counter() - started
        if not clocked and spec.movetime_ms is None and spec.search_timeout_s is None:
            spec = dataclasses.replace(spec, search_timeout_s=round(searched_deadline(took), 1))
        return spec

    async def _readable_letters(self, variant: str, fen: str) -> FenLetters:
        """The FEN letters in which the engine takes ``fen`` (see :meth:`check`)."""
        assert self.engine is not None
        own = FenLetters.XBOARD if self.spec.protocol == "xboard" else FenLetters.FSF
        tried = [FenLetters(self.spec.fen)] if self.spec.fen else [own, *set(FenLetters) - {own}]
        said: list[str] = []
        for letters in tried:
            self.engine.use_fen_letters(letters)
            refusal = functools.partial(
                self.engine.refusal, variant if self.spec.uci_variant else None, fen
            )
            try:
                refused, _ = await self.policy.run(refusal)
            except EngineArgumentError as exc:
                raise PlayerError(
                    f"{self.spec.name} cannot be given the book's positions: {exc}"
                ) from exc
            if refused is None:
                return letters
            said.append(f"{letters.value} letters: {refused}")
        raise PlayerError(f"{self.spec.name} refuses the book's position ({'; '.join(said)})")

    def reference_limit(self, variant: str) -> Limit:
        return self.base_limit()

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.close()
        self.engine = None


async def _search(
    engine: ManagedEngine,
    spec: PlayerSpec,
    game: Game,
    limit: Limit,
    new_game: bool,
) -> tuple[PlayResult, int]:
    """One search of ``game``'s position, one attempt: its result and the engine
    restarts it took."""
    # An engine we did not build is given the game from its start: `startpos` (no
    # FEN) when that is the variant's start (Sjaak II reads xiangqi FENs with h/e,
    # not FSF's n/b; XBoard engines may not offer setboard, and keep the game
    # themselves), and every move since, so it sees every repetition.
    fen = None if game.start_fen == _variant_start(game.variant.name) else game.start_fen
    outcome = await engine.search(
        game.variant.name if spec.uci_variant else None,
        fen,
        game.moves,  # a copy already (position_command makes it a tuple)
        limit,
        new_game=new_game,
        validate_move=game.is_legal,
    )
    return outcome.result, len(outcome.incidents)


class LevelPlayer:
    """Level N of the ladder, playing exactly the move service's move
    (:meth:`ladder.level_engine.engine.LevelEngine.play`) with the seed the game loop gives for
    the move (``derive_seed(game seed, ply)``, see :func:`ladder.match.game.play.play_game`);
    as a study's reference, a plain search at the level's node count."""

    def __init__(self, spec: PlayerSpec) -> None:
        self.spec = spec
        self.engine: LevelEngine | None = None
        self.levels: dict[str, Level] = {}
        self._first_search = True

    async def start(self) -> None:
        self.engine = LevelEngine(self.spec.executable())

    async def new_game(self, variant: str, seed: int) -> None:
        self._first_search = True

    def level(self, variant: str) -> Level:
        """This player's settings in ``variant``."""
        if variant not in self.levels:
            self.levels[variant] = self.spec.level_settings(variant)
        return self.levels[variant]

    async def choose(
        self, game: Game, seed: MoveSeed, clocks: MoveClocks | None = None
    ) -> MoveInfo:
        if self.engine is None:
            raise RuntimeError("LevelPlayer.start() was not called")
        try:
            moved = await self.engine.play(game, self.level(game.variant.name), seed.value())
        except NoLevelMove as exc:
            raise PlayerError(f"{self.spec.name} gave no legal move (None)") from exc
        return MoveInfo(
            moved.move,
            moved.score,
            moved.depth,
            moved.nodes,
            moved.seconds,
            len(moved.incidents),
            chosen="varied" if moved.varied else None,
            best=moved.result.bestmove if moved.varied else None,
        )

    async def probe(self, variant: str) -> None:
        """One search of the level from ``variant``'s start position, its book left
        out (a book move needs no engine: an engine that cannot start would pass)."""
        if self.engine is None:
            raise RuntimeError("LevelPlayer.start() was not called")
        level = dataclasses.replace(self.level(variant), book=False)
        await self.engine.play(Game.from_fen(variant), level, 0)

    async def evaluate(self, game: Game, limit: Limit) -> PlayResult:
        if self.engine is None:
            raise RuntimeError("LevelPlayer.start() was not called")
        engine = self.engine
        new_game = self._first_search or self.spec.newgame_every_move
        self._first_search = False
        attempt = functools.partial(_search, engine.managed, self.spec, game, limit, new_game)
        return (await engine.policy.run(attempt))[0][0]

    def reference_limit(self, variant: str) -> Limit:
        return Limit(nodes=self.level(variant).nodes)

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.close()
        self.engine = None
