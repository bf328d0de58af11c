#!/usr/bin/env python3
"""Build Fairy-Stockfish (and pyffish) from the pinned pyffish sdist, with our patches.

The pyffish source package on PyPI carries the whole engine source. We download it
(pinned version, sha256 verified), apply every ``engine/patches/*.patch`` in name order,
and compile:

* the ``fairy-stockfish`` executable, with the fastest flags this CPU supports,
  ``-O3``, link-time optimisation and profile-guided optimisation (``--profile fast``),
  the same without PGO (``--profile lto``), or a plain ``-O2`` build (``--profile plain``,
  the benchmark's baseline; scripts/bench_engine.py compares all three);
* optionally a ``pyffish`` wheel from the same patched tree (``--pyffish-wheel``), so
  that the engine and pyffish play identical rules.

Builds are cached under ``.cache/engine/<key>/``, the key hashing the sdist, the patches,
the flags and the compiler: a second call with the same inputs does not rebuild. The last
line printed is the absolute path of the executable (or of the wheel with
``--pyffish-wheel``).

    python scripts/build_engine.py                      # patched, fast
    python scripts/build_engine.py --unpatched --profile plain
    python scripts/build_engine.py --pyffish-wheel
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATCH_DIR = ROOT / "engine" / "patches"
CACHE = Path(os.environ.get("MISTBOARD_ENGINE_CACHE", ROOT / ".cache" / "engine"))

PYFFISH_VERSION = "0.0.90"
PYFFISH_SHA256 = "4a79601d85f392bce03705a275fb5f03dc44a554b26d32d518fb6887d772f701"
SDIST_NAME = f"pyffish-{PYFFISH_VERSION}.tar.gz"

DEFINES = ["-DLARGEBOARDS", "-DALLVARS", "-DPRECOMPUTED_MAGICS", "-DNNUE_EMBEDDING_OFF",
           "-DIS_64BIT", "-DNDEBUG"]
# Positions searched to train the profile-guided build: our three rule sets.
PGO_RUN = [
    "bench mistboard-xiangqi 16 1 12 default depth",
    "bench atomic-xiangqi 16 1 11 default depth",
    "bench crazyhouse-xiangqi 16 1 11 default depth",
]


def log(msg: str) -> None:
    print(f"[build_engine] {msg}", file=sys.stderr, flush=True)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_sdist() -> Path:
    """Download the pinned sdist once (pip, from PyPI) and verify its hash."""
    dest = CACHE / "sdist" / SDIST_NAME
    if dest.exists() and sha256_file(dest) == PYFFISH_SHA256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", f"pyffish=={PYFFISH_VERSION}",
             "-d", tmp],
            check=True, stdout=sys.stderr,
        )
        got = Path(tmp) / SDIST_NAME
        digest = sha256_file(got)
        if digest != PYFFISH_SHA256:
            raise SystemExit(f"{SDIST_NAME}: sha256 {digest} does not match the pin "
                             f"{PYFFISH_SHA256}")
        shutil.copy(got, dest)
    return dest


def patches(unpatched: bool) -> list[Path]:
    return [] if unpatched else sorted(PATCH_DIR.glob("*.patch"))


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def arch_flags(profile: str) -> list[str]:
    """The fastest instruction set flags FSF's own Makefile would pick for this CPU."""
    if profile == "plain":
        return []
    flags = cpu_flags()
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


def opt_flags(profile: str) -> list[str]:
    if profile == "plain":
        return ["-O2"]
    return ["-O3", "-funroll-loops", "-flto=auto", "-fno-fat-lto-objects"]


def compiler_id() -> str:
    return subprocess.run(["g++", "--version"], capture_output=True, text=True,
                          check=True).stdout.splitlines()[0]


def build_key(sdist: Path, patch_files: list[Path], profile: str, what: str) -> str:
    h = hashlib.sha256()
    h.update(PYFFISH_SHA256.encode())
    for p in patch_files:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    h.update(repr((profile, what, DEFINES, arch_flags(profile), opt_flags(profile),
                   PGO_RUN, compiler_id())).encode())
    h.update(Path(__file__).read_bytes())
    if what == "engine" and profile == "fast":  # the PGO training run loads our variants
        h.update((ROOT / "variants.ini").read_bytes())
    return f"{what}-{profile}-{'patched' if patch_files else 'unpatched'}-{h.hexdigest()[:16]}"


def unpack(sdist: Path, patch_files: list[Path], dest: Path) -> Path:
    with tarfile.open(sdist) as tar:
        tar.extractall(dest, filter="data")
    tree = dest / f"pyffish-{PYFFISH_VERSION}"
    for p in patch_files:
        log(f"applying {p.name}")
        subprocess.run(["patch", "-p1", "--forward", "--quiet", "-i", str(p)], cwd=tree,
                       check=True, stdout=sys.stderr)
    return tree


