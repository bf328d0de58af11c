"""scripts/bench_rules.py runs in its default mode (the checker against pyffish) and
prints a row per variant."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ladder.variants import VARIANT_IDS

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_rules.py"


def test_the_rules_benchmark_times_both_checkers_in_every_variant() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--positions", "3", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert set(rows) == set(VARIANT_IDS)
    for row in rows.values():
        assert row[-1].endswith("x") and float(row[-1][:-1]) > 0  # pyffish was timed too
