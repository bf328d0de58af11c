"""`ucinewgame` leaves nothing of earlier searches behind, however cheaply it clears
(engine/patches/0003).

Patch 0003 zeroes the big per-thread tables (continuation and capture histories, pawn
hash) by handing their pages back to the kernel rather than writing zeros, so that a new
game costs in proportion to what the last search touched. No search may notice. Here a
few hundred searches (three variants, positions from seeded random playouts, ``go nodes``
16 to 5000, each after ``ucinewgame`` as the ladder sends it) must end with the same
bestmove and the same final info line (depth, seldepth, score, nodes, PV) when run

* per variant, in a fixed order, on a fresh engine (the reference), and
* all of them shuffled on one engine that switches variants from search to search.

A table left dirty would make an answer depend on what was searched before, and the two
runs search in different orders. With ``MISTBOARD_REFERENCE_ENGINE`` set to another build
(e.g. the one before patch 0003), the reference answers come from that build, which checks
that the two builds agree. (The stock build in .cache cannot be the reference: it lacks
our variants.ini options.)
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fsf_uci import UciEngine

SECTIONS = ("mistboard-xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi")
#: Positions per variant: random playouts of 0, 3, 6, ... plies.
PLAYOUTS = 16
PLIES_STEP = 3
NODES = (16, 100, 400, 1000, 2500, 5000)
HASH_MB = 16
SHUFFLE_SEED = 3
#: Fields of an info line that depend on the clock, not on the search.
_CLOCK_FIELDS = {"time", "nps", "hashfull", "tbhits"}

Pair = tuple[str, tuple[str, ...], int]  # (section, moves from the start position, nodes)


@dataclass(frozen=True)
class Answer:
    bestmove: str
    info: str  # the last complete PV line, clock fields removed ("" if none)


def final_info(lines: list[str]) -> str:
    """The last info line with a PV and an exact score, without time/nps/hashfull."""
    for text in reversed(lines):
        if (
            not text.startswith("info ")
            or " pv " not in text
            or " lowerbound" in text
            or " upperbound" in text
        ):
            continue
        tokens = text.split()[1:]
        kept: list[str] = []
        i = 0
        while i < len(tokens):
            if tokens[i] == "pv":
                kept += tokens[i:]
                break
            if tokens[i] in _CLOCK_FIELDS:
                i += 2
                continue
            kept.append(tokens[i])
            i += 1
        return " ".join(kept)
    return ""


def start(exe: Path, variants_ini: Path) -> UciEngine:
    engine = UciEngine(exe, variants_ini)
    engine.send("setoption name Threads value 1")
    engine.send(f"setoption name Hash value {HASH_MB}")
    engine.sync()
    return engine


def search(engine: UciEngine, pair: Pair) -> Answer:
    """One search as the ladder runs it; the engine is already on the pair's variant."""
    _, moves, nodes = pair
    engine.send("ucinewgame")
    engine.sync()
    engine.position(None, moves)
    engine.send(f"go nodes {nodes}")
    out = engine.read_until(lambda line: line.startswith("bestmove"))
    return Answer(out[-1].split()[1], final_info(out[:-1]))


def playout(engine: UciEngine, section: str, index: int) -> tuple[str, ...]:
    """index * PLIES_STEP random legal moves from the start (fewer if the game ends)."""
    rng = random.Random(f"{section}/{index}")
    moves: list[str] = []
    for _ in range(index * PLIES_STEP):
        engine.position(None, moves)
        legal = sorted(engine.legal_moves())
        if not legal:
            moves.pop()  # search the last position with a move to make
            break
        moves.append(rng.choice(legal))
    return tuple(moves)


@pytest.fixture(scope="module")
def pairs(engine_exe: Path, variants_ini: Path) -> list[Pair]:
    with start(engine_exe, variants_ini) as engine:
        out = []
        for section in SECTIONS:
            engine.variant(section)
            for index in range(PLAYOUTS):
                moves = playout(engine, section, index)
                out += [(section, moves, nodes) for nodes in NODES]
    return out


@pytest.fixture(scope="module")
def reference_exe(engine_exe: Path) -> Path:
    other = os.environ.get("MISTBOARD_REFERENCE_ENGINE")
    return Path(other).resolve() if other else engine_exe


@pytest.fixture(scope="module")
def reference(reference_exe: Path, variants_ini: Path, pairs: list[Pair]) -> dict[Pair, Answer]:
    """Each variant's searches in a fixed order, on an engine of their own."""
    answers = {}
    for section in SECTIONS:
        with start(reference_exe, variants_ini) as engine:
            engine.variant(section)
            for pair in pairs:
                if pair[0] == section:
                    answers[pair] = search(engine, pair)
    return answers


@pytest.fixture(scope="module")
def shuffled(
    engine_exe: Path, variants_ini: Path, pairs: list[Pair]
) -> Iterator[dict[Pair, Answer]]:
    """All searches in a shuffled order on one engine, switching variants as needed."""
    order = list(pairs)
    random.Random(SHUFFLE_SEED).shuffle(order)
    answers = {}
    with start(engine_exe, variants_ini) as engine:
        current = None
        for pair in order:
            if pair[0] != current:
                current = pair[0]
                engine.variant(current)
            answers[pair] = search(engine, pair)
        yield answers


def test_pairs_are_many_and_searched(pairs: list[Pair], reference: dict[Pair, Answer]) -> None:
    assert len(set(pairs)) == len(pairs) >= 250
    assert len({(s, m) for s, m, _ in pairs}) == len(SECTIONS) * PLAYOUTS
    assert all(a.bestmove != "(none)" for a in reference.values())
    # Almost every search reports a finished iteration (a tiny one may be cut short).
    assert sum(bool(a.info) for a in reference.values()) >= 0.9 * len(pairs)


def test_same_answers_in_any_order(
    pairs: list[Pair], reference: dict[Pair, Answer], shuffled: dict[Pair, Answer]
) -> None:
    mismatched = [
        f"{s} {len(m)} plies nodes {n}: {reference[(s, m, n)]} vs {shuffled[(s, m, n)]}"
        for s, m, n in pairs
        if reference[(s, m, n)] != shuffled[(s, m, n)]
    ]
    assert not mismatched, f"{len(mismatched)} of {len(pairs)} differ: {mismatched[:5]}"
