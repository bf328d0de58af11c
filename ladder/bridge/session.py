"""What `ladder uci|ucci|xboard` play, whatever the dialect: one game, one level.

A :class:`LevelSession` holds the game as the rules checker sees it
(:class:`ladder.rules.Game`: every position and move a GUI sends is parsed and judged
there, and nothing else reaches the engine), the strength (a level 1-8 or an Elo on the
calibrated curve) and the engine (:class:`protocol.ManagedEngine` over our patched
Fairy-Stockfish, started on first use, restarted after a fault).

Each move is the level's move, computed by the code the move service runs
(:meth:`ladder.level_engine.engine.LevelEngine.play`).
The choice's seed is derived from the game and the position (:meth:`LevelSession.move_seed`):
the game's seed (random for each new game, or the ``Seed`` option) and the moves from
its start position, so a game replays only when asked to. On a GUI's clock the level's
search also stops at a time limit (:mod:`ladder.bridge.clocks`). An analysis
(:meth:`LevelSession.analyse`: UCI ``go infinite``, XBoard ``analyze``) is the engine at
full strength, without the level's node count or choice, its lines shown as they come.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from chess.engine import Score

from ladder.level_engine.clock import MoveClock
from ladder.level_engine.engine import LevelEngine
from ladder.level_engine.engine_lines import Line, SearchResult, search_result
from ladder.level_engine.level_move import LevelMove
from ladder.level_engine.strength import strength
from ladder.levels import (
    LEVEL_NUMBERS,
    LEVEL_RANGE,
    LEVELS_FILE,
    Level,
    LevelsError,
    check_elo_in_span,
    elo_range,
    levels_version,
    load_levels,
    nearest_in_span,
)
from ladder.rules import Game, RulesError
from ladder.seeds import derive_seed
from ladder.variants import FSF_VARIANT, VARIANT_IDS
from protocol import InfoDict, Limit, Timeouts

__all__ = ["SEED_OPTION_MAX", "Answer", "LevelSession", "SessionError"]

#: The largest ``Seed`` option (a spin option is a 32-bit integer in most GUIs).
SEED_OPTION_MAX = 2**31 - 1
#: How long an analysis without a limit may run before the engine counts as hung (s):
#: a GUI may leave one running for hours.
ANALYSIS_CEILING_S = 24 * 3600.0
#: The hash table of an analysis (MB): full strength, one thread.
ANALYSIS_HASH_MB = 64


class SessionError(ValueError):
    """A request the session refuses (the message names the problem); nothing changed."""


@dataclass(frozen=True)
class Answer:
    """The level's move and the line behind it (score from the mover's point of view)."""

    move: str
    ponder: str | None
    score: Score | None
    depth: int
    nodes: int
    pv: tuple[str, ...]
    seconds: float

    @classmethod
    def of_move(cls, moved: LevelMove) -> Answer:
        """A level's move as the session answers it."""
        return cls(
            moved.move,
            moved.ponder,
            moved.score,
            moved.depth,
            moved.nodes,
            moved.pv,
            moved.seconds,
        )

    @classmethod
    def from_search(
        cls, move: str, ponder: str | None, line: Line | None, result: SearchResult
    ) -> Answer:
        """``move`` and the search behind it: the score and PV of its ``line``, or without
        one the search's depth and the move alone."""
        return cls(
            move=move,
            ponder=ponder,
            score=line.score if line else None,
            depth=line.depth if line else result.depth,
            nodes=result.nodes,
            pv=line.pv if line else (move,),
            seconds=result.time_s,
        )


