"""The /play page's accessibility: axe-core (pinned with axe-playwright-python) finds no
violation at the start, mid-game and at the end of a game, on a desktop and a phone,
in English and in Chinese; the move list is reached and used by the keyboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

from ..helpers import Server
from .driver import DESKTOP, PHONE, Opener, PlayPage

#: Every rule axe-core runs by default (WCAG 2.0-2.2 A and AA and best practices).
AXE = Axe()


def violations(play: PlayPage) -> list[str]:
    """axe-core's violations on the page as it is, one line each (rule, impact, where)."""
    result = AXE.run(play.page).response
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}"
        for v in result["violations"]
    ]


@pytest.mark.parametrize(
    ("device", "locale"),
    [(DESKTOP, "en-US"), (PHONE, "en-US"), (PHONE, "zh-CN")],
    ids=["desktop", "phone", "phone-zh"],
)
def test_no_axe_violations(
    server: Server, open_page: Opener, device: dict[str, Any], locale: str
) -> None:
    play = open_page(server, {**device, "locale": locale})
    play.open(variant="crazyhouse-xiangqi", level=1, colour="red", seed=21)
    assert violations(play) == [], "at the start"
    how = "tap" if device is PHONE else "click"
    moves = play.play_service_moves("crazyhouse-xiangqi", 6, level=5, seed=2100, how=how)
    play.page.click("#setup-more summary")  # the details open, too
    assert violations(play) == [], "mid-game"
    play.page.click("#resign")
    play.page.click("#resign")
    assert play.wait_settled(len(moves))["state"] == "over"
    assert violations(play) == [], "at the end"


def test_move_list_by_keyboard(server: Server, open_page: Opener) -> None:
    """Tab reaches the move list (one stop: the shown move); the arrow keys, Home and End
    step through the game with the focus on the shown move; Enter on a move shows it."""
    play = open_page(server, variant="xiangqi", level=1, colour="red", seed=22)
    moves = play.play_service_moves("xiangqi", 6, level=5, seed=2200)
    focused = "() => document.activeElement?.dataset?.ply ?? null"
    tabbable = play.page.eval_on_selector_all(
        "#moves .move", "ms => ms.filter(m => m.tabIndex === 0).map(m => m.dataset.ply)"
    )
    assert tabbable == [str(len(moves))]
    play.page.focus("#notation")
    play.page.keyboard.press("Tab")  # the next stop after the notation switch: the move list
    assert play.page.evaluate(focused) == str(len(moves))
    play.page.keyboard.press("ArrowLeft")
    play.page.wait_for_function("n => document.getElementById('app').dataset.viewPly === n",
                                arg=str(len(moves) - 1))  # fmt: skip
    assert play.page.evaluate(focused) == str(len(moves) - 1)
    assert play.page.get_attribute("#moves .move.shown", "aria-current") == "step"
    play.page.keyboard.press("Home")
    play.page.wait_for_function("() => document.getElementById('app').dataset.viewPly === '0'")
    assert play.page.evaluate(focused) == "1"  # (the first move: the start has none)
    play.page.keyboard.press("Tab")  # within the list Tab leaves it: one stop only
    assert play.page.evaluate(focused) is None
    play.page.keyboard.press("Shift+Tab")
    play.page.keyboard.press("ArrowRight")
    play.page.keyboard.press("ArrowRight")
    play.page.wait_for_function("() => document.getElementById('app').dataset.viewPly === '2'")
    play.page.focus("#moves .move[data-ply='4']")
    play.page.keyboard.press("Enter")
    play.page.wait_for_function("() => document.getElementById('app').dataset.viewPly === '4'")
    play.page.keyboard.press("End")
    play.page.wait_for_function(
        "n => document.getElementById('app').dataset.viewing === 'false'", arg=None
    )
    assert play.page.evaluate(focused) == str(len(moves))


#: The piece's letter, in fractions of the piece (scripts/make_play_art.py draws it in
#: the box 43-57 across, 70-83 down of its 100 x 100).
LETTER = (0.43, 0.70, 0.57, 0.83)
#: Each hand piece with a count: the piece's size and its count's box (the ::after badge,
#: as the browser resolved its position), relative to the piece.
BADGES = """() => [...document.querySelectorAll('.pocket piece')]
  .filter(p => p.dataset.nb && p.dataset.nb !== '0')
  .map(p => {
    const r = p.getBoundingClientRect(), b = getComputedStyle(p, '::after');
    const w = parseFloat(b.width) + parseFloat(b.paddingLeft) + parseFloat(b.paddingRight);
    const h = parseFloat(b.height);
    const right = r.width - parseFloat(b.right), bottom = r.height - parseFloat(b.bottom);
    return {role: p.dataset.role, w: r.width, h: r.height,
            box: [right - w, bottom - h, right, bottom]};
  })"""


def test_hand_counts_leave_the_letters_on_a_phone(
    server: Server, open_page: Opener, artifacts: Path
) -> None:
    play = open_page(server, PHONE, variant="crazyhouse-xiangqi", level=1, colour="red", seed=23)
    play.page.locator("#pockets-top").screenshot(path=str(artifacts / "hand-counts-phone.png"))
    badges = play.page.evaluate(BADGES)
    assert len(badges) >= 4  # both hands' advisors and elephants at the start
    for badge in badges:
        x0, y0, x1, y1 = badge["box"]
        lx0, ly0, lx1, ly1 = (f * badge[k] for f, k in zip(LETTER, "whwh", strict=True))
        apart = x0 >= lx1 or x1 <= lx0 or y0 >= ly1 or y1 <= ly0
        assert apart, f"{badge['role']}'s count {badge['box']} covers its letter"
