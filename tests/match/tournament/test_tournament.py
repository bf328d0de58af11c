"""`ladder tournament`: gauntlet and round-robin pairings, a resumable run with a
cutechess-style engine, the crosstable and the Bradley-Terry rating list."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc
from pathlib import Path

import pytest

from ladder.match.game.play import GameRecord
from ladder.match.openings import load_openings
from ladder.match.output.store import ResultStore
from ladder.match.players.specs import parse_player
from ladder.match.runner.match_run import run_match
from ladder.match.tournament.crosstable import crosstable
from ladder.match.tournament.run import TournamentConfig, TournamentPlan
from tests.match.helpers import match_config, run_ladder


def _config(fmt: str, names: list[str]) -> TournamentConfig:
    return TournamentConfig(
        variant="xiangqi",
        players=[parse_player(n) for n in names],
        openings=load_openings("xiangqi"),
        format=fmt,
        games=4,
    )


def test_pairings_and_interleaving() -> None:
    gauntlet = _config("gauntlet", ["level:3", "random", "greedy", "level:1"])
    assert [(a.name, b.name) for a, b in gauntlet.pairings()] == [
        ("level:3", "random"),
        ("level:3", "greedy"),
        ("level:3", "level:1"),
    ]
    rr = _config("round-robin", ["random", "greedy", "level:1"])
    assert len(rr.pairings()) == 3
    matches = rr.matches()
    tasks = rr.tasks(matches)
    assert len(tasks) == 12
    # pair by pair: every match's first pair before any match's second
    assert [t.match_id for t in tasks[:6:2]] == [m.match_id for m in matches]
    assert {t.pair_no for t in tasks[:6]} == {0}
    with pytest.raises(ValueError, match="names must differ"):
        _config("round-robin", ["random", "random"])
    with pytest.raises(ValueError, match="format"):
        _config("swiss", ["random", "greedy"])


def test_round_robin_resumes_and_rates(tmp_path: Path, engine_exe: Path) -> None:
    db, out, pgn = tmp_path / "t.sqlite", tmp_path / "t.json", tmp_path / "t.pgn"
    args = [
        "tournament", "greedy", "level:1",
        "-engine", f"cmd={engine_exe}", "nodes=200", "name=fsf200",
        "--format", "round-robin", "--variant", "xiangqi", "--games", "2",
        "--db", str(db), "--json", str(out), "--pgn", str(pgn), "--max-plies", "80",
        "--bootstrap", "50",
    ]  # fmt: skip
    done = run_ladder(*args)
    assert done.returncode == 0, done.stderr
    assert "played 6, resumed past 0" in done.stdout
    assert "Bradley-Terry ratings (logistic Elo, greedy = 0" in done.stdout
    doc = json.loads(out.read_text())
    assert doc["status"] == "done" and doc["settings"]["format"] == "round-robin"
    assert [p["name"] for p in doc["players"]] == ["greedy", "level:1", "fsf200"]
    assert len(doc["pairings"]) == 3 and all(p["games"] == 2 for p in doc["pairings"])
    table = doc["crosstable"]
    for a in ("greedy", "level:1", "fsf200"):
        assert sum(cell["games"] for cell in table[a].values()) == 4
    points = sum(cell["points"] for row in table.values() for cell in row.values())
    assert points == len(doc["games"]) == 6
    ratings = {r["name"]: r for r in doc["ratings"]["ratings"]}
    assert ratings["greedy"]["elo"] == 0 and doc["ratings"]["interval"] == "bootstrap"
    assert all(r["lo"] <= r["elo"] <= r["hi"] for r in ratings.values())
    assert pgn.read_text().count("[Event ") == 6

    again = run_ladder(*args)
    assert again.returncode == 0 and "played 0, resumed past 6" in again.stdout


def test_crosstable_counts_both_sides() -> None:
    from ladder.match.statistics.bradley_terry import GameResult

    table = crosstable(
        [GameResult("a", "b", 1.0), GameResult("b", "a", 0.5), GameResult("a", "c", 0.0)],
        ["a", "b", "c"],
    )
    assert table.total("a") == (1.5, 3) and table.total("c") == (1.0, 1)
    text = table.text()
    assert "1.5/2" in text and "1.5/3" in text


def test_gauntlet_through_the_cli(tmp_path: Path) -> None:
    db, out = tmp_path / "g.sqlite", tmp_path / "g.json"
    common = ["--variant", "xiangqi", "--games", "2", "--max-plies", "40", "--db", str(db)]
    broken = run_ladder(
        "tournament", "greedy", "random", "engine:/nonexistent/fsf,nodes=9", *common
    )
    assert broken.returncode == 3, broken.stderr
    assert broken.stderr.startswith("ladder tournament: engine:/nonexistent/fsf,nodes=9 cannot")
    assert "Traceback" not in broken.stderr

    done = run_ladder("tournament", "level:1", "random", "greedy", "--format", "gauntlet",
                  *common, "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["settings"]["format"] == "gauntlet"
    assert [(p["player_a"], p["player_b"]) for p in doc["pairings"]] == [
        ("level:1", "random"),
        ("level:1", "greedy"),
    ]
    table = doc["crosstable"]
    assert set(table["level:1"]) == {"random", "greedy"}
    assert set(table["random"]) == {"level:1"}  # the others do not meet in a gauntlet
    assert doc["ratings"]["anchor"] == "level:1" and len(doc["games"]) == 4


def test_a_tournament_keeps_each_games_result_not_the_game(tmp_path: Path) -> None:
    """The driver of a long gauntlet holds each game's result (the crosstable's and the
    rating list's), not the game (some 40 KB): 100,000 games would not fit."""
    db = tmp_path / "t.sqlite"
    run_match(match_config("random", "greedy", games=1), db=db, concurrency=1)
    with ResultStore(db) as store:
        (text,) = [r.stored() for r in store.records()]
    many = 1500
    config = TournamentConfig(
        variant="xiangqi",
        players=[parse_player("random"), parse_player("greedy")],
        openings=load_openings("xiangqi"),
        format="gauntlet",
        games=many,
    )
    match_id = config.matches()[0].match_id

    def game(n: int) -> GameRecord:  # as the run loop gets each: decoded on its own
        record = GameRecord.from_dict(json.loads(text))
        return dataclasses.replace(record, match_id=match_id, game_no=n, pair_no=n // 2)

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [game(n) for n in range(50)]
        one = (tracemalloc.get_traced_memory()[0] - before) / len(held)
        del held
        before = tracemalloc.get_traced_memory()[0]
        plan = TournamentPlan(config, "random", bootstrap=0)
        for n in range(many):
            plan.add(game(n))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert plan.games == many
    assert plan.document(None)["crosstable"]["random"]["greedy"]["games"] == many
    # The last 100 games whole, for the JSON document; of the others their results.
    assert kept < 300 * one, f"{kept / 1e6:.1f} MB kept, {one / 1e3:.0f} KB a game"
