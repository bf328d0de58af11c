#!/usr/bin/env python3
"""Differential test: the local rules checker against pyffish, on random games.

For every ply of every game it compares, between :mod:`ladder.rules` and pyffish (built
from our patched engine source, loaded with ``variants.ini``): the set of legal moves,
the FEN, whether the side to move is in check, the game outcome (result and reason,
or that the game goes on), and what an engine is sent (:meth:`Game.engine_position`
against the same rule applied to pyffish's own FENs). Games are random but biased
toward captures and drops (where the rules are intricate), toward checks (perpetual
checks) and, now and then, toward undoing the mover's previous move (repetitions).

    .venv/bin/python -m tests.rules.fuzz_vs_pyffish --games 10000 --jobs 2
    .venv/bin/python -m tests.rules.fuzz_vs_pyffish --variant atomic-xiangqi --games 500 --seed 7
    .venv/bin/python -m tests.rules.fuzz_vs_pyffish --mode replay --games 200

(from the repository's root; it needs pyffish, which ``make engine`` installs).

Two ways of asking pyffish (``--mode``), the same comparisons:

* ``fen`` (default, fast). Every pyffish call costs about 1.4 ms whatever it is asked
  (it re-initialises its piece tables for the variant), and replaying moves is cheap
  (about 5 us a move), so what costs is the number of calls. pyffish follows the game
  on its own FENs: ``legal_moves`` on its current FEN, ``get_fen(fen, [move])`` for the
  next one (so the FEN compared at every ply is the one pyffish computed from its
  previous FEN and the move). Check comes from one ``get_san_moves`` replay of the
  whole game (SAN marks a checking move ``+``/``#``; FSF sets check after a move from
  exactly that test) and, in atomic-xiangqi, where check is the wide sense that SAN does
  not show, from ``gives_check`` on the FEN. The outcome: ``game_result`` when there is
  no legal move; ``is_immediate_game_end`` at the last position and, in atomic-xiangqi,
  after every capture (the only immediate end configured is an extinct general, which
  only a capture can cause); ``is_optional_game_end`` whenever it could answer yes --
  pyffish's halfmove clock is >= 50 (the rule says 60; a count configured anywhere from
  50 on shows up too), or pyffish's position (board, hands, side: what FSF's repetition
  key hashes) has occurred before in the game (a repetition needs a third occurrence;
  asking from the second one catches a wrong count) -- and at the last position. For
  repetitions pyffish is given the history it needs, as an engine is: in xiangqi and
  atomic-xiangqi its FEN right after the last capture plus the moves since (a capture
  removes material for good, so no earlier position can recur; FSF looks back
  min(rule50, pliesFromNull) plies there), in crazyhouse-xiangqi the start FEN and all
  moves (captures go to hand and come back by drops, so earlier positions can recur;
  with capturesToHand FSF looks back pliesFromNull plies, the whole history it is
  given, as the checker does). About 2 calls a ply (3.2 in atomic-xiangqi).
* ``replay`` (exhaustive, slow): every question at every ply is asked with the start FEN
  and the whole move list, every outcome call at every ply: six calls a ply (the sixth
  is pyffish's FEN at its last capture, the ply its halfmove clock gives). It checks
  what ``fen`` mode takes from FSF's source (FEN round trips, when an end can occur).

Exit status 1 on any disagreement; each one is printed with the start FEN, the moves and
both answers, ready to be turned into a test. tests/rules/test_differential.py uses
:func:`run_games` (random games) and :func:`compare_game` (scripted games) from here.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.pool
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ladder.rules import Game, normalize_move
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI

MODES = ("fen", "replay")
#: docs/rules.md "Sixty plies without a capture" (the harness's own copy: tests break the
#: checker's constant on purpose).
SIXTY = 60
#: ``fen`` mode asks ``is_optional_game_end`` from this halfmove clock on.
OPTIONAL_FROM_CLOCK = 50
#: Share of random games whose start position has its halfmove clock at 20..60.
LATE_CLOCK = 0.2
# pyffish game-end values are from the side to move's point of view.
_DRAW = 0
_NOTATION_SAN = 1  # pyffish's Notation enum: NOTATION_SAN


@dataclass
class Mismatch:
    """One disagreement: where, and both answers."""

    variant: str
    start_fen: str
    moves: list[str]
    what: str
    ours: object
    theirs: object
    mode: str = "fen"

    def __str__(self) -> str:
        return (
            f"[{self.variant}, {self.mode}] {self.what} differs after "
            f"{len(self.moves)} plies\n"
            f"  fen:    {self.start_fen}\n  moves:  {' '.join(self.moves)}\n"
            f"  ours:   {self.ours}\n  pyffish: {self.theirs}"
        )


@dataclass
class Stats:
    games: int = 0
    plies: int = 0  # positions compared
    calls: int = 0  # pyffish calls
    cpu: float = 0.0  # seconds of CPU in the processes that played the games
    outcomes: Counter[str] = field(default_factory=Counter)
    mismatches: list[Mismatch] = field(default_factory=list)

    def add(self, other: Stats) -> None:
        self.games += other.games
        self.plies += other.plies
        self.calls += other.calls
        self.cpu += other.cpu
        self.outcomes.update(other.outcomes)
        self.mismatches.extend(other.mismatches)


@dataclass
class View:
    """pyffish's answers at one position."""

    legal: list[str]  # sorted
    fen: str
    check: bool
    outcome: tuple[str, str] | None  # (result, reason) or None: the game goes on
    #: What an engine is to be sent, from pyffish's FENs: the start FEN and every move
    #: with drops, else pyffish's FEN right after the last capture and the moves since.
    engine_position: tuple[str, tuple[str, ...]]


