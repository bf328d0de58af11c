#!/usr/bin/env python3
"""A real engine that starts crashing: fault injection for match tests, a real process.

    python crashing_engine.py ENGINE COUNTER N

Passes every line between its pipes and ENGINE (a real UCI/UCCI engine) unchanged, and
counts the ``go`` commands of all its runs in the file COUNTER (one line per ``go``).
Once N have been answered, each further ``go`` makes it exit at once (code 3), so a
restarted copy crashes again: the engine fails for good from its (N+1)-th search on.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def main(engine: str, counter: str, limit: int) -> int:
    child = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    source = child.stdout

    def pump() -> None:
        for line in source:
            sys.stdout.write(line)
            sys.stdout.flush()

    threading.Thread(target=pump, daemon=True).start()
    for line in sys.stdin:
        if line.startswith("go"):
            with open(counter, "a+") as fh:
                fh.seek(0)
                done = len(fh.readlines())
                if done >= limit:
                    child.kill()
                    os._exit(3)
                fh.write("go\n")
        child.stdin.write(line)
        child.stdin.flush()
        if line.strip() == "quit":
            break
    child.wait(5)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
