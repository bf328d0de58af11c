"""The files a command writes (``--db``, ``--pgn``, ``--json``, ``--out``), checked
before anything is played or searched: a path in a folder that does not exist, or a
folder, is one line naming the option (a typo must not cost a match's games, nor leave
a file where nobody looks)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["check_output_path"]


def check_output_path(option: str, path: Path | str | None) -> None:
    """FileNotFoundError (its folder is missing) or IsADirectoryError (it is a folder),
    naming ``option``, when the file ``path`` cannot be written; None and ``-``
    (standard output) pass."""
    if path is None or str(path) == "-":
        return
    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"{option} {path}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{option} {path}: is a folder, not a file")
