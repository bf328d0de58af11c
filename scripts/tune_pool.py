"""Rate a pool of players against each other: the tuning experiments behind the ladder.

    python scripts/tune_pool.py --variant xiangqi --db calibration/tune.sqlite \\
        --player random --player greedy \\
        --player 'T100=level:1,levels=calibration/scan-mistakes.toml' ... \\
        --pairs chain --games 20

Each ``--player`` is ``NAME=SPEC`` (or a bare spec, named by itself). ``--pairs`` says
who plays whom: ``chain`` (each player against the next two in the list), ``all``
(round robin), or ``anchors:N`` (every player against each of the first N, and the first
N among themselves). Every pairing is a resumable match in the database (tag
``tune:<variant>``); the fit is the calibration's whole-pool Bradley-Terry fit, anchored
at ``random`` = 0 when it is in the pool.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from rich.console import Console

from ladder.calibration.fit import bt_games
from ladder.match.config import MatchConfig
from ladder.match.game.adjudication import Adjudication
from ladder.match.openings import load_openings
from ladder.match.output.store import ResultStore
from ladder.match.players.specs import PlayerSpec
from ladder.match.runner.backends import make_backend
from ladder.match.runner.execute import execute
from ladder.match.runner.match_run import match_tasks, register_match
from ladder.match.statistics.bradley_terry import fit_ladder


def parse_player(text: str) -> PlayerSpec:
    name, sep, spec = text.partition("=")
    if sep and ":" not in name and name not in ("random", "greedy"):
        return PlayerSpec.parse(f"{spec},name={name}" if ":" in spec else spec)
    return PlayerSpec.parse(text)


def pairings(players: list[PlayerSpec], how: str) -> list[tuple[PlayerSpec, PlayerSpec]]:
    if how == "all":
        return list(itertools.combinations(players, 2))
    if how == "chain":
        return [
            (players[i], players[j])
            for i in range(len(players))
            for j in (i + 1, i + 2)
            if j < len(players)
        ]
    if how.startswith("anchors:"):
        n = int(how.split(":", 1)[1])
        anchors, others = players[:n], players[n:]
        return list(itertools.combinations(anchors, 2)) + [(o, a) for o in others for a in anchors]
    raise SystemExit(f"--pairs: chain, all or anchors:N, not {how!r}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--variant", required=True)
    p.add_argument("--player", action="append", required=True)
    p.add_argument("--pairs", default="chain")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-j", "--concurrency", type=int, default=None)
    p.add_argument("--resign-score", type=int, default=None)
    p.add_argument("--fit-only", action="store_true")
    args = p.parse_args(argv)
    console = Console(stderr=True)
    players = [parse_player(t) for t in args.player]
    openings = load_openings(args.variant)
    adjudication = Adjudication(resign_cp=args.resign_score)
    matches = []
    for a, b in pairings(players, args.pairs):
        m = MatchConfig(
            variant=args.variant,
            player_a=a,
            player_b=b,
            openings=openings,
            games=args.games,
            seed=args.seed,
            adjudication=adjudication,
            tag=f"tune:{args.variant}",
        )
        matches.append(m)
    with ResultStore(args.db) as store:
        for m in matches:
            register_match(store, m)
        if not args.fit_only:
            per = [match_tasks(m) for m in matches]
            tasks = [t for k in range(0, args.games, 2) for ts in per for t in ts[k : k + 2]]
            done = [0]

            def progress(rec: object) -> None:
                if rec is not None:
                    done[0] += 1
                    if done[0] % 20 == 0:
                        console.print(f"{done[0]} games played")

            res = execute(tasks, store, make_backend(args.concurrency), progress=progress)
            console.print(f"played {res.played}, resumed {res.skipped}")
        records = list(store.records([m.match_id for m in matches]))
    games = bt_games(records)
    names = {g.red for g in games} | {g.black for g in games}
    anchor = "random" if "random" in names else players[0].name
    fit = fit_ladder(games, anchor=anchor)
    print(f"{args.variant}: {len(games)} games, anchor {anchor}")
    for name, r in sorted(fit.ratings.items(), key=lambda kv: kv[1].elo):
        print(f"  {name:>24} {r.elo:7.0f}  [{r.lo:6.0f}, {r.hi:6.0f}]  {r.games} games")
    # Head-to-head scores, for the pairings played.
    for m in matches:
        recs = [r for r in records if r.match_id == m.match_id]
        if recs:
            s = sum(r.a_score for r in recs) / len(recs)
            print(f"  {m.player_a.name} vs {m.player_b.name}: {100 * s:.1f}% of {len(recs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
