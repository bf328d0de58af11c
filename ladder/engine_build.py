"""Build Fairy-Stockfish (and pyffish) from the pinned pyffish sdist, with our patches.

The pyffish source package on PyPI carries the whole engine source. We download it
(pinned version, sha256 verified), apply every patch of ``engine/patches/`` in name
order, and compile:

* the ``fairy-stockfish`` executable, with the fastest flags this CPU supports,
  ``-O3``, link-time optimisation and profile-guided optimisation (profile ``fast``),
  the same without PGO (``lto``), or a plain ``-O2`` build (``plain``, the benchmark's
  baseline; scripts/bench_engine.py compares all three);
* or a ``pyffish`` wheel from the same patched tree, so that pyffish and the engine play
  identical rules.

Each build goes to ``<cache>/<key>/``, the key hashing what determines the result: the
sdist's hash, the patches, the flags, the compiler, the Python a wheel is for,
:data:`RECIPE_VERSION`, and for the PGO training run ``variants.ini``. The same inputs
never build twice; two processes asking for the same build at once build it once (a
lock file). Callers: ``make engine`` (scripts/build_engine.py, into the checkout's
``.cache/engine``) and ``ladder engine build`` (into the per-user cache).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from ladder.package_data import data_path
from ladder.variants import VARIANTS_INI

__all__ = [
    "PROFILES",
    "RECIPE_VERSION",
    "BuildError",
    "EngineBuild",
    "build",
    "cached_build",
    "is_build_key",
]

#: Bump when the way a build is made changes in a way the hashed inputs do not show
#: (steps, the PGO procedure, how a wheel is made): every cached build is then redone.
RECIPE_VERSION = 1

PYFFISH_VERSION = "0.0.90"
PYFFISH_SHA256 = "4a79601d85f392bce03705a275fb5f03dc44a554b26d32d518fb6887d772f701"
SDIST_NAME = f"pyffish-{PYFFISH_VERSION}.tar.gz"

Profile = Literal["fast", "lto", "plain"]
Artifact = Literal["engine", "pyffish"]
PROFILES: tuple[Profile, ...] = ("fast", "lto", "plain")

DEFINES = [
    "-DLARGEBOARDS",
    "-DALLVARS",
    "-DPRECOMPUTED_MAGICS",
    "-DNNUE_EMBEDDING_OFF",
    "-DIS_64BIT",
    "-DNDEBUG",
]
# Positions searched to train the profile-guided build: our three rule sets.
PGO_RUN = [
    "bench mistboard-xiangqi 16 1 12 default depth",
    "bench atomic-xiangqi 16 1 11 default depth",
    "bench crazyhouse-xiangqi 16 1 11 default depth",
]
ENGINE_NAME = "fairy-stockfish"
_DONE = "DONE"  # in a finished build's directory: the built file's name
_KEY_RE = re.compile(r"^(engine|pyffish)-(fast|lto|plain)-(patched|unpatched)-[0-9a-f]{16}$")


class BuildError(RuntimeError):
    """A build cannot be made (a tool missing, the download or the compiler failed)."""


def log(msg: str) -> None:
    """Progress, on stderr: stdout carries only the built file's path."""
    print(f"[build_engine] {msg}", file=sys.stderr, flush=True)


def is_build_key(name: str) -> bool:
    """Whether ``name`` is a build key (the name of a build's cache directory)."""
    return _KEY_RE.match(name) is not None


