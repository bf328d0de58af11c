"""The ``ladder engine build`` and ``ladder engine path`` subcommands (registered by
ladder/cli.py)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ladder.engine_binary import (
    BUILD_COMMAND,
    ENGINE_ENV,
    EngineNotBuilt,
    builds_dir,
    find_engine,
    user_cache,
)
from ladder.engine_build import ENGINE_NAME, PROFILES, BuildError, EngineBuild, build

__all__ = ["add_engine", "add_engine_option", "link_current"]


def add_engine_option(parser: argparse.ArgumentParser, default: object = argparse.SUPPRESS) -> None:
    """The ``--engine PATH`` option (lookup step 1). A subcommand's has no default
    (SUPPRESS), so that it keeps a value given before the subcommand's name."""
    parser.add_argument(
        "--engine",
        type=Path,
        default=default,
        metavar="PATH",
        help=f"the Fairy-Stockfish executable to run (default: ${ENGINE_ENV}, then the "
        f"build of `{BUILD_COMMAND}`, then the checkout's `make engine` build)",
    )


def add_engine(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "engine",
        help="build the engine, or say which one is used",
        description="The patched Fairy-Stockfish the ladder runs.",
    )
    commands = p.add_subparsers(dest="engine_command", metavar="ACTION", required=True)
    b = commands.add_parser(
        "build",
        help="build the patched engine into the per-user cache",
        description="Download the pinned, hash-checked engine source, patch it and build "
        f"it into {user_cache()} (nothing is rebuilt when it is there). Needs g++, "
        "patch and network access to PyPI. Prints the engine's path last.",
    )
    b.add_argument(
        "--profile",
        choices=PROFILES,
        default="fast",
        help="fast (default): -O3, LTO, PGO and this CPU's instruction sets, so the "
        "build runs only on CPUs that have them; plain: -O2 for any x86-64",
    )
    b.add_argument(
        "--pyffish",
        action="store_true",
        help="also build pyffish from the same patched source and install it into this "
        "Python environment (only PGN's WXF move notation uses it)",
    )
    b.set_defaults(func=_cmd_build)
    w = commands.add_parser(
        "path",
        help="print the engine the ladder runs",
        description="Print the path of the engine the ladder runs. Lookup order: --engine, "
        f"${ENGINE_ENV}, the per-user cache ({user_cache()}), the checkout's .cache/.",
    )
    w.add_argument(
        "-v", "--verbose", action="store_true", help="also say where it was found and its build"
    )
    add_engine_option(w)
    w.set_defaults(func=_cmd_path)


def link_current(cache: Path, built: Path) -> Path:
    """Point ``<cache>/fairy-stockfish`` at ``built`` (relative, so the cache can move
    as a whole, e.g. into a container image); the link's path."""
    link = cache / ENGINE_NAME
    tmp = cache / f".{ENGINE_NAME}.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(built.relative_to(cache))
    os.replace(tmp, link)  # atomic: a running lookup sees the old or the new build
    return link


def _cmd_build(args: argparse.Namespace) -> int:
    cache = user_cache()
    try:
        built = build(EngineBuild("engine", args.profile), builds_dir(cache))
        link_current(cache, built)
        if args.pyffish:
            # pyffish's own setup.py sets its flags: the profile does not apply
            wheel = build(EngineBuild("pyffish"), builds_dir(cache))
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "install", "--quiet"),
                    *("--force-reinstall", "--no-deps", str(wheel)),
                ],
                check=True,
                stdout=sys.stderr,
            )
            print(f"installed {wheel.name} into {sys.prefix}", file=sys.stderr)
    except (BuildError, subprocess.CalledProcessError) as exc:
        print(f"ladder engine build: {exc}", file=sys.stderr)
        return 1
    try:
        used = find_engine(args.engine)
    except EngineNotBuilt as exc:
        print(f"note: the ladder will not find this build: {exc}", file=sys.stderr)
    else:
        if used.path != built.resolve():
            print(
                f"note: the ladder runs {used.path} (from {used.source}), not this build",
                file=sys.stderr,
            )
    print(built.resolve())
    return 0


def _cmd_path(args: argparse.Namespace) -> int:
    found = find_engine(args.engine)
    if args.verbose:
        build = found.build_key or "not built by `ladder engine build`: no build key"
        print(f"{found.path}  (from {found.source}; {build})")
    else:
        print(found.path)
    return 0
