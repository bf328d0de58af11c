"""`ladder serve` without --engines starts one engine per CPU it may use: under
`taskset -c 0`, and in a cgroup with a one-CPU quota (as `docker run --cpus 1`)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ladder.service.operations.launch import ladder_command

from .helpers import Server

#: The cgroup v1 cpu hierarchy of this machine (the tests that need it skip without).
CPU_CGROUP = Path("/sys/fs/cgroup/cpu")


def engines_started(command: list[str]) -> tuple[int, int]:
    """(engines in /healthz, engine processes running) of `command` serving."""
    server = Server(command=[*command, *ladder_command(), "serve", "--port", "0"])
    server.start()
    try:
        return server.health()["engines"], len(server.engine_pids())
    finally:
        server.stop()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to pin to one")
@pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset")
def test_taskset_one_cpu_starts_one_engine() -> None:
    assert engines_started(["taskset", "-c", "0"]) == (1, 1)


@pytest.fixture
def one_cpu_cgroup() -> Iterator[Path]:
    """A cgroup of the cpu hierarchy with a quota of one CPU (100 ms per 100 ms)."""
    if not os.access(CPU_CGROUP, os.W_OK) or not (CPU_CGROUP / "cpu.cfs_quota_us").exists():
        pytest.skip("no writable cgroup v1 cpu hierarchy here")
    group = CPU_CGROUP / f"ladder-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text("100000")
        yield group
    finally:
        group.rmdir()  # empty again once the server stopped


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to bound to one")
def test_cgroup_quota_of_one_cpu_starts_one_engine(one_cpu_cgroup: Path) -> None:
    join = ["sh", "-c", f'echo $$ > {one_cpu_cgroup}/cgroup.procs && exec "$@"', "sh"]
    assert engines_started(join) == (1, 1)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_unbounded_starts_one_engine_per_cpu() -> None:
    cpus = len(os.sched_getaffinity(0))
    assert engines_started([]) == (cpus, cpus)
