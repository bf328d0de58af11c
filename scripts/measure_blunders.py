"""How often a level blunders: the share of its moves that lose >= 300 centipawns against
the best move, judged by a reference search, over one set of positions for every player.

    python scripts/measure_blunders.py --variant xiangqi --games-db calibration/tune.sqlite \\
        --player 'old1=level:1,levels=calibration/levels-random-moves.toml' \\
        --player 'new1=level:1' --positions 300 --json out.json

The positions are drawn (seeded) from the stored games of a match database: one ply
chosen at random after the opening book of each of ``--positions`` games drawn at random.
Each player is asked for its move in every position with the same seed, as the move
service would answer it (:func:`ladder.level_engine.engine.LevelEngine.search` and ``choose``). The
reference is the patched engine at ``--reference-nodes`` (default 200,000) nodes, Hash
64 MB, a new game before each search: its score of the position is the best move's
value; a move other than its best move is worth minus its score of the position after
that move. The loss is the difference (mates count as 100,000 cp less the distance).
Reference searches are cached in ``--cache`` (JSON), so a rerun with more players or
positions only searches what is new.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ladder.calibration.error_profile import GROSS_CP, LOSS_CAP_CP, Spot, named_specs
from ladder.engine_binary import engine_path
from ladder.level_engine.engine_lines import MATE_CP
from ladder.match.output.store import ResultStore
from ladder.match.players.specs import PlayerSpec
from ladder.match.players.start import make_player, started_players
from ladder.match.statistics import wilson
from ladder.seeds import MoveSeed


def sample_spots(
    db: Path, variant: str, count: int, seed: int, players: set[str] | None = None
) -> list[Spot]:
    """One random post-book ply from each of ``count`` random games of ``variant`` (games
    with one of ``players`` in them, when given)."""
    with ResultStore(db) as store:
        records = [
            r
            for r in store.records()
            if r.variant == variant and (players is None or {r.red, r.black} & players)
        ]
    rng = random.Random(seed)
    rng.shuffle(records)
    spots: list[Spot] = []
    for rec in records:
        if len(spots) >= count:
            break
        first = rec.book_plies
        if len(rec.moves) <= first + 1:
            continue
        ply = rng.randrange(first, len(rec.moves))
        spot = Spot(variant, rec.start_fen, tuple(rec.moves[:ply]))
        if spot.game().outcome() is None:
            spots.append(spot)
    return spots


class Reference:
    """The judging engine, with a cache of its verdicts."""

    def __init__(self, nodes: int, cache: Path | None) -> None:
        spec = PlayerSpec.parse(
            f"engine:{engine_path()},nodes={nodes},Hash=64,newgame=move,name=reference"
        )
        self.player = make_player(spec)
        self.nodes = nodes
        self.cache_path = cache
        self.cache: dict[str, list[Any]] = {}
        if cache is not None and cache.exists():
            self.cache = json.loads(cache.read_text())

    def save(self) -> None:
        if self.cache_path is not None:
            tmp = self.cache_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.cache))
            tmp.replace(self.cache_path)

    async def judge(self, spot: Spot) -> tuple[str, int]:
        """(best move, its value for the side to move) at ``spot``."""
        key = f"{self.nodes}|{spot.key()}"
        if key not in self.cache:
            game = spot.game()
            outcome = game.outcome()
            if outcome is not None:  # the side to move has lost, or it is drawn
                self.cache[key] = ["", 0 if outcome.winner is None else -MATE_CP]
            else:
                info = await self.player.choose(spot.game(), MoveSeed.fixed(0))
                self.cache[key] = [
                    info.move,
                    0 if info.score is None else info.score.score(mate_score=MATE_CP),
                ]
        move, value = self.cache[key]
        return str(move), int(value)

    async def loss(self, spot: Spot, move: str) -> int:
        best, value = await self.judge(spot)
        if move == best:
            return 0
        after = Spot(spot.variant, spot.start_fen, (*spot.moves, move))
        _, reply_value = await self.judge(after)
        return max(0, value + reply_value)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    among = set(args.from_players.split(",")) if args.from_players else None
    spots = sample_spots(args.games_db, args.variant, args.positions, args.seed, among)
    if not spots:
        raise SystemExit(f"no {args.variant} games in {args.games_db}")
    specs = named_specs(args.player)
    reference = Reference(args.reference_nodes, args.cache)
    await reference.player.start()
    losses: dict[str, list[int]] = {s.name: [] for s in specs}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    try:
        async with started_players(specs) as players:
            with Progress(*columns) as bar:
                task = bar.add_task(f"{args.variant} positions", total=len(spots))
                for i, spot in enumerate(spots):
                    for spec, player in zip(specs, players, strict=True):
                        info = await player.choose(
                            spot.game(), MoveSeed.fixed(args.seed * 1_000_003 + i)
                        )
                        losses[spec.name].append(await reference.loss(spot, info.move))
                    bar.advance(task)
                    if i % 10 == 9:
                        reference.save()
    finally:
        reference.save()
        await reference.player.close()
    table: dict[str, Any] = {}
    for name, ls in losses.items():
        gross = sum(1 for x in ls if x >= GROSS_CP)
        lo, hi = wilson(gross / len(ls), len(ls))
        table[name] = {
            "positions": len(ls),
            "gross": gross,
            "gross_share": gross / len(ls),
            "gross_lo": lo,
            "gross_hi": hi,
            "mean_loss_capped": sum(min(x, LOSS_CAP_CP) for x in ls) / len(ls),
            "best_move_share": sum(1 for x in ls if x == 0) / len(ls),
        }
    return {
        "variant": args.variant,
        "reference_nodes": args.reference_nodes,
        "gross_cp": GROSS_CP,
        "players": table,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--games-db", type=Path, required=True)
    p.add_argument("--player", action="append", required=True, help="NAME=SPEC")
    p.add_argument("--positions", type=int, default=300)
    p.add_argument(
        "--from-players",
        default=None,
        help="comma-separated names: positions only from games with one of them in it",
    )
    p.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="NEW=OLD1,OLD2,...",
        help="rate NEW against the old rule at NEW's Elo: the OLD players' gross-blunder "
        "shares interpolated at NEW's Elo (ratings from --ratings-db)",
    )
    p.add_argument(
        "--ratings-db",
        type=Path,
        default=None,
        help="calibration database whose pool fit gives the players' Elo (players are "
        "named as in it)",
    )
    p.add_argument("--reference-nodes", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cache", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    out = asyncio.run(run(args))
    print(
        f"{out['variant']}: share of moves losing >= {GROSS_CP} cp (reference "
        f"{out['reference_nodes']:,} nodes)"
    )
    for name, row in out["players"].items():
        print(
            f"  {name:>16}: {100 * row['gross_share']:5.1f}% "
            f"[{100 * row['gross_lo']:.1f}, {100 * row['gross_hi']:.1f}] of {row['positions']}"
            f"  mean loss {row['mean_loss_capped']:.0f} cp"
            f"  best move {100 * row['best_move_share']:.0f}%"
        )
    if args.compare:
        out["comparison"] = compare(out, args)
        for row in out["comparison"]:
            print(
                f"  {row['new']} at Elo {row['elo']:.0f}: {100 * row['new_share']:.1f}% gross "
                f"blunders; the old rule at that Elo {100 * row['old_share']:.1f}% "
                f"(ratio {row['ratio']:.2f})"
            )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


def compare(out: dict[str, Any], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each NEW player's gross-blunder share against the old rule's at the same Elo: the
    old players' (Elo, share) points, linearly interpolated (clamped at the ends)."""
    from ladder.calibration.fit import fit_pool

    if args.ratings_db is None:
        raise SystemExit("--compare needs --ratings-db")
    with ResultStore(args.ratings_db) as store:
        ids = [m["match_id"] for m in store.matches(f"calibrate:{args.variant}")]
        fit = fit_pool(list(store.records(ids)))
    if fit is None:
        raise SystemExit(f"no {args.variant} calibration games in {args.ratings_db}")
    table = out["players"]
    rows = []
    for text in args.compare:
        new, _, olds = text.partition("=")
        points = sorted((fit.ratings[o].elo, table[o]["gross_share"]) for o in olds.split(","))
        elo = fit.ratings[new].elo
        old_share = points[0][1] if elo <= points[0][0] else points[-1][1]
        for (e0, s0), (e1, s1) in itertools.pairwise(points):
            if e0 <= elo <= e1:
                old_share = s0 + (s1 - s0) * (elo - e0) / (e1 - e0)
        new_share = table[new]["gross_share"]
        rows.append(
            {
                "new": new,
                "elo": elo,
                "new_share": new_share,
                "old_share": old_share,
                "ratio": new_share / old_share if old_share else float("inf"),
                "old_points": points,
            }
        )
    return rows


if __name__ == "__main__":
    sys.exit(main())
