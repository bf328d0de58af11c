"""`ladder doctor`, as a subprocess: all well on our build; one line per problem and a
failing exit status on a stock engine, an engine that does not start, a missing engine
and a broken levels file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.doctor import REFERENCE_POSITIONS
from ladder.engine_build import EngineBuild
from ladder.levels import LEVELS_FILE

LADDER = Path(sys.executable).with_name("ladder")
DEBIAN_FSF = Path("/usr/games/fairy-stockfish")
FAKE_ENGINE = Path(__file__).parent / "protocol" / "fake_engine.py"


def doctor(*args: str, **env: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [str(LADDER), "doctor", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


def failures(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in lines:
        status, check, message = line.split(maxsplit=2)
        if status == "FAIL":
            out.setdefault(check, []).append(message)
    return out


def test_all_well_on_our_build(engine_exe: Path) -> None:
    code, lines = doctor("--engine", str(engine_exe))
    assert code == 0, lines
    assert [line.split()[:2] for line in lines] == [
        ["ok", "engine"],
        ["ok", "variants"],
        ["ok", "reference"],
        ["ok", "levels"],
        ["ok", "pyffish"],
    ]
    assert EngineBuild().key() in lines[0]
    assert f"{len(REFERENCE_POSITIONS)} worked facts" in lines[2]


def test_the_stock_engine_fails_the_patch_checks(unpatched_engine_exe: Path) -> None:
    code, lines = doctor("--engine", str(unpatched_engine_exe))
    assert code == 1
    bad = failures(lines)
    assert set(bad) == {"engine", "reference"}
    assert bad["engine"][0].endswith("has no FinalInfoOnly option: not our patched build")
    # the orthogonal blast is ours: a stock engine blows up e9 too
    assert bad["reference"] == [
        "atomic-xiangqi: the blast on d8 takes e8 (orthogonal), e9 (diagonal) stays: "
        "the engine counts 1, docs/rules.md 5"
    ]


def test_an_older_fairy_stockfish_fails() -> None:
    if not DEBIAN_FSF.exists():
        pytest.fail(f"{DEBIAN_FSF} missing: run scripts/install_reference_engines.sh")
    code, lines = doctor("--engine", str(DEBIAN_FSF))
    assert code == 1
    assert "no build key" in lines[0]
    assert len(failures(lines)["reference"]) >= 1


def test_an_engine_that_does_not_start(tmp_path: Path) -> None:
    crashing = tmp_path / "crashing-engine"
    crashing.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_ENGINE} crash-at-start\n")
    crashing.chmod(0o755)
    code, lines = doctor("--engine", str(crashing))
    assert code == 1
    bad = failures(lines)
    assert "does not answer the UCI handshake" in bad["engine"][0]
    assert "\n" not in bad["engine"][0]


def test_no_engine(tmp_path: Path) -> None:
    code, lines = doctor("--engine", str(tmp_path / "nothing"))
    assert code == 1
    assert failures(lines) == {
        "engine": [
            f"no engine executable at {tmp_path / 'nothing'} (from --engine); "
            "run `make engine` (or `ladder engine build`)"
        ],
        "variants": ["not checked: no engine"],
        "reference": ["not checked: no engine"],
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[level]\n", "Expected ']]'"),
        ("", "levels must be exactly 1..8"),
        (LEVELS_FILE.read_text().replace("threads = 1", "threads = 2", 1), "threads must be 1"),
    ],
)
def test_a_broken_levels_file(tmp_path: Path, engine_exe: Path, text: str, problem: str) -> None:
    levels = tmp_path / "levels.toml"
    levels.write_text(text)
    code, lines = doctor("--engine", str(engine_exe), "--levels", str(levels))
    assert code == 1
    (message,) = failures(lines)["levels"]
    assert message.startswith(f"{levels}: ") and problem in message
    assert message.count(str(levels)) == 1
