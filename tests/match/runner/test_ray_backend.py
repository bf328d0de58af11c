"""The Ray backend on a local Ray instance (Ray is a test dependency: missing = failure)."""

from __future__ import annotations

from pathlib import Path

import ray

from ladder.match.config import MatchConfig
from ladder.match.game.adjudication import Adjudication
from ladder.match.openings import load_openings
from ladder.match.output.store import ResultStore
from ladder.match.players.specs import PlayerSpec
from ladder.match.runner.match_run import run_match


def test_match_on_local_ray(tmp_path: Path, engine_exe: Path) -> None:
    from ladder.match.runner.ray_backend import RayBackend

    config = MatchConfig(
        variant="atomic-xiangqi",
        player_a=PlayerSpec.parse("level:1"),
        player_b=PlayerSpec.parse("greedy"),
        openings=load_openings("atomic-xiangqi"),
        games=4,
        seed=2,
        adjudication=Adjudication(max_plies=150),
    )
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
