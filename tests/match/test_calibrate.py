"""`ladder calibrate`: pairings, the fit with extrapolation, criteria, written outputs."""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping
from pathlib import Path

from ladder.levels import LEVELS_FILE, load_levels
from ladder.match.adjudication import Adjudication
from ladder.match.calibrate import (
    CalibrationConfig,
    LevelResult,
    calibration_matches,
    check_ladder,
    fit_variant,
    ladder_players,
    pairings,
    run_calibration,
    write_levels_file,
)
from ladder.match.elo import elo_to_score
from ladder.match.play import GameRecord


def _record(red: str, black: str, result: str, pair: int, game: int, mid: str) -> GameRecord:
    return GameRecord(
        match_id=mid,
        game_no=game,
        pair_no=pair,
        opening_no=0,
        variant="xiangqi",
        red=red,
        black=black,
        red_slot="A",
        start_fen="",
        book_plies=0,
        moves=[],
        infos=[],
        result=result,
        winner=None,
        reason="checkmate",
        search_seconds={"red": 0, "black": 0},
        wall_seconds=0,
        worker="x:1",
        finished_at=0,
    )


def _synthetic(truth: Mapping[str, float], pairs_per_match: int, seed: int = 1) -> list[GameRecord]:
    rng = random.Random(seed)
    names = list(truth)
    out = []
    for i in range(len(names) - 1):
        for j in (i + 1, i + 2):
            if j >= len(names):
                continue
            a, b = names[j], names[i]
            mid = f"{a}-{b}"
            for p in range(pairs_per_match):
                for g, (red, black) in enumerate(((a, b), (b, a))):
                    s = elo_to_score(truth[red] - truth[black])
                    res = "1-0" if rng.random() < s else "0-1"
                    out.append(_record(red, black, res, p, 2 * p + g, mid))
    return out


def test_pairings_tie_the_chain_together() -> None:
    players = ladder_players(3)
    assert [p.name for p in players] == ["random", "greedy", "L1", "L2", "L3"]
    pairs = pairings(players, 20)
    named = {(a.name, b.name): n for a, b, n in pairs}
    assert named[("greedy", "random")] == 20 and named[("L3", "L2")] == 20
    assert named[("L1", "random")] == 10 and named[("L3", "L1")] == 10
    assert len(pairs) == 4 + 3


def test_fit_extrapolates_and_marks_it() -> None:
    levels = load_levels()["xiangqi"]
    truth = {"random": 0, "greedy": 150, "L1": 400, "L2": 650, "L3": 900, "L4": 1150}
    cal = fit_variant(_synthetic(truth, 60), "xiangqi", levels, bootstrap=30, seed=1)
    by_level = {lv.level: lv for lv in cal.levels}
    for n in (1, 2, 3, 4):
        lv = by_level[n]
        assert not lv.extrapolated and lv.games > 0
        assert lv.elo_lo < lv.elo < lv.elo_hi  # type: ignore[operator]
        assert abs(lv.elo - truth[f"L{n}"]) < 200  # type: ignore[operator]
    for n in (5, 6, 7, 8):
        lv = by_level[n]
        assert lv.extrapolated and lv.games == 0 and lv.elo is not None
        assert lv.elo_lo < lv.elo < lv.elo_hi  # type: ignore[operator]
    assert by_level[8].elo > by_level[4].elo  # type: ignore[operator]
    names = [c.name for c in cal.criteria]
    assert any("increasing" in n for n in names) and any("greedy" in n for n in names)


def test_extrapolation_follows_the_strongest_levels(tmp_path: Path) -> None:
    # Elo gained per doubling grows with nodes here (as measured in the node scans):
    # the line through the top levels, not through all, predicts the next level.
    path = tmp_path / "levels.toml"
    path.write_text(
        "".join(f"[[level]]\nlevel = {n}\nnodes = {100 * 2**n}\n\n" for n in range(1, 9))
    )
    levels = load_levels(path)["xiangqi"]
    truth = {
        "random": 0,
        "greedy": 150,
        "L1": 300,
        "L2": 350,
        "L3": 450,
        "L4": 650,
        "L5": 850,
        "L6": 1050,
    }
    cal = fit_variant(_synthetic(truth, 200), "xiangqi", levels, bootstrap=10, seed=2)
    by_level = {lv.level: lv for lv in cal.levels}
    step = by_level[7].elo - by_level[6].elo  # type: ignore[operator]
    assert 150 < step < 250  # all six measured levels would give ~150 a doubling