class LevelSession:
    """One game against one level (see the module docstring)."""

    def __init__(
        self,
        *,
        levels_file: Path = LEVELS_FILE,
        engine: Path | None = None,
        variant: str = VARIANT_IDS[0],
        level: int = 1,
        seed: int = 0,
    ) -> None:
        self.levels_file = levels_file
        self.levels = load_levels(levels_file)
        #: The ``OwnBook`` option: the level's first moves from its opening book.
        self.own_book = True
        #: Which ladder plays (:func:`ladder.levels.levels_version`), in the engine's name.
        self.levels_version = levels_version(levels_file)
        self._engine_command = engine
        self._engine: LevelEngine | None = None
        self.check_variant(variant)
        self.variant = variant
        self.level = level
        self.elo: float | None = None
        #: The ``Seed`` option: 0 draws a new game seed for each game.
        self.seed = 0
        self.game = Game.from_fen(variant)
        self.game_seed = 0
        self.new_game()
        self.set_seed(seed)
        self.set_level(level)

    # ------------------------------------------------------------------ settings

    def check_variant(self, variant: str) -> None:
        if variant not in VARIANT_IDS:
            raise SessionError(
                f"unknown variant {variant!r}: expected one of {', '.join(VARIANT_IDS)}"
            )

    def set_variant(self, variant: str) -> None:
        """Play ``variant`` from its start position (a new game)."""
        self.check_variant(variant)
        self.variant = variant
        self.new_game()

    def set_level(self, level: int) -> None:
        """Play level ``level`` (1-8); an Elo set before is dropped."""
        if level not in LEVEL_NUMBERS:
            raise SessionError(f"Level must be {LEVEL_RANGE}, not {level}")
        self.level, self.elo = level, None

    def elo_span(self, variant: str | None = None) -> tuple[float, float] | None:
        """The Elo range ``variant`` (default: the current one) can play, None when its
        levels are not all rated."""
        return elo_range(self.levels[variant or self.variant])

    def strength_name(self) -> str:
        """What plays, as the engine's name says it: ``level 3`` or ``Elo 1500``."""
        return f"level {self.level}" if self.elo is None else f"Elo {self.elo:g}"

    def offered_elo_span(self) -> tuple[float, float] | None:
        """The ``Elo`` option's span: every rated variant's, lowest to highest (a GUI's
        spin option has one range whatever the variant), None when no variant is rated."""
        spans = [s for v in VARIANT_IDS if (s := self.elo_span(v)) is not None]
        if not spans:
            return None
        return min(s[0] for s in spans), max(s[1] for s in spans)

    def set_elo(self, elo: float) -> None:
        """Play at ``elo``: interpolated between the two rated levels around it. Inside
        the option's span but beyond the variant's own, the variant's nearest end plays
        (:meth:`elo_note` says so), as a strength slider at its end means "the weakest"
        or "the strongest" there is."""
        self.check_elo(elo)
        self.elo = elo

    def check_elo(self, elo: float) -> None:
        """Raise :class:`SessionError` unless :meth:`set_elo` takes ``elo``."""
        offered = self.offered_elo_span()
        if offered is not None:
            try:
                check_elo_in_span(offered, elo)
            except LevelsError as exc:
                raise SessionError(f"Elo {elo:g}: {exc}") from None
        self.playing_level(elo)  # raises when the variant has no ratings

    def elo_note(self) -> str | None:
        """A line for the GUI when the Elo set lies beyond the variant's own ratings and
        the nearest end plays; None when it plays as set (or no Elo is set)."""
        span = self.elo_span()
        if self.elo is None or span is None:
            return None
        try:
            check_elo_in_span(span, self.elo)
        except LevelsError:
            played = nearest_in_span(span, self.elo)
            return (
                f"Elo {self.elo:g} is beyond {self.variant}'s ratings "
                f"({span[0]:.0f} to {span[1]:.0f}): playing {played:.0f}"
            )
        return None

    def playing_level(self, elo: float | None = None) -> Level:
        """The settings played now (or at ``elo``): an Elo beyond the variant's ratings
        plays the nearest end of them."""
        elo = self.elo if elo is None else elo
        if elo is not None:
            span = self.elo_span()
            if span is None:
                raise SessionError(
                    f"Elo is unavailable: {self.levels_file} has no measured rating for every "
                    f"{self.variant} level (run `ladder calibrate`); use Level"
                )
            elo = nearest_in_span(span, elo)
        return strength(self.levels[self.variant], self.level, elo, book=self.own_book)

    def set_seed(self, seed: int) -> None:
        """The ``Seed`` option: this game's seed and every next game's (0: a random
        seed for each new game)."""
        if not 0 <= seed <= SEED_OPTION_MAX:
            raise SessionError(f"Seed must be 0..{SEED_OPTION_MAX}, not {seed}")
        self.seed = seed
        if seed:
            self.game_seed = seed

    # ------------------------------------------------------------------ the game

    def new_game(self) -> None:
        """The variant's start position, and a new game seed."""
        self.game = Game.from_fen(self.variant)
        self.game_seed = self.seed or secrets.randbits(63)

    def set_position(
        self,
        fen: str | None,
        moves: list[str],
        reason: Callable[[RulesError], str] = lambda refused: refused.reason,
    ) -> str | None:
        """Set the game to ``fen`` (None: the start position) + ``moves``; returns an
        error message, or None when all was accepted.

        What is refused falls back to what is legal: a bad FEN to the variant's start
        position (and its moves are not played), a bad or illegal move ends the list
        there (the position is the one before it), as GUIs expect of an engine. A legal
        move after the end our rules see (a repetition, sixty plies) is played: the GUI
        is the arbiter, and stopping there would leave the other side to move.
        ``reason`` writes why a move was refused (in the GUI's notation).
        """
        try:
            game = Game.from_fen(self.variant, fen)
        except RulesError as exc:
            self.game = Game.from_fen(self.variant)
            return f"bad position ({exc.reason}): using the start position"
        self.game = game
        for i, move in enumerate(moves, start=1):
            refused = self.play(move)
            if refused is not None:
                return f"move {i} of the position: {reason(refused)}; stopped before it"
        return None

    def play(self, move: str) -> RulesError | None:
        """Play ``move`` (canonical); returns the rules checker's refusal (its points as
        data, for a GUI's notation), or None when it was played (a legal move also after
        the end our rules see: the GUI judges the game)."""
        try:
            self.game.push(move, after_end=True)
        except RulesError as exc:
            return exc
        return None

    def move_seed(self) -> int:
        """The variety rule's seed for the current position: the game's seed and every
        move from the game's start."""
        return derive_seed(self.game_seed, self.game.start_fen, *self.game.moves)

    # ------------------------------------------------------------------ searching

    @property
    def engine(self) -> LevelEngine:
        """The level engine (created on first use; its process starts at the first
        search or :meth:`prepare`)."""
        if self._engine is None:
            # A level's search is bounded by its nodes; only an analysis is not.
            timeouts = Timeouts(unbounded_search=ANALYSIS_CEILING_S)
            self._engine = LevelEngine(self._engine_command, timeouts=timeouts)
        return self._engine

    async def prepare(self, analysis: bool = False) -> None:
        """Start the engine now, or check that it answers (a GUI's ``isready``), set up
        for what comes next in the variant played now: the level's Hash, or with
        ``analysis`` the analysis's (the Hash a level-8 search or an analysis wants
        takes up to a few hundred ms to allocate: that belongs here, not in a move's
        clock; and an analysis keeps its table from one position to the next)."""
        if analysis:
            hash_mb = ANALYSIS_HASH_MB
        else:
            try:
                hash_mb = self.playing_level().hash_mb
            except SessionError:  # an Elo no level plays: the next search says so
                await self.engine.prepare()
                return
        await self.engine.prepare(self.variant, hash_mb)

    async def best_move(
        self, banned: frozenset[str] = frozenset(), time_limit_ms: int | None = None
    ) -> Answer | None:
        """The level's move in the current position (None when there is no legal move).
        ``banned`` moves (UCCI ``banmoves``) are not played unless nothing else is legal.
        ``time_limit_ms`` (a GUI's clock, :mod:`ladder.bridge.clocks`) stops the search
        early; the level's node count stays.

        Raises :class:`protocol.EngineFailure` when the engine keeps failing."""
        legal = frozenset(self.game.legal_moves())
        if not legal:
            return None
        allowed = legal - banned or legal
        moved = await self.engine.play(
            self.game,
            self.playing_level(),
            self.move_seed(),
            None if time_limit_ms is None else MoveClock(time_limit_ms),
            legal=legal,
            allowed=None if allowed == legal else allowed,
        )
        return Answer.of_move(moved)

    async def analyse(
        self,
        limit: Limit,
        on_info: Callable[[InfoDict], None],
        banned: frozenset[str] = frozenset(),
    ) -> Answer | None:
        """Analyse the current position at full strength under ``limit`` (empty: until
        :meth:`stop`), each ``info`` line to ``on_info`` as it comes; the engine's best
        move (None when there is no legal move). One attempt, not run under the level
        engine's retry policy: a restarted analysis would show its lines twice. Raises
        :class:`protocol.EngineError` on a fault."""
        legal = frozenset(self.game.legal_moves())
        if not legal:
            return None
        allowed = legal - banned or legal
        fen, moves = self.game.engine_position()
        outcome = await self.engine.managed.search(
            FSF_VARIANT[self.game.variant.name],
            fen,
            moves,
            replace(limit, root_moves=None if allowed == legal else tuple(sorted(allowed))),
            options={"MultiPV": 1, "Hash": ANALYSIS_HASH_MB},
            new_game=False,
            validate_move=legal.__contains__,
            on_info=on_info,
        )
        result = search_result(outcome.result)
        if result.bestmove is None:
            return None
        return Answer.from_search(result.bestmove, result.ponder, result.lines.get(1), result)

    async def stop(self) -> None:
        """Ask a running search to finish now (its answer is then the level's pick among
        what was searched)."""
        if self._engine is not None:
            await self._engine.managed.stop()

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.close()
