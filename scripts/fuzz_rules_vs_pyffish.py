#!/usr/bin/env python3
"""Differential test: the local rules checker against pyffish, on random games.

For every ply of every game it compares, between :mod:`ladder.rules` and pyffish loaded
with ``variants.ini``: the set of legal moves, the FEN, whether the side to move is in
check, and the game outcome (result and whether the game is over). Games are random but
biased toward captures and drops (where the rules are intricate) and, now and then,
toward undoing the mover's previous move (to reach repetitions and perpetual checks).

    .venv/bin/python scripts/fuzz_rules_vs_pyffish.py --games 10000
    .venv/bin/python scripts/fuzz_rules_vs_pyffish.py --variant atomic-xiangqi --games 500 --seed 7

Exit status 1 on any disagreement; each one is printed with the start FEN, the moves
and both answers, ready to be turned into a test. The tests in tests/rules import
:func:`play_game` from here.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ladder.rules import VARIANTS, Game  # noqa: E402
from ladder.variants import FSF_VARIANT, VARIANTS_INI  # noqa: E402

# pyffish game-end values are from the side to move's point of view.
_DRAW = 0


@dataclass
class Mismatch:
    """One disagreement: where, and both answers."""

    variant: str
    start_fen: str
    moves: list[str]
    what: str
    ours: object
    theirs: object

    def __str__(self) -> str:
        return (f"[{self.variant}] {self.what} differs after {len(self.moves)} plies\n"
                f"  fen:    {self.start_fen}\n  moves:  {' '.join(self.moves)}\n"
                f"  ours:   {self.ours}\n  pyffish: {self.theirs}")


@dataclass
class Stats:
    games: int = 0
    plies: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    mismatches: list[Mismatch] = field(default_factory=list)


def load_pyffish() -> ModuleType:
    """Import pyffish and load our variants.ini into it."""
    import pyffish

    pyffish.load_variant_config(VARIANTS_INI.read_text())
    return pyffish


def _hand_multiset(fen: str) -> tuple[str, Counter[str]]:
    """Split a FEN so that hands compare as multisets (their order is cosmetic)."""
    board, _, rest = fen.partition(" ")
    if "[" in board:
        b, _, hand = board.partition("[")
        return f"{b} {rest}", Counter(hand.rstrip("]"))
    return fen, Counter()


def fsf_outcome(sf: ModuleType, section: str, fen: str, moves: list[str],
                legal: list[str], black_to_move: bool) -> str | None:
    """pyffish's verdict as ``'1-0'``/``'0-1'``/``'1/2-1/2'`` or None (game goes on).

    ``game_result`` is only meaningful without legal moves; otherwise an immediate end
    (a general gone) and then an optional end (repetition, sixty plies) are asked for.
    """

    def as_result(value: int) -> str:
        if value == _DRAW:
            return "1/2-1/2"
        mover_wins = value > 0
        return "0-1" if mover_wins == black_to_move else "1-0"

    if not legal:
        return as_result(sf.game_result(section, fen, moves))
    ended, value = sf.is_immediate_game_end(section, fen, moves)
    if ended:
        return as_result(value)
    ended, value = sf.is_optional_game_end(section, fen, moves)
    if ended:
        return as_result(value)
    return None


def compare_ply(sf: ModuleType, game: Game, section: str) -> list[Mismatch]:
    """Compare everything at the game's current position; return the disagreements."""
    out: list[Mismatch] = []
    start, moves = game.start_fen, game.moves

    def miss(what: str, ours: object, theirs: object) -> None:
        out.append(Mismatch(game.variant.name, start, moves, what, ours, theirs))

    try:
        theirs_legal = sorted(sf.legal_moves(section, start, moves))
        theirs_fen = sf.get_fen(section, start, moves)
        theirs_check = bool(sf.gives_check(section, start, moves))
        theirs_result = fsf_outcome(sf, section, start, moves, theirs_legal,
                                    game.turn == "black")
    except (ValueError, SystemError) as exc:  # pyffish rejects a move we played
        miss("pyffish accepts the moves", "all legal", f"{type(exc).__name__}: {exc}")
        return out
    ours_legal = sorted(game.legal_moves())
    ours_outcome = game.outcome()
    if ours_legal != theirs_legal:
        only_ours = sorted(set(ours_legal) - set(theirs_legal))
        only_theirs = sorted(set(theirs_legal) - set(ours_legal))
        miss("legal moves", f"extra {only_ours}", f"extra {only_theirs}")
    ours_fen = game.fen()
    if _hand_multiset(ours_fen) != _hand_multiset(theirs_fen):
        miss("fen", ours_fen, theirs_fen)
    ours_check = game.is_check()
    if ours_check != theirs_check:
        miss("check", ours_check, theirs_check)
    ours_result = ours_outcome.result if ours_outcome is not None else None
    if ours_result != theirs_result:
        reason = ours_outcome.reason.value if ours_outcome is not None else None
        miss("outcome", f"{ours_result} ({reason})", theirs_result)
    return out


