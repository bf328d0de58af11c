"""The ``ladder perft`` subcommand (registered by ladder/cli.py)."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_perft", "add_position_options"]


def add_perft(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "perft",
        help="count legal move sequences (rules checker self-test)",
        description="Perft with the local rules checker (ladder/rules).",
    )
    add_position_options(p)
    p.add_argument("--depth", required=True, type=int, help="plies, 0..10")
    p.add_argument(
        "--divide",
        action="store_true",
        help="print the count after each first move, then the total",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print {variant, fen, depth, nodes, seconds[, divide]} as JSON",
    )
    p.set_defaults(func=_cmd_perft)


def add_position_options(p: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--fen``: the position a command starts from (``ladder perft``,
    ``ladder move``)."""
    p.add_argument("--variant", required=True, help="xiangqi, atomic-xiangqi or crazyhouse-xiangqi")
    p.add_argument("--fen", default=None, help="start position (default: the variant's)")


def _cmd_perft(args: argparse.Namespace) -> int:
    import time

    from ladder.rules import Game, RulesError, divide, perft

    t0 = time.perf_counter()
    split: dict[str, int] = {}
    try:
        game = Game.from_fen(args.variant, args.fen)
        if args.divide:
            split = divide(game, args.depth) if args.depth > 0 else {}
            total = sum(split.values()) if args.depth > 0 else 1
        else:
            total = perft(game, args.depth)
    except RulesError as exc:
        print(f"ladder perft: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - t0
    if args.json:
        answer: dict[str, object] = {
            "variant": args.variant,
            "fen": game.start_fen,
            "depth": args.depth,
            "nodes": total,
            "seconds": round(seconds, 6),
        }
        if args.divide:
            answer["divide"] = split
        print(json.dumps(answer))
        return 0
    for move, count in split.items():
        print(f"{move}: {count}")
    print(total)
    print(f"{seconds:.2f}s", file=sys.stderr)
    return 0
