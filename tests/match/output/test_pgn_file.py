"""``--pgn FILE`` keeps what the file held of other matches: cutechess-cli appends to its
``-pgnout``, so a tester who gives one file to several runs loses nothing, and a run's
own games are still rewritten exactly (a resume does not write them twice)."""

from __future__ import annotations

from pathlib import Path

from ladder.match.exit_codes import ExitCode
from ladder.match.output.pgn import read_pgn
from tests.match.helpers import run_ladder

#: Another tool's game, with a Latin-1 byte in a comment (kept byte for byte).
OTHER_TOOL = (
    b'[Event "club night"]\n[Site "?"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'
    b"1. h2e2 h9g7 {caf\xe9} 1-0\n"
)


def _events(path: Path) -> list[str]:
    return [line for line in path.read_text(errors="replace").splitlines() if "[Event " in line]


def test_a_pgn_file_keeps_the_games_of_other_matches(tmp_path: Path) -> None:
    pgn, db = tmp_path / "all.pgn", tmp_path / "m.sqlite"
    pgn.write_bytes(OTHER_TOOL)
    first = ["match", "random", "greedy", "--variant", "xiangqi", "--games", "2"]
    second = ["match", "greedy", "random", "--variant", "atomic-xiangqi", "--games", "2"]
    for command in (first, second, second, [*second[:-1], "3"]):  # a resume, an extension
        done = run_ladder(*command, "--db", str(db), "--pgn", str(pgn))
        assert done.returncode == ExitCode.DONE, done.stderr
    data = pgn.read_bytes()
    assert data.startswith(OTHER_TOOL)  # untouched, first
    events = _events(pgn)
    assert events[0] == '[Event "club night"]'
    assert len(events) == 1 + 2 + 3, events  # the other tool's, the first's 2, the second's 3
    assert len([e for e in events if "xiangqi:random-vs-greedy" in e]) == 2
    assert len([e for e in events if "atomic-xiangqi:greedy-vs-random" in e]) == 3
    ours = pgn.with_name("ours.pgn")
    ours.write_bytes(data[len(OTHER_TOOL) :])
    assert len(list(read_pgn(ours.read_text()))) == 5  # the ladder's games, read back whole


def test_games_after_the_runs_are_kept_whatever_their_tags(tmp_path: Path) -> None:
    """Games another tool appended after the run's own: one with no Event tag, one whose
    tags start with another (xiangqi tools often write Game first): kept whole, where a
    split at each Event line dropped the first and cut the second's first tag (the
    reviewer's finding)."""
    pgn, db = tmp_path / "all.pgn", tmp_path / "m.sqlite"
    command = ["match", "random", "greedy", "--variant", "xiangqi", "--games", "1"]
    assert run_ladder(*command, "--db", str(db), "--pgn", str(pgn)).returncode == 0
    appended = (
        '[Red "Wang"]\n[Black "Li"]\n[Result "1-0"]\n\n1. h2e2 h9g7 1-0\n\n'
        '[Game "Chinese Chess"]\n[Event "club"]\n[Result "0-1"]\n\n1. c3c4 0-1\n'
    )
    pgn.write_text(pgn.read_text() + "\n" + appended)
    again = run_ladder(*command[:-1], "2", "--db", str(db), "--pgn", str(pgn))
    assert again.returncode == ExitCode.DONE, again.stderr
    text = pgn.read_text()
    assert text.startswith(appended), text[:300]  # kept whole, before the run's games
    assert len(_events(pgn)) == 1 + 2  # the club's, and the run's two
