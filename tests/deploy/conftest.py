"""The installation the deployment files make, made here without Docker.

The ``installation`` fixture runs the build stage of deploy/Dockerfile line by line in a
temporary folder outside the checkout: its ``COPY . $SRC`` (the checkout's files, as the
build context has them), then every ``RUN`` with ``bash -c``, in the stage's environment
with its paths moved into the folder. So the commands the image runs are the commands
this suite runs, and the tests of this package use what they made: a wheel installed
into a fresh virtualenv, the engine in its per-user cache.

Two things are not done here, and the Dockerfile may do nothing else unnoticed:
installing system packages (this machine has them) and creating the service user (that
needs root). The engine is not built again: the cache gets the checkout's build (`make
engine`) under its key, after checking that the installed package computes that same
key, so `ladder engine build` finds it there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ladder.engine_binary import CHECKOUT_CACHE, ENGINE_ENV, builds_dir
from ladder.engine_build import EngineBuild, cached_build

from .dockerfile import ROOT, Stage, expand, parse

#: Dockerfile variables that hold paths, and where they go in the temporary folder.
MOVED = {
    "SRC": "src",
    "WHEELS": "wheels",
    "VENV": "venv",
    "XDG_CACHE_HOME": "cache",
    "LADDER_API_KEYS": "secrets/ladder-api-keys",  # what `docker run -v` mounts
}
#: Dockerfile variables the tests do not apply, and why.
NOT_APPLIED = {"PIP_NO_CACHE_DIR": "the tests reuse the pip cache"}
#: RUN commands (by their first word) the tests do not run, and why.
NOT_RUN = {
    "apt-get": "system packages: this machine has them",
    "useradd": "creating the service user needs root",
}
#: Variables of the test run that must not reach the installation.
SCRUBBED = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", ENGINE_ENV, "MISTBOARD_ENGINE")
STEP_TIMEOUT = 600.0


@dataclass
class Installation:
    """What the Dockerfile's build stage made, in ``root``."""

    root: Path
    stages: list[Stage]
    env: dict[str, str]  #: the final stage's environment (PATH starts at the venv)
    ran: list[str]  #: the RUN lines run, in order
    skipped: list[str]  #: the RUN lines not run (NOT_RUN)

    @property
    def venv(self) -> Path:
        return self.root / MOVED["VENV"]

    @property
    def cache(self) -> Path:
        return self.root / MOVED["XDG_CACHE_HOME"]

    def run(
        self, argv: list[str], env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """Run a command from a folder outside the checkout, in the final stage's
        environment (plus ``env``)."""
        return subprocess.run(
            argv,
            cwd=self.root,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def stage_env(stage: Stage, root: Path, base: dict[str, str]) -> dict[str, str]:
    """``base`` with the stage's ARG/ENV values, paths moved under ``root``."""
    env = dict(base)
    for name, raw in stage.assignments():
        if name in NOT_APPLIED:
            continue
        value = str(root / MOVED[name]) if name in MOVED else expand(raw, env)
        if value.startswith("/") and not value.startswith(str(root)):
            pytest.fail(f"Dockerfile variable {name}={raw} is a path the tests do not move")
        env[name] = value
    return env


def clean_base_env(root: Path) -> dict[str, str]:
    """The test run's environment without anything that points into the checkout, and
    with ``python3`` the plain interpreter the tests run on (not their virtualenv)."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    checkout_bins = {str(Path(sys.prefix) / "bin"), str(ROOT / ".venv" / "bin")}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p not in checkout_bins]
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["PATH"] = os.pathsep.join([str(bin_dir), *path])
    return env


def copy_build_context(dest: Path) -> None:
    """``COPY . $SRC``: the checkout's source files (tracked or new, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def seed_engine_cache(venv: Path, cache: Path, env: dict[str, str]) -> None:
    """Give the per-user cache the checkout's builds, once the installed package is seen
    to compute the same keys (same patches, variants.ini, flags and compiler)."""
    specs = (EngineBuild("engine", "fast"), EngineBuild("pyffish", "fast"))
    asked = "from ladder.engine_build import EngineBuild as B; " + "; ".join(
        f"print(B({spec.artifact!r}, {spec.profile!r}).key())" for spec in specs
    )
    keys = subprocess.run(
        [str(venv / "bin" / "python"), "-c", asked],
        cwd=cache.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert keys == [spec.key() for spec in specs], "the wheel computes other build keys"
    for key in keys:
        built = cached_build(builds_dir(CHECKOUT_CACHE), key)
        if built is None:
            pytest.fail(f"no build {key} in {builds_dir(CHECKOUT_CACHE)}: run `make engine`")
        shutil.copytree(built.parent, builds_dir(cache / "mistboard-ladder") / key)


@pytest.fixture(scope="session")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installation]:
    root = tmp_path_factory.mktemp("install")
    stages = parse()
    build_stage = stages[0]
    base = clean_base_env(root)
    env = stage_env(build_stage, root, base)
    ran: list[str] = []
    skipped: list[str] = []
    for ins in build_stage.instructions:
        if ins.keyword == "COPY":
            assert ins.args == ". $SRC", f"unexpected COPY {ins.args}"
            copy_build_context(Path(env["SRC"]))
        elif ins.keyword == "RUN":
            if ins.args.split()[0] in NOT_RUN:
                skipped.append(ins.args)
                continue
            if "ladder engine build" in ins.args.replace('"$VENV/bin/ladder"', "ladder"):
                seed_engine_cache(Path(env["VENV"]), Path(env["XDG_CACHE_HOME"]), env)
            done = subprocess.run(
                ["bash", "-c", ins.args],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=STEP_TIMEOUT,
            )
            assert done.returncode == 0, f"RUN {ins.args}\n{done.stdout}\n{done.stderr}"
            ran.append(ins.args)
    final_env = stage_env(stages[-1], root, base)
    yield Installation(root, stages, final_env, ran, skipped)
