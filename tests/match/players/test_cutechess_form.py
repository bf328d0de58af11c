"""cutechess-cli's form of an engine player (ladder/match/players/cutechess_form.py): the
same engine as the ladder's form, and the forms it refuses."""

from __future__ import annotations

import pytest

from ladder.match.game.clocks import TimeControl
from ladder.match.players.cutechess_form import parse_engine_arguments
from ladder.match.players.specs import PlayerSpecError, parse_player


def test_cutechess_form_is_the_same_engine() -> None:
    spec = parse_engine_arguments(
        ["cmd=/opt/fsf", "proto=ucci", "option.Hash=64", "tc=40/60+0.6", "name=FSF", "args=-x 1"]
    )
    assert (spec.kind, spec.path, spec.protocol, spec.name) == ("engine", "/opt/fsf", "ucci", "FSF")
    assert spec.options == (("Hash", "64"),) and spec.args == ("-x", "1")
    assert spec.time_control == TimeControl(40, 60.0, 0.6)
    # its text is the ladder's form, keys in a fixed order: it parses back to the same spec
    assert spec.text == 'engine:/opt/fsf,args="-x 1",name=FSF,protocol=ucci,tc=40/60+0.6,Hash=64'
    assert parse_player(spec.text) == spec
    assert parse_engine_arguments(["cmd=/a,b/fsf", "nodes=5"]).path == "/a,b/fsf"
    assert parse_engine_arguments(["cmd=/opt/fsf", "depth=3"]).name == "fsf"


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        ["proto=uci", "nodes=1"],
        ["cmd=/x", "nodes=1", "Hash=16"],
        ["cmd=/x"],
        ["cmd=/x", "option.=1"],
    ],
)
def test_bad_cutechess_forms(tokens: list[str]) -> None:
    with pytest.raises(PlayerSpecError):
        parse_engine_arguments(tokens)
