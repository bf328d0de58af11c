#!/usr/bin/env python3
"""A real engine with a fault: the tests' one fault injection, a real process.

    python faulty_engine.py ENGINE [--crash-after N COUNTER] [--spare-start-ups]
                                   [--crash-once-at N COUNTER]
                                   [--hang-after N COUNTER] [--delay SECONDS]
                                   [--start-delay SECONDS]
                                   [--crash-then-fail-restart STATE_DIR]

Passes every line between its pipes and ENGINE (a real UCI/UCCI engine) unchanged, except:

--crash-after N COUNTER   counts the ``go`` commands of all its runs in the file COUNTER
                          (a line each); once N have been answered, each further ``go``
                          makes it exit at once (code 3), so a restarted copy crashes
                          again: the engine fails for good from its (N+1)-th search on.
--crash-once-at N COUNTER counts the ``go`` commands of all its runs in COUNTER; the
                          (N+1)-th makes it exit at once (code 3); the ones after pass:
                          a crash that one restart fixes.
--hang-after N COUNTER    counts the ``go`` commands of all its runs in COUNTER; once N
                          have been answered, each further ``go`` is swallowed: the
                          engine never answers a search again (a hang).
--delay SECONDS           holds every ``go`` back that long: each search takes at least
                          that long (an engine that cannot keep to a clock).
--start-delay SECONDS     waits that long before it starts ENGINE: a process that is an
                          engine starting up for that long (nothing named like the
                          engine runs yet).
--crash-then-fail-restart STATE_DIR
                          the first ``go`` of all its runs that is not a start-up
                          check's (``go nodes 1``) makes it exit at once (code 3) and
                          arms the next copy started, which exits at its first
                          ``isready``: an engine SIGKILLed, then its replacement killed
                          during its start-up (copies already running are not armed).
                          STATE_DIR holds the state the copies share.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine")
    parser.add_argument("--crash-after", nargs=2, metavar=("N", "COUNTER"))
    parser.add_argument("--spare-start-ups", action="store_true")
    parser.add_argument("--crash-once-at", nargs=2, metavar=("N", "COUNTER"))
    parser.add_argument("--hang-after", nargs=2, metavar=("N", "COUNTER"))
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--start-delay", type=float, default=0.0)
    parser.add_argument("--crash-then-fail-restart", type=Path, metavar="STATE_DIR")
    args = parser.parse_args()
    state: Path | None = args.crash_then_fail_restart
    doomed = False  # this copy is the armed replacement: it dies at its first isready
    if state is not None:
        try:
            (state / "armed").unlink()
            doomed = True
        except FileNotFoundError:
            pass
    time.sleep(args.start_delay)
    child = subprocess.Popen(
        [args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin is not None and child.stdout is not None
    source = child.stdout

    def pump() -> None:
        for line in source:
            sys.stdout.write(line)
            sys.stdout.flush()

    threading.Thread(target=pump, daemon=True).start()
    for line in sys.stdin:
        start_up = line.split() == ["go", "nodes", "1"]
        if doomed and line.startswith("isready"):
            child.kill()
            os._exit(3)
        if state is not None and line.startswith("go") and not start_up:
            try:
                (state / "crashed").open("x").close()  # the first such search, of all copies
            except FileExistsError:
                pass
            else:
                (state / "armed").touch()
                child.kill()
                os._exit(3)
        if line.startswith("go") and args.crash_after and not (args.spare_start_ups and start_up):
            limit, counter = int(args.crash_after[0]), args.crash_after[1]
            with open(counter, "a+") as fh:
                fh.seek(0)
                if len(fh.readlines()) >= limit:
                    child.kill()
                    os._exit(3)
                fh.write("go\n")
        if line.startswith("go") and args.crash_once_at:
            at, counter = int(args.crash_once_at[0]), args.crash_once_at[1]
            with open(counter, "a+") as fh:
                fh.seek(0)
                seen = len(fh.readlines())
                fh.write("go\n")
            if seen == at:
                child.kill()
                os._exit(3)
        if line.startswith("go") and args.hang_after:
            limit, counter = int(args.hang_after[0]), args.hang_after[1]
            with open(counter, "a+") as fh:
                fh.seek(0)
                hang = len(fh.readlines()) >= limit
                fh.write("go\n")
            if hang:
                continue
        if line.startswith("go") and args.delay:
            time.sleep(args.delay)
        child.stdin.write(line)
        child.stdin.flush()
        if line.strip() == "quit":
            break
    child.wait(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
