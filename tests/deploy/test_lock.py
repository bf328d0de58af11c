"""The lock files agree with pyproject.toml: every pin there is locked at its version
(a pin changed without `scripts/lock_dependencies.sh` fails here), and every locked
package has hashes (what `--require-hashes` needs)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
LOCKS = {
    "service.lock": PROJECT["dependencies"],
    "test.lock": [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["test"]],
}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(lock: str) -> dict[str, tuple[str, int]]:
    """{package: (version, number of hashes)} of a lock file."""
    out: dict[str, tuple[str, int]] = {}
    name = ""
    for line in (ROOT / "requirements" / lock).read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)", line):
            name = canonical(match.group(1))
            out[name] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and name:
            version, hashes = out[name]
            out[name] = (version, hashes + 1)
    return out


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_pin_is_locked_at_its_version(lock: str) -> None:
    packages = locked(lock)
    for requirement in LOCKS[lock]:
        name, _, version = requirement.partition("==")
        assert version, f"{requirement}: pyproject.toml pins exact versions"
        assert packages.get(canonical(name), ("missing",))[0] == version, (
            f"{requirement} is locked as {packages.get(canonical(name))} in {lock}: "
            "run `bash scripts/lock_dependencies.sh`"
        )


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_locked_package_has_hashes(lock: str) -> None:
    packages = locked(lock)
    assert len(packages) > len(LOCKS[lock])  # the transitive ones are there too
    assert all(hashes >= 1 for _, hashes in packages.values()), packages
