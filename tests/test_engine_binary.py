"""The engine lookup: --engine, LADDER_ENGINE (MISTBOARD_ENGINE deprecated), the per-user
cache, the checkout; through `ladder engine path` and `ladder --version` as subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ladder.engine_binary as engine_binary
from ladder.engine_binary import (
    DEFAULT_ENGINE,
    DEPRECATED_ENGINE_ENV,
    ENGINE_ENV,
    EngineNotBuilt,
    find_engine,
)
from ladder.engine_build import EngineBuild

LADDER = Path(sys.executable).with_name("ladder")
DEBIAN_FSF = Path("/usr/games/fairy-stockfish")
#: A missing engine's message in a checkout ends with the commands that build one.
CHECKOUT_HINT = "run `make engine` (or `ladder engine build`)"


def ladder(
    *args: str, cache: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in (ENGINE_ENV, DEPRECATED_ENGINE_ENV)}
    return subprocess.run(
        [str(LADDER), *args],
        env={**clean, "XDG_CACHE_HOME": str(cache), **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def user_cache(tmp_path: Path, unpatched_engine_exe: Path) -> Path:
    """A per-user cache whose current engine is the stock reference build (so that it
    is told apart from the checkout's patched one)."""
    cache = tmp_path / "xdg"
    (cache / "mistboard-ladder").mkdir(parents=True)
    (cache / "mistboard-ladder" / "fairy-stockfish").symlink_to(unpatched_engine_exe)
    return cache


def found(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """(path, source) from `ladder engine path -v`."""
    assert done.returncode == 0, done.stderr
    path, _, rest = done.stdout.strip().partition("  (from ")
    return path, rest.split(";")[0]


def test_lookup_order(user_cache: Path, engine_exe: Path, unpatched_engine_exe: Path) -> None:
    option = engine_exe
    given = {ENGINE_ENV: str(DEBIAN_FSF), DEPRECATED_ENGINE_ENV: str(unpatched_engine_exe)}
    path = ["engine", "path", "-v"]
    assert found(ladder(*path, "--engine", str(option), cache=user_cache, env=given)) == (
        str(option),
        "--engine",
    )
    assert found(ladder("--engine", str(option), *path, cache=user_cache, env=given)) == (
        str(option),
        "--engine",
    )
    done = ladder(*path, cache=user_cache, env=given)
    assert found(done) == (str(DEBIAN_FSF), ENGINE_ENV)
    assert "deprecated" not in done.stderr
    done = ladder(*path, cache=user_cache, env={DEPRECATED_ENGINE_ENV: str(DEBIAN_FSF)})
    assert found(done) == (str(DEBIAN_FSF), DEPRECATED_ENGINE_ENV)
    assert done.stderr.strip() == (
        f"ladder: {DEPRECATED_ENGINE_ENV} is deprecated: set {ENGINE_ENV} instead"
    )
    assert found(ladder(*path, cache=user_cache)) == (str(unpatched_engine_exe), "user cache")
    empty = user_cache.parent / "empty"
    empty.mkdir()
    assert found(ladder(*path, cache=empty)) == (str(DEFAULT_ENGINE.resolve()), "checkout")


@pytest.mark.parametrize("name", [ENGINE_ENV, DEPRECATED_ENGINE_ENV, "--engine"])
def test_a_named_engine_that_is_missing_is_an_error_not_a_fallback(
    user_cache: Path, tmp_path: Path, name: str
) -> None:
    missing = tmp_path / "no-such-engine"
    if name == "--engine":
        done = ladder("engine", "path", "--engine", str(missing), cache=user_cache)
    else:
        done = ladder("engine", "path", cache=user_cache, env={name: str(missing)})
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.splitlines()[-1]
        == f"ladder: no engine executable at {missing} (from {name}); {CHECKOUT_HINT}"
    )


def test_nothing_built_names_both_build_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    monkeypatch.delenv(DEPRECATED_ENGINE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(engine_binary, "DEFAULT_ENGINE", tmp_path / "checkout" / "fairy-stockfish")
    with pytest.raises(EngineNotBuilt) as err:
        find_engine()
    message = str(err.value)
    assert "\n" not in message
    assert message.endswith(CHECKOUT_HINT)
    assert str(tmp_path / "mistboard-ladder" / "fairy-stockfish") in message


def test_version_names_the_build_key(user_cache: Path, engine_exe: Path) -> None:
    done = ladder("--version", "--engine", str(engine_exe), cache=user_cache)
    assert done.returncode == 0, done.stderr
    package, engine = done.stdout.splitlines()
    assert package.startswith("mistboard-ladder ")
    # the checkout's build is the one this tree's inputs give
    assert engine == f"engine: {EngineBuild().key()} ({engine_exe}, from --engine)"
    done = ladder("--version", cache=user_cache)  # the user cache's: the stock build
    assert EngineBuild("engine", "plain", patched=False).key() in done.stdout
    done = ladder("--version", cache=user_cache, env={ENGINE_ENV: str(DEBIAN_FSF)})
    assert done.stdout.splitlines()[1] == (
        f"engine: no build key (not built by `ladder engine build`) ({DEBIAN_FSF}, "
        f"from {ENGINE_ENV})"
    )


@pytest.mark.parametrize("where", ["after", "before"])
def test_engine_option_reaches_the_engines_a_command_starts(
    user_cache: Path, tmp_path: Path, engine_exe: Path, where: str
) -> None:
    """`ladder move --engine X` (or `ladder --engine X move`) runs X: here a wrapper
    that leaves a mark, then runs our engine."""
    mark = tmp_path / "used"
    wrapper = tmp_path / "wrapped-engine"
    wrapper.write_text(f'#!/bin/sh\ntouch {mark}\nexec {engine_exe} "$@"\n')
    wrapper.chmod(0o755)
    # past the book: a book move starts no engine (tests/service/test_local_move.py)
    move = ["move", "--variant", "xiangqi", "--level", "1", "--seed", "1", "--moves", "h3e3 a10a9"]
    option = ["--engine", str(wrapper)]
    argv = [*move, *option] if where == "after" else [*option, *move]
    done = ladder(*argv, cache=user_cache, env={ENGINE_ENV: str(DEBIAN_FSF)})
    assert done.returncode == 0, done.stderr
    assert mark.exists()
    done = ladder(*move, "--engine", str(tmp_path / "none"), cache=user_cache)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    missing = tmp_path / "none"
    assert line == f"ladder: no engine executable at {missing} (from --engine); {CHECKOUT_HINT}"


def _wrapped_engine(tmp_path: Path, engine_exe: Path) -> tuple[Path, Path]:
    """A wrapper that leaves a mark, then runs our engine: (wrapper, mark)."""
    mark = tmp_path / "used"
    wrapper = tmp_path / "wrapped-engine"
    wrapper.write_text(f'#!/bin/sh\ntouch {mark}\nexec {engine_exe} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, mark


@pytest.mark.parametrize("command", ["match", "tournament", "analyse", "study", "calibrate"])
def test_engine_option_reaches_every_engine_a_command_starts(
    user_cache: Path, tmp_path: Path, engine_exe: Path, command: str
) -> None:
    """`ladder --engine X <command>` runs X in the engines the command starts, in its
    worker processes too, while $LADDER_ENGINE names another engine: the path is passed
    down with the command's players and config, not through the environment."""
    wrapper, mark = _wrapped_engine(tmp_path, engine_exe)
    db = tmp_path / "m.sqlite"
    short = ["--games", "2", "--variant", "xiangqi", "--max-plies", "6", "-j", "1", "--db", str(db)]
    argv = {
        "match": ["match", "level:1", "random", *short],
        "tournament": ["tournament", "level:1", "random", "greedy", *short],
        "analyse": ["analyse", "--variant", "xiangqi", "--moves", "h3e3 h10g8", "--nodes", "500"],
        "study": ["study", str(tmp_path / "g.pgn"), "--nodes", "500", "--out", str(tmp_path / "s")],
        "calibrate": [
            "calibrate", "--variant", "xiangqi", "--plan", str(tmp_path / "plan.toml"),
            "--max-level", "1", "--db", str(db), "--out", str(tmp_path / "l.toml"),
            "--bootstrap", "0", "-j", "1",
        ],
    }[command]  # fmt: skip
    if command == "study":  # games to study, played with the usual engine
        played = ["match", "level:1", "random", *short, "--pgn", str(tmp_path / "g.pgn")]
        done = ladder(*played, cache=user_cache, env={ENGINE_ENV: str(engine_exe)})
        assert done.returncode == 0, done.stderr
    (tmp_path / "plan.toml").write_text("games = 2\nskip_one_games = 0\nmax_games = 2\n")
    done = ladder("--engine", str(wrapper), *argv, cache=user_cache, env={ENGINE_ENV: "/nowhere"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert mark.exists()


def test_engine_option_reaches_the_bridge(
    user_cache: Path, tmp_path: Path, engine_exe: Path
) -> None:
    """`ladder --engine X uci` searches on X."""
    from tests.bridge.helpers import LineSession

    wrapper, mark = _wrapped_engine(tmp_path, engine_exe)
    clean = {k: v for k, v in os.environ.items() if k not in (ENGINE_ENV, DEPRECATED_ENGINE_ENV)}
    env = {**clean, "XDG_CACHE_HOME": str(user_cache), ENGINE_ENV: "/nowhere"}
    session = LineSession([str(LADDER), "--engine", str(wrapper), "uci"], env=env)
    try:
        session.send("uci")
        session.expect("uciok")
        # out of the opening book (a book move needs no search)
        out_of_book = "position startpos moves h3e3 h10g8 h1g3 i10h10 i1i2 a10a9"
        session.send("setoption name Level value 1", out_of_book, "go")
        session.expect("bestmove")
        session.send("quit")
        assert session.proc.wait(timeout=30) == 0
    finally:
        session.proc.kill()
    assert mark.exists()


def test_engine_option_is_not_passed_through_the_environment(
    engine_exe: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ladder.cli import main

    monkeypatch.delenv(ENGINE_ENV, raising=False)
    argv = ["--engine", str(engine_exe), "analyse", "--variant", "xiangqi", "--moves", "h3e3"]
    assert main([*argv, "--nodes", "300", "-o", "-"]) == 0
    assert "[Variant " in capsys.readouterr().out
    assert ENGINE_ENV not in os.environ
