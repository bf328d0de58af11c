"""The client switches our engine's ``FinalInfoOnly`` by what the caller reads.

:meth:`protocol.Engine.search` without ``on_info`` reads only the merged result, so it
turns the option on (the engine prints one ``info`` per MultiPV line, the last, just
before ``bestmove``); with ``on_info`` it turns it off (every line). The option is sent
only when it changes, in the same write as the search, and a search with a new game
sends no ``isready``. Here the engine's stdin is copied to a file on the way in (``tee``
in front of the real engine), so the test sees the bytes the engine read; and a lazy
search must give the eager search's result (clock fields aside) on the same positions.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from protocol import Engine, Limit
from protocol.info import InfoDict
from tests.protocol.positions import VARIANTS_INI

CASES = [
    # (variant, moves, MultiPV, nodes)
    ("mistboard-xiangqi", ["h3e3", "h10g8"], 1, 3000),
    ("mistboard-xiangqi", [], 3, 2000),
    ("atomic-xiangqi", ["h3e3"], 1, 2000),
    ("crazyhouse-xiangqi", ["h3e3", "h8h1"], 2, 4000),
]
_CLOCK = {"time", "nps", "hashfull"}

pytestmark = pytest.mark.timeout(120)


def unclocked(infos: list[InfoDict]) -> list[dict]:
    return [{k: v for k, v in info.items() if k not in _CLOCK} for info in infos]


async def test_lazy_search_turns_it_on_and_eager_off(fsf_exe: Path, tmp_path: Path) -> None:
    log = tmp_path / "stdin.log"
    command = ["sh", "-c", f"tee {shlex.quote(str(log))} | exec {shlex.quote(str(fsf_exe))}"]
    engine = await Engine.start(command)
    try:
        await engine.configure({"Threads": 1, "Hash": 16})
        await engine.load_variants(VARIANTS_INI)
        await engine.set_variant("mistboard-xiangqi")
        seen: list[InfoDict] = []
        lazy = await engine.search(None, ["h3e3"], Limit(nodes=3000), new_game=True)
        lazy_again = await engine.search(None, ["h3e3"], Limit(nodes=3000), new_game=True)
        eager = await engine.search(
            None, ["h3e3"], Limit(nodes=3000), new_game=True, on_info=seen.append
        )
        await engine.ping()
    finally:
        await engine.close()
    sent = log.read_text().splitlines()
    searches = [i for i, line in enumerate(sent) if line.startswith("go ")]
    assert len(searches) == 3
    switches = [(i, line) for i, line in enumerate(sent) if "FinalInfoOnly" in line]
    # On before the first search, not re-sent for the second, off before the third.
    assert [line for _, line in switches] == [
        "setoption name FinalInfoOnly value true",
        "setoption name FinalInfoOnly value false",
    ]
    assert switches[0][0] < searches[0] and searches[1] < switches[1][0] < searches[2]
    # A search is [setoption] / ucinewgame / position / go: no isready in between.
    for go in searches:
        assert sent[go - 2] == "ucinewgame" and sent[go - 1].startswith("position ")
    # The eager search saw every iteration; all three agree on the result.
    assert len(seen) > 3
    assert lazy.move == lazy_again.move == eager.move
    assert unclocked([lazy.info]) == unclocked([lazy_again.info]) == unclocked([eager.info])


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-mpv{c[2]}-n{c[3]}" for c in CASES])
async def test_lazy_result_equals_eager_result(fsf_exe: Path, case: tuple) -> None:
    variant, moves, multipv, nodes = case
    engine = await Engine.start(fsf_exe)
    try:
        await engine.configure({"Threads": 1, "Hash": 16, "MultiPV": multipv})
        await engine.load_variants(VARIANTS_INI)
        await engine.set_variant(variant)
        eager = await engine.search(
            None, moves, Limit(nodes=nodes), new_game=True, on_info=lambda info: None
        )
        lazy = await engine.search(None, moves, Limit(nodes=nodes), new_game=True)
    finally:
        await engine.close()
    assert (lazy.move, lazy.ponder) == (eager.move, eager.ponder)
    assert len(lazy.multipv) == len(eager.multipv) == multipv
    assert unclocked(lazy.multipv) == unclocked(eager.multipv)
