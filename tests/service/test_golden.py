"""Golden outputs of the service (issue 36, "behaviour unchanged, merge by merge"): the
move answers of every level in every variant at fixed positions and seeds, through
``ladder serve``; the metrics exposition's families, types and labels (not its values);
and every command's ``--help``. Compared with the files under ``tests/golden/``.

A commit that changes them on purpose (a retuned level, a new answer field) regenerates
them and says why in its message: ``.venv/bin/pytest tests/service/test_golden.py
--update-golden``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ladder.cli import COMMAND_MODULES
from ladder.levels import LEVEL_NUMBERS
from ladder.variants import VARIANT_IDS
from tests.conftest import check_golden

from .helpers import Server, run_ladder, start_server

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

#: A middlegame of each variant, out of every book (the first general position of each
#: frozen set, data/positions-*.jsonl.gz), and the moves that follow it in the requests.
POSITIONS = {
    "xiangqi": "1r1ak2r1/9/3ab3b/p5p1C/9/2Bn5/P3P1PcP/3A2N2/3NKR3/R4An2 w - - 0 29",
    "atomic-xiangqi": (
        "3akabnr/4n4/b3c4/p1p1p1p1p/5c3/1rPN5/P3P1PCP/1C2BR3/4K4/R1BA1A1N1 b - - 21 11"
    ),
    "crazyhouse-xiangqi": (
        "1r2k3N/3a1b3/1ca5n/p1p1p1p1p/4c2R1/4B4/P1PBP1c1P/6NC1/4K4/RN6R[AAbp] w - - 4 9"
    ),
}

#: What two runs of the same request answer differently: the search's wall time.
_TIMES = ("time_ms",)


@pytest.fixture(scope="module")
def one_engine() -> Iterator[Server]:
    with start_server(engines=1) as srv:
        yield srv


def test_every_level_answers_as_before(one_engine: Server, request: pytest.FixtureRequest) -> None:
    answers: dict[str, dict[str, object]] = {}
    with one_engine.client(timeout=60) as client:
        for variant in VARIANT_IDS:
            for level in LEVEL_NUMBERS:
                for seed in (1, 2):
                    body = {"variant": variant, "fen": POSITIONS[variant], "level": level}
                    r = client.post("/v1/move", json={**body, "seed": seed})
                    assert r.status_code == 200, r.text
                    answer = r.json()
                    for key in _TIMES:
                        answer.pop(key, None)
                    answers[f"{variant} level {level} seed {seed}"] = answer
    check_golden(request, GOLDEN / "service" / "move-answers.json", json.dumps(answers, indent=1))


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="')


def exposition_shape(text: str) -> str:
    """The families of a Prometheus exposition with their types and label names, and no
    values: one line per family and label set, sorted."""
    lines: set[str] = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            lines.add(line)
        elif line and not line.startswith("#") and (m := _SAMPLE.match(line)):
            labels = ",".join(sorted(set(_LABEL.findall(m.group(2) or ""))))
            lines.add(f"{m.group(1)} {{{labels}}}")
    return "\n".join(sorted(lines)) + "\n"


def test_the_metrics_exposition_keeps_its_families(
    one_engine: Server, request: pytest.FixtureRequest
) -> None:
    with one_engine.client(timeout=60) as client:
        r = client.post("/v1/move", json={"variant": "xiangqi", "moves": [], "level": 1})
        assert r.status_code == 200, r.text
        text = client.get("/metrics").text
    assert "# TYPE" in text
    check_golden(request, GOLDEN / "service" / "metrics-families.txt", exposition_shape(text))


#: ``match`` and ``tournament``'s help are tests/match/test_golden.py's.
_HELP = [c for c in COMMAND_MODULES if c not in ("match", "tournament")]


@pytest.mark.parametrize("command", [None, *_HELP])
def test_help(command: str | None, request: pytest.FixtureRequest) -> None:
    args = ["--help"] if command is None else [command, "--help"]
    done = run_ladder(*args, COLUMNS="100", NO_COLOR="1", TERM="dumb")
    assert done.returncode == 0, done.stderr
    check_golden(request, GOLDEN / "cli" / f"{command or 'ladder'}-help.out", done.stdout)
