#!/usr/bin/env python3
"""A real engine that fails twice in a row, as an engine SIGKILLed every 2 s once did:
fault injection for the service's retry, a real process.

    python dying_engine.py ENGINE STATE_DIR

Passes every line between its pipes and ENGINE (a real UCCI/UCI engine) unchanged, except:
the first ``go`` of all its runs that is not a start-up check's (``go nodes 1``) makes it
exit at once (code 3) and arms the next copy started: that copy exits at its first
``isready`` (a replacement killed during its start-up). Copies already running are not
armed. STATE_DIR holds the state the copies share.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path


def main() -> int:
    engine, state = sys.argv[1], Path(sys.argv[2])
    armed = state / "armed"
    try:
        armed.unlink()  # this copy is the replacement: it dies at its first isready
        doomed = True
    except FileNotFoundError:
        doomed = False
    child = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    source = child.stdout

    def pump() -> None:
        for line in source:
            sys.stdout.write(line)
            sys.stdout.flush()

    threading.Thread(target=pump, daemon=True).start()
    for line in sys.stdin:
        if doomed and line.startswith("isready"):
            child.kill()
            os._exit(3)
        if line.startswith("go") and line.split() != ["go", "nodes", "1"]:
            try:
                (state / "crashed").open("x").close()  # the first such search, of all copies
            except FileExistsError:
                pass
            else:
                armed.touch()
                child.kill()
                os._exit(3)
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
