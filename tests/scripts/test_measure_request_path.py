"""scripts/measure_request_path.py serves, measures the second request and stops the
server by itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def _figures(*options: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures: dict[str, Any] = json.loads(done.stdout[done.stdout.index("{") :])
    return figures


def test_levels_file_serves_another_levels_file(tmp_path: Path) -> None:
    """``--levels-file FILE`` counts the path of that file's levels: without the beginner's
    eyes (``sight``, ``guard``) level 2's choice enters no ``beginner`` function."""
    shipped = (SCRIPT.parents[1] / "ladder" / "levels.toml").read_text()
    blind = tmp_path / "levels.toml"
    blind.write_text(
        "\n".join(
            line for line in shipped.splitlines() if not line.startswith(("sight =", "guard ="))
        )
        + "\n"
    )
    shipped_figures, blind_figures = _figures(), _figures("--levels-file", str(blind))
    weak = "weak levels' choice"
    assert (
        blind_figures["by_area"][weak]["functions"] < shipped_figures["by_area"][weak]["functions"]
    )
