"""scripts/validate_capacity.py, small: two `ladder serve` behind haproxy, one load
point of 300 moves twice. Whether the model agrees is the script's measurement (its exit
status), which a loaded machine moves: the test checks that the run completes, prints
its table with the three predictions, and that its verdict and exit status say the same."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.service.helpers import ROOT, service_engine


@pytest.mark.slow
def test_the_model_is_measured_against_two_real_instances() -> None:
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
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 0.50 |")]
    cells = [row.split(" | ") for row in rows]
    assert [c[2] for c in cells] == ["p50", "p99"], done.stdout
    # predicted (costs under load), from the costs one at a time, from levels --measure
    for c in cells:
        assert float(c[3]) > 0, done.stdout
        assert c[4].endswith("%)") or c[4] == "refused", done.stdout
        assert c[5].endswith("%)") or c[5] == "refused", done.stdout
        assert len(c[6].split(" / ")) == 2, done.stdout  # the two runs
    verdicts = [row.rsplit("|", 2)[-2].strip() for row in rows]
    assert set(verdicts) <= {"yes", "**no**"}, done.stdout
    assert (done.returncode == 0) == all(v == "yes" for v in verdicts), done.stdout
    assert "costs under load: spread (sigma)" in done.stdout
    assert "servers' means (ms): request" in done.stdout
    assert "calibration processes paused" in done.stdout
