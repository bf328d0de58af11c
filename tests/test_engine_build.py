"""The engine build (ladder/engine_build.py): what its key hashes, its cache, its lock,
and scripts/build_engine.py (what `make engine` runs) over it."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ladder.engine_build as engine_build
from ladder.engine_binary import CHECKOUT_CACHE, builds_dir
from ladder.engine_build import EngineBuild, cached_build, is_build_key
from ladder.package_data import data_path

ROOT = Path(__file__).resolve().parents[1]
SPECS = [
    EngineBuild("engine", "fast"),
    EngineBuild("engine", "lto"),
    EngineBuild("engine", "plain", patched=False),
    EngineBuild("pyffish", "fast"),
]


def keys() -> list[str]:
    return [spec.key() for spec in SPECS]


@pytest.fixture
def patches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the patches and of variants.ini that the key reads instead."""
    copy = tmp_path / "patches"
    shutil.copytree(data_path("engine_patches"), copy)
    variants = tmp_path / "variants.ini"
    shutil.copy(engine_build.VARIANTS_INI, variants)
    monkeypatch.setattr(engine_build, "data_path", lambda name: copy)
    monkeypatch.setattr(engine_build, "VARIANTS_INI", variants)
    return copy


def test_key_names_the_build_and_is_stable() -> None:
    first = keys()
    assert first == keys()
    assert len(set(first)) == len(first)
    assert [k.rsplit("-", 1)[0] for k in first] == [
        "engine-fast-patched",
        "engine-lto-patched",
        "engine-plain-unpatched",
        "pyffish-fast-patched",
    ]
    assert all(is_build_key(k) for k in first)


def test_key_follows_the_patches(patches: Path) -> None:
    before = keys()
    first = sorted(patches.glob("*.patch"))[0]
    first.write_text(first.read_text() + "\n")
    after = keys()
    # every patched build changes, the stock one does not
    assert [a != b for a, b in zip(before, after, strict=True)] == [True, True, False, True]
    (patches / "0009-new.patch").write_text("")
    assert keys()[0] not in (before[0], after[0])


def test_key_follows_variants_ini_only_where_the_pgo_run_reads_it(patches: Path) -> None:
    before = keys()
    variants = engine_build.VARIANTS_INI
    variants.write_text(variants.read_text() + "\n# changed\n")
    after = keys()
    assert [a != b for a, b in zip(before, after, strict=True)] == [True, False, False, False]


def test_key_follows_recipe_compiler_and_python(monkeypatch: pytest.MonkeyPatch) -> None:
    before = keys()
    monkeypatch.setattr(engine_build, "RECIPE_VERSION", engine_build.RECIPE_VERSION + 1)
    assert all(a != b for a, b in zip(before, keys(), strict=True))
    monkeypatch.undo()
    monkeypatch.setattr(engine_build, "_compiler_id", lambda: "g++ (Other) 99.1")
    assert all(a != b for a, b in zip(before, keys(), strict=True))
    monkeypatch.undo()
    # a wheel is for one Python: the engine does not care which one builds it
    monkeypatch.setattr(sys.implementation, "cache_tag", "cpython-399")
    assert [a != b for a, b in zip(before, keys(), strict=True)] == [False, False, False, True]


def test_key_does_not_hash_the_build_code(tmp_path: Path) -> None:
    """Editing the build's code (a comment here) rebuilds nothing: a copy of the tree
    with an edited ladder/engine_build.py computes the same keys."""
    for name in ("pyproject.toml", "variants.ini", "engine", "ladder"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, tmp_path / name)
    edited = tmp_path / "ladder" / "engine_build.py"
    edited.write_text(edited.read_text() + "\n# an edit that changes no build\n")
    code = "from ladder.engine_build import EngineBuild as B; print(B().key(), B('pyffish').key())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [EngineBuild().key(), EngineBuild("pyffish").key()]


def seeded_cache(tmp_path: Path, spec: EngineBuild) -> tuple[Path, Path]:
    """(a cache, the checkout's build of ``spec`` to copy into it)."""
    built = cached_build(builds_dir(CHECKOUT_CACHE), spec.key())
    if built is None:
        pytest.fail(f"no {spec.key()} in the checkout's cache: run `make engine`")
    return tmp_path / "cache", built


def test_wrapper_prints_the_cached_build_and_waits_for_a_concurrent_build(
    tmp_path: Path,
) -> None:
    """A build already under way (its lock held) is waited for, not done twice; the
    script's last line is the built file."""
    spec = EngineBuild("engine", "plain", patched=False)
    cache, built = seeded_cache(tmp_path, spec)
    builds = builds_dir(cache)
    builds.mkdir(parents=True)
    key = spec.key()
    with (builds / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        script = subprocess.Popen(
            [
                *(sys.executable, str(ROOT / "scripts" / "build_engine.py"), "--unpatched"),
                *("--profile", "plain", "--cache-dir", str(cache)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert script.stderr is not None
        line = script.stderr.readline()
        assert line.strip() == f"[build_engine] waiting for another process building {key}"
        shutil.copytree(built.parent, builds / key)  # the other process finishes
    out, err = script.communicate(timeout=60)
    assert script.returncode == 0, err
    assert out.splitlines()[-1] == str((builds / key / built.name).resolve())
    assert err.strip() == f"[build_engine] cached: {builds / key}"


def test_build_error_is_one_line(tmp_path: Path) -> None:
    """No compiler: the script says what is missing, in one line, and fails."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_engine.py"), "--cache-dir", str(tmp_path)],
        env={"PATH": str(tmp_path)},  # no g++ there
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("build_engine: g++ not found: the engine build needs g++ and patch")
