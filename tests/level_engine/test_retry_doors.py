"""Every door tries a search under the one retry policy (protocol/retry.py): an engine
that starts but crashes at every search (tests/faulty_engine.py, a real process) gets
the same number of attempts, each on a fresh process, from the service (`ladder serve`
over HTTP), `ladder move` and a match, and each says so in the same words."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx

from ladder.match.exit_codes import ExitCode
from protocol.retry import ATTEMPTS
from tests.service.helpers import OUT_OF_BOOK, run_ladder, service_engine, start_server

FAULTY_ENGINE = Path(__file__).parents[1] / "faulty_engine.py"
COUNTED = re.compile(r"engine failed (\d+) time\(s\): ")


def _crashing(tmp_path: Path, name: str, searches: int) -> str:
    """An engine that passes its start-up checks and ``searches`` searches, then crashes
    at every search, in a restarted process too."""
    wrapper = tmp_path / f"{name}.sh"
    wrapper.write_text(
        f"#!/bin/sh\nexec {sys.executable} {FAULTY_ENGINE} {service_engine()} "
        f"--crash-after {searches} {tmp_path / name}.count --spare-start-ups\n"
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def _attempts(message: str) -> int:
    counted = COUNTED.search(message)
    assert counted is not None, message
    return int(counted.group(1))


def test_the_service_ladder_move_and_a_match_make_the_same_attempts(tmp_path: Path) -> None:
    server = start_server(engines=2, env={"LADDER_ENGINE": _crashing(tmp_path, "serve", 0)})
    try:
        body = {"variant": "xiangqi", "moves": OUT_OF_BOOK, "level": 2, "seed": 1}
        r = httpx.post(server.url + "/v1/move", json=body, timeout=60)
        assert r.status_code == 502, r.text
        assert r.json()["error"]["code"] == "engine_failed"
        service = _attempts(r.json()["error"]["message"])
    finally:
        server.stop()

    moves = " ".join(OUT_OF_BOOK)
    cli = run_ladder(
        "move", "--variant", "xiangqi", "--moves", moves, "--level", "2", "--seed", "1",
        LADDER_ENGINE=_crashing(tmp_path, "move", 0),
    )  # fmt: skip
    assert cli.returncode != 0 and "Traceback" not in cli.stderr, cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1, cli.stderr

    # the match's check before its first game is one search: the games' searches crash
    match = run_ladder(
        "match", "level:2", "random", "--variant", "xiangqi", "--games", "1", "-j", "1",
        LADDER_ENGINE=_crashing(tmp_path, "match", 1),
    )  # fmt: skip
    assert match.returncode == ExitCode.ENGINE_FAILURE, match.stderr
    assert "lost to an engine failure" in match.stderr, match.stderr

    assert service == _attempts(cli.stderr) == _attempts(match.stderr) == ATTEMPTS
