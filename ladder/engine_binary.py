"""Where the built engine is: `make engine` links it into .cache/."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENGINE = ROOT / ".cache" / "fairy-stockfish"
UNPATCHED_ENGINE = ROOT / ".cache" / "fairy-stockfish-unpatched"


class EngineNotBuilt(RuntimeError):
    """The engine executable is missing: run `make engine` (or `make serve`/`make test`)."""


def engine_path() -> Path:
    """The patched Fairy-Stockfish: $MISTBOARD_ENGINE, else the one `make engine` built."""
    path = Path(os.environ.get("MISTBOARD_ENGINE", DEFAULT_ENGINE))
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise EngineNotBuilt(f"no engine executable at {path}: run `make engine`")
    return path.resolve()
