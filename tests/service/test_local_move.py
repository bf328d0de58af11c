"""`ladder move` in-process (ladder/service/local_move.py): the service's answer, without
the service; an engine started only past the book."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import OUT_OF_BOOK, Server, run_ladder, service_engine

#: Requests answered alike in-process and by a server: from the book, searched at levels
#: 1 and 4, at an Elo, with the move in notations, a drawn seed's game further on.
REQUESTS = [
    ("--level", "1", "--seed", "7"),
    ("--level", "1", "--seed", "7", "--moves", " ".join(OUT_OF_BOOK)),
    ("--level", "4", "--seed", "11", "--moves", " ".join(OUT_OF_BOOK), "--notation", "wxf"),
    ("--elo", "1500", "--seed", "5", "--moves", "h3e3 h10g8 h1g3"),
    ("--level", "2", "--seed", "3", "--moves", "h3e3 h10g8", "--notation", "chinese"),
]


@pytest.mark.parametrize("request_args", REQUESTS, ids=lambda a: " ".join(a))
def test_in_process_answer_is_the_servers(server: Server, request_args: tuple[str, ...]) -> None:
    move = ["move", "--variant", "xiangqi", *request_args]
    local = run_ladder(*move, "--json")
    remote = run_ladder(*move, "--json", "--url", server.url)
    assert local.returncode == remote.returncode == 0, (local.stderr, remote.stderr)
    here, there = json.loads(local.stdout), json.loads(remote.stdout)
    assert here.pop("time_ms") >= 0 and there.pop("time_ms") >= 0  # a wall time
    assert here == there
    text = run_ladder(*move)
    assert text.returncode == 0, text.stderr
    assert text.stdout.split()[0] == here["move"]


def _wrapped_engine(tmp_path: Path) -> tuple[Path, Path]:
    """A wrapper that leaves a mark, then runs the service tests' engine."""
    mark = tmp_path / "started"
    wrapper = tmp_path / "wrapped-engine"
    wrapper.write_text(f'#!/bin/sh\ntouch {mark}\nexec {service_engine()} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, mark


def test_a_book_move_starts_no_engine(tmp_path: Path) -> None:
    wrapper, mark = _wrapped_engine(tmp_path)
    move = ["move", "--variant", "xiangqi", "--level", "1", "--seed", "1", "--engine", str(wrapper)]
    book = run_ladder(*move)
    assert book.returncode == 0, book.stderr
    assert book.stdout.split()[1] == "book"
    assert not mark.exists()
    searched = run_ladder(*move, "--moves", " ".join(OUT_OF_BOOK))
    assert searched.returncode == 0, searched.stderr
    assert searched.stdout.split()[1] == "cp"
    assert mark.exists()


def test_an_engine_that_does_not_start_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken-engine"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    done = run_ladder(
        "move", "--variant", "xiangqi", "--level", "1", "--moves", " ".join(OUT_OF_BOOK),
        "--engine", str(broken),
    )  # fmt: skip
    assert done.returncode == 3
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("ladder move: the engine did not start: "), line
