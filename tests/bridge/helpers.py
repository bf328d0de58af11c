"""Driving a line-protocol process (`ladder uci|ucci|xboard`, an engine) from a test:
lines go in, and the test waits for the lines it expects (events, not time; the
deadline is only there so that a broken process fails the test instead of hanging it)."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

#: The `ladder` command of this virtualenv (the door users use).
LADDER = str(Path(sys.executable).with_name("ladder"))
#: Long enough for a level-8 search on a loaded 2-core machine.
DEADLINE = 120.0
#: What a clocked move may spend before the engine's `go` (read, checked, queued, the
#: engine set up), on a loaded machine, with room: the limit the engine gets is the
#: clock rule's less at most this.
CLOCK_SLACK_MS = 250


class LineSession:
    """A process spoken to over its stdin/stdout, one line at a time."""

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env={**os.environ, **(env or {})},
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        self.seen: list[str] = []  # every line read so far
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, False), daemon=True).start()

    def _pump(self, stream: object, is_stdout: bool) -> None:
        for line in stream:  # type: ignore[attr-defined]
            if is_stdout:
                self._lines.put(line.rstrip("\n"))
            else:
                self.stderr.append(line)
        if is_stdout:
            self._lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def expect(self, wanted: str | Callable[[str], bool], deadline: float = DEADLINE) -> list[str]:
        """Lines up to and including the first that starts with ``wanted`` (or that
        ``wanted`` accepts)."""
        accept = wanted if callable(wanted) else (lambda line: line.startswith(wanted))
        got: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=deadline)
            except queue.Empty:
                raise AssertionError(f"no {wanted!r} within {deadline}s; got {got}") from None
            if line is None:
                raise AssertionError(
                    f"{self.argv[-1]} ended before {wanted!r}; got {got}; "
                    f"stderr: {''.join(self.stderr)[-2000:]}"
                )
            got.append(line)
            self.seen.append(line)
            if accept(line):
                return got

    def wait(self, deadline: float = DEADLINE) -> int:
        return self.proc.wait(timeout=deadline)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> LineSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


#: A ``go`` the bridge sent its engine, in the wire log (``ladder --log-level debug``).
_ENGINE_GO = re.compile(r"> (go .*)$")


def engine_goes(session: LineSession, count: int) -> list[str]:
    """The first ``count`` ``go`` lines a bridge run with ``--log-level debug`` sent its
    engine, from its standard error (waits for them: stderr is read by its own thread)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        goes = [m[1] for line in list(session.stderr) if (m := _ENGINE_GO.search(line.rstrip()))]
        if len(goes) >= count or time.monotonic() > deadline:
            assert len(goes) >= count, f"{len(goes)} go lines of {count}: {goes}"
            return goes[:count]
        time.sleep(0.05)


def ladder(dialect: str, *args: str) -> LineSession:
    """`ladder DIALECT ARGS…` as a subprocess."""
    return LineSession([LADDER, dialect, *args])


#: A small levels file with a rating for every level of every variant (the shipped one
#: may not be calibrated yet), so that the Elo option can be tried.
RATED_LEVELS = "\n".join(
    [
        "[defaults]\nthreads = 1\nhash_mb = 16\n",
        *(
            f"[[level]]\nlevel = {n}\nnodes = {200 * n}\n"
            + ("multipv = 10\ntemperature_cp = 100\n" if n <= 3 else "")
            for n in range(1, 9)
        ),
        *(
            f"[variant.{variant}.{n}]\nelo = {100.0 * n}\nelo_lo = {100.0 * n - 40}\n"
            f"elo_hi = {100.0 * n + 40}\ngames = 200\n"
            for variant in ("xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi")
            for n in range(1, 9)
        ),
    ]
)


def atomic_rated_higher(folder: Path) -> Path:
    """:data:`RATED_LEVELS` with atomic's ratings 100 higher (200..900; the other
    variants 100..800), written in ``folder``: an Elo one variant plays and another
    does not."""
    lines = RATED_LEVELS.split("\n")
    atomic = False
    for i, line in enumerate(lines):
        if line.startswith("[variant."):
            atomic = line.startswith("[variant.atomic-xiangqi.")
        elif atomic and line.startswith(("elo =", "elo_lo =", "elo_hi =")):
            key, value = line.split(" = ")
            lines[i] = f"{key} = {float(value) + 100}"
    path = folder / "atomic-rated-higher.toml"
    path.write_text("\n".join(lines))
    return path
