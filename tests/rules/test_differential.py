"""Differential test against pyffish (Fairy-Stockfish loaded with variants.ini).

Random games, biased toward captures, drops, checks and repetitions, are played by the
checker; pyffish replays every move (so it must accept each one), and at the last plies
of every game the two are compared: legal-move sets, FEN, check and outcome. The full
every-ply comparison over many more games is scripts/fuzz_rules_vs_pyffish.py.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ladder.rules import VARIANTS

pyffish = pytest.importorskip("pyffish")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz_rules_vs_pyffish.py"
GAMES = 200
COMPARE_LAST = 3


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_rules_vs_pyffish", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    return _harness()


@pytest.fixture(scope="module")
def sf(harness: ModuleType) -> ModuleType:
    return harness.load_pyffish()


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_agree_with_pyffish(harness: ModuleType, sf: ModuleType,
                                         variant: str) -> None:
    rng = random.Random(f"pytest-{variant}")
    stats = harness.Stats()
    for _ in range(GAMES):
        harness.play_game(sf, variant, rng, max_plies=140, stats=stats,
                          compare_last=COMPARE_LAST)
        if len(stats.mismatches) >= 3:
            break
    assert not stats.mismatches, "\n\n".join(str(m) for m in stats.mismatches)
    assert stats.games == GAMES


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_agree_with_pyffish_every_ply(harness: ModuleType, sf: ModuleType,
                                                   variant: str) -> None:
    rng = random.Random(f"pytest-slow-{variant}")
    stats = harness.Stats()
    for _ in range(100):
        harness.play_game(sf, variant, rng, max_plies=200, stats=stats)
        if len(stats.mismatches) >= 3:
            break
    assert not stats.mismatches, "\n\n".join(str(m) for m in stats.mismatches)


@pytest.mark.parametrize("variant", VARIANTS)
def test_start_perft_agrees_with_pyffish(sf: ModuleType, variant: str) -> None:
    from ladder.rules import Game
    from ladder.variants import FSF_VARIANT

    g = Game.from_fen(variant)
    section = FSF_VARIANT[variant]
    for first in g.legal_moves():
        child = Game.from_fen(variant, None, [first])
        assert sorted(child.legal_moves()) == sorted(
            sf.legal_moves(section, g.start_fen, [first])), first
