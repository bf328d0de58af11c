"""``ladder calibrate`` as a user runs it: a subprocess with real engines, a tiny ladder
and plan, resumed from its record, and the shipped levels file left alone."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ladder.calibration.plan import Plan
from ladder.calibration.record import record_path
from ladder.calibration.run import CalibrationConfig, run_calibration
from ladder.levels import LEVELS_FILE, load_levels, play_settings
from ladder.match.game.play import GameRecord
from ladder.match.output.store import ResultStore

TINY_LEVELS = """
[[level]]
level = 1
nodes = 200
multipv = 8
temperature_cp = 300

[[level]]
level = 2
nodes = 200
multipv = 8
temperature_cp = 60

[[level]]
level = 3
nodes = 50
"""
TINY_LEVELS += "".join(
    f"\n[[level]]\nlevel = {n}\nnodes = {nodes}\n"
    for n, nodes in ((4, 100), (5, 200), (6, 400), (7, 800), (8, 1600))
)
TINY_PLAN = """
games = 2
skip_one_games = 0
max_games = 4
[adjudication]
max_plies = 40
[[extra]]
name = "plain-L2"
spec = "level:2,variety=off"
opponents = ["L2"]
games = 2
"""


def _ladder(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("ladder")
    return subprocess.run(
        [str(exe), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_tiny_calibration_plays_resumes_and_writes_only_its_output(tmp_path: Path) -> None:
    shipped = hashlib.sha256(LEVELS_FILE.read_bytes()).hexdigest()
    levels, plan = tmp_path / "levels.toml", tmp_path / "plan.toml"
    levels.write_text(TINY_LEVELS)
    plan.write_text(TINY_PLAN)
    common: list[str | Path] = [
        "calibrate",
        "--variant",
        "xiangqi",
        "--levels",
        levels,
        "--plan",
        plan,
        "--record",
        tmp_path / "rec",
        "--bootstrap",
        "20",
        "-j",
        "2",
    ]
    (tmp_path / "rec").mkdir()
    # a variety record beside the game record: its level 1 as the file plays it, its
    # level 2 measured on other settings
    tiny = load_levels(levels)["xiangqi"]
    variety = {
        "variant": "xiangqi", "seeds": 20, "moves": 5, "opponent_nodes": 3000,
        "levels": {"1": {"opening 1": 20, "opening 2": 17}, "2": {"opening 1": 9}},
        "settings": {"1": play_settings(tiny[1]), "2": play_settings(tiny[3])},
    }  # fmt: skip
    (tmp_path / "rec" / "variety-xiangqi.json").write_text(json.dumps(variety))
    run = _ladder(*common, "--db", tmp_path / "a.sqlite", "--docs", tmp_path / "docs", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "round 1: widest gaps" in run.stderr  # the adaptive rounds ran, with progress
    with ResultStore(tmp_path / "a.sqlite") as store:
        played = {m["match_id"]: len(store.done_games(m["match_id"])) for m in store.matches()}
    counts = list(played.values())
    bottom = [n for match_id, n in played.items() if "random" in match_id or "greedy" in match_id]
    chain = [
        n
        for match_id, n in played.items()
        if "plain-L2" not in match_id and "random" not in match_id and "greedy" not in match_id
    ]
    assert chain and all(n == 4 for n in chain)  # first 2 games, then up to the maximum
    # the chain's bottom (random-greedy, greedy-L1) links level 1 to random: its first
    # games only, as no criterion asks its precision
    assert bottom and all(n == 2 for n in bottom)
    # the extra starts once the chain below it is decided, and plays its 2 games
    assert "the chain is decided below them: xiangqi plain-L2-L2" in run.stderr
    assert [n for match_id, n in played.items() if "plain-L2" in match_id] == [2]
    out = load_levels(tmp_path / "levels-calibrated.toml")["xiangqi"]
    assert all(lv.rating is not None and lv.rating.games > 0 for lv in out.values())
    assert all(lv.seconds_per_move is not None for lv in out.values())
    assert load_levels(levels)["xiangqi"][1].rating is None  # --levels untouched
    assert hashlib.sha256(LEVELS_FILE.read_bytes()).hexdigest() == shipped
    ladder_md = (tmp_path / "docs" / "ladder.md").read_text()
    assert "## xiangqi" in ladder_md and "Calibration in progress" in ladder_md
    assert "| 1 | 17 | 20 17 | met |" in ladder_md
    assert "| 2 (measured on earlier settings) | 9 | 9 | not met |" in ladder_md
    assert "not decided" in run.stderr  # 4 games decide no criterion
    # A fresh database resumes from the record: nothing is played again.
    again = _ladder(
        *common, "--db", tmp_path / "b.sqlite", "--out", tmp_path / "o.toml", cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr
    assert f"{sum(counts)} games from the record" in again.stderr
    assert "the chain is decided below them" not in again.stderr  # its games are stored
    with ResultStore(tmp_path / "b.sqlite") as store:
        assert sum(1 for _ in store.records()) == sum(counts)
    assert load_levels(tmp_path / "o.toml")["xiangqi"][8].rating == out[8].rating
    assert record_path(tmp_path / "rec", "xiangqi").exists()
    # --write replaces the file given by --levels, and only then.
    wrote = _ladder(*common, "--db", tmp_path / "b.sqlite", "--fit-only", "--write", cwd=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    assert load_levels(levels)["xiangqi"][8].rating == out[8].rating


def test_bad_arguments_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "plan.toml").write_text("games = 1\n")
    for args, message in (
        (["--plan", tmp_path / "plan.toml"], "games >= 2"),
        (["--plan", tmp_path / "missing.toml"], "missing.toml"),
        (["--levels", tmp_path / "missing.toml"], "missing.toml"),
        (["-j", "0"], "--concurrency"),
    ):
        run = _ladder("calibrate", "--db", tmp_path / "x.sqlite", *args, cwd=tmp_path)
        assert run.returncode == 2, run.stderr
        assert message in run.stderr and "Traceback" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1


def test_each_round_fits_every_stored_game_read_once_not_again_after_every_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rounds' fits see every game stored so far, in the store's order, but the
    database is read for them once a run (and once more for the final fit): each game
    played is added as it is stored. Reading every stored game back after every round
    took 4 s a round for the 39,000 games of the committed record."""
    from ladder.calibration import run as calibration_run

    levels, plan = tmp_path / "levels.toml", tmp_path / "plan.toml"
    levels.write_text(TINY_LEVELS)
    plan.write_text(TINY_PLAN)
    reads: list[int] = []
    fitted: list[list[tuple[str, int]]] = []
    real_records, real_fit = calibration_run._records, calibration_run.fit_pool

    def counted_records(*args: Any) -> list[GameRecord]:
        games = real_records(*args)
        reads.append(len(games))
        return games

    def seen_fit(games: list[GameRecord], *args: Any, **kw: Any) -> Any:
        fitted.append([(g.match_id, g.game_no) for g in games])
        return real_fit(games, *args, **kw)

    monkeypatch.setattr(calibration_run, "_records", counted_records)
    monkeypatch.setattr(calibration_run, "fit_pool", seen_fit)
    out = io.StringIO()
    config = CalibrationConfig(
        variants=("xiangqi",), plan=Plan.load(plan), levels_file=levels, out=tmp_path / "o.toml"
    )
    run_calibration(
        config, db=tmp_path / "c.sqlite", concurrency=2, console=Console(file=out, width=200)
    )
    assert out.getvalue().count("round ") >= 2, out.getvalue()  # several rounds ran
    with ResultStore(tmp_path / "c.sqlite") as store:
        stored = [(r.match_id, r.game_no) for r in store.records()]
    assert reads == [0, len(stored)]  # before the rounds (nothing yet), for the final fit
    assert fitted[-1] == stored  # the last round's fit: every game, as the store has them
    assert len(fitted[0]) < len(stored)