def test_criteria_report_pass_and_fail() -> None:
    levels = load_levels()["xiangqi"]
    good = {"random": 0, "greedy": 300, "L1": 480, "L2": 730, "L3": 980, "L4": 1230}
    cal = fit_variant(_synthetic(good, 1), "xiangqi", levels, bootstrap=0)
    cal.levels = [
        LevelResult(n, lv.nodes, 480 + 250 * (n - 1), 0, 0, 10, n > 4)
        for n, lv in sorted(levels.items())
    ]
    cal.baselines["greedy"] = (300.0, 250.0, 350.0, 10)
    cal.l1_vs_greedy_score = None
    crit = {c.name.split()[0]: c for c in check_ladder(cal)}
    assert crit["strictly"].ok is True and "extrapolated: L5" in crit["strictly"].detail
    assert crit["adjacent"].ok is True
    assert crit["L1"].ok is True  # 180 Elo over greedy: 73 %
    cal.levels[3] = LevelResult(4, 32000, 700, 0, 0, 10, False)  # below L3, gap < 150
    crit = {c.name.split()[0]: c for c in check_ladder(cal)}
    assert crit["strictly"].ok is False and crit["adjacent"].ok is False
    cal.l1_vs_greedy_score, cal.l1_vs_greedy_games = 0.9, 20
    assert {c.name.split()[0]: c for c in check_ladder(cal)}["L1"].ok is False


def test_levels_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "levels.toml"
    # The shipped file without its measured tables (they change with every calibration),
    # plus one per-variant setting that writing must keep.
    base = LEVELS_FILE.read_text().split("\n[variant.")[0]
    path.write_text(base + "\n\n[variant.atomic-xiangqi.1]\nnodes = 800\n")
    results = [
        LevelResult(
            n, 1000 * n, 100.0 * n, 100.0 * n - 50, 100.0 * n + 50, n * 10 if n <= 3 else 0, n > 3
        )
        for n in range(1, 9)
    ]
    write_levels_file(path, {"atomic-xiangqi": results, "xiangqi": results[:2]})
    table = load_levels(path)
    one = table["atomic-xiangqi"][1]
    assert (one.nodes, one.elo, one.elo_lo, one.elo_hi, one.games, one.extrapolated) == (
        800,
        100.0,
        50.0,
        150.0,
        10,
        False,
    )
    assert table["atomic-xiangqi"][8].extrapolated and table["atomic-xiangqi"][8].games == 0
    assert table["xiangqi"][2].elo == 200.0 and table["xiangqi"][3].elo is None
    assert table["crazyhouse-xiangqi"][1].elo is None
    assert path.read_text().startswith(LEVELS_FILE.read_text().split("[variant.")[0][:200])
    # writing again replaces, never duplicates
    write_levels_file(path, {"xiangqi": results[:2]})
    assert path.read_text().count("[variant.xiangqi.1]") == 1


def test_tiny_calibration_run(tmp_path: Path, engine_exe: Path) -> None:
    levels_file = tmp_path / "levels.toml"
    shutil.copy(LEVELS_FILE, levels_file)
    # Levels 1-3 share a node count (they differ by their random-move rates), so the
    # log-nodes line for levels 5-8 needs level 4 too.
    config = CalibrationConfig(
        variants=("xiangqi",),
        max_level=4,
        games=2,
        bootstrap=20,
        adjudication=Adjudication(max_plies=120),
        levels_file=levels_file,
        docs=tmp_path / "docs",
    )
    (cal,) = run_calibration(config, db=tmp_path / "c.sqlite", concurrency=2)
    assert cal.fit is not None and cal.fit.ratings["random"].elo == 0
    assert {"greedy", "L1", "L2", "L4"} <= set(cal.fit.ratings)
    table = load_levels(levels_file)["xiangqi"]
    assert table[1].games and not table[1].extrapolated
    assert table[5].extrapolated and table[5].games == 0 and table[5].elo is not None
    md = (tmp_path / "docs" / "ladder.md").read_text()
    assert "## xiangqi" in md and "**extrapolated**" in md and "Tuning criteria" in md
    assert (tmp_path / "docs" / "ladder-xiangqi.png").read_bytes()[:4] == b"\x89PNG"
    # resumable: a second run plays nothing new
    again = run_calibration(config, db=tmp_path / "c.sqlite", concurrency=2)
    assert again[0].fit is not None and again[0].fit.games == cal.fit.games


def test_a_retuned_level_is_a_new_pairing(tmp_path: Path) -> None:
    base = LEVELS_FILE.read_text().split("\n[variant.")[0]
    path = tmp_path / "levels.toml"

    def ids(variant: str = "xiangqi") -> dict[tuple[str, str], str]:
        cfg = CalibrationConfig(variants=(variant,), max_level=3, levels_file=path)
        return {
            (m.player_a.name, m.player_b.name): m.match_id
            for m in calibration_matches(variant, cfg)
        }

    path.write_text(base)
    before, atomic_before = ids(), ids("atomic-xiangqi")
    assert ids() == before  # stable for the same settings
    path.write_text(base + "\n\n[variant.xiangqi.2]\nnodes = 77\n")
    after = ids()
    changed = {pair for pair in before if before[pair] != after[pair]}
    assert changed == {("L2", "L1"), ("L3", "L2"), ("L2", "greedy")}
    assert ids("atomic-xiangqi") == atomic_before
