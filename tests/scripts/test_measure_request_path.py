"""scripts/measure_request_path.py serves, measures the second request and stops the
server by itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "measure_request_path.py"


def test_a_level_move_is_counted_through_the_service_and_the_engine_client() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", "--list"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout[done.stdout.index("{") :]  # after the address serve prints
    figures, end = json.JSONDecoder().raw_decode(text)
    listed = text[end:].split()
    assert figures["functions"] == len(listed) > 0
    assert 0 < figures["modules"] <= figures["functions"]
    modules = {entry.split(":")[0] for entry in listed}
    assert len(modules) == figures["modules"]
    # every function and module is in exactly one area
    areas = figures["by_area"].values()
    assert sum(a["functions"] for a in areas) == figures["functions"]
    assert sum(a["modules"] for a in areas) == figures["modules"]
    assert figures["by_area"]["protocol"]["functions"] > 0
    # the path went through the HTTP layer, the level move and the engine client
    assert any(m.startswith("ladder.service.") for m in modules)
    assert "ladder.level_engine.level_move" in modules
    assert any(m.startswith("protocol.") for m in modules)
