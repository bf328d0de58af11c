"""deploy/mistboard-ladder@.service: it runs the installation the Dockerfile makes, and
systemd accepts it (``systemd-analyze verify``, where that tool exists)."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from ladder.service.operations.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S

from .conftest import MOVED, Installation
from .dockerfile import ROOT, exec_form

UNIT = ROOT / "deploy" / "mistboard-ladder@.service"


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def dockerfile_value(installation: Installation, name: str) -> str:
    (value,) = {v for n, v in installation.stages[-1].assignments() if n == name}
    return value


def test_unit_runs_what_the_image_runs(installation: Installation) -> None:
    settings = unit_settings()
    venv = dockerfile_value(installation, "VENV")
    cache = dockerfile_value(installation, "XDG_CACHE_HOME")
    assert settings["Environment"] == [f"XDG_CACHE_HOME={cache}"]
    (exec_start,) = settings["ExecStart"]
    argv = shlex.split(exec_start)
    cmd = exec_form(installation.stages[-1].all("CMD")[0].args)
    assert argv[0] == f"{venv}/bin/{cmd[0]}" and argv[1:2] == cmd[1:2] == ["serve"]
    assert argv[argv.index("--port") + 1] == "%i"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"  # behind the load balancer
    assert settings["User"] != ["root"]


def test_unit_reloads_with_sighup_and_waits_for_the_drain() -> None:
    settings = unit_settings()
    assert settings["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    (stop,) = settings["TimeoutStopSec"]
    argv = shlex.split(settings["ExecStart"][0])
    assert "--drain-timeout" not in argv and "--drain-delay" not in argv  # the defaults
    # the drain, then 5 s for uvicorn's last answers and the engines' quit
    assert int(stop) >= DRAIN_DELAY_S + DRAIN_TIMEOUT_S + 5
    assert settings["KillMode"] == ["mixed"]  # SIGTERM to the server, not to its engines


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verify(installation: Installation) -> None:
    """verify checks every setting and that ExecStart's program exists: the unit is
    pointed at the installation made here, as an instance for port 8001."""
    venv = dockerfile_value(installation, "VENV")
    cache = dockerfile_value(installation, "XDG_CACHE_HOME")
    text = UNIT.read_text().replace(cache, str(installation.root / MOVED["XDG_CACHE_HOME"]))
    text = text.replace(venv, str(installation.venv))
    unit = installation.root / "units" / "mistboard-ladder@8001.service"
    unit.parent.mkdir(exist_ok=True)
    unit.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and not done.stdout + done.stderr, done.stdout + done.stderr
