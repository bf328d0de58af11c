"""Run ``ladder serve`` as a child process and know when it serves (scripts, tests).

    with ServeProcess(["--engines", "1"]) as server:   # `ladder serve --port 0 ...`
        httpx.get(server.url + "/healthz")
        server.wait_for_log(lambda line: '"event": "request"' in line)

Readiness is an event, not a poll: ``ladder serve`` prints its URL on stdout, alone on
its line, once the engines run and the socket accepts connections; :meth:`start`
returns when that line comes (or raises with the log's tail if the process ends
first). stderr (the log) is read all along into :attr:`ServeProcess.log_lines`.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Self

import psutil

#: The line ``ladder serve`` prints once it serves.
URL_LINE = re.compile(r"^https?://\S+$")


def ladder_command() -> list[str]:
    """The ``ladder`` console script beside this interpreter (else ``python -m``)."""
    script = Path(sys.executable).with_name("ladder")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ladder.cli"]


class ServeProcess:
    """``ladder serve --port 0 ARGS`` (or any `command` that ends up printing the URL
    line, such as ``make serve``) in its own process group."""

    def __init__(
        self,
        args: Sequence[str] = (),
        *,
        command: Sequence[str] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
    ) -> None:
        self.command = (
            list(command)
            if command is not None
            else [*ladder_command(), "serve", "--port", "0", *args]
        )
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.log_lines: list[str] = []
        self.stdout_lines: list[str] = []
        self._changed = threading.Condition()
        self._readers: list[threading.Thread] = []

    # -- life cycle -------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> ServeProcess:
        """Start it and wait for its URL line; RuntimeError if it exits or times out."""
        self.proc = subprocess.Popen(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream, sink in (
            (self.proc.stdout, self.stdout_lines),
            (self.proc.stderr, self.log_lines),
        ):
            reader = threading.Thread(target=self._read, args=(stream, sink), daemon=True)
            reader.start()
            self._readers.append(reader)
        with self._changed:
            ready = self._changed.wait_for(lambda: bool(self.url) or self._ended(), timeout)
        if not self.url:
            self.stop()
            why = "exited" if ready else f"did not print its URL within {timeout:g} s"
            raise RuntimeError(
                f"{' '.join(self.command)} {why}:\n" + "\n".join(self.log_lines[-20:])
            )
        return self

    def _read(self, stream: object, sink: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            line = line.rstrip("\n")
            with self._changed:
                sink.append(line)
                if sink is self.stdout_lines and not self.url and URL_LINE.match(line):
                    self.url = line
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _ended(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

    @property
    def pid(self) -> int:
        """The process started (for ``make serve``: make's)."""
        assert self.proc is not None
        return self.proc.pid

    def server_pid(self) -> int:
        """The ``ladder serve`` process: the one started, or its descendant running it."""
        root = psutil.Process(self.pid)
        for proc in [root, *root.children(recursive=True)]:
            try:
                argv = proc.cmdline()
            except psutil.Error:
                continue
            if "serve" in argv and any(a.endswith("ladder") or a == "ladder.cli" for a in argv):
                return proc.pid
        return self.pid

    def engine_pids(self) -> list[int]:
        """Engine processes the server runs now."""
        try:
            kids = psutil.Process(self.server_pid()).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        pids = []
        for kid in kids:
            try:
                if kid.status() != psutil.STATUS_ZOMBIE:
                    pids.append(kid.pid)
            except psutil.NoSuchProcess:
                pass
        return pids

    def wait_for_log(
        self, match: Callable[[str], bool], timeout: float = 60.0, start: int = 0
    ) -> str:
        """The first log line from index `start` on for which `match` is true, waiting
        for it up to `timeout` s (TimeoutError)."""
        found: list[str] = []

        def seen() -> bool:
            found[:] = [line for line in self.log_lines[start:] if match(line)][:1]
            return bool(found) or self._ended()

        with self._changed:
            self._changed.wait_for(seen, timeout)
        if not found:
            raise TimeoutError("no such log line; last lines:\n" + "\n".join(self.log_lines[-10:]))
        return found[0]

    def signal(self, sig: int) -> None:
        """Send `sig` to the server process."""
        os.kill(self.server_pid(), sig)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM to its process group, wait (SIGKILL after `timeout`); the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        for reader in self._readers:
            reader.join(timeout=5)
        return self.proc.returncode

    def __enter__(self) -> Self:
        if self.proc is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
