"""deploy/Dockerfile: its build steps ran (conftest.py), and its runtime stage's CMD and
HEALTHCHECK serve and report health, run here as the image would run them."""

from __future__ import annotations

import json
import re
import shlex
import signal
import socket
import subprocess
import time
import urllib.request

import psutil

from ladder.rules import Game

from .conftest import MOVED, NOT_RUN, Installation
from .dockerfile import ROOT, Stage, exec_form, expand

START_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def healthcheck_argv(stage: Stage) -> list[str]:
    (check,) = stage.all("HEALTHCHECK")
    _, _, command = check.args.partition("CMD ")
    assert command, "HEALTHCHECK has no CMD"
    return exec_form(command)


def test_build_stage_ran_every_step(installation: Installation) -> None:
    build = installation.stages[0]
    runs = [ins.args for ins in build.all("RUN")]
    assert installation.ran == [r for r in runs if r not in installation.skipped]
    assert {r.split()[0] for r in installation.skipped} <= set(NOT_RUN)
    # the steps a site needs: wheel, virtualenv, install, engine, check
    steps = " | ".join(installation.ran)
    for needed in ("pip wheel", "-m venv", "pip install", "engine build", "doctor"):
        assert needed in steps, needed


def test_runtime_stage_is_slim_and_unprivileged(installation: Installation) -> None:
    build, runtime = installation.stages[0], installation.stages[-1]
    assert len(installation.stages) == 2 and build.name == "build"
    # the virtualenv is copied, so it must find the same Python at the same path
    assert runtime.base == build.base
    (user,) = runtime.all("USER")
    assert user.args not in ("root", "0")
    assert any(user.args in r.args for r in runtime.all("RUN") if r.args.startswith("useradd"))
    for copy in runtime.all("COPY"):
        origin, src, dest = copy.args.split()
        assert origin == "--from=build" and src == dest
        moved = src.replace("$VENV", str(installation.venv)).replace(
            "$XDG_CACHE_HOME", str(installation.cache)
        )
        assert (installation.root / moved).exists(), f"COPY {src}: the build made no {moved}"
    # one port everywhere
    (expose,) = runtime.all("EXPOSE")
    cmd = exec_form(runtime.all("CMD")[0].args)
    assert cmd[cmd.index("--port") + 1] == expose.args
    assert f":{expose.args}/healthz" in " ".join(healthcheck_argv(runtime))


def test_cmd_serves_and_healthcheck_passes(installation: Installation) -> None:
    """The image's CMD, with loopback and a free port for 0.0.0.0:8000; the
    HEALTHCHECK command decides when it is up; then one move over HTTP."""
    runtime = installation.stages[-1]
    (expose,) = runtime.all("EXPOSE")
    port = str(free_port())
    cmd = exec_form(runtime.all("CMD")[0].args)
    cmd[cmd.index("--host") + 1] = "127.0.0.1"
    cmd[cmd.index("--port") + 1] = port
    check = [a.replace(f":{expose.args}/", f":{port}/") for a in healthcheck_argv(runtime)]
    log = installation.root / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            cmd, cwd=installation.root, env=installation.env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while installation.run(check, timeout=30).returncode != 0:
            assert server.poll() is None, f"the server exited: {log.read_text()}"
            assert time.monotonic() < deadline, "the HEALTHCHECK never passed"
            time.sleep(0.2)  # Docker too runs it at an interval
        body = json.dumps({"variant": "xiangqi", "moves": ["h3e3"], "level": 2, "seed": 7})
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/move",
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            reply = json.load(response)
        assert Game.from_fen("xiangqi", moves=["h3e3"]).is_legal(reply["move"])
        # the /play page's files are package data too
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/play", timeout=60) as response:
            assert b"<html" in response.read().lower()
        engines = psutil.Process(server.pid).children(recursive=True)
        assert engines, "the server runs no engine"
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=STOP_TIMEOUT)
    # a graceful stop: uvicorn finishes, then re-raises the SIGTERM it caught
    assert code in (0, -signal.SIGTERM), log.read_text()
    assert "Application shutdown complete" in log.read_text()
    _, alive = psutil.wait_procs(engines, timeout=10)
    assert not alive, f"engines outlived the server: {alive}"


def test_readme_install_steps_are_the_dockerfiles(installation: Installation) -> None:
    """README "Installing on a server" runs what the build stage runs, in order."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Installing on a server", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    commands = [
        shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.strip()
    ]
    build = installation.stages[0]
    values = {name: raw for name, raw in build.assignments() if name not in MOVED or name == "VENV"}
    values.update({"SRC": ".", "WHEELS": "wheels"})  # where a site runs them from
    exports = {w[1].split("=")[0]: w[1].split("=")[1] for w in commands if w[0] == "export"}
    assert exports == {"XDG_CACHE_HOME": dict(build.assignments())["XDG_CACHE_HOME"]}
    runs = [
        shlex.split(expand(ins.args, values))
        for ins in build.all("RUN")
        if ins.args not in installation.skipped
    ]
    assert [w for w in commands if w[0] != "export"] == runs
