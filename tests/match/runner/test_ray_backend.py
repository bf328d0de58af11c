"""The Ray backend on a local Ray instance (Ray is a test dependency: missing = failure)."""

from __future__ import annotations

from pathlib import Path

import ray

from ladder.match.output.store import ResultStore
from ladder.match.runner.match_run import run_match
from tests.match.helpers import match_config


def test_match_on_local_ray(tmp_path: Path, engine_exe: Path) -> None:
    from ladder.match.runner.ray_backend import RayBackend

    config = match_config("level:1", "greedy", 4, "atomic-xiangqi", seed=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        backend = RayBackend("local", 2)
        assert backend.slots == 2
        stats, result = run_match(config, db=tmp_path / "r.sqlite", backend=backend)
    finally:
        ray.shutdown()
    assert result.played == 4 and stats.trinomial.games == 4
    with ResultStore(tmp_path / "r.sqlite") as store:
        records = list(store.records([config.match_id]))
    assert sorted(r.game_no for r in records) == [0, 1, 2, 3]
    assert all(r.pgn.startswith("[Event") for r in records)
    # the games ran in Ray worker processes, not in the driver
    assert {r.worker.split(":")[1] for r in records} != {str(__import__("os").getpid())}
