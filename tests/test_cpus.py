"""ladder.cpus: the CPU quota read from a cgroup tree laid out as the kernel does (v1
and v2, on a host and inside a container's view), and the affinity of this process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ladder.cpus import CpuBudget, cgroup_cpu_quota, cpu_budget


def fake_proc(tmp_path: Path, cgroup: str, mountinfo: str) -> Path:
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "cgroup").write_text(cgroup)
    (proc / "mountinfo").write_text(mountinfo.replace("SYS", str(tmp_path / "sys")))
    return proc


def write(folder: Path, **files: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text + "\n")


V2_MOUNT = "30 23 0:26 / SYS/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
V1_MOUNTS = (
    "31 23 0:28 / SYS/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / SYS/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / SYS/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
)


def test_v2_quota_of_the_process_cgroup(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, "0::/system.slice/ladder.service\n", V2_MOUNT)
    root = tmp_path / "sys/fs/cgroup"
    write(root, cpu_max="max 100000")
    write(root / "system.slice", cpu_max="max 100000")
    write(root / "system.slice/ladder.service", cpu_max="150000 100000")
    assert cgroup_cpu_quota(proc) == 1.5


def test_v2_an_ancestor_quota_bounds_it(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, "0::/a/b\n", V2_MOUNT)
    root = tmp_path / "sys/fs/cgroup"
    write(root / "a", cpu_max="50000 100000")
    write(root / "a/b", cpu_max="max 100000")
    assert cgroup_cpu_quota(proc) == 0.5


def test_v2_no_quota(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, "0::/a\n", V2_MOUNT)
    write(tmp_path / "sys/fs/cgroup/a", cpu_max="max 100000")
    assert cgroup_cpu_quota(proc) is None


def test_v2_inside_a_container(tmp_path: Path) -> None:
    """A container's cgroup namespace: its own cgroup is `/`, mounted at the root."""
    proc = fake_proc(tmp_path, "0::/\n", V2_MOUNT)
    write(tmp_path / "sys/fs/cgroup", cpu_max="200000 100000")
    assert cgroup_cpu_quota(proc) == 2.0


def test_v1_quota(tmp_path: Path) -> None:
    proc = fake_proc(
        tmp_path, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n", V1_MOUNTS
    )
    root = tmp_path / "sys/fs/cgroup/cpu,cpuacct"
    write(root, cpu_cfs_quota_us="-1", cpu_cfs_period_us="100000")
    write(root / "docker/abc", cpu_cfs_quota_us="250000", cpu_cfs_period_us="100000")
    assert cgroup_cpu_quota(proc) == 2.5


def test_v1_mount_of_a_subtree(tmp_path: Path) -> None:
    """Docker without a cgroup namespace bind-mounts the container's own folder: the
    mount's root is /docker/abc and the process's path is under it."""
    mounts = "32 31 0:29 /docker/abc SYS/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
    proc = fake_proc(tmp_path, "4:cpu:/docker/abc\n", mounts)
    write(tmp_path / "sys/fs/cgroup/cpu", cpu_cfs_quota_us="100000", cpu_cfs_period_us="100000")
    assert cgroup_cpu_quota(proc) == 1.0


def test_unreadable_is_no_quota(tmp_path: Path) -> None:
    assert cgroup_cpu_quota(tmp_path / "nowhere") is None
    proc = fake_proc(tmp_path, "0::/a\n", V2_MOUNT)  # the files are missing
    assert cgroup_cpu_quota(proc) is None


@pytest.mark.parametrize(
    ("affinity", "quota", "usable"),
    [(8, None, 8), (8, 1.5, 2), (8, 0.2, 1), (2, 4.0, 2), (1, None, 1)],
)
def test_usable(affinity: int, quota: float | None, usable: int) -> None:
    assert CpuBudget(64, affinity, quota).usable == usable


def test_this_process() -> None:
    budget = cpu_budget()
    assert budget.affinity == len(os.sched_getaffinity(0))
    assert 1 <= budget.usable <= budget.host
