"""`ladder serve --config FILE` and the LADDER_* variables, through `ladder serve` as a
subprocess: every option from either place, the precedence (command line > environment
> file > defaults), and one-line errors (exit 2) for a bad file or variable."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest

from ladder.levels import LEVELS_FILE
from ladder.service.operations.launch import ladder_command
from tests.service.helpers import ROOT, Server, service_engine

KEY = "config-key-0123456789abcdef"
MOVE = {"variant": "xiangqi", "moves": ["h3e3"], "level": 1, "seed": 3}


def ladder_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`ladder serve ARGS` run to its end (for the errors: it exits before serving)."""
    full_env = {**os.environ, "LADDER_ENGINE": str(service_engine()), **(env or {})}
    return subprocess.run(
        [*ladder_command(), "serve", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # no traceback
    return lines[0]


def write_levels(folder: Path) -> Path:
    """The shipped levels with level 1 at 3,001 nodes (to see which file is served)."""
    text = LEVELS_FILE.read_text()
    assert "nodes = 3_000" in text
    path = folder / "levels.toml"
    path.write_text(text.replace("nodes = 3_000", "nodes = 3_001", 1))
    return path


def level_nodes(server: Server) -> set[int]:
    levels = httpx.get(server.url + "/v1/levels", headers=bearer(), timeout=30).json()
    return {lv["nodes"] for table in levels["levels"].values() for lv in table}


def bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}"}


def test_every_option_from_the_config_file(tmp_path: Path) -> None:
    """Relative paths in the file are read from the file's folder, not the server's."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "keys").write_text(f"{KEY} site\n")
    write_levels(conf)
    config = conf / "ladder.toml"
    config.write_text(
        "# a site's settings\n"
        'host = "127.0.0.1"\n'
        "port = 1\n"  # the command line's --port 0 wins
        "engines = 2\n"
        "max-queue = 4\n"
        "queue_timeout = 5.5\n"  # underscores work too
        'api-keys = "keys"\n'
        'levels = "levels.toml"\n'
        "rate-limit = 2\n"
        'allowed-host = ["127.0.0.1", "localhost"]\n'
        'cors-origin = "https://play.example.com"\n'
        'log-format = "text"\n'
        'log-level = "info"\n'
        "no-play = true\n"
    )
    server = Server(["--config", str(config)], cwd=tmp_path)
    server.start()
    try:
        assert len(server.engine_pids()) == 2
        health = server.health()
        assert health["engines"] == 2 and health["max_queue"] == 4
        assert 3001 in level_nodes(server)  # the file's levels (1 request of 2)
        with server.client() as client:
            assert client.post("/v1/move", json=MOVE).status_code == 401  # keys from the file
            assert client.post("/v1/move", json=MOVE, headers=bearer()).status_code == 200
            limited = client.post("/v1/move", json=MOVE, headers=bearer())
            assert limited.status_code == 429  # rate-limit = 2
            assert client.get("/healthz", headers={"Host": "evil.example"}).status_code == 400
            assert client.get("/play").status_code == 404  # no-play
            cors = client.options(
                "/v1/move",
                headers={
                    "Origin": "https://play.example.com",
                    "Access-Control-Request-Method": "POST",
                },
            )
            assert cors.headers["access-control-allow-origin"] == "https://play.example.com"
        # text logs, not JSON lines
        serving = server.wait_for_log(lambda line: "ladder.serve: serving" in line)
        assert not serving.startswith("{")
    finally:
        server.stop()


def test_environment_over_file_and_command_line_over_both(tmp_path: Path) -> None:
    (tmp_path / "keys").write_text(f"{KEY} site\n")
    config = tmp_path / "ladder.toml"
    config.write_text(
        "engines = 2\n"  # LADDER_ENGINES=1 wins
        "rate-limit = 1\n"  # LADDER_RATE_LIMIT=5 wins, and --rate-limit 3 over that
        'log-format = "text"\n'  # LADDER_LOG_FORMAT=json wins
    )
    env = {
        "LADDER_CONFIG": str(config),  # the file named by the environment
        "LADDER_ENGINES": "1",
        "LADDER_RATE_LIMIT": "5",
        "LADDER_LOG_FORMAT": "json",
        "LADDER_API_KEYS": str(tmp_path / "keys"),
        "LADDER_LEVELS": str(write_levels(tmp_path)),
        "LADDER_NO_PLAY": "yes",
        "LADDER_ALLOWED_HOST": "127.0.0.1, localhost",
        "LADDER_ENGINE": str(service_engine()),
    }
    server = Server(["--rate-limit", "3", "--log-format", "json"], env=env)
    # (start_server gives --engines on the command line: not here)
    server.start()
    try:
        assert len(server.engine_pids()) == 1 and server.health()["engines"] == 1
        assert 3001 in level_nodes(server)
        with server.client() as client:
            assert client.post("/v1/move", json=MOVE).status_code == 401
            codes = [
                client.post("/v1/move", json=MOVE, headers=bearer()).status_code for _ in range(3)
            ]
            # /v1/levels above was one request of 3
            assert codes == [200, 200, 429]
            assert client.get("/play").status_code == 404
            assert client.get("/healthz", headers={"Host": "evil.example"}).status_code == 400
            assert client.get("/healthz", headers={"Host": "localhost"}).status_code == 200
        assert server.wait_for_log(lambda line: '"event": "serving"' in line).startswith("{")
    finally:
        server.stop()


def test_the_file_names_the_engine_only_when_nothing_else_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "ladder.toml"
    config.write_text('engine = "no-such-engine"\nengines = 1\n')
    # LADDER_ENGINE (the engine lookup's variable) wins over the file: it serves.
    server = Server(["--config", str(config)])
    server.start()
    try:
        assert server.health()["engines_alive"] == 1
    finally:
        server.stop()
    # Without it, the file's engine is the one looked for.
    monkeypatch.delenv("LADDER_ENGINE", raising=False)
    monkeypatch.delenv("MISTBOARD_ENGINE", raising=False)
    done = subprocess.run(
        [*ladder_command(), "serve", "--port", "0", "--config", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "no engine executable at" in one_line_error(done)
    assert str(tmp_path / "no-such-engine") in done.stderr  # relative to the file
    config.write_text(f'engine = "{service_engine()}"\nengines = 1\n')
    server = Server(["--config", str(config)], env={})
    server.start()
    try:
        assert server.health()["engines_alive"] == 1
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("prot = 8000\n", "unknown key 'prot' (did you mean 'port'?)"),
        ("config = 'other.toml'\n", "unknown key 'config'"),
        ('port = "8000"\n', "'port' must be an integer, not a string ('8000')"),
        ("port = true\n", "'port' must be an integer, not a boolean"),
        ("port = 70000\n", "'port': must be 0-65535, got 70000"),
        ("engines = 0\n", "'engines': must be at least 1, got 0"),
        ("no-auth = 1\n", "'no-auth' must be true or false, not an integer"),
        ("queue-timeout = 'soon'\n", "'queue-timeout' must be a number, not a string"),
        ('log-level = "loud"\n', "'log-level': 'loud' is not one of debug, info"),
        ("allowed-host = [1]\n", "'allowed-host' must be a list of strings, not an integer"),
        ('allowed-host = [""]\n', "'allowed-host': must be a host name, got an empty one"),
        ('allowed-host = ["a.example:8000"]\n', "must be a host without a port"),
        ("[serve]\nport = 1\n", "unknown key 'serve'"),
        ("port = \n", "invalid TOML"),
        # two spellings of one option: TOML keeps both, one would silently win
        ("max_queue = 1\nmax-queue = 2\n", "'max_queue' and 'max-queue' are one option"),
    ],
)
def test_a_bad_config_file_is_a_one_line_error(tmp_path: Path, toml: str, problem: str) -> None:
    config = tmp_path / "ladder.toml"
    config.write_text(toml)
    line = one_line_error(ladder_serve("--config", str(config)))
    assert line.startswith(f"ladder serve: config file {config}: ")
    assert problem in line


def test_a_missing_config_file_is_a_one_line_error(tmp_path: Path) -> None:
    line = one_line_error(ladder_serve("--config", str(tmp_path / "nothing.toml")))
    assert "cannot read config file" in line and "No such file" in line


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("LADDER_PORT", "http", "LADDER_PORT='http': not an integer: 'http'"),
        ("LADDER_ENGINES", "0", "LADDER_ENGINES='0': must be at least 1"),
        ("LADDER_NO_AUTH", "maybe", "LADDER_NO_AUTH='maybe': expected 1/true/yes/on"),
        ("LADDER_LOG_FORMAT", "xml", "LADDER_LOG_FORMAT='xml': 'xml' is not one of json, text"),
        ("LADDER_QUEUE_TIMEOUT", "-1", "LADDER_QUEUE_TIMEOUT='-1': must be positive"),
    ],
)
def test_a_bad_variable_is_a_one_line_error(variable: str, value: str, problem: str) -> None:
    port = [] if variable == "LADDER_PORT" else ["--port", "0"]  # (each exits before binding)
    line = one_line_error(ladder_serve(*port, env={variable: value}))
    assert problem in line


@pytest.mark.parametrize(
    ("host", "problem"),
    [
        ("", "must be a host name, got an empty one"),
        ("https://play.example.com", "no scheme, path or space"),
        ("play.example.com:443", "must be a host without a port"),
    ],
)
def test_a_host_no_request_could_match_is_refused(host: str, problem: str) -> None:
    """An allowed host that no Host header could match would refuse every request."""
    line = one_line_error(ladder_serve("--port", "0", "--allowed-host", host))
    assert line.startswith("ladder serve: error: argument --allowed-host: ")
    assert problem in line


def test_a_good_command_line_hides_a_bad_variable() -> None:
    """The variable of an option given on the command line is not read at all."""
    line = one_line_error(
        ladder_serve("--port", "0", "--engines", "1", "--workers", "2", env={"LADDER_PORT": "x"})
    )
    assert "--workers 2 needs at least as many engines" in line