def _sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(
    argv: list[str],
    *,
    cwd: Path | None = None,
    input: str | None = None,
    stdout: int | TextIO | None = None,
    capture_output: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run a build tool; a missing tool or a failure is a :class:`BuildError`."""
    try:
        return subprocess.run(
            argv,
            check=True,
            text=True,
            cwd=cwd,
            input=input,
            stdout=stdout,
            stderr=subprocess.DEVNULL if stdout == subprocess.DEVNULL else None,
            capture_output=capture_output,
        )
    except FileNotFoundError as exc:
        raise BuildError(
            f"{argv[0]} not found: the engine build needs g++ and patch "
            "(Debian: apt-get install g++ patch)"
        ) from exc
    except subprocess.CalledProcessError as exc:
        command = " ".join(argv[:3])
        raise BuildError(f"{command} ... failed with exit code {exc.returncode}") from exc


def _patch_files(patched: bool) -> list[Path]:
    return sorted(data_path("engine_patches").glob("*.patch")) if patched else []


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _arch_flags(profile: Profile) -> list[str]:
    """The fastest instruction set flags FSF's own Makefile would pick for this CPU."""
    if profile == "plain":
        return []
    flags = _cpu_flags()
    out = ["-m64"]
    if "popcnt" in flags:
        out += ["-mpopcnt", "-DUSE_POPCNT"]
    if "sse4_1" in flags:
        out += ["-msse4.1", "-DUSE_SSE41", "-mssse3", "-DUSE_SSSE3", "-msse2", "-DUSE_SSE2"]
    if "avx2" in flags:
        out += ["-mavx2", "-DUSE_AVX2"]
    if "bmi2" in flags:
        out += ["-mbmi2", "-DUSE_PEXT"]
    return out


def _opt_flags(profile: Profile) -> list[str]:
    if profile == "plain":
        return ["-O2"]
    return ["-O3", "-funroll-loops", "-flto=auto", "-fno-fat-lto-objects"]


def _compiler_id() -> str:
    return _run(["g++", "--version"], capture_output=True).stdout.splitlines()[0]


@dataclass(frozen=True)
class EngineBuild:
    """One thing to build: the engine executable or a pyffish wheel, with or without
    our patches, at an optimisation profile."""

    artifact: Artifact = "engine"
    profile: Profile = "fast"
    patched: bool = True

    def key(self) -> str:
        """The build key: ``<artifact>-<profile>-<patched|unpatched>-<16 hex>``, the hex
        a hash of everything that determines the result (runs ``g++ --version``)."""
        h = hashlib.sha256()
        h.update(f"recipe {RECIPE_VERSION}\nsdist {PYFFISH_SHA256}\n".encode())
        for patch in _patch_files(self.patched):
            h.update(f"patch {patch.name} {_sha256_file(patch)}\n".encode())
        inputs = [self.artifact, self.profile, DEFINES, _compiler_id()]
        if self.artifact == "engine":
            inputs += [_arch_flags(self.profile), _opt_flags(self.profile)]
            if self.profile == "fast":  # the PGO training run loads our variants
                inputs += [PGO_RUN, _sha256_file(VARIANTS_INI)]
        else:  # a wheel is for one Python and platform; pyffish's setup.py has its flags
            inputs += [sys.implementation.cache_tag, sys.platform, os.uname().machine]
        h.update(repr(inputs).encode())
        kind = "patched" if self.patched else "unpatched"
        return f"{self.artifact}-{self.profile}-{kind}-{h.hexdigest()[:16]}"


def cached_build(cache: Path, key: str) -> Path | None:
    """The built file of build ``key`` under ``cache``, None if it is not (fully) built."""
    done = cache / key / _DONE
    if not done.is_file():
        return None
    return cache / key / done.read_text().strip()


def build(spec: EngineBuild, cache: Path) -> Path:
    """Build ``spec`` under ``cache`` unless it is there; the built file's path."""
    key = spec.key()
    found = cached_build(cache, key)
    if found is not None:
        log(f"cached: {found.parent}")
        return found
    cache.mkdir(parents=True, exist_ok=True)
    with _lock(cache / f"{key}.lock"):
        found = cached_build(cache, key)  # built by another process while we waited
        if found is not None:
            log(f"cached: {found.parent}")
            return found
        log(f"building {key} in {cache}")
        work = cache / f"{key}.tmp"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        tree = _unpack(_fetch_sdist(cache), _patch_files(spec.patched), work / "src")
        if spec.artifact == "pyffish":
            name = _build_wheel(tree, work).name
        else:
            name = ENGINE_NAME
            _build_executable(tree, work / name, spec.profile)
        shutil.rmtree(work / "src")
        (work / _DONE).write_text(name + "\n")
        final = cache / key
        shutil.rmtree(final, ignore_errors=True)
        work.rename(final)
        log(f"built: {final}")
        return final / name


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another process building {path.stem}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _fetch_sdist(cache: Path) -> Path:
    """Download the pinned sdist once (pip, from PyPI) and verify its hash."""
    dest = cache / "sdist" / SDIST_NAME
    if dest.exists() and _sha256_file(dest) == PYFFISH_SHA256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    log(f"downloading {SDIST_NAME}")
    with tempfile.TemporaryDirectory() as tmp:
        _run(
            [
                *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                *("--no-binary", ":all:", f"pyffish=={PYFFISH_VERSION}", "-d", tmp),
            ],
            stdout=sys.stderr,
        )
        got = Path(tmp) / SDIST_NAME
        digest = _sha256_file(got)
        if digest != PYFFISH_SHA256:
            raise BuildError(
                f"{SDIST_NAME}: sha256 {digest} does not match the pin {PYFFISH_SHA256}"
            )
        shutil.copy(got, dest.with_suffix(".part"))
        os.replace(dest.with_suffix(".part"), dest)
    return dest


def _unpack(sdist: Path, patch_files: list[Path], dest: Path) -> Path:
    with tarfile.open(sdist) as tar:
        tar.extractall(dest, filter="data")
    tree = dest / f"pyffish-{PYFFISH_VERSION}"
    for patch in patch_files:
        log(f"applying {patch.name}")
        _run(
            ["patch", "-p1", "--forward", "--quiet", "-i", str(patch)], cwd=tree, stdout=sys.stderr
        )
    return tree


def _engine_sources(tree: Path) -> list[Path]:
    src = tree / "src"
    files = [
        *src.glob("*.cpp"),
        *src.glob("syzygy/*.cpp"),
        *src.glob("nnue/*.cpp"),
        *src.glob("nnue/features/*.cpp"),
    ]
    return sorted(f for f in files if f.name not in ("pyffish.cpp", "ffishjs.cpp"))


def _compile_engine(tree: Path, out: Path, flags: list[str]) -> None:
    """Compile every translation unit in parallel (one per core), then link."""
    objdir = out.parent / (out.name + ".obj")
    shutil.rmtree(objdir, ignore_errors=True)
    objdir.mkdir(parents=True)
    cxx = ["g++", "-std=c++17", "-Wall", "-Wno-date-time", *DEFINES, *flags]
    sources = _engine_sources(tree)

    def one(i: int, src: Path) -> Path:
        obj = objdir / f"{i:03d}_{src.stem}.o"
        _run([*cxx, "-c", str(src), "-o", str(obj)])
        return obj

    objs: list[Path] = []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for done, obj in enumerate(pool.map(one, range(len(sources)), sources), start=1):
            objs.append(obj)
            if done % 15 == 0 or done == len(sources):
                log(f"  compiled {done}/{len(sources)} files")
    log("  linking")
    _run([*cxx, *map(str, objs), "-o", str(out), "-lpthread"])
    shutil.rmtree(objdir, ignore_errors=True)


def _run_profile(exe: Path, cwd: Path) -> None:
    script = f"setoption name VariantPath value {VARIANTS_INI}\n" + "\n".join(PGO_RUN) + "\nquit\n"
    _run([str(exe)], input=script, cwd=cwd, stdout=subprocess.DEVNULL)


def _build_executable(tree: Path, out: Path, profile: Profile) -> None:
    flags = [*_opt_flags(profile), *_arch_flags(profile)]
    if profile in ("plain", "lto"):
        _compile_engine(tree, out, flags)
        return
    # Profile-guided: instrumented build, a bench over our rule sets, then the final build.
    prof = out.parent / "pgo-data"
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir()
    log("PGO step 1/3: instrumented build")
    instrumented = out.parent / f"{ENGINE_NAME}-instrumented"
    _compile_engine(tree, instrumented, [*flags, f"-fprofile-generate={prof}"])
    log("PGO step 2/3: profiling run (bench over the three rule sets)")
    _run_profile(instrumented, out.parent)
    instrumented.unlink()
    log("PGO step 3/3: optimised build")
    _compile_engine(
        tree,
        out,
        [*flags, f"-fprofile-use={prof}", "-fprofile-correction", "-Wno-missing-profile"],
    )
    shutil.rmtree(prof, ignore_errors=True)


def _build_wheel(tree: Path, outdir: Path) -> Path:
    # setuptools compiles extension sources one by one unless told otherwise.
    with (tree / "setup.cfg").open("a") as cfg:
        cfg.write(f"\n[build_ext]\nparallel = {os.cpu_count() or 1}\n")
    log("building the pyffish wheel")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(outdir),
            str(tree),
        ],
        stdout=sys.stderr,
    )
    (wheel,) = outdir.glob("pyffish-*.whl")
    return wheel
