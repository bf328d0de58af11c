"""The build hook: files that live outside the package in the repository go into it.

``variants.ini`` and ``engine/patches/`` stay where they are, the one source; the wheel
gets copies under the names :data:`ladder.package_data.BUILT_IN` gives, which is also
where the installed package reads them. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # the stdlib-only ladder.package_data, from this tree

from ladder.package_data import BUILT_IN, PACKAGE  # noqa: E402


class BuildPyWithRepositoryData(build_py):
    """``build_py``, then the repository files of ``BUILT_IN`` into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the repository's own files
            return
        for name, source in BUILT_IN.items():
            src = ROOT / source
            dest = Path(self.build_lib) / PACKAGE / name
            if src.is_dir():
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(src, dest)
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)


setup(cmdclass={"build_py": BuildPyWithRepositoryData})
