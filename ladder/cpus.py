"""How many CPUs this process may use: its CPU affinity, bounded by its cgroup's quota.

``os.cpu_count()`` is the host's cores. Under ``taskset -c 0`` the process may run on
one of them (its affinity, ``os.sched_getaffinity``); in a container started with
``--cpus 1.5`` (or a systemd unit with ``CPUQuota=150%``) the kernel lets its cgroup
use 1.5 CPUs' worth of time per period, whatever the affinity says. The usable CPUs are
the smaller of the two, the quota rounded up (1.5 CPUs run 2 engines at 75% each
rather than leave half a CPU idle), at least 1.

The quota is read from the cgroup of this process (``/proc/self/cgroup``) in the
hierarchy mounted for it (``/proc/self/mountinfo``), for cgroup v2 (``cpu.max``) and v1
(``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``), and from every ancestor up to the
mount's root: the tightest one bounds the process.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CpuBudget", "cgroup_cpu_quota", "cpu_budget", "usable_cpus"]


@dataclass(frozen=True)
class CpuBudget:
    """What bounds this process's CPUs (for ``ladder doctor`` and the logs)."""

    host: int  #: os.cpu_count()
    affinity: int  #: CPUs in the process's affinity mask
    quota: float | None  #: CPUs' worth of time the cgroup quota allows; None: no quota

    @property
    def usable(self) -> int:
        """The CPUs to plan for: affinity, bounded by the quota rounded up; at least 1."""
        cpus = self.affinity
        if self.quota is not None:
            cpus = min(cpus, math.ceil(self.quota))
        return max(1, cpus)


def _affinity() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, fs type, super options) of each cgroup mount."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        out.append((fields[3], fields[4], tail[0], set(tail[2].split(","))))
    return out


def _quota_v2(folder: Path) -> float | None:
    try:
        quota, period = (folder / "cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return None if quota == "max" else int(quota) / int(period)


def _quota_v1(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else quota / period


def cgroup_cpu_quota(proc: Path = Path("/proc/self")) -> float | None:
    """CPUs' worth of time this process's cgroup (or an ancestor) may use per period;
    None when no quota applies or it cannot be read. `proc`: the process's /proc folder
    (another one only in tests)."""
    try:
        cgroups = (proc / "cgroup").read_text()
        mounts = _mounts((proc / "mountinfo").read_text())
    except OSError:
        return None
    quotas: list[float] = []
    for line in cgroups.splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and not controllers:  # cgroup v2
            wanted = [m for m in mounts if m[2] == "cgroup2"]
            read = _quota_v2
        elif "cpu" in controllers.split(","):  # cgroup v1, the cpu controller's hierarchy
            wanted = [m for m in mounts if m[2] == "cgroup" and "cpu" in m[3]]
            read = _quota_v1
        else:
            continue
        for root, point, _, _ in wanted:
            # The process's path is relative to the hierarchy's root; the mount shows
            # the part under its own root (a container sees only its own subtree).
            relative = os.path.relpath(path, root) if path.startswith(root) else None
            if relative is None:
                continue
            folder = Path(point) / ("" if relative == "." else relative)
            while True:
                quota = read(folder)
                if quota is not None:
                    quotas.append(quota)
                if folder == Path(point) or folder.parent == folder:
                    break
                folder = folder.parent
    return min(quotas) if quotas else None


def cpu_budget() -> CpuBudget:
    """This process's CPUs: host, affinity and cgroup quota."""
    return CpuBudget(os.cpu_count() or 1, _affinity(), cgroup_cpu_quota())


def usable_cpus() -> int:
    """The CPUs this process may use (:attr:`CpuBudget.usable`)."""
    return cpu_budget().usable
