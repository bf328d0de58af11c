"""The levels file: defaults, variety rules, per-variant overrides, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.levels import LEVELS_FILE, LevelsError, Variety, load_levels
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
        assert all(lv.threads == 1 and lv.nodes >= 1 for lv in levels.values())


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
    assert Variety(8, 300, 25).describe() == "MultiPV 8, 300 cp, 25% random"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("random_move_pct = 101", "random_move_pct"),
        ("random_move_pct = -1", "random_move_pct"),
        ("multipv = 0\nwindow_cp = 10", "multipv"),
        ("window_cp = -5\nmultipv = 3", "window_cp"),
        ('random_move_pct = "lots"', "variety"),
        ("speed = 3", "speed"),
    ],
)
def test_bad_level_tables_are_named(tmp_path: Path, extra: str, needle: str) -> None:
    text = f"[[level]]\nlevel = 1\nnodes = 50\n{extra}\n\n" + BASE
    with pytest.raises(LevelsError, match=needle):
        _load(tmp_path, text)


def test_bad_overrides_are_named(tmp_path: Path) -> None:
    text = "[[level]]\nlevel = 1\nnodes = 50\n\n" + BASE
    with pytest.raises(LevelsError, match="chess"):
        _load(tmp_path, text + "[variant.chess.1]\nnodes = 5\n")
    with pytest.raises(LevelsError, match="random_move_pct"):
        _load(tmp_path, text + "[variant.xiangqi.1]\nrandom_move_pct = 200\n")
    with pytest.raises(LevelsError, match="xiangqi level 1"):
        _load(tmp_path, text + "[variant.xiangqi.1]\nspeed = 2\n")
