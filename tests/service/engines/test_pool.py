"""The pool gives a move an engine whose hash table is already the level's size when
one is idle: a level-1 move (Hash 16) after a level-7 one (Hash 64) on the same engine
pays for a new table first. `ladder serve` with two engines as a subprocess, each
engine behind `tee`: what reaches their stdin, not timings."""

from __future__ import annotations

import re
from pathlib import Path

from ladder.levels import LEVELS_FILE, load_levels

from ..helpers import OUT_OF_BOOK, service_engine, start_server


def quick_level_7(path: Path) -> Path:
    """The shipped levels with xiangqi's level 7 at 2,000 nodes (its Hash kept)."""
    text, found = re.subn(
        r"(\[variant\.xiangqi\.7\]\n)nodes = [\d_]+", r"\1nodes = 2_000", LEVELS_FILE.read_text()
    )
    assert found == 1, "the shipped file has no [variant.xiangqi.7] nodes line"
    path.write_text(text)
    return path


def test_engines_keep_their_hash_size_between_levels(tmp_path: Path) -> None:
    levels = quick_level_7(tmp_path / "levels.toml")
    table = load_levels(levels)["xiangqi"]
    small, large = table[1].hash_mb, table[7].hash_mb
    assert small < large == max(lv.hash_mb for lv in table.values())
    wrapper = tmp_path / "engine.sh"
    wrapper.write_text(f"#!/bin/sh\ntee -a '{tmp_path}/wire-'$$ | '{service_engine()}' \"$@\"\n")
    wrapper.chmod(0o755)
    server = start_server("--levels", str(levels), engines=2, env={"LADDER_ENGINE": str(wrapper)})
    try:
        with server.client() as client:
            # One request at a time, so both engines are idle at each: a pool that takes
            # the longest idle engine would hand each level to both of them in turn.
            for i, level in enumerate([1, 1, 7, 7, 1, 1, 7, 7, 1, 7, 1, 7]):
                body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": level, "seed": i}
                reply = client.post("/v1/move", json=body)
                assert reply.status_code == 200, reply.text
    finally:
        server.stop()
    wires = [p.read_text() for p in tmp_path.glob("wire-*")]
    searches = sum(w.count("\ngo ") for w in wires)
    assert searches >= 12
    # every engine starts with the largest table; one of them is made small, once
    assert sum(w.count(f"setoption name Hash value {small}\n") for w in wires) == 1
    assert sum(w.count(f"setoption name Hash value {large}\n") for w in wires) == len(
        [w for w in wires if "\ngo " in w]
    )
