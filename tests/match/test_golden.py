"""Golden outputs of the match side (issue 36, "behaviour unchanged, merge by merge"):
small fast matches, a tournament and a study with fixed seeds, run through the CLI as a
user runs them; their match ids, reports, PGN, JSON and study files, and the ``--help``
of ``match`` and ``tournament``, compared with the files under ``tests/golden/match/``.

What a run cannot repeat is masked before the comparison (:func:`normalised`): the date
and the host in the PGN tags, search and wall times, and the checkout's path. Everything
else, node counts and evaluations included, is compared byte for byte: the level players
search with ``go nodes N`` on one thread, which repeats.

A commit that changes these outputs on purpose regenerates them and says why in its
message: ``.venv/bin/pytest tests/match/test_golden.py --update-golden``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import check_golden
from tests.match.helpers import run_ladder

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "match"
LEVELS = REPO / "tests" / "match" / "data" / "levels-pinned.toml"

#: (pattern, replacement): what differs between two runs of the same command.
_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'^\[Date "[^"]*"\]$', re.M), '[Date "????.??.??"]'),
    (re.compile(r'^\[Site "[^"]*"\]$', re.M), '[Site "?"]'),
    (re.compile(r"(\d+N) \d+\.\d+s"), r"\1 ?s"),  # a search's time in a PGN comment
    (re.compile(r"^\[\d+/\d+\] .*\n", re.M), ""),  # a progress line, every 10 s
    (re.compile(r"^(this run: \d+ games in ).*$", re.M), r"\1?"),  # its times
    (re.compile(r'("(?:red|black|wall_seconds|search_seconds|seconds)": )[0-9.e+-]+'), r"\1?"),
]


def normalised(text: str) -> str:
    """``text`` with what a second run would write differently masked."""
    text = text.replace(str(REPO), "<repo>")
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


def ladder(*args: str, cwd: Path) -> str:
    """``ladder ARGS`` as a user runs it; its standard output (it must succeed)."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    done = run_ladder(*args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """``check(name, text)``: ``text``, normalised, equals ``tests/golden/match/NAME``
    (with ``--update-golden``: is written there)."""

    def check(name: str, text: str) -> None:
        check_golden(request, GOLDEN / name, normalised(text))

    return check


def check_run(golden: Callable[[str, str], None], name: str, out: str, files: Path) -> None:
    """A run's standard output ``out`` and its PGN and JSON files (``files`` with those
    suffixes) against the golden ``NAME.out``, ``NAME.pgn`` and ``NAME.json``."""
    golden(f"{name}.out", out)
    for suffix in (".pgn", ".json"):
        golden(name + suffix, files.with_suffix(suffix).read_text())


def test_random_against_greedy(tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    out = ladder(
        *("match", "random", "greedy", "--variant", "xiangqi", "--games", "4", "--seed", "7"),
        *("--max-plies", "120", "-j", "1", "--db", "m.sqlite"),
        *("--pgn", "m.pgn", "--json", "m.json"),
        cwd=tmp_path,
    )
    check_run(golden, "random-greedy", out, tmp_path / "m")


def test_a_level_match_and_its_study(tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    levels = f"levels={LEVELS}"
    out = ladder(
        *("match", f"level:1,{levels},name=L1", f"level:3,{levels},name=L3"),
        *("--variant", "atomic-xiangqi", "--games", "2", "--seed", "3", "--max-plies", "40"),
        *("-j", "1", "--db", "m.sqlite", "--pgn", "m.pgn", "--json", "m.json"),
        cwd=tmp_path,
    )
    check_run(golden, "level-match", out, tmp_path / "m")
    found = re.search(r"^match (\S+): played", out, re.M)  # (a progress line may come first)
    assert found, out
    match_id = found.group(1)
    study = ladder(
        *("study", match_id, "--db", "m.sqlite", "--out", "s.pgn", "--json", "s.json"),
        *("--nodes", "1000", "--engine", f"level:8,variety=off,{levels}"),
        cwd=tmp_path,
    )
    check_run(golden, "study", study, tmp_path / "s")


def test_a_tournament(tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    out = ladder(
        *("tournament", "random", "greedy", "novice", "--variant", "crazyhouse-xiangqi"),
        *("--games", "2", "--seed", "5", "--max-plies", "40", "-j", "1", "--bootstrap", "20"),
        *("--db", "t.sqlite", "--pgn", "t.pgn", "--pgn-notation", "iccs", "--pgn-min"),
        *("--json", "t.json"),
        cwd=tmp_path,
    )
    check_run(golden, "tournament", out, tmp_path / "t")


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_help(command: str, tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    golden(f"{command}-help.out", ladder(command, "--help", cwd=tmp_path))
