"""`ucinewgame` makes `go nodes N` reproducible (engine/patches/0002).

The ladder promises the same move for the same request on any engine of the pool,
whatever that engine searched before. Stock Fairy-Stockfish's ``ucinewgame`` clears the
hash and the histories but not each thread's pawn and material tables, so the same
``go nodes N`` could answer differently after other searches (a crazyhouse-xiangqi search
was the one that showed it). Patch 0002 clears those tables too. Here, over real UCI
pipes: every probe (variant, position, ``go nodes`` 1000/5000, MultiPV 1/3) gives the same
bestmove and, per line, the same score, node count and PV on a fresh engine as on one
engine that has searched all three variants and other positions in between.

Fails against a build without patch 0002 (``LADDER_ENGINE=<that build> pytest ...``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fsf_uci import UciEngine

#: (variants.ini section, moves from its start position): the start and a book line.
POSITIONS: dict[str, list[tuple[str, ...]]] = {
    "mistboard-xiangqi": [(), ("h1g3", "c10a8", "g1i3", "b8e8", "h3h1", "e8g8", "e4e5")],
    "atomic-xiangqi": [(), ("b3d3", "h8h6", "h1i3", "b8f8", "d3g3", "h6c6", "g3c3", "f8i8")],
    "crazyhouse-xiangqi": [(), ("b3b4", "B@b9", "B@g3", "A@d7", "B@c3", "h8e8", "h1f2", "A@e9")],
}
#: (nodes, MultiPV) of each probe.
SEARCHES = [(1000, 1), (5000, 1), (1000, 3)]
#: Searches run between probes on the reused engine, to leave state behind.
DISTURB = [
    ("crazyhouse-xiangqi", ("i4i5", "B@a9", "B@f5", "h8f8"), 4000, 2),
    ("atomic-xiangqi", ("a1a3", "b10c8", "a3a1", "h8d8"), 3000, 3),
    ("mistboard-xiangqi", ("a4a5", "h8g8", "a1a4", "h10i8"), 3000, 1),
]

_FIELD_RE = re.compile(r" (multipv|nodes) (\d+)")
_SCORE_RE = re.compile(r" score (cp|mate) (-?\d+)( lowerbound| upperbound)?")


@dataclass(frozen=True)
class Line:
    """The last report of one MultiPV line (FSF does not always report again when the
    node limit stops an iteration, so ``nodes`` may be below the limit)."""

    multipv: int
    score: str
    nodes: int
    pv: str


@dataclass(frozen=True)
class Answer:
    """What a search ended with."""

    bestmove: str
    lines: tuple[Line, ...]


Probe = tuple[str, tuple[str, ...], int, int]


def probes() -> list[Probe]:
    return [
        (section, moves, nodes, multipv)
        for section, positions in POSITIONS.items()
        for moves in positions
        for nodes, multipv in SEARCHES
    ]


def probe_id(probe: Probe) -> str:
    section, moves, nodes, multipv = probe
    return f"{section}-{len(moves)}plies-n{nodes}-mpv{multipv}"


def search(
    engine: UciEngine, section: str, moves: tuple[str, ...], nodes: int, multipv: int
) -> Answer:
    """``ucinewgame`` + ``go nodes`` as the ladder sends them (Threads 1, Hash 16)."""
    engine.variant(section)
    engine.send(f"setoption name MultiPV value {multipv}")
    engine.send("ucinewgame")
    engine.sync()
    engine.position(None, moves)
    engine.send(f"go nodes {nodes}")
    out = engine.read_until(lambda line: line.startswith("bestmove"))
    last: dict[int, Line] = {}
    for text in out[:-1]:
        if not text.startswith("info ") or " pv " not in text:
            continue
        fields = dict(_FIELD_RE.findall(text))
        score = _SCORE_RE.search(text)
        if score is None or score.group(3):
            continue
        k = int(fields.get("multipv", "1"))
        last[k] = Line(
            k, f"{score.group(1)} {score.group(2)}", int(fields["nodes"]), text.split(" pv ", 1)[1]
        )
    return Answer(out[-1].split()[1], tuple(last[k] for k in sorted(last)))


@pytest.fixture(scope="module")
def fresh_answers(engine_exe: Path, variants_ini: Path) -> dict[Probe, Answer]:
    """Every probe on an engine that has searched nothing else."""
    answers = {}
    for probe in probes():
        with UciEngine(engine_exe, variants_ini) as engine:
            engine.send("setoption name Threads value 1")
            engine.send("setoption name Hash value 16")
            answers[probe] = search(engine, *probe)
    return answers


@pytest.fixture(scope="module")
def used_engine(engine_exe: Path, variants_ini: Path) -> Iterator[UciEngine]:
    """One engine for the whole module, which keeps searching."""
    with UciEngine(engine_exe, variants_ini) as engine:
        engine.send("setoption name Threads value 1")
        engine.send("setoption name Hash value 16")
        yield engine


def test_probes_search_something(fresh_answers: dict[Probe, Answer]) -> None:
    for probe, answer in fresh_answers.items():
        assert answer.lines and answer.lines[0].pv.startswith(answer.bestmove), probe
        assert len(answer.lines) == probe[3], probe
        assert 0 < answer.lines[0].nodes <= probe[2] * 11 // 10, probe


@pytest.mark.parametrize("probe", probes(), ids=probe_id)
def test_same_answer_after_other_searches(
    probe: Probe, used_engine: UciEngine, fresh_answers: dict[Probe, Answer]
) -> None:
    """Each probe on the reused engine after searches of every variant (crazyhouse
    first): bestmove, scores, node counts and PVs as on a fresh engine."""
    for other in DISTURB:
        search(used_engine, *other)
    assert search(used_engine, *probe) == fresh_answers[probe]


def test_same_answer_in_reverse_order(
    used_engine: UciEngine, fresh_answers: dict[Probe, Answer]
) -> None:
    """All probes back to back, in reverse order, with no disturbance in between."""
    got = {probe: search(used_engine, *probe) for probe in reversed(probes())}
    mismatched = [probe_id(p) for p in got if got[p] != fresh_answers[p]]
    assert not mismatched
