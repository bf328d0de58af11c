"""The compute estimate of a plan (`ladder calibrate --estimate`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ladder.calibration.budget import estimate
from ladder.calibration.plan import Plan

ROOT = Path(__file__).resolve().parents[2]


def test_the_top_pairing_dominates_and_narrow_targets_need_more_games() -> None:
    rows = {(r.stronger, r.weaker): r for r in estimate("xiangqi", Plan(max_games=1000), None)}
    top = rows[("L8", "L7")]
    assert top.core_hours == max(r.core_hours for r in rows.values())
    # ±60 up to level 5 needs (100 / 60)^2 ~ 2.8 times the games of ±100 above it.
    assert 2.5 < rows[("L5", "L4")].games / rows[("L7", "L6")].games < 3.1
    assert rows[("L3", "L1")].games == Plan().skip_one_games  # fixed counts stay fixed
    capped = {(r.stronger, r.weaker): r for r in estimate("xiangqi", Plan(max_games=50), None)}
    assert capped[("L5", "L4")].games == 50


def test_the_command_prints_the_estimate_and_plays_nothing(tmp_path: Path) -> None:
    ladder = str(Path(sys.executable).with_name("ladder"))
    run = subprocess.run(
        [ladder, "calibrate", "--estimate", "--variant", "xiangqi", "--db", str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("xiangqi: ") and "core-hours" in run.stdout
    assert not (tmp_path / "x.db").exists()