def engine_sources(tree: Path) -> list[Path]:
    src = tree / "src"
    files = [*src.glob("*.cpp"), *src.glob("syzygy/*.cpp"), *src.glob("nnue/*.cpp"),
             *src.glob("nnue/features/*.cpp")]
    return sorted(f for f in files if f.name not in ("pyffish.cpp", "ffishjs.cpp"))


def compile_engine(tree: Path, out: Path, flags: list[str]) -> None:
    """Compile every translation unit in parallel, then link."""
    objdir = out.parent / (out.name + ".obj")
    shutil.rmtree(objdir, ignore_errors=True)
    objdir.mkdir(parents=True)
    cxx = ["g++", "-std=c++17", "-Wall", "-Wno-date-time", *DEFINES, *flags]

    def one(i_src: tuple[int, Path]) -> Path:
        i, src = i_src
        obj = objdir / f"{i:03d}_{src.stem}.o"
        subprocess.run([*cxx, "-c", str(src), "-o", str(obj)], check=True)
        return obj

    jobs = os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        objs = list(pool.map(one, enumerate(engine_sources(tree))))
    subprocess.run([*cxx, *map(str, objs), "-o", str(out), "-lpthread"], check=True)
    shutil.rmtree(objdir, ignore_errors=True)


def run_profile(exe: Path, variants_ini: Path, cwd: Path) -> None:
    script = f"setoption name VariantPath value {variants_ini}\n" + "\n".join(PGO_RUN) + "\nquit\n"
    subprocess.run([str(exe)], input=script, text=True, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def build_executable(tree: Path, out: Path, profile: str) -> None:
    flags = [*opt_flags(profile), *arch_flags(profile)]
    if profile in ("plain", "lto"):
        compile_engine(tree, out, flags)
        return
    # Profile-guided: instrumented build, a bench over our rule sets, then the final build.
    prof = out.parent / "pgo-data"
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir()
    log("PGO step 1/3: instrumented build")
    instrumented = out.parent / "fairy-stockfish-instrumented"
    compile_engine(tree, instrumented, [*flags, f"-fprofile-generate={prof}"])
    log("PGO step 2/3: profiling run (bench over the three rule sets)")
    run_profile(instrumented, ROOT / "variants.ini", out.parent)
    instrumented.unlink()
    log("PGO step 3/3: optimised build")
    compile_engine(tree, out, [*flags, f"-fprofile-use={prof}", "-fprofile-correction",
                               "-Wno-missing-profile"])
    shutil.rmtree(prof, ignore_errors=True)


def build_wheel(tree: Path, outdir: Path) -> Path:
    # setuptools compiles extension sources one by one unless told otherwise.
    with (tree / "setup.cfg").open("a") as cfg:
        cfg.write(f"\n[build_ext]\nparallel = {os.cpu_count() or 1}\n")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "-w", str(outdir), str(tree)], check=True, stdout=sys.stderr)
    (wheel,) = outdir.glob("pyffish-*.whl")
    return wheel


def build(unpatched: bool, profile: str, pyffish_wheel: bool) -> Path:
    sdist = fetch_sdist()
    patch_files = patches(unpatched)
    what = "pyffish" if pyffish_wheel else "engine"
    key = build_key(sdist, patch_files, profile, what)
    final = CACHE / key
    done = final / "DONE"
    if done.exists():
        log(f"cached: {final}")
        return final / done.read_text().strip()
    log(f"building {key}")
    work = CACHE / (key + ".tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tree = unpack(sdist, patch_files, work / "src")
    if pyffish_wheel:
        name = build_wheel(tree, work).name
    else:
        name = "fairy-stockfish"
        build_executable(tree, work / name, profile)
    shutil.rmtree(work / "src")
    (work / "DONE").write_text(name + "\n")
    shutil.rmtree(final, ignore_errors=True)
    work.rename(final)
    return final / name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unpatched", action="store_true", help="build stock FSF (no patches)")
    ap.add_argument("--profile", choices=("fast", "lto", "plain"), default="fast",
                    help="fast: -O3, LTO, CPU flags, PGO; lto: the same without PGO; "
                         "plain: -O2 only")
    ap.add_argument("--pyffish-wheel", action="store_true",
                    help="build the pyffish wheel from the same tree instead")
    args = ap.parse_args()
    print(build(args.unpatched, args.profile, args.pyffish_wheel).resolve())


if __name__ == "__main__":
    main()
