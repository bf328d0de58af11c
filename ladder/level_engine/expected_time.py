"""How long a level's move is expected to take, where it was neither measured on the
serving machine (:mod:`ladder.level_times`, ``ladder levels --measure``: what the
service says when it has it) nor calibrated: an estimate from an assumed speed.

A level is a node count, so its time per move is its nodes over the engine's speed. The
speeds below are measured by ``scripts/measure_level_times.py`` (one engine, Threads 1,
levels 7-8 from positions past the opening books, nodes over the engine's CPU seconds,
on the project's 2-core machine with the calibration paused; the numbers are in
docs/play.md). A calibrated
level's own median (``seconds_per_move``) takes their place.
"""

from __future__ import annotations

from typing import Final

#: Nodes per second of one engine thread, per rule set (scripts/measure_level_times.py).
NODES_PER_SECOND: Final[dict[str, int]] = {
    "xiangqi": 170_000,
    "atomic-xiangqi": 190_000,
    "crazyhouse-xiangqi": 125_000,
}


def expected_seconds(variant: str, nodes: int, seconds_per_move: float | None = None) -> float:
    """A move's expected time at a level of `nodes` nodes: the calibrated median when there
    is one, else the nodes at the measured speed."""
    if seconds_per_move is not None:
        return seconds_per_move
    return nodes / NODES_PER_SECOND[variant]
