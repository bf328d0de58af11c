"""Every way the rules end a game is a match :class:`Ending` of the same name."""

from __future__ import annotations

import pytest

from ladder.match.game.endings import Ending, from_rules
from ladder.rules import Reason


@pytest.mark.parametrize("reason", list(Reason))
def test_every_rules_ending_is_a_match_ending(reason: Reason) -> None:
    ending = from_rules(reason)
    assert ending.value == reason.value
    assert ending.name == reason.name


def test_an_ending_is_written_as_its_value() -> None:
    assert f"{Ending.ENGINE_FAILURE}" == "engine-failure"
    counts: dict[str, int] = {Ending.MAX_PLIES: 1}
    assert counts.get("max-plies") == 1  # a stored record's text finds it