def choose_move(game: Game, rng: random.Random, bias: tuple[float, float, float]) -> str:
    """A random legal move, biased (probabilities ``bias``) toward undoing the mover's
    previous move (repetitions), toward checks (perpetual checks), and toward captures
    and drops (where the rules are intricate)."""
    undo_bias, check_bias, capture_bias = bias
    legal = game.legal_moves()
    moves = game.moves
    if len(moves) >= 2 and rng.random() < undo_bias:
        prev = moves[-2]
        if "@" not in prev:
            back = _reverse(prev)
            if back in legal:
                return back
    if rng.random() < check_bias:
        checks = [m for m in legal if game.gives_check(m)]
        if checks:
            return rng.choice(checks)
    if rng.random() < capture_bias:
        pos = game.position
        special = [m for m in legal if "@" in m or pos.board[_to_index(m)]]
        if special:
            return rng.choice(special)
    return rng.choice(legal)


def _split(move: str) -> tuple[str, str]:
    i = 2 if move[2].isalpha() else 3
    return move[:i], move[i:]


def _reverse(move: str) -> str:
    a, b = _split(move)
    return b + a


def _to_index(move: str) -> int:
    dest = move.split("@")[1] if "@" in move else _split(move)[1]
    return (int(dest[1:]) - 1) * 9 + ord(dest[0]) - ord("a")


def random_game(variant: str, rng: random.Random, max_plies: int = 200) -> Game:
    """A random game played by the checker alone, to its end or ``max_plies``."""
    game = Game.from_fen(variant)
    bias = (rng.choice((0.0, 0.0, 0.3, 0.7)), rng.choice((0.0, 0.0, 0.2, 0.6)),
            rng.choice((0.0, 0.3, 0.6, 0.9)))
    while game.outcome() is None and game.ply < max_plies:
        game.push(choose_move(game, rng, bias))
    return game


def play_game(sf: ModuleType, variant: str, rng: random.Random, max_plies: int = 200,
              stats: Stats | None = None, compare_last: int | None = None) -> list[Mismatch]:
    """Play one random game and compare with pyffish at every ply (or only at the last
    ``compare_last`` plies: pyffish still replays, and so validates, every move).
    Stops at the first ply with a disagreement and returns it (empty list: agreement)."""
    section = FSF_VARIANT[variant]
    full = random_game(variant, rng, max_plies)
    moves = full.moves
    first = 0 if compare_last is None else max(0, len(moves) - compare_last)
    game = Game.from_fen(variant, None, moves[:first])
    found: list[Mismatch] = []
    while True:
        found = compare_ply(sf, game, section)
        if found or game.ply == len(moves):
            break
        game.push(moves[game.ply])
    if stats is not None:
        stats.games += 1
        stats.plies += game.ply - first + 1
        outcome = game.outcome()
        stats.outcomes[outcome.reason.value if outcome else "unfinished"] += 1
        stats.mismatches.extend(found)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per variant")
    parser.add_argument("--variant", choices=VARIANTS, action="append",
                        help="variant(s) to test (default: all three)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--compare-last", type=int, default=None, metavar="N",
                        help="compare only the last N plies of each game (default: all)")
    parser.add_argument("--progress", type=int, default=0, metavar="N",
                        help="print a progress line every N games")
    parser.add_argument("--max-mismatches", type=int, default=20,
                        help="stop a variant after this many disagreeing games")
    args = parser.parse_args(argv)
    sf = load_pyffish()
    failed = False
    for variant in args.variant or VARIANTS:
        rng = random.Random(f"{args.seed}-{variant}")
        stats = Stats()
        t0 = time.perf_counter()
        for _ in range(args.games):
            found = play_game(sf, variant, rng, args.max_plies, stats, args.compare_last)
            for m in found:
                print(m, flush=True)
            if len(stats.mismatches) >= args.max_mismatches:
                break
            if args.progress and stats.games % args.progress == 0:
                print(f"  {variant}: {stats.games} games, {stats.plies} positions, "
                      f"{len(stats.mismatches)} disagreements, "
                      f"{time.perf_counter() - t0:.0f}s", flush=True)
        dt = time.perf_counter() - t0
        print(f"{variant}: {stats.games} games, {stats.plies} positions compared, "
              f"{len(stats.mismatches)} disagreements, {dt:.1f}s; outcomes "
              f"{dict(stats.outcomes)}", flush=True)
        failed |= bool(stats.mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
