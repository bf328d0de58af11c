"""The data files the ladder package ships, read through :mod:`importlib.resources`.

Two of them live outside the package in the repository and stay there as the one
source: the top-level ``variants.ini`` (the rule sets for the engine) and
``engine/patches/`` (our engine patches). The build (``setup.py``) copies them into the
wheel under the names of :data:`BUILT_IN`; an editable install or a checkout has no such
copy and reads the repository's files, so an edit is seen at once and nothing can go
stale. The others (``levels.toml``, ``openings/``) are ordinary package data.

This module imports nothing but the standard library: ``setup.py`` imports it at build
time, before any dependency is installed.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.resources
from pathlib import Path

__all__ = [
    "BUILT_IN",
    "CHECKOUT_ROOT",
    "DISTRIBUTION",
    "SOURCE_ROOT",
    "data_path",
    "package_version",
]

#: The distribution name (pyproject.toml's ``[project] name``); also the directory name
#: of the per-user cache.
DISTRIBUTION = "mistboard-ladder"
PACKAGE = "ladder"

#: Files the build copies into the package: name in the package -> path in the repository.
BUILT_IN: dict[str, str] = {
    "variants.ini": "variants.ini",
    "engine_patches": "engine/patches",
}

#: The folder the package is imported from: a checkout's root, or site-packages.
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def _is_checkout(root: Path) -> bool:
    return (root / "pyproject.toml").is_file() and all(
        (root / source).exists() for source in BUILT_IN.values()
    )


#: The repository this package is imported from (an editable install or the source
#: tree), None when it is an installed wheel.
CHECKOUT_ROOT: Path | None = SOURCE_ROOT if _is_checkout(SOURCE_ROOT) else None

# Resources that are not plain files (a zip import) are extracted once, for the life of
# the process: the engine needs a real path for VariantPath.
_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def data_path(name: str) -> Path:
    """The file-system path of the package data file or directory ``name``.

    A :data:`BUILT_IN` name resolves to the repository's own file in a checkout, to the
    copy the build put into the package otherwise. Raises :class:`FileNotFoundError` if
    neither exists (a broken installation).
    """
    if name in BUILT_IN and CHECKOUT_ROOT is not None:
        return CHECKOUT_ROOT / BUILT_IN[name]
    resource = importlib.resources.files(PACKAGE).joinpath(name)
    if not (resource.is_file() or resource.is_dir()):
        raise FileNotFoundError(
            f"package data {PACKAGE}/{name} is missing: reinstall {DISTRIBUTION}"
        )
    if isinstance(resource, Path):
        return resource
    return _extracted.enter_context(importlib.resources.as_file(resource))


def package_version() -> str:
    """The installed version of this package (pyproject.toml's ``version``)."""
    import importlib.metadata  # (here: a tenth of a match worker's imports, which never ask)

    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # imported from a tree never installed
        return "unknown (not installed)"
