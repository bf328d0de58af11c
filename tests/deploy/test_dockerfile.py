"""deploy/Dockerfile: its build steps ran (conftest.py), and its runtime stage's CMD and
HEALTHCHECK serve and report health, run here as the image would run them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from ladder.rules import Game
from ladder.service.operations.drain import DRAIN_DELAY_S, DRAIN_TIMEOUT_S

from .conftest import MOVED, NOT_RUN, Installation
from .dockerfile import ROOT, Stage, exec_form, expand

START_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


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


class Namespace:
    """The CMD as the image runs it, on 0.0.0.0:8000, in a network namespace of its own
    (``unshare --net``: only a loopback device, so nothing it listens on is reachable
    from outside, and its port 8000 is nobody else's); other commands are run in it
    with ``nsenter``."""

    def __init__(self, installation: Installation) -> None:
        self.installation = installation
        self.server: subprocess.Popen[str] | None = None
        self.log = installation.root / "serve.log"

    @staticmethod
    def available() -> bool:
        try:
            done = subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=30)
        except OSError:
            return False
        return done.returncode == 0 and shutil.which("nsenter") is not None

    def start(self, env: dict[str, str]) -> subprocess.Popen[str]:
        cmd = exec_form(self.installation.stages[-1].all("CMD")[0].args)
        # sh brings the loopback device up, then *is* the CMD (exec): same pid, signals
        up = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
        with self.log.open("w") as out:
            self.server = subprocess.Popen(
                [*up, *cmd],
                cwd=self.installation.root,
                env={**self.installation.env, **env},
                stdout=out,
                stderr=out,
                text=True,
            )
        return self.server

    def run(self, argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """`argv` in the server's network namespace."""
        assert self.server is not None
        enter = ["nsenter", f"--net=/proc/{self.server.pid}/ns/net", "--"]
        return self.installation.run([*enter, *argv], timeout=timeout)

    def wait_healthy(self, stage: Stage) -> None:
        """The HEALTHCHECK command decides when it is up (Docker runs it at an interval)."""
        assert self.server is not None
        deadline = time.monotonic() + START_TIMEOUT
        while self.run(healthcheck_argv(stage), timeout=30).returncode != 0:
            assert self.server.poll() is None, f"the server exited: {self.log.read_text()}"
            assert time.monotonic() < deadline, "the HEALTHCHECK never passed"
            time.sleep(0.2)

    def request(
        self, path: str, body: dict[str, object] | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, object]]:
        """(status, JSON body) of a request to the image's port, from inside."""
        script = f"""
import json, sys, urllib.error, urllib.request
req = urllib.request.Request(
    "http://127.0.0.1:8000{path}",
    data=None if {body is None!r} else sys.argv[1].encode(),
    headers=json.loads(sys.argv[2]),
)
try:
    with urllib.request.urlopen(req, timeout=60) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
"""
        done = self.run(["python", "-c", script, json.dumps(body), json.dumps(headers)])
        assert done.returncode == 0, done.stderr
        status, _, text = done.stdout.partition(" ")
        return int(status), json.loads(text)

    def stop(self) -> int:
        assert self.server is not None
        if self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
        return self.server.wait(timeout=STOP_TIMEOUT)


@pytest.fixture
def namespace(installation: Installation) -> Iterator[Namespace]:
    if not Namespace.available():
        pytest.skip("unshare --net is not permitted here (needs CAP_SYS_ADMIN)")
    ns = Namespace(installation)
    try:
        yield ns
    finally:
        if ns.server is not None and ns.server.poll() is None:
            ns.server.kill()
            ns.server.wait()


MOVE = {"variant": "xiangqi", "moves": ["h3e3"], "level": 2, "seed": 7}
JSON = {"content-type": "application/json"}


