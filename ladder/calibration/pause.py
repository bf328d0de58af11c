"""Pause a running calibration while a benchmark measures (SIGSTOP, then SIGCONT).

A calibration runs for hours in the background (``nice -n 19 make calibrate``); a
benchmark run beside it would measure the machine's load instead of the code. Every
``scripts/bench_*.py`` wraps its measurement in :func:`calibration_paused`, which stops
every ``ladder calibrate`` process of this machine with all its children (game workers,
engines) and continues them afterwards, even when the benchmark fails, and reports the
load average before and after.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import psutil

__all__ = ["calibration_paused", "calibration_processes"]


def calibration_processes() -> list[psutil.Process]:
    """Every running ``ladder calibrate`` process and its descendants."""
    found: list[psutil.Process] = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if proc.pid != os.getpid() and "calibrate" in cmd and any("ladder" in c for c in cmd):
            with contextlib.suppress(psutil.Error):
                found.extend([proc, *proc.children(recursive=True)])
    return found


@contextlib.contextmanager
def calibration_paused(report: bool = True) -> Iterator[int]:
    """Stop the machine's calibration for the ``with`` block; yields how many processes
    were stopped. Prints the load average when ``report``."""
    stopped: list[psutil.Process] = []
    for proc in calibration_processes():
        with contextlib.suppress(psutil.Error):
            proc.send_signal(signal.SIGSTOP)
            stopped.append(proc)
    if report:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"[bench] calibration processes paused: {len(stopped)}; load average {load}")
    try:
        yield len(stopped)
    finally:
        for proc in stopped:
            with contextlib.suppress(psutil.Error):
                proc.send_signal(signal.SIGCONT)
        if report:
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"[bench] calibration resumed ({len(stopped)}); load average {load}")