def load_pyffish() -> ModuleType:
    """Import pyffish and load our variants.ini into it."""
    import pyffish

    pyffish.load_variant_config(VARIANTS_INI.read_text())
    return pyffish


class Fsf:
    """pyffish for one variant: ``fsf.legal_moves(fen, moves)``; counts the calls."""

    def __init__(self, sf: ModuleType, variant: str) -> None:
        self.sf = sf
        self.section = FSF_VARIANT[variant]
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.sf, name)

        def call(*args: Any) -> Any:
            self.calls += 1
            return fn(self.section, *args)

        return call


# ------------------------------------------------------------------ FEN fields


def _fields(fen: str) -> list[str]:
    return fen.split()


def _clock(fen: str) -> int:
    return int(_fields(fen)[4])


def _black_to_move(fen: str) -> bool:
    return _fields(fen)[1] == "b"


def _split_hand(board: str) -> tuple[str, str]:
    b, _, hand = board.partition("[")
    return b, hand.rstrip("]")


def _general_missing(fen: str) -> bool:
    b = _split_hand(_fields(fen)[0])[0]
    return "K" not in b or "k" not in b


def _position_key(fen: str) -> tuple[str, str, str]:
    """Board, hands (as a multiset) and side: what a repetition compares."""
    parts = _fields(fen)
    b, hand = _split_hand(parts[0])
    return b, "".join(sorted(hand)), parts[1]


def _hand_multiset(fen: str) -> tuple[str, Counter[str]]:
    """Split a FEN so that hands compare as multisets (their order is cosmetic)."""
    board, _, rest = fen.partition(" ")
    b, hand = _split_hand(board)
    return f"{b} {rest}", Counter(hand)


# ------------------------------------------------------------------ asking pyffish


def _as_result(value: int, black_to_move: bool) -> str:
    if value == _DRAW:
        return "1/2-1/2"
    mover_wins = value > 0
    return "0-1" if mover_wins == black_to_move else "1-0"


def fsf_outcome(
    fsf: Fsf,
    fen: str,
    check: bool,
    legal: list[str],
    here: tuple[str, list[str]],
    history: tuple[str, list[str]],
    ask_immediate: bool = True,
    ask_optional: bool = True,
) -> tuple[str, str] | None:
    """pyffish's verdict at the position ``here`` (= FEN ``fen``): ``(result, reason)``,
    or None (the game goes on). ``history`` is what ``is_optional_game_end`` is given
    (the same position, reached with the moves repetitions need).

    ``game_result`` is only meaningful without legal moves; otherwise an immediate end
    (a general gone) and then an optional end (sixty plies, repetition) are asked for.
    pyffish gives no reason, so it is read off its answers: a general missing from its
    FEN, its check status, its halfmove clock (FSF tests the n-move rule before
    repetitions), and whether a repetition is drawn or decided (perpetual check).
    """
    black = _black_to_move(fen)
    if not legal:
        value = fsf.game_result(*here)
        reason = (
            "general-exploded" if _general_missing(fen) else "checkmate" if check else "stalemate"
        )
        return _as_result(value, black), reason
    if ask_immediate:
        ended, value = fsf.is_immediate_game_end(*here)
        if ended:
            reason = "general-exploded" if _general_missing(fen) else f"immediate end ({value})"
            return _as_result(value, black), reason
    if ask_optional:
        ended, value = fsf.is_optional_game_end(*history)
        if ended:
            reason = (
                "sixty-plies"
                if _clock(fen) >= SIXTY
                else "repetition"
                if value == _DRAW
                else "perpetual-check"
            )
            return _as_result(value, black), reason
    return None


