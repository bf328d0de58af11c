"""A game: start position plus moves, with repetition history and the outcome.

Positions alone cannot decide repetition or perpetual check, so the unit the service and
the match runner work with is :class:`Game`: a start FEN and the moves played since, with
per-ply bookkeeping (position keys, whether each move gave check, capture plies) that
makes :meth:`Game.outcome` O(1) apart from move generation, and
:meth:`Game.engine_position`, what an engine is sent, O(1) too.

Outcome order at a position (docs/rules.md; see docs/rules-checker.md for the reasoning):

1. ``general-exploded`` (atomic): a general is gone; the side that removed it wins.
2. no legal move: the side to move loses (``checkmate`` if in check, else
   ``stalemate``), even when it is also the 60th ply without a capture.
3. ``sixty-plies``: 60 or more plies since the last capture: draw.
4. third occurrence of the position: ``perpetual-check`` loss for the side that gave
   check with every one of its moves from the first occurrence to the third (if only
   one side did), else ``repetition`` draw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ladder.rules.board import BLACK, COLOUR_NAMES, RED, SQUARE_INDEX
from ladder.rules.diagnosis import why_illegal
from ladder.rules.errors import MAX_MOVES, GameOverError, RulesError, literal
from ladder.rules.fen import board_fen, parse_fen, position_fen
from ladder.rules.movegen import Position, Undo
from ladder.rules.notation import move_str, parse_move, quoted_move
from ladder.rules.variants import VariantSpec, get_variant

#: Plies without a capture after which the game is drawn.
SIXTY_PLIES = 60


class Reason(StrEnum):
    """Why a game ended (the rules checker's part: no timeouts or resignations)."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    GENERAL_EXPLODED = "general-exploded"
    PERPETUAL_CHECK = "perpetual-check"
    REPETITION = "repetition"
    SIXTY_PLIES = "sixty-plies"


@dataclass(frozen=True)
class Outcome:
    """The end of a game.

    Attributes:
        result: ``"1-0"`` (Red won), ``"0-1"`` (Black won) or ``"1/2-1/2"``.
        winner: ``"red"``, ``"black"`` or None for a draw.
        reason: why it ended.
    """

    result: Literal["1-0", "0-1", "1/2-1/2"]
    winner: Literal["red", "black"] | None
    reason: Reason

    @staticmethod
    def win(colour: int, reason: Reason) -> Outcome:
        return Outcome("1-0", "red", reason) if colour == RED else Outcome("0-1", "black", reason)

    @staticmethod
    def draw(reason: Reason) -> Outcome:
        return Outcome("1/2-1/2", None, reason)


class Game:
    """A game of one rule set: a start position and the moves played from it.

    Build one with :meth:`from_fen`; play with :meth:`push` (validated) and :meth:`pop`.
    All inputs are validated; any problem raises :class:`~ladder.rules.errors.RulesError`.
    """

    def __init__(self, variant: VariantSpec, position: Position, start_fen: str) -> None:
        self.variant: VariantSpec = variant
        self._pos = position
        self._start_fen = start_fen
        self._moves: list[str] = []
        self._move_ints: list[int] = []
        self._undo: list[Undo] = []
        key = position.key()
        self._keys: list[bytes] = [key]
        self._key_count: dict[bytes, int] = {key: 1}
        self._checks: list[bool] = [position.in_check()]
        self._last_capture: list[int] = [0]  # per position: index of last capture position
        # FEN at each capture position (start: index 0), for engine_position (no drops):
        # made when first asked for (from the position's key), not at each capture.
        self._capture_fens: dict[int, str] = {0: start_fen}
        self._legal: list[int] | None = None
        self._legal_names: tuple[str, ...] | None = None  # canonical strings of _legal
        self._any_legal: bool | None = None  # whether _legal would be non-empty
        # The last move is_legal found legal here, as given and parsed: push plays it
        # without parsing or checking it again (an engine's answer is checked once).
        self._found_legal: tuple[str, int] | None = None

    # ------------------------------------------------------------ building

    @classmethod
    def from_fen(cls, variant: str, fen: str | None = None, moves: Iterable[str] = ()) -> Game:
        """A game of ``variant`` from ``fen`` (default: the start position) plus ``moves``.

        ``moves`` is a sequence of canonical move strings (a single space-separated string
        is accepted too), at most 1000 plies. An error in a move names its 1-based ply in
        the list (``RulesError.ply``).
        """
        spec = get_variant(variant)
        pos = parse_fen(spec, spec.start_fen if fen is None else fen)
        game = cls(spec, pos, position_fen(pos))
        if isinstance(moves, str):
            moves = moves.split()
        try:
            items = iter(moves)
        except TypeError:
            raise RulesError("moves", "moves must be a list of move strings") from None
        for i, move in enumerate(items, start=1):
            if i > MAX_MOVES:
                raise RulesError("moves", f"more than {MAX_MOVES} moves", i)
            game._push(move, "moves", i)
        return game

    def copy(self) -> Game:
        """An independent copy (same history)."""
        g = Game.__new__(Game)
        g.variant = self.variant
        g._pos = self._pos.copy()
        g._start_fen = self._start_fen
        g._moves = list(self._moves)
        g._move_ints = list(self._move_ints)
        g._undo = list(self._undo)
        g._keys = list(self._keys)
        g._key_count = dict(self._key_count)
        g._checks = list(self._checks)
        g._last_capture = list(self._last_capture)
        g._capture_fens = dict(self._capture_fens)
        g._legal = self._legal
        g._legal_names = self._legal_names
        g._any_legal = self._any_legal
        g._found_legal = self._found_legal
        return g

    # ------------------------------------------------------------ reading

    @property
    def start_fen(self) -> str:
        """The canonical FEN the game started from."""
        return self._start_fen

    @property
    def moves(self) -> list[str]:
        """The moves played so far (canonical notation; a copy)."""
        return list(self._moves)

    @property
    def ply(self) -> int:
        """Number of moves played from the start position."""
        return len(self._moves)

    @property
    def game_ply(self) -> int:
        """The current position's ply in its game, 0 before Red's first move, counted from
        the FEN's move number (so a game given by a mid-game FEN counts from there)."""
        return 2 * (self._pos.fullmove - 1) + self._pos.turn

    @property
    def turn(self) -> str:
        """Side to move: ``"red"`` or ``"black"``."""
        return COLOUR_NAMES[self._pos.turn]

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture (the FEN's fifth field)."""
        return self._pos.halfmove

    @property
    def position(self) -> Position:
        """The current low-level position (do not mutate; for perft and tools)."""
        return self._pos

    def fen(self) -> str:
        """Canonical FEN of the current position."""
        return position_fen(self._pos)

    def board_fen(self) -> str:
        """The board part of the FEN (with hands in brackets in crazyhouse-xiangqi)."""
        return board_fen(self._pos)

    def piece_at(self, point: str) -> str | None:
        """FEN letter of the piece on ``point`` (e.g. ``"e1"``), None if empty."""
        sq = _point_index(point)
        p = self._pos.board[sq]
        return None if not p else ("KABNRCP"[(p & 7) - 1] if p < 8 else "kabnrcp"[(p & 7) - 1])

    def hands(self) -> dict[str, dict[str, int]] | None:
        """Pieces in hand per side (crazyhouse-xiangqi), e.g. ``{"red": {"A": 2}, ...}``."""
        if self._pos.hands is None:
            return None
        return {
            COLOUR_NAMES[c]: {
                "KABNRCP"[t - 1]: n for t, n in enumerate(self._pos.hands[c]) if t and n
            }
            for c in (RED, BLACK)
        }

    def _legal_ints(self) -> list[int]:
        if self._legal is None:
            self._legal = self._pos.legal_moves()
        return self._legal

    # A game loop with engine players asks only "is there a legal move?" and "is this
    # move legal?" at each ply: answered piece by piece, without every legal move.
    def _has_legal(self) -> bool:
        if self._legal is not None:
            return bool(self._legal)
        if self._any_legal is None:
            self._any_legal = self._pos.has_legal_move(self._attacked())
        return self._any_legal

    def _is_legal_int(self, m: int) -> bool:
        if self._legal is not None:
            return m in self._legal
        return self._pos.is_legal_move(m, self._attacked())

    def _attacked(self) -> bool | None:
        """Whether the side to move's general is attacked, as the move generator asks:
        the check push recorded, except in atomic (whose check is the wide sense)."""
        return None if self.variant.atomic else self._checks[-1]

    def _legal_strs(self) -> tuple[str, ...]:
        if self._legal_names is None:
            self._legal_names = tuple(move_str(m) for m in self._legal_ints())
        return self._legal_names

    def legal_moves(self) -> list[str]:
        """Legal moves of the side to move, canonical notation (empty once a general is
        gone; not emptied by repetition or sixty plies: see :meth:`outcome`)."""
        return list(self._legal_strs())

    def is_legal(self, move: str) -> bool:
        """Whether ``move`` is a legal move now (False for malformed text too)."""
        if isinstance(move, str) and self._legal_names is not None and move in self._legal_names:
            return True
        try:
            m = parse_move(move)
        except RulesError:
            return False
        if not self._is_legal_int(m):
            return False
        if type(move) is str:
            self._found_legal = (move, m)
        return True

    def is_check(self) -> bool:
        """Whether the side to move is in check (atomic-xiangqi: the wide sense)."""
        return self._checks[-1]

    def gives_check(self, move: str) -> bool:
        """Whether legal ``move`` would put the opponent in check (wide sense in atomic)."""
        m = self._parse_legal(move, "move", None)
        undo = self._pos.make(m)
        try:
            return self._pos.in_check()
        finally:
            self._pos.unmake(m, undo)

    def outcome(self) -> Outcome | None:
        """How the game has ended at the current position, or None while it goes on."""
        pos = self._pos
        us = pos.turn
        if pos.kings[us] < 0:
            return Outcome.win(us ^ 1, Reason.GENERAL_EXPLODED)
        if pos.kings[us ^ 1] < 0:  # only from a hand-made history; kept for completeness
            return Outcome.win(us, Reason.GENERAL_EXPLODED)
        if not self._has_legal():
            return Outcome.win(us ^ 1, Reason.CHECKMATE if self._checks[-1] else Reason.STALEMATE)
        if pos.halfmove >= SIXTY_PLIES:
            return Outcome.draw(Reason.SIXTY_PLIES)
        key = self._keys[-1]
        if self._key_count[key] >= 3:
            return self._repetition_outcome(key)
        return None

    def _repetition_outcome(self, key: bytes) -> Outcome:
        n = len(self._keys) - 1
        first = self._keys.index(key)
        # Move j (1-based) leads from position j-1 to position j; it "gave check" when
        # position j has its side to move in check. Mover of move j: side to move at j-1.
        first_mover = self._start_turn()
        all_checked = [True, True]
        for j in range(first + 1, n + 1):
            mover = (first_mover + j - 1) & 1
            if not self._checks[j]:
                all_checked[mover] = False
        red, black = all_checked
        if red and not black:
            return Outcome.win(BLACK, Reason.PERPETUAL_CHECK)
        if black and not red:
            return Outcome.win(RED, Reason.PERPETUAL_CHECK)
        return Outcome.draw(Reason.REPETITION)

    def _start_turn(self) -> int:
        return (self._pos.turn + len(self._moves)) & 1

    def last_capture_index(self) -> int:
        """Number of moves played before the current capture-free stretch began: the
        index into :attr:`moves` right after the last capture (0 if none was played)."""
        return self._last_capture[-1]

    def engine_position(self) -> tuple[str, tuple[str, ...]]:
        """(FEN, canonical moves) to send an engine for the current position, such that
        it sees every repetition that can still happen.

        Without drops (xiangqi, atomic-xiangqi): the FEN right after the last capture and
        the moves since (a capture removes material for good, so no earlier position can
        recur). With drops (crazyhouse-xiangqi) captured material comes back, so a
        position from before a capture can recur: the start FEN and every move (FSF
        itself then looks back over the whole game). O(1) apart from copying the moves.
        """
        if self.variant.drops:
            return self._start_fen, tuple(self._moves)
        i = self._last_capture[-1]
        fen = self._capture_fens.get(i)
        if fen is None:
            # A capture position: its key holds its pieces and side to move; a capture
            # set its halfmove clock to 0; its move number follows from its ply.
            game_ply = self.game_ply - (len(self._moves) - i)
            at = Position.from_key(self.variant, self._keys[i], 0, game_ply // 2 + 1)
            fen = self._capture_fens[i] = position_fen(at)
        return fen, tuple(self._moves[i:])

    # ------------------------------------------------------------ playing

    def push(self, move: str, *, after_end: bool = False) -> None:
        """Play ``move`` (canonical notation). RulesError(field="move") if it is
        malformed or illegal, or if the game is already over; the reason says why.
        ``after_end``: a legal move is played even where these rules have ended the game
        (a GUI that judges by other rules, e.g. of repetition, plays on)."""
        self._push(move, "move", None, after_end)

    def _parse_legal(self, move: object, field: str, ply: int | None) -> int:
        m = parse_move(move, field, ply)
        if self._is_legal_int(m):
            return m
        raise self._illegal(move, m, field, ply)

    def _illegal(self, move: object, m: int, field: str, ply: int | None) -> RulesError:
        why, why_points = why_illegal(self._pos, self.variant, m)
        quoted, points = (
            quoted_move(move, m) if isinstance(move, str) else (literal(repr(move)), ())
        )
        return RulesError(field, f"illegal move {quoted}: {why}", ply, points=points + why_points)

    def _push(self, move: object, field: str, ply: int | None, after_end: bool = False) -> None:
        found = self._found_legal
        if found is not None and type(move) is str and move == found[0]:
            m, known = found[1], True
        else:
            m, known = parse_move(move, field, ply), False
        over = None if after_end else self.outcome()
        if over is not None:
            raise GameOverError(
                field, f"the game is already over ({over.reason.value}, {over.result})", ply
            )
        if not known and not self._is_legal_int(m):
            raise self._illegal(move, m, field, ply)
        pos = self._pos
        capture = pos.is_capture(m)
        self._undo.append(pos.make(m))
        self._move_ints.append(m)
        self._moves.append(move_str(m))
        key = pos.key()
        self._keys.append(key)
        self._key_count[key] = self._key_count.get(key, 0) + 1
        self._checks.append(pos.in_check())
        self._last_capture.append(len(self._moves) if capture else self._last_capture[-1])
        self._legal = None
        self._legal_names = None
        self._any_legal = None
        self._found_legal = None

    def pop(self) -> str:
        """Take back the last move and return it. RulesError if there is none."""
        if not self._moves:
            raise RulesError("move", "no move to take back")
        m = self._move_ints.pop()
        self._pos.unmake(m, self._undo.pop())
        key = self._keys.pop()
        self._key_count[key] -= 1
        if not self._key_count[key]:
            del self._key_count[key]
        self._checks.pop()
        self._last_capture.pop()
        self._capture_fens.pop(len(self._moves), None)
        self._legal = None
        self._legal_names = None
        self._any_legal = None
        self._found_legal = None
        return self._moves.pop()


def _point_index(point: object) -> int:
    if not isinstance(point, str) or point not in SQUARE_INDEX:
        raise RulesError("point", f"unknown point {str(point)[:10]!r}; expected a1..i10")
    return SQUARE_INDEX[point]
