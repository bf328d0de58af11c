#!/usr/bin/env python3
"""Build Fairy-Stockfish (or pyffish) into the checkout's cache: what `make engine` runs.

The build itself is ladder/engine_build.py (also behind `ladder engine build`, which
builds into the per-user cache); this wrapper only picks the checkout's ``.cache/engine``
and prints the absolute path of what it built as its last line:

    python scripts/build_engine.py                      # patched, fast (PGO)
    python scripts/build_engine.py --unpatched --profile plain
    python scripts/build_engine.py --pyffish-wheel
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ladder.engine_binary import CHECKOUT_CACHE, builds_dir
from ladder.engine_build import PROFILES, BuildError, EngineBuild, build


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unpatched", action="store_true", help="build stock FSF (no patches)")
    ap.add_argument(
        "--profile",
        choices=PROFILES,
        default="fast",
        help="fast: -O3, LTO, CPU flags, PGO; lto: the same without PGO; plain: -O2 only",
    )
    ap.add_argument(
        "--pyffish-wheel",
        action="store_true",
        help="build the pyffish wheel from the same tree instead",
    )
    ap.add_argument(
        "--cache-dir",
        type=Path,
        default=CHECKOUT_CACHE,
        help="the cache whose engine/ holds the builds (default: the checkout's .cache)",
    )
    args = ap.parse_args()
    spec = EngineBuild(
        artifact="pyffish" if args.pyffish_wheel else "engine",
        profile=args.profile,
        patched=not args.unpatched,
    )
    try:
        built = build(spec, builds_dir(args.cache_dir))
    except BuildError as exc:
        print(f"build_engine: {exc}", file=sys.stderr)
        return 1
    print(built.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