def replay_view(fsf: Fsf, variant: str, start: str, moves: list[str]) -> View:
    """Everything asked with the start FEN and the whole move list (``replay`` mode)."""
    here = (start, moves)
    legal = sorted(fsf.legal_moves(*here))
    fen = fsf.get_fen(*here)
    check = bool(fsf.gives_check(*here))
    outcome = fsf_outcome(fsf, fen, check, legal, here, here)
    if variant == "crazyhouse-xiangqi":
        sent = (fsf.get_fen(start, []), tuple(moves))
    else:  # pyffish's halfmove clock counts the plies since the last capture
        base = max(0, len(moves) - _clock(fen))
        sent = (fsf.get_fen(start, moves[:base]), tuple(moves[base:]))
    return View(legal, fen, check, outcome, sent)


class FenTracker:
    """pyffish following a game on its own FENs (``fen`` mode; see the module doc)."""

    def __init__(self, fsf: Fsf, variant: str, start: str, moves: list[str]) -> None:
        self.fsf = fsf
        self.start = start
        self.moves = moves
        self.atomic = variant == "atomic-xiangqi"
        self.drops = variant == "crazyhouse-xiangqi"
        self.ply = 0
        self.fen = fsf.get_fen(start, [])
        self.seen: Counter[tuple[str, str, str]] = Counter([_position_key(self.fen)])
        self.base = (self.fen, 0)  # pyffish's FEN after the last capture, and its ply
        self.checks: list[bool] | None = None
        if not self.atomic and moves:
            try:
                san = fsf.get_san_moves(start, moves, False, _NOTATION_SAN)
                self.checks = [s.endswith(("+", "#")) for s in san]
            except ValueError:
                # pyffish refuses a move: ask gives_check per ply instead, the legal-move
                # comparison will name the ply.
                self.checks = None

    def view(self) -> View:
        fsf, fen, k = self.fsf, self.fen, self.ply
        here: tuple[str, list[str]] = (fen, [])
        legal = sorted(fsf.legal_moves(*here))
        if self.checks is not None and k > 0:
            check = self.checks[k - 1]
        else:
            check = bool(fsf.gives_check(*here))
        last = k == len(self.moves)
        clock = _clock(fen)
        ask_immediate = last or (self.atomic and clock == 0)
        ask_optional = last or clock >= OPTIONAL_FROM_CLOCK or self.seen[_position_key(fen)] >= 2
        if self.drops:
            history = (self.start, self.moves[:k])
        else:
            base_fen, base_ply = self.base
            history = (base_fen, self.moves[base_ply:k])
        outcome = fsf_outcome(fsf, fen, check, legal, here, history, ask_immediate, ask_optional)
        return View(legal, fen, check, outcome, (history[0], tuple(history[1])))

    def advance(self) -> None:
        move = self.moves[self.ply]
        self.fen = self.fsf.get_fen(self.fen, [move])
        self.ply += 1
        self.seen[_position_key(self.fen)] += 1
        if _clock(self.fen) == 0:
            self.base = (self.fen, self.ply)


# ------------------------------------------------------------------ comparing


def compare_view(game: Game, view: View) -> list[tuple[str, object, object]]:
    """The checker at the game's current position against pyffish's answers there:
    ``(what, ours, theirs)`` for each disagreement."""
    out: list[tuple[str, object, object]] = []
    ours_legal = sorted(game.legal_moves())
    if ours_legal != view.legal:
        only_ours = sorted(set(ours_legal) - set(view.legal))
        only_theirs = sorted(set(view.legal) - set(ours_legal))
        out.append(("legal moves", f"extra {only_ours}", f"extra {only_theirs}"))
    ours_fen = game.fen()
    if _hand_multiset(ours_fen) != _hand_multiset(view.fen):
        out.append(("fen", ours_fen, view.fen))
    ours_check = game.is_check()
    if ours_check != view.check:
        out.append(("check", ours_check, view.check))
    o = game.outcome()
    ours_outcome = None if o is None else (o.result, o.reason.value)
    if ours_outcome != view.outcome:
        out.append(("outcome", ours_outcome, view.outcome))
    ours_sent = game.engine_position()
    theirs_sent = view.engine_position
    if (_hand_multiset(ours_sent[0]), ours_sent[1]) != (
        _hand_multiset(theirs_sent[0]),
        theirs_sent[1],
    ):
        out.append(("engine position", ours_sent, theirs_sent))
    return out


