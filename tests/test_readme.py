"""The README's code blocks run, and say what they do.

Python blocks are executed statement by statement; an expression whose comment starts
with a Python literal (``# 79666``, ``# ['e1e2', 'b3b4', ...]``, ``# False (why)``) must
evaluate to it (``...`` at the end of a list: the list starts so). Shell blocks: each
command runs from a temporary folder with the checkout's ``ladder`` (the ``curl`` example
against a server started for it), unless it is one of the kinds :data:`NOT_RUN` lists
with the test that runs it instead; any other command fails the test until it is sorted
into one or the other.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ladder.client import wait_until_healthy

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LADDER = Path(sys.executable).with_name("ladder")
#: Fenced block languages: run (python, sh) or configuration for other programs.
LANGUAGES = {"python", "sh", "nginx"}
#: Commands not run here (matched on the command line), and what runs them instead.
NOT_RUN = {
    "make ": "`make test` is the suite itself; `make serve` is `ladder serve`",
    "/opt/ladder": "the Dockerfile's build steps: tests/deploy runs them outside the checkout",
    "python3 -m ": "the Dockerfile's build steps: tests/deploy runs them outside the checkout",
    "export ": "the Dockerfile's build steps: tests/deploy runs them outside the checkout",
    "ladder serve": "started by this test for the curl example, and by tests/service",
    "ladder engine build": "a 5-minute build: tests/deploy and tests/test_engine_cli.py",
    "docker ": "no Docker daemon here: tests/deploy/test_dockerfile.py runs its steps",
    "systemctl ": "tests/deploy/test_systemd.py verifies the unit",
}
SERVER_START_TIMEOUT = 90.0


def blocks(language: str | None = None) -> Iterator[tuple[int, str, str]]:
    """(line number, language, text) of every fenced block of the README."""
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", README.read_text(), re.M | re.S):
        line = README.read_text()[: match.start()].count("\n") + 1
        if language is None or match.group(1) == language:
            yield line, match.group(1), match.group(2)


def expected_value(comment: str) -> tuple[bool, Any]:
    """(True, value) if the comment starts with a Python literal, else (False, None)."""
    text = comment.lstrip("#").strip()
    for candidate in (text, text.split(" (")[0], text.split(": ")[0]):
        try:
            return True, ast.literal_eval(candidate)
        except (ValueError, SyntaxError):
            continue
    return False, None


def matches(value: Any, expected: Any) -> bool:
    if isinstance(expected, list) and expected and expected[-1] is Ellipsis:
        head = expected[:-1]
        return isinstance(value, list) and value[: len(head)] == head
    return bool(value == expected)


def test_every_block_has_a_known_language() -> None:
    found = [(line, lang) for line, lang, _ in blocks()]
    assert found, "the README has no fenced code block"
    assert all(lang in LANGUAGES for _, lang in found), found


@pytest.mark.parametrize("line", [line for line, _, _ in blocks("python")])
def test_python_block_runs_and_results_are_as_commented(line: int) -> None:
    (source,) = [text for at, _, text in blocks("python") if at == line]
    comments = {
        tok.start[0]: tok.string
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    namespace: dict[str, Any] = {}
    checked = 0
    for stmt in ast.parse(source).body:
        code = ast.get_source_segment(source, stmt)
        where = f"README.md line {line + stmt.lineno}: {code}"
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
            known, expected = expected_value(comments.get(stmt.end_lineno or 0, ""))
            if known:
                assert matches(value, expected), f"{where} gives {value!r}"
                checked += 1
        else:
            exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
    assert checked, "no result comment checked: the block says nothing testable"


def shell_commands() -> list[tuple[int, str]]:
    """(README line, command) of every shell block, continuation lines joined."""
    out = []
    for line, _, text in blocks("sh"):
        for i, command in enumerate(text.replace("\\\n", " ").splitlines()):
            words = shlex.split(command, comments=True)
            if words:
                out.append((line + 1 + i, " ".join(shlex.quote(w) for w in words)))
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ladder serve` from the checkout, as `make serve` starts it, on a free port."""
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(LADDER), "serve", "--host", "127.0.0.1", "--port", str(port), "--engines", "1"],
            stdout=out,
            stderr=out,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        up = wait_until_healthy(url, SERVER_START_TIMEOUT, lambda: server.poll() is None)
        assert up, log.read_text()
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def test_every_shell_command_is_run_or_sorted() -> None:
    commands = shell_commands()
    assert commands
    for line, command in commands:
        runnable = command.startswith(("curl ", ".venv/bin/ladder ", "ladder "))
        skipped = any(kind in command for kind in NOT_RUN)
        assert runnable or skipped, f"README.md line {line}: sort out {command!r}"


@pytest.mark.parametrize(
    "command",
    [
        c
        for _, c in shell_commands()
        if c.startswith(("curl ", ".venv/bin/ladder ", "ladder "))
        and not any(kind in c for kind in NOT_RUN)
    ],
)
def test_shell_command_runs(command: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    words = shlex.split(command)
    if words[0] == "curl":
        if shutil.which("curl") is None:
            pytest.skip("curl is not installed")
        url: str = request.getfixturevalue("server_url")
        words = [w.replace("127.0.0.1:8000", url.removeprefix("http://")) for w in words]
    else:
        words[0] = str(LADDER)  # the checkout's, from a folder outside it
    done = subprocess.run(
        words, cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip(), done.stderr
    if words[0] == "curl":
        assert '"move"' in done.stdout, done.stdout
