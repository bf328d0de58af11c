"""Property tests: FEN round-trips, push/pop, legality against a naive attack test, and
garbage input that must never raise anything but RulesError."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings, strategies

from ladder.rules import Game, RulesError, normalize_move
from ladder.rules.movegen import DROP_BASE
from ladder.rules.notation import move_str
from ladder.variants import VARIANT_IDS

FILES = "abcdefghi"


def naive_attacked(
    board: dict[tuple[int, int], str], target: tuple[int, int], by_red: bool
) -> bool:
    """Can a piece of the given side capture on ``target``? Written from the page's
    movement rules on (file, rank) pairs, independently of the checker's tables."""

    def piece(f: int, r: int) -> str | None:
        return board.get((f, r))

    for (f, r), letter in board.items():
        if letter.isupper() != by_red:
            continue
        kind = letter.lower()
        if kind in "rc" or kind == "k":
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if kind == "k" and df:
                    continue  # the flying general: along the file only
                seen = 0
                x, y = f + df, r + dr
                while 0 <= x < 9 and 0 <= y < 10:
                    if piece(x, y):
                        if (x, y) == target and (
                            (kind in "rk" and seen == 0) or (kind == "c" and seen == 1)
                        ):
                            return True
                        seen += 1
                    x, y = x + df, y + dr
        elif kind == "n":
            for dx, dy in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
                leg = (f + (dx // 2 if abs(dx) == 2 else 0), r + (dy // 2 if abs(dy) == 2 else 0))
                if (f + dx, r + dy) == target and not piece(*leg):
                    return True
        elif kind == "p":
            fwd = 1 if by_red else -1
            crossed = r >= 5 if by_red else r <= 4
            steps = [(0, fwd)] + ([(1, 0), (-1, 0)] if crossed else [])
            if any((f + dx, r + dy) == target for dx, dy in steps):
                return True
    return False


def board_of(g: Game) -> dict[tuple[int, int], str]:
    out = {}
    for f in range(9):
        for r in range(10):
            letter = g.piece_at(f"{FILES[f]}{r + 1}")
            if letter:
                out[(f, r)] = letter
    return out


def random_game(variant: str, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    g = Game.from_fen(variant)
    for _ in range(plies):
        if g.outcome() is not None:
            break
        legal = g.legal_moves()
        caps = [m for m in legal if "@" in m or g.piece_at(m[2:] if m[2].isalpha() else m[3:])]
        g.push(rng.choice(caps if caps and rng.random() < 0.5 else legal))
    return g


games = strategies.builds(
    random_game,
    strategies.sampled_from(VARIANT_IDS),
    strategies.integers(0, 10**9),
    strategies.integers(0, 150),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_fen_round_trip_and_push_pop(g: Game) -> None:
    outcome = g.outcome()
    if outcome is None or outcome.reason != "general-exploded":
        assert Game.from_fen(g.variant.name, g.fen()).fen() == g.fen()
    if outcome is not None:  # no moves may be pushed any more
        return
    fen, legal = g.fen(), g.legal_moves()
    for move in legal[:15]:
        g.push(move)
        g.pop()
        assert g.fen() == fen
    assert g.legal_moves() == legal
    if g.moves:
        last = g.pop()
        g.push(last)
        assert g.fen() == fen


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_no_legal_move_leaves_own_general_attacked(g: Game) -> None:
    if g.outcome() is not None:  # pushing is refused; judge the position afresh
        fen = g.fen().rsplit(" ", 2)[0] + " 0 1"
        if g.outcome().reason == "general-exploded":  # type: ignore[union-attr]
            return
        g = Game.from_fen(g.variant.name, fen)
    red = g.turn == "red"
    own, enemy = ("K", "k") if red else ("k", "K")
    for move in g.legal_moves():
        g.push(move)
        board = board_of(g)
        if enemy in board.values():  # (atomic: removing the enemy general is always legal)
            where = next(p for p, letter in board.items() if letter == own)
            assert not naive_attacked(board, where, by_red=not red), (g.start_fen, g.moves)
        g.pop()


@settings(max_examples=300, deadline=None)
@given(
    strategies.one_of(
        strategies.none(), strategies.text(max_size=300), strategies.integers(), strategies.binary()
    ),
    strategies.one_of(
        strategies.text(max_size=40), strategies.sampled_from(VARIANT_IDS), strategies.none()
    ),
    strategies.one_of(
        strategies.lists(strategies.text(max_size=8), max_size=5),
        strategies.text(max_size=30),
        strategies.integers(),
        strategies.lists(strategies.integers(), max_size=2),
    ),
)
def test_garbage_raises_only_rules_error(fen: object, variant: object, moves: object) -> None:
    with contextlib.suppress(RulesError):
        Game.from_fen(variant, fen, moves)  # type: ignore[arg-type]


FEN_ALPHABET = "rnbakcpRNBAKCPeEhH0123456789/[] wb-@"


@settings(max_examples=300, deadline=None)
@given(
    strategies.sampled_from(VARIANT_IDS),
    strategies.integers(0, 10**9),
    strategies.lists(
        strategies.tuples(strategies.integers(0, 200), strategies.sampled_from(FEN_ALPHABET)),
        max_size=4,
    ),
)
def test_mutated_fens_raise_only_rules_error(
    variant: str, seed: int, edits: list[tuple[int, str]]
) -> None:
    fen = random_game(variant, seed, seed % 40).fen()
    for pos, ch in edits:
        pos %= len(fen) + 1
        fen = fen[:pos] + ch + fen[pos + 1 :]
    try:
        g = Game.from_fen(variant, fen)
    except RulesError:
        return
    g.legal_moves()
    g.outcome()
    assert Game.from_fen(variant, g.fen()).fen() == g.fen()


@settings(max_examples=300, deadline=None)
@given(
    strategies.text(
        alphabet=strategies.sampled_from("abcdefghijk0123456789@ABNRCPK \n"), max_size=10
    )
)
def test_garbage_moves_raise_only_rules_error(move: str) -> None:
    g = Game.from_fen("crazyhouse-xiangqi")
    for call in (g.push, g.gives_check, normalize_move):
        with contextlib.suppress(RulesError):
            call(move)
    assert isinstance(g.is_legal(move), bool)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_one_start_at_a_time_is_the_whole_generation(g: Game) -> None:
    """``legal_moves(only)`` over every start (a point, or a drop's piece type) splits
    the whole generation; ``has_legal_move`` and ``is_legal_move`` agree with it; a game
    that never generated every move answers ``outcome`` and ``is_legal`` alike."""
    pos = g.position
    legal = pos.legal_moves()
    starts = [*range(90), *(DROP_BASE + pt for pt in range(1, 8))]
    by_start = {start: pos.legal_moves(start) for start in starts}
    assert sorted(m for moves in by_start.values() for m in moves) == sorted(legal)
    assert all(m // 90 == start for start, moves in by_start.items() for m in moves)
    assert pos.has_legal_move() == bool(legal)
    candidates = [start * 90 + to for start in starts for to in range(90)]
    assert [m for m in candidates if pos.is_legal_move(m)] == sorted(legal)
    fresh = Game.from_fen(g.variant.name, g.start_fen, g.moves)  # replayed one move at a time
    full = fresh.copy()
    full.legal_moves()
    assert fresh.outcome() == full.outcome()
    names = [move_str(m) for m in candidates[::7]] + full.legal_moves()
    assert [fresh.is_legal(n) for n in names] == [full.is_legal(n) for n in names]