def test_cmd_without_its_key_file_says_so(installation: Installation, namespace: Namespace) -> None:
    """The image run without mounting keys: one line naming the file, exit status 2."""
    keys = Path(installation.env["LADDER_API_KEYS"])
    assert not keys.exists()
    server = namespace.start({})
    assert server.wait(timeout=START_TIMEOUT) == 2
    out = namespace.log.read_text()
    assert out.splitlines() == [
        f"ladder serve: API key file {keys} does not exist (to serve without keys, name no "
        "key file and give --no-auth)"
    ]


def test_cmd_serves_with_the_mounted_keys(installation: Installation, namespace: Namespace) -> None:
    """The CMD as written, with a key file where the image reads it: the HEALTHCHECK
    passes, a move needs the key and is legal, the /play page is there, and SIGTERM
    stops the server and its engines."""
    runtime = installation.stages[-1]
    keys = Path(installation.env["LADDER_API_KEYS"])
    keys.parent.mkdir(parents=True, exist_ok=True)
    keys.write_text("site-key-0123456789abcdef game-server\n")
    try:
        server = namespace.start({})
        namespace.wait_healthy(runtime)
        status, reply = namespace.request("/v1/move", MOVE, JSON)
        assert status == 401 and reply["error"]["code"] == "unauthorized"  # type: ignore[index]
        auth = {**JSON, "authorization": "Bearer site-key-0123456789abcdef"}
        status, reply = namespace.request("/v1/move", MOVE, auth)
        assert status == 200, reply
        assert Game.from_fen("xiangqi", moves=["h3e3"]).is_legal(str(reply["move"]))
        page = namespace.run(
            [
                "python",
                "-c",
                "import urllib.request as u; print(u.urlopen('http://127.0.0.1:8000/play').read()[:200])",
            ]
        )
        assert "<html" in page.stdout.lower(), page.stderr
        engines = psutil.Process(server.pid).children(recursive=True)
        assert engines, "the server runs no engine"
        code = namespace.stop()
    finally:
        keys.unlink()
    log = namespace.log.read_text()
    assert code == 0, log  # a stop asked for is a success (docs/service.md)
    assert "Application shutdown complete" in log
    assert "Traceback" not in log
    _, alive = psutil.wait_procs(engines, timeout=10)
    assert not alive, f"engines outlived the server: {alive}"


def test_cmd_serves_open_when_asked(installation: Installation, namespace: Namespace) -> None:
    """The README's line for a service without keys: the variables it names."""
    runtime = installation.stages[-1]
    namespace.start({"LADDER_API_KEYS": "", "LADDER_NO_AUTH": "1"})
    namespace.wait_healthy(runtime)
    status, reply = namespace.request("/v1/move", MOVE, JSON)
    assert status == 200, reply
    namespace.stop()
    assert "without API keys (--no-auth)" in namespace.log.read_text()


def test_readme_docker_run_lines_are_the_images(installation: Installation) -> None:
    """The README's `docker run` lines mount the key file where the image reads it, and
    name the variables the open line needs."""
    readme = (ROOT / "README.md").read_text()
    keys_path = dockerfile_env(installation, "LADDER_API_KEYS")
    (expose,) = installation.stages[-1].all("EXPOSE")
    lines = [ln for ln in readme.splitlines() if ln.startswith("docker run ")]
    assert len(lines) == 2, lines
    assert f":{keys_path}:ro" in lines[0] and f"-p {expose.args}:{expose.args}" in lines[0]
    assert "-e LADDER_API_KEYS= -e LADDER_NO_AUTH=1" in lines[1]
    assert set(shlex.split(lines[1], comments=True)) >= {"-e", "LADDER_NO_AUTH=1"}
    for line in lines:  # an init as PID 1, and docker stop's grace covering the drain
        words = shlex.split(line, comments=True)
        assert "--init" in words, line
        grace = float(words[words.index("--stop-timeout") + 1])
        assert grace > DRAIN_DELAY_S + DRAIN_TIMEOUT_S, line


def dockerfile_env(installation: Installation, name: str) -> str:
    (value,) = {v for n, v in installation.stages[-1].assignments() if n == name}
    return value


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
