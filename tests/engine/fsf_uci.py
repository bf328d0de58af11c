"""A small synchronous UCI driver for Fairy-Stockfish, local to the engine tests.

Real engine, real pipes: every exchange is a command and a read up to a marker line, with a
deadline, so that no test can hang on a silent engine.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

DEFAULT_TIMEOUT = 30.0


class EngineError(RuntimeError):
    """The engine died, timed out or answered something unexpected."""


class UciEngine:
    """One Fairy-Stockfish process spoken to over UCI."""

    def __init__(
        self, exe: Path, variants_ini: Path | None = None, timeout: float = DEFAULT_TIMEOUT
    ):
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [str(exe)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send("uci")
        self.read_until(lambda line: line == "uciok")
        if variants_ini is not None:
            self.send(f"setoption name VariantPath value {variants_ini}")
        self.sync()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError as exc:  # pragma: no cover - engine crashed
            raise EngineError(f"engine pipe closed while sending {command!r}") from exc

    def read_until(self, done: Callable[[str], bool], timeout: float | None = None) -> list[str]:
        """Lines up to and including the first one for which done(line) is true."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        out: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineError(f"timeout; engine said so far: {out[-20:]}")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise EngineError(f"engine exited; it said: {out[-20:]}")
            out.append(line)
            if done(line):
                return out

    def sync(self) -> list[str]:
        """isready/readyok: everything the engine said since the last command."""
        self.send("isready")
        return self.read_until(lambda line: line == "readyok")[:-1]

    def variant(self, name: str) -> list[str]:
        self.send(f"setoption name UCI_Variant value {name}")
        return self.sync()

    def position(self, fen: str | None = None, moves: Iterable[str] = ()) -> None:
        cmd = "position startpos" if fen is None else f"position fen {fen}"
        moves = list(moves)
        if moves:
            cmd += " moves " + " ".join(moves)
        self.send(cmd)

    def fen(self) -> str:
        """The current position's FEN, read from the `d` board display."""
        self.send("d")
        lines = self.read_until(lambda line: line.startswith("Fen: "))
        self.sync()
        return lines[-1][len("Fen: ") :]

    def perft_divide(self, depth: int, timeout: float | None = None) -> tuple[dict[str, int], int]:
        """Per-move leaf counts and the total of `go perft depth`."""
        self.send(f"go perft {depth}")
        lines = self.read_until(lambda line: line.startswith("Nodes searched:"), timeout)
        total = int(lines[-1].split(":")[1])
        divide: dict[str, int] = {}
        for line in lines[:-1]:
            m = re.fullmatch(r"(\S+): (\d+)", line)
            if m:
                divide[m.group(1)] = int(m.group(2))
        self.sync()
        return divide, total

    def perft(self, depth: int, timeout: float | None = None) -> int:
        return self.perft_divide(depth, timeout)[1]

    def legal_moves(self) -> set[str]:
        return set(self.perft_divide(1)[0])

    def go_depth(self, depth: int, timeout: float | None = None) -> tuple[str, list[str]]:
        """bestmove and the info lines of a fixed-depth search."""
        self.send(f"go depth {depth}")
        lines = self.read_until(lambda line: line.startswith("bestmove"), timeout)
        return lines[-1].split()[1], lines[:-1]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=5)
            except (EngineError, subprocess.TimeoutExpired, OSError):
                self.proc.kill()
                self.proc.wait(timeout=5)

    def __enter__(self) -> UciEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
