"""Who plays whom: the chain, the pairings, adjudication, match ids, the plan file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ladder.calibration.plan import (
    SEARCHERS_ADJUDICATION,
    Plan,
    PlanError,
    chain,
    match_for,
    pairings,
)
from ladder.levels import LEVELS_FILE
from ladder.match.openings import load_openings


def _ids(variant: str, levels: Path, plan: Plan | None = None) -> dict[tuple[str, str], str]:
    plan = plan or Plan()
    openings = load_openings(variant)
    return {
        (p.stronger.name, p.weaker.name): match_for(variant, p, plan, openings, 2).match_id
        for p in pairings(variant, plan, levels)
    }


def test_the_chain_and_its_pairings() -> None:
    assert [p.name for p in chain(None)] == ["random", "greedy", *(f"L{n}" for n in range(1, 9))]
    plan = Plan(games=20, skip_one_games=10)
    pairs = {(p.stronger.name, p.weaker.name): p for p in pairings("xiangqi", plan, None)}
    assert len(pairs) == 9 + 8
    assert pairs[("greedy", "random")].adjacent and pairs[("greedy", "random")].games == 20
    assert pairs[("L8", "L7")].adjacent and pairs[("L8", "L7")].games == 20
    assert not pairs[("L3", "L1")].adjacent and pairs[("L3", "L1")].games == 10
    assert len(pairings("xiangqi", Plan(skip_one_games=0), None)) == 9
    capped = {
        (p.stronger.name, p.weaker.name) for p in pairings("xiangqi", Plan(skip_one_top=7), None)
    }
    assert ("L7", "L5") in capped and ("L8", "L6") not in capped and len(capped) == 9 + 7


def test_only_games_between_searching_levels_are_adjudicated() -> None:
    pairs = {(p.stronger.name, p.weaker.name): p for p in pairings("xiangqi", Plan(), None)}
    assert pairs[("L8", "L7")].adjudication == SEARCHERS_ADJUDICATION
    # level 3 has the mistake rule: played out, like games against the baselines
    assert pairs[("L4", "L3")].adjudication.resign_cp is None
    assert pairs[("L1", "greedy")].adjudication.draw_cp is None


def test_match_ids_follow_the_settings_not_the_files_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "levels.toml", tmp_path / "b" / "levels.toml"
    for p in (a, b):
        p.parent.mkdir()
        shutil.copy(LEVELS_FILE, p)
    before = _ids("xiangqi", a)
    assert _ids("xiangqi", b) == before
    atomic = _ids("atomic-xiangqi", a)
    text, table = b.read_text(), "[variant.xiangqi.2]\n"  # the shipped file may rate it
    b.write_text(
        text.replace(table, table + "nodes = 77\n")
        if table in text
        else text + "\n" + table + "nodes = 77\n"
    )
    after = _ids("xiangqi", b)
    changed = {pair for pair in before if before[pair] != after[pair]}
    assert changed == {("L2", "L1"), ("L3", "L2"), ("L2", "greedy"), ("L4", "L2")}
    assert _ids("atomic-xiangqi", b) == atomic
    # and so do other games counts (a match is extended, not replaced)
    assert _ids("xiangqi", a, Plan(games=40, max_games=200)) == before


def test_extra_players_meet_the_opponents_named(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.toml"
    shutil.copy(LEVELS_FILE, tmp_path / "levels.toml")
    plan_file.write_text(
        "games = 4\n[[extra]]\nname = 'L5-plain'\n"
        "spec = 'level:5,levels=levels.toml,variety=off'\n"
        "opponents = ['L4', 'L5', 'L6']\ngames = 6\nvariants = ['xiangqi']\n"
    )
    plan = Plan.load(plan_file)
    (extra,) = plan.extras
    assert f"levels={(tmp_path / 'levels.toml').resolve()}" in extra.spec
    pairs = [p for p in pairings("xiangqi", plan, None) if p.stronger.name == "L5-plain"]
    assert [p.weaker.name for p in pairs] == ["L4", "L5", "L6"]
    assert all(p.games == 6 and not p.adjacent for p in pairs)
    assert not [p for p in pairings("atomic-xiangqi", plan, None) if p.stronger.name == "L5-plain"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("games = 1\n", "games >= 2"),
        ("gamez = 3\n", "gamez"),
        ("[adjudication]\nresign_cp = -5\n", "resign_cp"),
        ("[[extra]]\nname = 'x'\nopponents = ['L1']\n", "'spec'"),
        ("[[extra]]\nname='x'\nspec='level:1'\nopponents=['L1']\nvariants=['chess']\n", "chess"),
    ],
)
def test_a_bad_plan_is_refused_with_its_reason(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(text)
    with pytest.raises(PlanError, match=message):
        Plan.load(path)


def test_an_extra_against_a_stranger_is_refused() -> None:
    plan = Plan.from_dict({"extra": [{"name": "x", "spec": "level:1", "opponents": ["L9"]}]})
    with pytest.raises(PlanError, match="no player 'L9'"):
        pairings("xiangqi", plan, None)
