"""The levels file: defaults, variety rules, per-variant overrides, clear errors."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ladder.levels import (
    LEVELS_FILE,
    Blend,
    Level,
    LevelsError,
    Rating,
    Variety,
    at_elo,
    elo_range,
    level_row,
    load_levels,
)
from ladder.variants import VARIANT_IDS

BASE = "[defaults]\nhash_mb = 4\n\n" + "".join(
    f"[[level]]\nlevel = {n}\nnodes = {100 * n}\n\n" for n in range(2, 9)
)


def _load(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "levels.toml"
    path.write_text(text)
    return load_levels(path)


def test_shipped_file_loads_for_every_variant() -> None:
    table = load_levels(LEVELS_FILE)
    assert set(table) == set(VARIANT_IDS)
    for levels in table.values():
        assert sorted(levels) == list(range(1, 9))
        assert all(lv.nodes >= 1 for lv in levels.values())


def test_variety_keys_and_overrides(tmp_path: Path) -> None:
    text = (
        "[[level]]\nlevel = 1\nnodes = 50\nrandom_move_pct = 25\n\n"
        + BASE
        + "[variant.xiangqi.1]\nmultipv = 8\nwindow_cp = 300\n\n"
        + "[variant.atomic-xiangqi.1]\nrandom_move_pct = 40\nnodes = 64\n\n"
        + "[variant.atomic-xiangqi.2]\nmultipv = 3\nwindow_cp = 50\n"
    )
    table = _load(tmp_path, text)
    assert table["crazyhouse-xiangqi"][1].variety == Variety(random_move_pct=25)
    assert table["xiangqi"][1].variety == Variety(8, 300, 25)
    assert table["atomic-xiangqi"][1].variety == Variety(random_move_pct=40)
    assert table["atomic-xiangqi"][1].nodes == 64
    assert table["atomic-xiangqi"][2].variety == Variety(3, 50)
    assert table["xiangqi"][2].variety is None and table["xiangqi"][2].hash_mb == 4
    assert Variety(8, 300, 25).describe() == "MultiPV 8, 300 cp window, 25% random"
    assert Variety(3, 15, plies=20).describe() == "MultiPV 3, 15 cp window, first 20 plies"
    assert Variety(99, temperature_cp=120).describe() == "MultiPV 99, T 120 cp"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("random_move_pct = 101", "random_move_pct"),
        ("random_move_pct = -1", "random_move_pct"),
        ("multipv = 0\nwindow_cp = 10", "multipv"),
        ("window_cp = -5\nmultipv = 3", "window_cp"),
        ('random_move_pct = "lots"', "variety"),
        ("multipv = 9\ntemperature_cp = -1", "temperature_cp"),
        ("multipv = 9\ntemperature_cp = 200000", "temperature_cp"),
        ("multipv = 3\nplies = 0", "plies"),
        ("elo = 100", "rating needs"),
        ("speed = 3", "speed"),
        ("threads = 2", "threads must be 1"),
    ],
)
def test_bad_level_tables_are_named(tmp_path: Path, extra: str, needle: str) -> None:
    text = f"[[level]]\nlevel = 1\nnodes = 50\n{extra}\n\n" + BASE
    with pytest.raises(LevelsError, match=needle):
        _load(tmp_path, text)


def test_a_file_that_is_no_toml_is_named_with_where_in_it(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[[level]\n")
    with pytest.raises(LevelsError, match=r"broken\.toml: .*line 1"):
        load_levels(path)
    done = subprocess.run(
        [sys.executable, "-m", "ladder.cli", "levels", "--levels", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"ladder levels: {path}: ") and "Traceback" not in done.stderr


def test_bad_overrides_are_named(tmp_path: Path) -> None:
    text = "[[level]]\nlevel = 1\nnodes = 50\n\n" + BASE
    with pytest.raises(LevelsError, match="chess"):
        _load(tmp_path, text + "[variant.chess.1]\nnodes = 5\n")
    with pytest.raises(LevelsError, match="random_move_pct"):
        _load(tmp_path, text + "[variant.xiangqi.1]\nrandom_move_pct = 200\n")
    with pytest.raises(LevelsError, match="xiangqi level 1"):
        _load(tmp_path, text + "[variant.xiangqi.1]\nspeed = 2\n")


@pytest.mark.parametrize(
    "override", ["nodes = 0", "hash_mb = 0", 'nodes = "many"', "threads = 2", "level = 3"]
)
def test_a_bad_override_is_named(tmp_path: Path, override: str) -> None:
    text = (
        "[[level]]\nlevel = 1\nnodes = 50\n\n" + BASE + f"[variant.atomic-xiangqi.1]\n{override}\n"
    )
    with pytest.raises(LevelsError, match="atomic-xiangqi"):
        _load(tmp_path, text)


def test_a_rating_and_time_per_move_load_per_variant(tmp_path: Path) -> None:
    text = "[[level]]\nlevel = 1\nnodes = 50\n\n" + BASE
    text += (
        "[variant.xiangqi.1]\nelo = 400.5\nelo_lo = 300.0\nelo_hi = 500.0\ngames = 60\n"
        "extrapolated = false\nseconds_per_move = 0.012\n"
    )
    table = _load(tmp_path, text)
    one = table["xiangqi"][1]
    assert one.rating == Rating(400.5, 300.0, 500.0, 60, False) and one.seconds_per_move == 0.012
    assert table["atomic-xiangqi"][1].rating is None
    flat = level_row(one)
    assert [
        k
        for k in flat
        if k in ("level", "nodes", "variety", "elo", "elo_lo", "elo_hi", "games", "extrapolated")
    ] == ["level", "nodes", "variety", "elo", "elo_lo", "elo_hi", "games", "extrapolated"]
    assert flat["elo"] == 400.5 and flat["seconds_per_move"] == 0.012
    assert level_row(table["atomic-xiangqi"][1])["elo"] is None


def _ladder(elos: list[float]) -> dict[int, Level]:
    mistakes = [Variety(99, temperature_cp=t) for t in (300.0, 120.0, 50.0)]
    search = Variety(3, 15, plies=20)
    nodes = [3000, 3000, 3000, 3000, 14000, 60000, 250000, 1000000]
    return {
        n: Level(
            n,
            nodes[n - 1],
            variety=mistakes[n - 1] if n <= 3 else search,
            rating=Rating(e, e - 50, e + 50, 100),
        )
        for n, e in enumerate(elos, start=1)
    }


def test_an_elo_between_two_levels_interpolates_every_setting_monotonically() -> None:
    levels = _ladder([400, 700, 1000, 1400, 1750, 2100, 2450, 2800])
    assert elo_range(levels) == (400, 2800)
    assert at_elo(levels, 400) == levels[1] and at_elo(levels, 2800) == levels[8]
    assert at_elo(levels, 1750) == levels[5]
    mid = at_elo(levels, 550)  # halfway between two mistake levels: a blend
    assert mid.blend == Blend(levels[2], 0.5) and mid.variety == levels[1].variety
    assert {mid.at_move(seed) for seed in range(200)} == {replace(mid, blend=None), levels[2]}
    top = at_elo(levels, 2625)  # halfway between 250k and 1M nodes: geometric
    assert top.nodes == 500_000 and top.variety == Variety(3, 15, plies=20)
    across = at_elo(levels, 1100)  # a mistake level and a full search: a blend
    assert across.variety == levels[3].variety and across.nodes == levels[3].nodes
    assert across.blend is not None and across.blend.stronger == levels[4]
    assert across.blend.weight == 0.25
    moves = [across.at_move(seed) for seed in range(4000)]
    assert {m.blend for m in moves} == {None} and set(moves) == {
        levels[4],
        replace(across, blend=None),
    }
    assert 0.23 < moves.count(levels[4]) / len(moves) < 0.27
    assert [across.at_move(s) for s in range(50)] == moves[:50]  # drawn by the seed
    assert levels[5].at_move(7) == levels[5]
    for elo in set(range(410, 1400, 10)) - {700, 1000}:  # below the first full search
        blend = at_elo(levels, elo).blend
        assert blend is not None and 0 < blend.weight < 1
    previous = at_elo(levels, 1400)
    for elo in range(1410, 2800, 10):  # between full searches
        lv = at_elo(levels, elo)
        v, pv = lv.variety or Variety(), previous.variety or Variety()
        assert lv.nodes >= previous.nodes and lv.blend is None
        assert v.temperature_cp <= pv.temperature_cp and v.multipv <= pv.multipv
        previous = lv


def test_an_elo_plays_the_book_and_a_printed_rating_plays_its_level() -> None:
    """An Elo between two levels plays their opening book (it once left it out, so no
    Elo but a level's own played from the book); an Elo printed as a level's rating,
    as `ladder levels` and the bridges' spin ends print it, plays that level."""
    rated = _ladder([400.4, 700, 1000, 1400.5, 1750, 2100, 2450, 2799.6])
    levels = {n: replace(lv, book=True) for n, lv in rated.items()}
    for elo in (550, 1100, 1200, 2000, 2625):  # mistake levels, the blend, searches
        assert at_elo(levels, elo).book
    assert not at_elo(rated, 2000).book  # a ladder without a book has none in between
    for printed, level in ((400.0, 1), (400.4, 1), (1400.0, 4), (2800.0, 8), (2799.6, 8)):
        assert at_elo(levels, printed) == levels[level], printed
    assert at_elo(levels, 1401).blend is None and at_elo(levels, 1401) != levels[4]
    assert at_elo(levels, 401).rating is None and at_elo(levels, 2799).rating is None


def test_an_elo_off_the_curve_or_an_uncalibrated_ladder_is_refused() -> None:
    levels = _ladder([400, 700, 1000, 1400, 1750, 2100, 2450, 2800])
    for elo in (399.9, 2800.1):
        with pytest.raises(LevelsError, match="between 400 and 2800"):
            at_elo(levels, elo)
    # measured ends that are not whole: the printed (rounded) span and the measured one
    # (GET /v1/levels sends it exact) are accepted, nothing beyond both
    inward = _ladder([360.7, 700, 1000, 1400, 1750, 2100, 2450, 2803.2])
    outward = _ladder([360.3, 700, 1000, 1400, 1750, 2100, 2450, 2803.7])
    for ladder, refused, accepted in (
        (inward, (360.5, 2803.5), (360.7, 361, 2803, 2803.2)),
        (outward, (359.9, 2804.1), (360, 360.3, 2803.7, 2804)),
    ):
        low, high = elo_range(ladder) or (0, 0)
        for elo in refused:
            with pytest.raises(LevelsError, match=f"between {low:.0f} and {high:.0f}"):
                at_elo(ladder, elo)
        for elo in accepted:
            assert at_elo(ladder, elo).level in ((1,) if elo < 1000 else (7, 8))
    bent = _ladder([400, 700, 650, 1400, 1750, 2100, 2450, 2800])
    assert elo_range(bent) is None
    with pytest.raises(LevelsError, match="strictly increasing"):
        at_elo(bent, 500)


def test_retuned_weak_levels_leave_the_measured_span_above_them() -> None:
    """While levels 1-3 are retuned and not yet rated, an Elo is played by the measured
    run above them (it was refused at every Elo); a gap inside the run, or one rated
    level alone, gives no span."""
    ladder = _ladder([400, 700, 1000, 1400, 1750, 2100, 2450, 2800])
    for n in (1, 2, 3):
        ladder[n] = replace(ladder[n], rating=None)
    assert elo_range(ladder) == (1400, 2800)
    assert at_elo(ladder, 1575).nodes == round((3000 * 14000) ** 0.5)
    with pytest.raises(LevelsError, match="between 1400 and 2800"):
        at_elo(ladder, 1000)
    holed = dict(ladder)
    holed[6] = replace(holed[6], rating=None)
    assert elo_range(holed) is None
    with pytest.raises(LevelsError, match="every level measured from some level up"):
        at_elo(holed, 2000)
    alone = {n: replace(lv, rating=None) if n < 8 else lv for n, lv in ladder.items()}
    assert elo_range(alone) is None
