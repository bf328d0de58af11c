"""``--json`` as a long match writes it: every ``--json-interval`` games and at the end,
its size bounded (the last games listed, the others counted), through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ladder.match.output.json_document import JSON_GAMES


def test_the_document_is_written_every_interval_and_lists_the_last_games(
    tmp_path: Path,
) -> None:
    doc = tmp_path / "m.json"
    run = subprocess.Popen(
        [
            sys.executable, "-m", "ladder.cli", "match", "random", "greedy",
            "--variant", "xiangqi", "--games", "150", "--max-plies", "40", "-j", "1",
            "--db", str(tmp_path / "m.sqlite"), "--json", str(doc), "--json-interval", "50",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    seen: set[tuple[str, int]] = set()  # (status, games) of every version read
    while run.poll() is None:
        try:
            d = json.loads(doc.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            d = None
        if d is not None:
            seen.add((d["status"], d["result"]["games"]))
        time.sleep(0.002)  # a poll, not a wait for a result: leave the match its core
    assert run.returncode == 0, run.stderr.read() if run.stderr else ""
    final = json.loads(doc.read_text())
    seen.add((final["status"], final["result"]["games"]))
    running = {games for status, games in seen if status == "running"}
    assert running <= {50, 100, 150}, seen  # never after another game
    assert running, f"no write while running was read: {seen}"
    assert (final["status"], final["result"]["games"]) == ("done", 150)
    assert final["games_omitted"] == 150 - JSON_GAMES
    assert [g["game"] for g in final["games"]] == list(range(150 - JSON_GAMES, 150))
