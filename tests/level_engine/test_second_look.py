"""The weak levels' rule as a beginner plays it (ladder/level_engine/second_look.py): a check is
always
answered, a threat to win at once is parried most of the time, and the beginner's
measures (ladder/calibration/error_profile.py, measure_sets) count both on planted positions."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest

from ladder.level_engine.beginner import loses_at_once, parries
from ladder.level_engine.engine import LevelEngine
from ladder.levels import load_levels
from ladder.rules import Game

#: The check of the issue: after a1a2 g7g6 a2d2 Red's chariot bears on the advisor beside
#: Black's general (atomic's wide check); most of Black's moves lose at once.
ATOMIC_CHECK = ("atomic-xiangqi", None, ("a1a2", "g7g6", "a2d2"))
#: Positions of the frozen sets (data/positions-*: the tune half) where the side to move,
#: not in check, faces a win at once: 7 of 23 moves parry it in xiangqi, 3 of 47 in atomic.
THREATS = [
    ("xiangqi", "rnbakabnr/9/4C4/pCp1p1p1p/9/P8/2P3P1c/R7N/4K4/1NBA1AB1R b - - 0 9"),
    (
        "atomic-xiangqi",
        "r1bak3r/2n1a4/4b3n/2p1p1p1p/9/1cP5P/1C2P1Pc1/2N3C2/4AR3/R1B1KABN1 b - - 3 12",
    ),
]


def _moves(game: Game, levels: tuple[int, ...], seeds: range) -> dict[int, list[str]]:
    """Each of ``levels``' moves in ``game`` for each seed, on one real engine."""
    table = load_levels()[game.variant.name]

    async def run() -> dict[int, list[str]]:
        engine = LevelEngine()
        try:
            return {n: [(await engine.play(game, table[n], s)).move for s in seeds] for n in levels}
        finally:
            await engine.close()

    return asyncio.run(run())


def test_the_weak_levels_answer_the_atomic_check_for_every_seed() -> None:
    variant, fen, moves = ATOMIC_CHECK
    game = Game.from_fen(variant, fen, moves)
    for level, played in _moves(game, (1, 2, 3), range(20)).items():
        assert [m for m in played if loses_at_once(game, m)] == [], level


@pytest.mark.parametrize(("variant", "fen"), THREATS)
def test_the_weak_levels_parry_a_threat_more_often_as_they_rise(variant: str, fen: str) -> None:
    game = Game.from_fen(variant, fen)
    played = _moves(game, (1, 3), range(20))
    parried = {n: sum(parries(game, m) for m in moves) for n, moves in played.items()}
    assert parried[1] >= 10, parried  # guarded 60 % of the time, and a second look
    assert parried[3] >= parried[1] and parried[3] >= 17, parried


def _planted(folder: Path, variant: str, rows: list[dict[str, str]]) -> None:
    with gzip.open(folder / f"positions-{variant}.jsonl.gz", "wt") as fh:
        for row in rows:
            fh.write(json.dumps({**row, "half": "report", "source": "planted"}) + "\n")


def test_the_measures_count_checks_answered_and_threats_parried(tmp_path: Path) -> None:
    from ladder.calibration.error_profile import measure_sets

    variant, fen, moves = ATOMIC_CHECK
    check_fen = Game.from_fen(variant, fen, moves).fen()
    _planted(
        tmp_path,
        variant,
        [{"kind": "check", "fen": check_fen}, {"kind": "threat", "fen": THREATS[1][1]}] * 10,
    )
    out = asyncio.run(measure_sets(variant, ["novice=novice", "random=random"], folder=tmp_path))
    assert out["positions"]["check"] == 10 and out["positions"]["threat"] == 10
    novice, chance = out["players"]["novice"], out["players"]["random"]
    assert novice["check"]["share"] == 1.0  # it never plays a move that loses at once
    assert chance["check"]["n"] == 10 and chance["check"]["share"] < 0.8
    assert chance["threat"]["share"] < 0.5  # 3 of 47 moves parry it
