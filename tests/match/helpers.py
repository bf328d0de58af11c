"""Helpers of the match tests: the `ladder` command run as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_ladder(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m ladder.cli ARGS``, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )
