"""`ladder levels --measure` (each level's median time a move as served, measured on
this machine) and what reads it: `ladder serve --level-times` (/v1/levels), `ladder
levels --level-times`; a file of another engine build, or not one at all, refused in
one line (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ladder.engine_binary import engine_build_key
from ladder.levels import LEVEL_NUMBERS, LEVELS_FILE, levels_version
from ladder.variants import VARIANT_IDS

from .service.helpers import run_ladder, service_engine, start_server


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("times") / "level-times.json"
    done = run_ladder("levels", "--measure", "--positions", "1", "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stderr
    assert str(out) in done.stdout
    yield out


def seconds(path: Path) -> dict[str, dict[str, float]]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data["seconds"]


def test_every_level_is_measured_with_this_engine_and_ladder(measured: Path) -> None:
    data = json.loads(measured.read_text())
    assert data["engine_build"] == engine_build_key(service_engine())
    assert data["levels_version"] == levels_version(LEVELS_FILE)
    table = seconds(measured)
    assert set(table) == set(VARIANT_IDS)
    for variant in VARIANT_IDS:
        assert sorted(int(n) for n in table[variant]) == list(LEVEL_NUMBERS)
        assert all(0 < s < 30 for s in table[variant].values())
        # the strongest level searches 200,000 nodes or more: slower than the weakest
        assert table[variant]["8"] > table[variant]["1"]


def test_the_server_and_ladder_levels_say_the_measured_times(measured: Path) -> None:
    table = seconds(measured)
    server = start_server("--level-times", str(measured), engines=1)
    try:
        levels = httpx.get(server.url + "/v1/levels", timeout=30).json()["levels"]
    finally:
        server.stop()
    listed = run_ladder("levels", "--json", "--level-times", str(measured))
    assert listed.returncode == 0, listed.stderr
    for answer in (levels, json.loads(listed.stdout)):
        for variant, rows in answer.items():
            for row in rows:
                assert row["expected_source"] == "measured"
                assert row["expected_seconds"] == table[variant][str(row["level"])]
    text = run_ladder("levels", "--level-times", str(measured)).stdout
    assert "the median measured on" in text


def test_a_file_of_another_build_or_no_file_is_one_line(measured: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    data = json.loads(measured.read_text())
    other.write_text(json.dumps({**data, "engine_build": "engine-fast-patched-0000"}))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    for path, says in (
        (other, "engine build engine-fast-patched-0000"),
        (broken, "unreadable"),
        (tmp_path / "missing.json", "No such file"),
    ):
        for command in (["serve", "--port", "0"], ["levels"]):
            done = run_ladder(*command, "--level-times", str(path), timeout=60)
            assert done.returncode == 2, (command, done.stdout, done.stderr)
            (line,) = done.stderr.strip().splitlines()
            assert str(path) in line and says in line, line
    done = run_ladder("levels", "--measure", "--positions", "0")
    assert done.returncode == 2 and "--positions" in done.stderr
