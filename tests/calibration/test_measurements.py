"""The measurement sections of docs/ladder.md: a level retuned since it was measured is
marked, never described by another player's figures."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ladder.calibration.measurements import measurement_sections
from ladder.human_reference import human_reference
from ladder.levels import load_levels, play_settings


def _cell(hits: int, n: int) -> dict[str, float]:
    return {"hits": hits, "n": n, "share": hits / n, "lo": 0.1, "hi": 0.9}


def _player(spec: str, settings: object) -> dict[str, object]:
    return {
        "spec": spec,
        "settings": settings,
        "positions": 500,
        "free_taken": _cell(20, 25),
        "hangs": _cell(100, 500),
        "gross": _cell(90, 500),
        "master_move": None,
        "mean_loss_capped": 150.4,
        "mean_loss_ci": [130.0, 170.0],
    }


def _write_profile(folder: Path, variant: str, players: dict[str, Any]) -> None:
    """A profile record as scripts/measure_mistakes.py writes it."""
    record = {"variant": variant, "source": "record", "reference_nodes": 60000}
    (folder / f"profile-{variant}.json").write_text(json.dumps({**record, "players": players}))


def test_profile_rows_of_retuned_levels_are_marked(tmp_path: Path) -> None:
    levels = load_levels()["atomic-xiangqi"]
    old = replace(levels[2], nodes=levels[2].nodes * 2)
    players = {
        "L1": _player("level:1", play_settings(levels[1])),
        "L2": _player("level:2", play_settings(old)),
        "soft1": _player("level:1,levels=calibration/levels-softmax.toml", None),
    }
    _write_profile(tmp_path, "atomic-xiangqi", players)
    text = measurement_sections(tmp_path, "atomic-xiangqi", levels)
    rows = {line.split(" |")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert "| L1" in rows and "| L2 (measured on earlier settings)" in rows
    assert "| soft1" in rows  # another rule: compared, not checked against the shipped file
    assert "80 % [10, 90] of 25" in rows["| L1"] and "150 cp [130, 170]" in rows["| L1"]
    assert "Human reference" not in text  # xiangqi only


def test_the_human_reference_shows_the_levels_it_judges_as_they_play() -> None:
    levels = load_levels()["xiangqi"]
    text = measurement_sections(None, "xiangqi", levels)
    judged = [n for n, lv in levels.items() if human_reference("xiangqi", lv) is not None]
    assert judged and "the masters" in text
    for n in levels:
        assert (f"| level {n} |" in text) == (n in judged)


def test_replaced_rules_are_compared_with_the_level_nearest_in_elo(tmp_path: Path) -> None:
    from ladder.levels import Rating

    levels = load_levels()["xiangqi"]
    soft = "level:{},levels=calibration/levels-softmax.toml"
    players = {
        "L1": _player("level:1", play_settings(levels[1])),
        "L2": _player("level:2", play_settings(levels[2])),
        "soft1": _player(soft.format(1), None),
        "soft2": _player(soft.format(2), None),
        "soft3": _player(soft.format(3), None),
    }
    players["soft1"]["hangs"] = _cell(220, 500)  # L1 hangs 100: under half
    players["soft1"]["free_taken"] = _cell(10, 25)  # L1 takes 20
    _write_profile(tmp_path, "xiangqi", players)
    ratings = {
        "L1": Rating(300, 260, 340, 800),
        "L2": Rating(750, 700, 800, 800),
        "soft-L1": Rating(250, 200, 300, 240),  # 50 below L1, 240 games: equal
        "soft-L2": Rating(1000, 900, 1100, 40),  # 250 above L2: not equal
    }
    extras = {f"soft-L{n}": f"level:{n},levels=levels-softmax.toml" for n in (1, 2, 3)}
    text = measurement_sections(tmp_path, "xiangqi", levels, ratings, extras)
    rows = {line.split(" (")[0]: line for line in text.splitlines() if line.startswith("| soft")}
    assert "L1 (300, 800 games): equal" in rows["| soft1"]
    assert "80 % against 40 %: met" in rows["| soft1"]
    assert "(ratio 0.5): met" in rows["| soft1"]
    assert "L2 (750, 800 games): not equal (-250 Elo)" in rows["| soft2"]
    assert "(ratio 1.0): not met" in rows["| soft2"]
    assert "| soft3 | not rated in the pool yet |" in text
    # fewer than 200 games: within 75 Elo is not yet equal
    ratings["soft-L1"] = Rating(250, 200, 300, 150)
    text = measurement_sections(tmp_path, "xiangqi", levels, ratings, extras)
    assert "L1 (300, 800 games): not yet: 150 games" in text
    # the nearest level in Elo without a profile (L4) is passed over for one with one
    ratings |= {"L4": Rating(1500, 1450, 1550, 800), "soft-L3": Rating(1450, 1400, 1500, 200)}
    text = measurement_sections(tmp_path, "xiangqi", levels, ratings, extras)
    assert "| soft3 (1450, 200 games) | L2 (750, 800 games): not equal (-700 Elo)" in text
    # a level profiled on other settings is marked
    retuned = {**levels, 1: replace(levels[1], nodes=levels[1].nodes * 2)}
    text = measurement_sections(tmp_path, "xiangqi", retuned, ratings, extras)
    assert "L1 (300, 800 games, measured on earlier settings): not yet" in text
