"""scripts/validate_capacity.py, small: two `ladder serve` behind haproxy, one load
point of 300 moves twice; the capacity model's p50 and p99 agree with the measured
within the script's tolerance (exit 0), and its table says so."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.service.helpers import ROOT, service_engine


@pytest.mark.slow
def test_the_model_agrees_with_two_real_instances() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "validate_capacity.py"),
            *("--requests", "300", "--repeats", "2", "--loads", "0.5", "--positions", "3"),
        ],
        cwd=ROOT,
        env={**os.environ, "LADDER_ENGINE": str(service_engine())},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 0.50 |")]
    assert [row.split(" | ")[2] for row in rows] == ["p50", "p99"], done.stdout
    assert all(row.endswith("| yes |") for row in rows), done.stdout
    assert "calibration processes paused" in done.stdout
