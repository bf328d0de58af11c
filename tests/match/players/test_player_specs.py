"""Player specs: the ladder's form, quoting, errors, and the match ids
that existing specs must keep (calibration's stored games are found by them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.match.config import MatchConfig
from ladder.match.game.adjudication import Adjudication
from ladder.match.game.clocks import TimeControl
from ladder.match.openings import load_openings
from ladder.match.players.specs import (
    PlayerSpec,
    PlayerSpecError,
    parse_player,
)

#: A copy of the levels file as it was when these ids were taken: a level's settings are
#: part of its match ids, and the real file is retuned by calibration.
PINNED_LEVELS = Path(__file__).parent.parent / "data" / "levels-pinned.toml"

#: (variant, player A, player B, the match id the code before the spec split gave).
PINNED_IDS = [
    ("xiangqi", "level:3,levels=LEVELS,name=L3", "random", "xiangqi:L3-vs-random:b112616314"),
    (
        "xiangqi",
        'level:5,variety=off,levels=LEVELS,name="level:5,variety=off"',
        "engine:/opt/fsf,nodes=20000,Hash=16,name=fsf20k",
        "xiangqi:level:5,variety=off-vs-fsf20k:d3446b3cc2",
    ),
    ("xiangqi", "level:1,levels=LEVELS,name=L1", "greedy", "xiangqi:L1-vs-greedy:264138ea4a"),
    (
        "xiangqi",
        "engine:/opt/x,protocol=ucci,depth=3",
        "greedy",
        "xiangqi:engine:/opt/x,protocol=ucci,depth=3-vs-greedy:e9c2132b88",
    ),
    (
        "atomic-xiangqi",
        "level:3,levels=LEVELS,name=L3",
        "random",
        "atomic-xiangqi:L3-vs-random:097281be25",
    ),
    (
        "atomic-xiangqi",
        'level:5,variety=off,levels=LEVELS,name="level:5,variety=off"',
        "engine:/opt/fsf,nodes=20000,Hash=16,name=fsf20k",
        "atomic-xiangqi:level:5,variety=off-vs-fsf20k:84c5aaca50",
    ),
]


@pytest.mark.parametrize(("variant", "a", "b", "match_id"), PINNED_IDS)
def test_existing_specs_keep_their_match_ids(variant: str, a: str, b: str, match_id: str) -> None:
    config = MatchConfig(
        variant=variant,
        player_a=parse_player(a.replace("LEVELS", str(PINNED_LEVELS))),
        player_b=parse_player(b),
        openings=load_openings(variant),
        games=40,
        seed=1,
        adjudication=Adjudication(
            resign_cp=400, resign_moves=3, draw_cp=10, draw_moves=8, draw_after_ply=80
        ),
    )
    assert config.match_id == match_id


def test_identity_texts_are_pinned() -> None:
    assert parse_player(f"level:3,levels={PINNED_LEVELS},name=L3").identity_text() == "level:3"
    assert parse_player("level:5,variety=off").identity_text() == "level:5,variety=off"
    assert parse_player("random").identity_text() == "random"
    assert parse_player("greedy:name=g").identity_text() == "greedy"
    # elo:N only parses against a fully measured levels file; its identity text:
    elo = PlayerSpec(kind="level", text="elo:1200", elo=1200.0)
    assert elo.identity_text() == "elo:1200"
    assert parse_player("level:4").settings("xiangqi")["nodes"] == (
        parse_player("level:4").level_settings("xiangqi").nodes
    )


def test_engine_spec_keys() -> None:
    spec = parse_player(
        'engine:"/opt/my,engine",protocol=ucci,tc=40/60+0.6,timemargin=200,'
        'args="-q --threads 1",dir=/tmp,Hash=16,name=mine'
    )
    assert spec.path == "/opt/my,engine" and spec.protocol == "ucci"
    assert spec.time_control == TimeControl(40, 60.0, 0.6) and spec.time_margin_ms == 200
    assert spec.args == ("-q", "--threads", "1") and spec.workdir == "/tmp"
    assert spec.options == (("Hash", "16"),) and spec.name == "mine"
    assert parse_player("engine:/x,st=0.25").movetime_ms == 250
    assert parse_player(r'engine:"/a \"b\"",nodes=1').path == '/a "b"'


@pytest.mark.parametrize(
    "bad",
    [
        "level:9",
        "level:x",
        "elo:abc",
        "engine:/x",
        "engine:,nodes=1",
        "engine:/x,nodes=1,Threads=4",
        "engine:/x,nodes=1,protocol=cecp",
        "engine:/x,nodes=0",
        "engine:/x,nodes=-3",
        "engine:/x,depth=two",
        "engine:/x,tc=fast",
        "engine:/x,tc=0+1",
        "engine:/x,st=0",
        'engine:"/x,nodes=1',
        "engine:/x,nodes=1,junk",
        "random,speed=3",
        "alphazero",
    ],
)
def test_bad_specs_say_what_is_wrong(bad: str) -> None:
    with pytest.raises(PlayerSpecError):
        parse_player(bad)


def test_time_controls() -> None:
    assert TimeControl.parse("40/60+0.6") == TimeControl(40, 60.0, 0.6)
    assert TimeControl.parse("10+0.1") == TimeControl(None, 10.0, 0.1)
    assert TimeControl.parse("1:30") == TimeControl(None, 90.0, 0.0)
    assert TimeControl.parse("40/1:00+1").text() == "40/60+1"
