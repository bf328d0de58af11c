"""Differential test against pyffish (Fairy-Stockfish built from our patched source,
loaded with variants.ini).

Random games, biased toward captures, drops, checks and repetitions, are played by the
checker, and at EVERY ply of every game the two are compared: legal-move sets, FEN,
check, and outcome (result and reason). The harness is tests/rules/fuzz_vs_pyffish.py
(see its doc for the two ways of asking pyffish, ``fen`` and ``replay``). pyffish costs
about 1.4 ms a call whatever it is asked, so the normal suite uses the ``fen`` mode
(about 2 calls a ply), games of at most 60 plies, and two worker processes; the slow
tests play longer games, more of them, and the exhaustive ``replay`` mode.

The self-check tests break the checker on purpose (monkeypatching it in this process)
and require the comparison to notice, on scripted games that reach each kind of ending.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from multiprocessing.pool import Pool
from types import ModuleType

import pytest

from ladder.rules import Game
from ladder.rules.game import Outcome, Reason
from ladder.rules.variants import XIANGQI_START
from ladder.variants import FSF_VARIANT, VARIANT_IDS
from tests.rules import fuzz_vs_pyffish

pyffish = pytest.importorskip("pyffish")

# 60 games reach every kind of ending (asserted below); the slow tests play 600 longer ones.
GAMES = 60
MAX_PLIES = 60
JOBS = min(2, os.cpu_count() or 1)
MODES = ("fen", "replay")

# Scripted games (start FEN, moves) and how each ends.
PERPETUAL = (
    "xiangqi",
    "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1",
    "a1a10 d10d9 a10a9 d9d10 a9a10 d10d9 a10a9 d9d10 a9a10",
)  # 0-1 perpetual
SIXTY = ("xiangqi", "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 56 1", "a1a2 d10d9 a2a1 d9d10")
# Crazyhouse: a chariot exchange whose chariots are dropped back, twice over: the start
# position occurs a third time at ply 20, with captures in between (clock 8 there).
EXCHANGE = "a1a10 b8a10 R@a1 a10b8 a1a3 r@a10 a3a2 d10d9 a2a1 d9d10"
REDROP = ("crazyhouse-xiangqi", "r2k5/9/1n7/9/9/9/9/9/9/R3K4[] w - - 0 1", f"{EXCHANGE} {EXCHANGE}")
# Atomic: after a1a10 the chariot can take the horse on c10, next to the general on d10:
# check in the wide sense only.
WIDE_CHECK = ("atomic-xiangqi", "2nk5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", "a1a10 d10d9")
# A cannon takes a soldier at ply 3: what an engine is sent starts over there.
CAPTURE = ("xiangqi", XIANGQI_START, "h3e3 h8e8 e3e7 d10e9 b3b4")


@pytest.fixture(scope="module")
def sf() -> ModuleType:
    return fuzz_vs_pyffish.load_pyffish()


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool | None]:
    if JOBS < 2:
        yield None
        return
    p = fuzz_vs_pyffish.worker_pool(JOBS)
    try:
        yield p
    finally:
        p.terminate()
        p.join()


def _run(
    sf: ModuleType,
    pool: Pool | None,
    variant: str,
    games: int,
    seed: str,
    max_plies: int,
    mode: str,
) -> fuzz_vs_pyffish.Stats:
    t0 = time.perf_counter()
    stats = fuzz_vs_pyffish.run_games(
        variant, games, seed, max_plies, mode, sf=sf, pool=pool, max_mismatches=3
    )
    print(
        f"{variant} ({mode}): {stats.games} games, {stats.plies} positions, "
        f"{stats.calls} pyffish calls, {time.perf_counter() - t0:.1f}s "
        f"({stats.cpu:.1f}s CPU in {JOBS} processes), "
        f"{dict(stats.outcomes)}"
    )
    assert not stats.mismatches, "\n\n".join(str(m) for m in stats.mismatches)
    assert stats.games == games
    return stats


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_random_games_agree_with_pyffish_every_ply(
    sf: ModuleType, pool: Pool | None, variant: str
) -> None:
    stats = _run(sf, pool, variant, GAMES, "pytest", MAX_PLIES, "fen")
    # Every kind of ending is reached (the seeds are fixed, so this is deterministic).
    expected = {"repetition", "sixty-plies", "checkmate", "unfinished"}
    if variant == "atomic-xiangqi":
        expected.add("general-exploded")
    assert expected <= set(stats.outcomes), stats.outcomes


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("variant", VARIANT_IDS)
@pytest.mark.parametrize(
    ("games", "seed", "mode"),
    [
        (600, "pytest-slow", "fen"),
        # Every question asked with the whole game, every outcome call at every ply: checks
        # what the fen mode takes from FSF's source (FEN round trips, when an end can occur).
        (150, "pytest-replay", "replay"),
    ],
    ids=["fen", "replay"],
)
def test_long_random_games_agree_with_pyffish(
    sf: ModuleType, pool: Pool | None, variant: str, games: int, seed: str, mode: str
) -> None:
    _run(sf, pool, variant, games, seed, 200, mode)


# ------------------------------------------------------------------ scripted games


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "case",
    [PERPETUAL, SIXTY, REDROP, WIDE_CHECK, CAPTURE],
    ids=["perpetual", "sixty", "redrop", "wide-check", "capture"],
)
def test_scripted_games_agree(sf: ModuleType, case: tuple[str, str, str], mode: str) -> None:
    variant, fen, moves = case
    assert fuzz_vs_pyffish.compare_game(sf, variant, fen, moves.split(), mode) == []


def test_scripted_endings_are_what_they_claim() -> None:
    def end(case: tuple[str, str, str]) -> Outcome | None:
        return Game.from_fen(case[0], case[1], case[2]).outcome()

    assert end(PERPETUAL) == Outcome("0-1", "black", Reason.PERPETUAL_CHECK)
    assert end(SIXTY) == Outcome("1/2-1/2", None, Reason.SIXTY_PLIES)
    redrop = Game.from_fen(*REDROP)
    assert redrop.outcome() == Outcome("1/2-1/2", None, Reason.REPETITION)
    assert redrop.last_capture_index() == 12  # the earlier occurrences precede captures
    wide = Game.from_fen(WIDE_CHECK[0], WIDE_CHECK[1], ["a1a10"])
    assert wide.is_check() and not wide.position.in_direct_check()


# ------------------------------------------------------------------ self-checks


def _no_perpetual(self: Game) -> Outcome | None:
    o = _ORIGINAL_OUTCOME(self)
    if o is not None and o.reason is Reason.PERPETUAL_CHECK:
        return Outcome.draw(Reason.REPETITION)
    return o


def _no_repetition(self: Game) -> Outcome | None:
    o = _ORIGINAL_OUTCOME(self)
    if o is not None and o.reason in (Reason.REPETITION, Reason.PERPETUAL_CHECK):
        return None
    return o


def _repetition_since_capture_only(self: Game) -> Outcome | None:
    """Repetitions counted only since the last capture (wrong in crazyhouse-xiangqi)."""
    o = _ORIGINAL_OUTCOME(self)
    if o is not None and o.reason is Reason.REPETITION:
        key = self._keys[-1]
        if self._keys[self.last_capture_index() :].count(key) < 3:
            return None
    return o


def _drop_a_move(self: Game) -> list[str]:
    return _ORIGINAL_LEGAL(self)[:-1]


def _fen_without_move_number(self: Game) -> str:
    return _ORIGINAL_FEN(self).rsplit(" ", 1)[0] + " 1"


def _direct_check_only(self: Game) -> bool:
    return self.position.in_direct_check()


def _whole_game_sent(self: Game) -> tuple[str, tuple[str, ...]]:
    return self.start_fen, tuple(self.moves)


def _sent_from_the_capture(self: Game) -> tuple[str, tuple[str, ...]]:
    """The FEN before the last capture, with the capture among the moves sent."""
    i = max(self.last_capture_index() - 1, 0)
    return Game.from_fen(self.variant.name, self.start_fen, self.moves[:i]).fen(), tuple(
        self.moves[i:]
    )


_ORIGINAL_OUTCOME = Game.outcome
_ORIGINAL_LEGAL = Game.legal_moves
_ORIGINAL_FEN = Game.fen

BREAKAGES = {
    # name: (game, attribute of ladder.rules.game to replace, replacement, what differs)
    "perpetual-as-draw": (PERPETUAL, "Game.outcome", _no_perpetual, "outcome"),
    "no-repetition": (PERPETUAL, "Game.outcome", _no_repetition, "outcome"),
    "sixty-too-late": (SIXTY, "SIXTY_PLIES", 61, "outcome"),
    "sixty-too-early": (SIXTY, "SIXTY_PLIES", 59, "outcome"),
    "redrop-repetition-missed": (REDROP, "Game.outcome", _repetition_since_capture_only, "outcome"),
    "a-legal-move-missing": (REDROP, "Game.legal_moves", _drop_a_move, "legal moves"),
    "wrong-fen": (REDROP, "Game.fen", _fen_without_move_number, "fen"),
    "check-never": (PERPETUAL, "Game.is_check", lambda self: False, "check"),
    "atomic-direct-check-only": (WIDE_CHECK, "Game.is_check", _direct_check_only, "check"),
    "whole-game-sent": (CAPTURE, "Game.engine_position", _whole_game_sent, "engine position"),
    "sent-from-before-the-capture": (
        CAPTURE,
        "Game.engine_position",
        _sent_from_the_capture,
        "engine position",
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("breakage", BREAKAGES)
def test_comparison_catches_a_broken_checker(
    sf: ModuleType, monkeypatch: pytest.MonkeyPatch, breakage: str, mode: str
) -> None:
    (variant, fen, moves), target, replacement, what = BREAKAGES[breakage]
    monkeypatch.setattr(f"ladder.rules.game.{target}", replacement)
    found = fuzz_vs_pyffish.compare_game(sf, variant, fen, moves.split(), mode)
    assert found, f"{breakage}: the {mode} comparison did not notice"
    assert {m.what for m in found} == {what}, [str(m) for m in found]


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_start_perft_agrees_with_pyffish(sf: ModuleType, variant: str) -> None:
    g = Game.from_fen(variant)
    section = FSF_VARIANT[variant]
    for first in g.legal_moves():
        child = Game.from_fen(variant, None, [first])
        assert sorted(child.legal_moves()) == sorted(
            sf.legal_moves(section, g.start_fen, [first])
        ), first
