"""Build the frozen position sets of ladder/calibration/position_sets.py from the committed
calibration record: ``data/positions-<variant>.jsonl.gz``.

    python scripts/make_position_sets.py --variant atomic-xiangqi

Games are taken in an order drawn with ``--seed``; in each, ``--plies`` plies past the
opening drawn from the game are looked at, and a position joins every set it qualifies
for that still needs positions (at most ``--per-game`` positions a game per set, so that
a few long games do not fill a set). The general set takes the first ply drawn.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ladder.calibration.position_sets import HALVES, SetPosition, kinds_of, sets_path
from ladder.calibration.record import record_path
from ladder.package_data import CHECKOUT_ROOT
from ladder.rules import Game, RulesError

RECORD = (CHECKOUT_ROOT or Path.cwd()) / "calibration"
#: How many positions each set gets (both halves), by kind.
WANTED = {"check": 600, "threat": 400, "free": 300, "general": 500, "drops": 600}


def build(
    variant: str, seed: int, per_game: int, plies_a_game: int, wanted: dict[str, int]
) -> list[SetPosition]:
    if variant != "crazyhouse-xiangqi":
        wanted = {k: n for k, n in wanted.items() if k != "drops"}
    games = []
    with gzip.open(record_path(RECORD, variant), "rt") as fh:
        for line in fh:
            row = json.loads(line)
            if "mv" in row:
                games.append(row)
    rng = random.Random(seed)
    rng.shuffle(games)
    found: dict[str, list[SetPosition]] = {kind: [] for kind in wanted}
    seen: set[str] = set()
    games_done = 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), transient=not sys.stderr.isatty()) as bar:
        tasks = {k: bar.add_task(f"{variant} {k}", total=n) for k, n in wanted.items()}
        for row in games:
            if all(len(found[k]) >= n for k, n in wanted.items()):
                break
            moves = row["mv"].split()
            first = int(row.get("k", 0))
            rng_game = random.Random(f"{seed}:{row['m']}:{row['g']}")
            drawn = rng_game.sample(range(first, len(moves)), min(plies_a_game, len(moves) - first))
            general_ply = drawn[0] if drawn else -1
            taken = dict.fromkeys(wanted, 0)
            source = f"{row['m']}#{row['g']}"
            try:
                game = Game.from_fen(variant, row["f"], moves[:first])
            except RulesError:
                continue
            for ply in range(first, max(drawn, default=first - 1) + 1):
                if ply > first:
                    try:
                        game.push(moves[ply - 1])
                    except RulesError:
                        break
                if ply not in drawn:
                    continue
                fen = game.fen()
                if fen in seen or game.outcome() is not None:
                    continue
                need = {k for k in wanted if len(found[k]) < wanted[k] and taken[k] < per_game}
                kinds = kinds_of(game, need - {"general"})
                if "general" in need and ply == general_ply:
                    kinds.append("general")
                for kind in kinds:
                    half = HALVES[len(found[kind]) % 2]
                    found[kind].append(SetPosition(variant, kind, half, fen, f"{source}@{ply}"))
                    taken[kind] += 1
                    bar.advance(tasks[kind])
                if kinds:
                    seen.add(fen)
            games_done += 1
            if games_done % 200 == 0 and not sys.stderr.isatty():
                counts = {k: len(v) for k, v in found.items()}
                print(f"{variant}: {games_done} games, {counts}", file=sys.stderr, flush=True)
    short = {k: len(found[k]) for k in wanted if len(found[k]) < wanted[k]}
    if short:
        print(f"{variant}: the record ran out: {short}", file=sys.stderr)
    return [p for kind in wanted for p in found[kind]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-game", type=int, default=2)
    p.add_argument("--plies", type=int, default=12, help="plies looked at in each game")
    p.add_argument("--out", type=Path, default=None, help="default: data/positions-VARIANT")
    args = p.parse_args(argv)
    positions = build(args.variant, args.seed, args.per_game, args.plies, WANTED)
    out = args.out or sets_path(args.variant)
    with gzip.GzipFile(out, "wb", mtime=0) as fh:  # mtime 0: the same sets, the same bytes
        for pos in positions:
            fh.write((json.dumps(pos.row(), separators=(",", ":")) + "\n").encode())
    counts: dict[str, int] = {}
    for pos in positions:
        counts[pos.kind] = counts.get(pos.kind, 0) + 1
    print(f"{out}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
