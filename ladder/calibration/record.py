"""The calibration games as a compact file that is committed with the repository.

The results database (SQLite, with every move's search figures and a PGN per game) is a
working file: several MB, not committed. What a later run needs to resume, and a reader
needs to check the figures, is far less: per variant, ``games-<variant>.jsonl.gz`` holds
one line per calibration match (its id and configuration) and one per game (players,
colours, opening, result, ending, the moves, and each side's search seconds). Before a
run, :func:`load_record` puts every game it holds into the database (a game already
there is left alone); after each round, :func:`save_record` writes the file again from
the database. The file is written deterministically (sorted, gzip without a time stamp),
so an unchanged record is an unchanged file.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from ladder.match.game.play import GameRecord
from ladder.match.output.store import ResultStore

__all__ = ["load_record", "record_path", "save_record"]


def record_path(folder: Path, variant: str) -> Path:
    return folder / f"games-{variant}.jsonl.gz"


def _winner(result: str) -> str | None:
    return {"1-0": "red", "0-1": "black"}.get(result)


def save_record(store: ResultStore, folder: Path, variant: str) -> tuple[Path, int]:
    """Write the variant's calibration matches and games; returns (path, games)."""
    matches = sorted(store.matches(f"calibrate:{variant}"), key=lambda m: m["match_id"])
    lines: list[str] = []
    games = 0
    for index, m in enumerate(matches):
        config = json.loads(m["config"])
        lines.append(json.dumps({"match": index, **m, "config": config}, sort_keys=True))
        for r in store.records([m["match_id"]]):
            lines.append(
                json.dumps(
                    {
                        "m": index,
                        "g": r.game_no,
                        "p": r.pair_no,
                        "o": r.opening_no,
                        "r": r.red,
                        "b": r.black,
                        "s": r.red_slot,
                        "f": r.start_fen,
                        "k": r.book_plies,
                        "mv": " ".join(r.moves),
                        "res": r.result,
                        "why": r.reason,
                        "t": [
                            round(r.search_seconds.get("red", 0.0), 3),
                            round(r.search_seconds.get("black", 0.0), 3),
                        ],
                    },
                    sort_keys=True,
                )
            )
            games += 1
    path = record_path(folder, variant)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(lines) + "\n").encode())
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(buffer.getvalue())
    tmp.replace(path)
    return path, games


def load_record(store: ResultStore, folder: Path, variant: str) -> int:
    """Put the record's matches and games into the database; returns how many games
    were new to it (0 when there is no record)."""
    path = record_path(folder, variant)
    if not path.exists():
        return 0
    ids: dict[int, dict[str, Any]] = {}
    added = 0
    with gzip.open(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            if "match" in row:
                ids[row["match"]] = row
                store.ensure_match(
                    row["match_id"],
                    tag=row["tag"],
                    variant=row["variant"],
                    player_a=row["player_a"],
                    player_b=row["player_b"],
                    config=row["config"],
                )
                continue
            m = ids[row["m"]]
            red_s, black_s = row["t"]
            record = GameRecord(
                match_id=m["match_id"],
                game_no=row["g"],
                pair_no=row["p"],
                opening_no=row["o"],
                variant=m["variant"],
                red=row["r"],
                black=row["b"],
                red_slot=row["s"],
                start_fen=row["f"],
                book_plies=row["k"],
                moves=row["mv"].split(),
                infos=[],
                result=row["res"],
                winner=_winner(row["res"]),
                reason=row["why"],
                search_seconds={"red": red_s, "black": black_s},
                wall_seconds=0.0,
                worker="record",
                finished_at=0.0,
            )
            if store.add_game(record):
                added += 1
    return added