def compare_game(
    sf: ModuleType,
    variant: str,
    start_fen: str | None,
    moves: Sequence[str],
    mode: str = "fen",
    stats: Stats | None = None,
) -> list[Mismatch]:
    """Compare the checker with pyffish at every position of the game ``start_fen`` +
    ``moves`` (from the start position to the last), asking pyffish as ``mode`` says.
    Stops at the first position with a disagreement and returns its disagreements
    (empty list: agreement at every ply)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    moves = [normalize_move(m) for m in moves]  # pyffish wants canonical notation
    fsf = Fsf(sf, variant)
    game = Game.from_fen(variant, start_fen)
    start = game.start_fen
    tracker = FenTracker(fsf, variant, start, moves) if mode == "fen" else None
    found: list[Mismatch] = []

    def miss(what: str, ours: object, theirs: object) -> None:
        found.append(Mismatch(variant, start, game.moves, what, ours, theirs, mode))

    while True:
        try:
            view = tracker.view() if tracker else replay_view(fsf, variant, start, game.moves)
        except (ValueError, SystemError) as exc:  # pyffish rejects a move we played
            miss("pyffish accepts the moves", "all legal", f"{type(exc).__name__}: {exc}")
            break
        for what, ours, theirs in compare_view(game, view):
            miss(what, ours, theirs)
        if found or game.ply == len(moves):
            break
        game.push(moves[game.ply])
        if tracker:
            try:
                tracker.advance()
            except (ValueError, SystemError) as exc:
                miss("pyffish accepts the moves", "all legal", f"{type(exc).__name__}: {exc}")
                break
    if stats is not None:
        stats.games += 1
        stats.plies += game.ply + 1
        stats.calls += fsf.calls
        o = game.outcome()
        stats.outcomes[o.reason.value if o else "unfinished"] += 1
        stats.mismatches.extend(found)
    return found


# ------------------------------------------------------------------ random games


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


def random_game(
    variant: str, rng: random.Random, max_plies: int = 200, late_clock: float = LATE_CLOCK
) -> Game:
    """A random game played by the checker alone, to its end or ``max_plies``, from the
    start position; with probability ``late_clock`` its halfmove clock starts at 20..60
    instead of 0, so that sixty-ply endings happen in short games too."""
    fen = None
    if rng.random() < late_clock:
        fen = Game.from_fen(variant).fen().replace(" 0 1", f" {rng.randint(20, SIXTY)} 1")
    game = Game.from_fen(variant, fen)
    bias = (
        rng.choice((0.0, 0.0, 0.3, 0.7)),
        rng.choice((0.0, 0.0, 0.2, 0.6)),
        rng.choice((0.0, 0.3, 0.6, 0.9)),
    )
    while game.outcome() is None and game.ply < max_plies:
        game.push(choose_move(game, rng, bias))
    return game


def play_game(
    sf: ModuleType,
    variant: str,
    rng: random.Random,
    max_plies: int = 200,
    stats: Stats | None = None,
    mode: str = "fen",
) -> list[Mismatch]:
    """Play one random game and compare with pyffish at every ply (:func:`compare_game`).
    Returns the disagreements at the first ply that has any (empty list: agreement)."""
    game = random_game(variant, rng, max_plies)
    return compare_game(sf, variant, game.start_fen, game.moves, mode, stats)


def game_rng(seed: str | int, variant: str, index: int) -> random.Random:
    """The generator of game ``index``: games do not depend on how they are sharded."""
    return random.Random(f"{seed}-{variant}-{index}")


_WORKER_SF: ModuleType | None = None


def _worker_init() -> None:
    global _WORKER_SF
    _WORKER_SF = load_pyffish()


def _worker_games(args: tuple[str, str | int, list[int], int, str, int]) -> Stats:
    variant, seed, indexes, max_plies, mode, max_mismatches = args
    assert _WORKER_SF is not None
    return _play_games(_WORKER_SF, variant, seed, indexes, max_plies, mode, max_mismatches)


def _play_games(
    sf: ModuleType,
    variant: str,
    seed: str | int,
    indexes: Sequence[int],
    max_plies: int,
    mode: str,
    max_mismatches: int,
) -> Stats:
    stats = Stats()
    t0 = time.process_time()
    for i in indexes:
        play_game(sf, variant, game_rng(seed, variant, i), max_plies, stats, mode)
        if len(stats.mismatches) >= max_mismatches:
            break
    stats.cpu = time.process_time() - t0
    return stats


def worker_pool(jobs: int) -> multiprocessing.pool.Pool:
    """``jobs`` worker processes, each with its own pyffish, for :func:`run_games`.
    (Spawned, not forked: pyffish has a thread. The children import this module by
    name, ``tests.rules.fuzz_vs_pyffish``, from the repository's root.)"""
    return multiprocessing.get_context("spawn").Pool(jobs, initializer=_worker_init)


def run_games(
    variant: str,
    games: int,
    seed: str | int = 1,
    max_plies: int = 200,
    mode: str = "fen",
    jobs: int = 1,
    sf: ModuleType | None = None,
    max_mismatches: int = 20,
    chunk: int = 10,
    progress: int = 0,
    pool: multiprocessing.pool.Pool | None = None,
) -> Stats:
    """Play and compare ``games`` random games of ``variant`` (game ``i`` from
    :func:`game_rng`, so the games do not depend on the sharding), in this process with
    ``sf`` (loaded if None) when ``jobs`` is 1 and no ``pool`` is given, else in
    ``pool`` (made with ``jobs`` workers if None). Stops early after ``max_mismatches``
    disagreeing games."""
    stats = Stats()
    t0 = time.perf_counter()
    shown = 0

    def report() -> None:
        nonlocal shown
        if progress and stats.games >= shown + progress:
            shown = stats.games - stats.games % progress
            print(
                f"  {variant}: {stats.games} games, {stats.plies} positions, "
                f"{len(stats.mismatches)} disagreements, "
                f"{time.perf_counter() - t0:.0f}s",
                flush=True,
            )

    batches = [list(range(i, min(i + chunk, games))) for i in range(0, games, chunk)]
    if jobs <= 1 and pool is None:
        sf = sf or load_pyffish()
        for batch in batches:
            stats.add(
                _play_games(
                    sf,
                    variant,
                    seed,
                    batch,
                    max_plies,
                    mode,
                    max_mismatches - len(stats.mismatches),
                )
            )
            report()
            if len(stats.mismatches) >= max_mismatches:
                break
        return stats
    own = pool is None
    if pool is None:
        pool = worker_pool(jobs)
    try:
        work = [(variant, seed, b, max_plies, mode, max_mismatches) for b in batches]
        for part in pool.imap(_worker_games, work):
            stats.add(part)
            report()
            if len(stats.mismatches) >= max_mismatches:
                break
    finally:
        if own:
            pool.terminate()
            pool.join()
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per variant")
    parser.add_argument(
        "--variant",
        choices=VARIANT_IDS,
        action="append",
        help="variant(s) to test (default: all three)",
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="fen",
        help="how pyffish is asked (see the module doc); default fen",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--progress",
        type=int,
        default=0,
        metavar="N",
        help="print a progress line about every N games",
    )
    parser.add_argument(
        "--max-mismatches",
        type=int,
        default=20,
        help="stop a variant after this many disagreeing games",
    )
    args = parser.parse_args(argv)
    sf = load_pyffish() if args.jobs <= 1 else None
    failed = False
    for variant in args.variant or VARIANT_IDS:
        t0 = time.perf_counter()
        stats = run_games(
            variant,
            args.games,
            args.seed,
            args.max_plies,
            args.mode,
            args.jobs,
            sf,
            args.max_mismatches,
            progress=args.progress,
        )
        for m in stats.mismatches:
            print(m, flush=True)
        dt = time.perf_counter() - t0
        print(
            f"{variant}: {stats.games} games, {stats.plies} positions compared, "
            f"{stats.calls} pyffish calls, {len(stats.mismatches)} disagreements, "
            f"{dt:.1f}s ({stats.cpu:.1f}s CPU); outcomes {dict(stats.outcomes)}",
            flush=True,
        )
        failed |= bool(stats.mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
