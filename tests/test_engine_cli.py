"""`ladder engine build` and `ladder engine path`, as subprocesses, with a per-user cache
in a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ladder.engine_binary import CHECKOUT_CACHE, DEPRECATED_ENGINE_ENV, ENGINE_ENV, builds_dir
from ladder.engine_build import EngineBuild, cached_build

LADDER = Path(sys.executable).with_name("ladder")


def ladder(
    *args: str, cache: Path, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in (ENGINE_ENV, DEPRECATED_ENGINE_ENV)}
    return subprocess.run(
        [str(LADDER), *args],
        env={**clean, "XDG_CACHE_HOME": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_build_links_the_user_cache_to_its_build(tmp_path: Path, engine_exe: Path) -> None:
    """With the build in the cache already (the checkout's, under its key), `build`
    rebuilds nothing, points the cache's link at it (relative: the cache can move as a
    whole) and prints its path last; the lookup then finds it there."""
    key = EngineBuild().key()
    built = cached_build(builds_dir(CHECKOUT_CACHE), key)
    assert built is not None, "run `make engine`"
    cache = tmp_path / "xdg"
    shutil.copytree(built.parent, builds_dir(cache / "mistboard-ladder") / key)
    done = ladder("engine", "build", cache=cache)
    assert done.returncode == 0, done.stderr
    current = cache / "mistboard-ladder" / "engine" / key / "fairy-stockfish"
    assert done.stdout.splitlines()[-1] == str(current)
    assert "cached" in done.stderr and "note" not in done.stderr
    link = cache / "mistboard-ladder" / "fairy-stockfish"
    assert os.readlink(link) == f"engine/{key}/fairy-stockfish"
    assert ladder("engine", "path", cache=cache).stdout.strip() == str(current)
    # an engine named in the environment comes first: build says so
    done = ladder("engine", "build", cache=cache, LADDER_ENGINE=str(engine_exe))
    assert done.returncode == 0
    assert f"note: the ladder runs {engine_exe} (from LADDER_ENGINE), not this build" in done.stderr


@pytest.mark.slow
def test_build_from_scratch(tmp_path: Path) -> None:
    """A real build into an empty cache: download, hash check, patches, compile (plain
    profile: the quickest), then the doctor's checks pass on it."""
    cache = tmp_path / "xdg"
    done = ladder("engine", "build", "--profile", "plain", cache=cache, timeout=1800)
    assert done.returncode == 0, done.stderr
    key = EngineBuild("engine", "plain").key()
    assert done.stdout.strip().endswith(f"{key}/fairy-stockfish")
    for step in ("downloading", "applying 0001", "compiled", "linking", "built"):
        assert step in done.stderr, step
    doctor = ladder("doctor", cache=cache, timeout=300)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert key in doctor.stdout
