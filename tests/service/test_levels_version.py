"""Every answer says which ladder played it: the levels file's version in `/v1/move`,
`/v1/levels`, `ladder levels` and the bridge's engine name; `ladder serve
--levels-version` pins a levels file."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from ladder.levels import LEVELS_FILE, levels_version

from .helpers import ROOT, service_engine, start_server

#: The `ladder` command of this environment.
LADDER = str(Path(sys.executable).with_name("ladder"))


def test_the_version_is_the_files_digest(tmp_path: Path) -> None:
    assert levels_version() == hashlib.sha256(LEVELS_FILE.read_bytes()).hexdigest()[:12]
    other = tmp_path / "levels.toml"
    other.write_text(LEVELS_FILE.read_text() + "\n# retuned\n")
    assert levels_version(other) != levels_version()


def test_move_and_levels_answers_carry_the_version(tmp_path: Path) -> None:
    levels = tmp_path / "levels.toml"
    levels.write_text(LEVELS_FILE.read_text() + "\n# a copy of the ladder\n")
    version = levels_version(levels)
    server = start_server("--levels", str(levels), "--levels-version", version, engines=1)
    try:
        with server.client() as http:
            move = http.post(
                "/v1/move", json={"variant": "xiangqi", "moves": ["h3e3"], "level": 2, "seed": 4}
            )
            assert move.status_code == 200, move.text
            assert move.json()["levels_version"] == version
            table = http.get("/v1/levels").json()
            assert table["levels_version"] == version
            # The human reference, where the reference search can judge the level.
            xiangqi = {row["level"]: row for row in table["levels"]["xiangqi"]}
            ref = xiangqi[1]["human_reference"]
            assert 0 <= ref["master_move_share"] <= 1 and ref["masters_mean_loss_cp"] > 0
            assert xiangqi[8]["human_reference"] is None
    finally:
        server.stop()


def test_a_pinned_version_that_does_not_match_refuses_to_start() -> None:
    run = subprocess.run(
        [LADDER, "serve", "--port", "0", "--levels-version", "0123abcd0123"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"LADDER_ENGINE": str(service_engine()), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and f"is version {levels_version()}" in lines[0], run.stderr
    assert "Traceback" not in run.stderr


def test_ladder_levels_and_the_bridge_name_the_version() -> None:
    version = levels_version()
    cli = [LADDER]
    text = subprocess.run([*cli, "levels"], capture_output=True, text=True, check=True, cwd=ROOT)
    assert text.stdout.splitlines()[0].startswith(f"ladder version {version}")
    table = json.loads(
        subprocess.run(
            [*cli, "levels", "--json"], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
    )
    assert {row["levels_version"] for rows in table.values() for row in rows} == {version}
    uci = subprocess.run(
        [*cli, "uci"], input="uci\nquit\n", capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert f"ladder {version})" in uci.stdout.splitlines()[0]
