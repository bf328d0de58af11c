"""`ladder perft`."""

from __future__ import annotations

import json

import pytest

from ladder.cli import main


def test_perft_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--variant", "xiangqi", "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip() == "1920"


def test_perft_cli_with_fen_and_divide(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "4k4/9/9/9/9/9/9/9/9/3K5[R] w - - 0 1"
    assert (
        main(["perft", "--variant", "crazyhouse-xiangqi", "--fen", fen, "--depth", "1", "--divide"])
        == 0
    )
    lines = capsys.readouterr().out.split()
    # 88 chariot drops (90 points less the generals') and the general's step to d2
    assert lines[-1] == "89"
    assert "d1d2:" in lines and "R@e5:" in lines


def test_perft_cli_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--variant", "chess", "--depth", "1"]) == 2
    assert "unknown variant" in capsys.readouterr().err
    assert main(["perft", "--variant", "xiangqi", "--fen", "nonsense", "--depth", "1"]) == 2


def test_perft_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--variant", "xiangqi", "--depth", "2", "--json", "--divide"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["variant"], answer["depth"], answer["nodes"]) == ("xiangqi", 2, 1920)
    assert answer["fen"].startswith("rnbakabnr/") and sum(answer["divide"].values()) == 1920
