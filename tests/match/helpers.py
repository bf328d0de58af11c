"""Helpers of the match tests: the `ladder` command run as a user runs it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_ladder(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m ladder.cli ARGS``, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "ladder.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


def start_interruptible(cmd: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    """``cmd`` started as a supervisor starts it (SIGINT at its default, see
    :func:`default_sigint`), its standard error captured as text, its output dropped."""
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
        **kwargs,
    )


def default_sigint() -> None:
    """In the child before it runs: SIGINT at its default, as a supervisor starts a
    process. (A shell without job control starts background commands with SIGINT
    ignored, and a command keeps an ignored SIGINT ignored, as `ladder match` does: a
    suite started that way must not hand that on to the runs it interrupts.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
