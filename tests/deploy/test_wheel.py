"""The wheel, installed into a fresh virtualenv in a folder outside the checkout (by the
Dockerfile's build steps, conftest.py), used as a user would use it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ladder.engine_build import EngineBuild
from ladder.rules import Game

from .conftest import Installation
from .dockerfile import ROOT


def test_imports_come_from_the_installation(installation: Installation) -> None:
    code = (
        "import ladder, ladder.client, protocol; "
        "from ladder.variants import VARIANTS_INI; from ladder.levels import LEVELS_FILE; "
        "from ladder.match.openings import OPENINGS_DIR; "
        "print(ladder.__file__, protocol.__file__, VARIANTS_INI, LEVELS_FILE, OPENINGS_DIR)"
    )
    done = installation.run(["python", "-c", code])
    assert done.returncode == 0, done.stderr
    paths = done.stdout.split()
    assert len(paths) == 5
    for path in paths:
        assert path.startswith(str(installation.venv / "lib")), path
    # the package data is the repository's: built in, not copied by hand
    assert (ROOT / "variants.ini").read_text() == Path(paths[2]).read_text()


def test_version_names_the_engine_build(installation: Installation) -> None:
    done = installation.run(["ladder", "--version"])
    assert done.returncode == 0, done.stderr
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    name, engine = done.stdout.splitlines()
    assert name == f"mistboard-ladder {version}"
    assert engine.startswith(f"engine: {EngineBuild().key()} (")
    assert "from user cache" in engine


def test_engine_path_is_the_user_cache(installation: Installation) -> None:
    done = installation.run(["ladder", "engine", "path"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(installation.cache / "mistboard-ladder"))


def test_move(installation: Installation) -> None:
    done = installation.run(
        [
            *("ladder", "move", "--variant", "atomic-xiangqi", "--moves", "h3e3 h8e8"),
            *("--level", "2", "--seed", "7"),
        ]
    )
    assert done.returncode == 0, done.stderr
    move = done.stdout.split()[0]
    assert Game.from_fen("atomic-xiangqi", moves=["h3e3", "h8e8"]).is_legal(move)


def test_perft(installation: Installation) -> None:
    done = installation.run(["ladder", "perft", "--variant", "xiangqi", "--depth", "3"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "79666"


def test_no_engine_is_a_one_line_error(installation: Installation) -> None:
    empty = installation.root / "empty-cache"
    empty.mkdir(exist_ok=True)
    for argv, code in (
        (["ladder", "move", "--variant", "xiangqi", "--level", "1"], 3),
        (["ladder", "serve", "--port", "1"], 2),
        (["ladder", "engine", "path"], 2),
    ):
        # no key file either: the image's LADDER_API_KEYS names one that is not there
        env = {"XDG_CACHE_HOME": str(empty), "LADDER_API_KEYS": ""}
        done = installation.run(argv, env=env)
        assert done.returncode == code, (argv, done.stderr)
        assert done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert line.startswith((f"ladder {argv[1]}: ", "ladder: ")), line
        # it names the command that builds one, and not `make engine`: an installed
        # package has no Makefile
        assert "no engine built" in line and line.endswith("run `ladder engine build`"), line
    done = installation.run(["ladder", "--version"], env={"XDG_CACHE_HOME": str(empty)})
    assert done.stdout.splitlines()[1] == "engine: not built; run `ladder engine build`"


def test_engine_build_pyffish_installs_it(installation: Installation) -> None:
    """`--pyffish` builds pyffish from the patched source (here: found in the cache
    under its key) and installs it into the running environment; doctor then checks
    that it plays our rules."""
    assert "pyffish    not installed" in installation.run(["ladder", "doctor"]).stdout
    done = installation.run(["ladder", "engine", "build", "--pyffish"])
    assert done.returncode == 0, done.stderr
    assert "installed pyffish-" in done.stderr
    doctor = installation.run(["ladder", "doctor"])
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    (line,) = [x for x in doctor.stdout.splitlines() if "pyffish" in x.split()[1]]
    assert line.startswith("ok") and line.endswith("plays our rules")
    assert str(installation.venv) in line
