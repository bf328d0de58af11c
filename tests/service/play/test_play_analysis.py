"""The analysis on the /play page, in a real browser against the real ``ladder serve``:
a finished game with a planted blunder is analysed (POST /v1/analysis, streamed), the
graph is drawn, the blunder is marked on it and in the move list as the service judged
it, and a click on its mark goes to that position and shows the best line there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from ..helpers import Server
from .driver import PHONE, Opener

#: Red's ninth ply puts the a1 chariot on b1, where the b8 cannon takes it for nothing
#: (the b3 cannon is the screen); Black's tenth takes it (tests/analysis/test_core.py).
PLANTED = ["g4g5", "b10a8", "c1a3", "h8i8", "g5g6", "i8h8", "b1d2", "a7a6", "a1b1", "b8b1"]
BLUNDER = 9
NODES = 10_000  # the page's "quick" choice


def service_analysis(url: str, moves: list[str]) -> list[dict[str, Any]]:
    """The service's own stream for the same request, line by line."""
    body = {"variant": "xiangqi", "moves": moves, "nodes": NODES, "from_ply": 1}
    with httpx.stream("POST", f"{url}/v1/analysis", json=body, timeout=300) as reply:
        assert reply.status_code == 200, reply.read()
        return [json.loads(line) for line in reply.iter_lines() if line.strip()]


def test_finished_game_analysed_blunder_marked(
    server: Server, open_page: Opener, artifacts: Path
) -> None:
    play = open_page(
        server, variant="xiangqi", level=1, colour="red", seed=1, moves=",".join(PLANTED)
    )
    play.page.click("#resign")
    play.page.click("#resign")  # a finished game
    play.page.wait_for_function("() => document.getElementById('app').dataset.state === 'over'")
    play.page.select_option("#analysis-nodes", str(NODES))
    play.page.click("#analyse")
    play.page.locator("#graph[data-state=done]").wait_for(timeout=300_000)

    lines = service_analysis(server.url, PLANTED)
    plies = {line["ply"]: line for line in lines if line["type"] == "ply"}
    assert sorted(plies) == list(range(1, len(PLANTED) + 1))
    assert plies[BLUNDER]["judgement"] == "blunder" and plies[BLUNDER + 1]["best"] == "b8b1"
    judged = {str(p): line["judgement"] for p, line in plies.items() if line["judgement"]}

    # the graph: a point per position (the start and each ply), the service's judgements
    points = play.page.get_attribute("#graph polyline", "points")
    assert points is not None and len(points.split()) == len(PLANTED) + 1
    marks = play.page.eval_on_selector_all(
        "#graph circle",
        "cs => Object.fromEntries(cs.map(c => [c.dataset.ply, c.dataset.judgement]))",
    )
    assert marks == judged
    # the move list: ?? on the blunder, a mark on every judged move
    assert (
        play.page.locator(f"#moves .move[data-ply='{BLUNDER}'] .judgement.blunder").inner_text()
        == "??"
    )
    listed = play.page.eval_on_selector_all(
        "#moves .move[data-judgement]",
        "ms => Object.fromEntries(ms.map(m => [m.dataset.ply, m.dataset.judgement]))",
    )
    assert listed == judged
    summary = next(line for line in lines if line["type"] == "summary")
    red_row = play.page.locator("#summary tr[data-side=red] td").all_inner_texts()
    assert red_row[3] == str(summary["red"]["blunders"]) and int(red_row[3]) >= 1

    # a click on the blunder's mark: that position, the judgement, what was best, and the
    # best line from there (the refutation), drawn as an arrow on the board
    play.page.click("#moves-heading")
    play.page.keyboard.press("Home")
    play.page.locator(f"#graph circle[data-ply='{BLUNDER}']").click()
    play.page.wait_for_function(
        "n => document.getElementById('app').dataset.viewPly === String(n)", arg=BLUNDER
    )
    play.wait_pieces("xiangqi", PLANTED[:BLUNDER])
    verdict = play.text("#best-line .verdict")
    blunder = plies[BLUNDER]
    assert verdict.startswith(f"Blunder: {blunder['wxf']} (ply {BLUNDER})")
    assert f"Best was {blunder['best_wxf']}: {' '.join(blunder['pv_wxf'])}" in verdict
    refutation = plies[BLUNDER + 1]
    line = play.text("#best-line .line")
    assert (
        line.endswith(" ".join(refutation["pv_wxf"]))
        and refutation["pv_wxf"][0] == refutation["wxf"]
    )
    assert play.page.get_attribute("#board", "data-arrows") == "b8b1"
    assert play.page.locator("#graph line.graph-shown").count() == 1
    play.screenshot(artifacts / "analysis-desktop.png")

    # the same analysis on a phone: the page keeps its one-column layout
    phone = open_page(server, PHONE, variant="xiangqi", level=1, colour="red", seed=1,
                      moves=",".join(PLANTED))  # fmt: skip
    phone.page.select_option("#analysis-nodes", str(NODES))
    phone.page.tap("#analyse")
    phone.page.locator("#graph[data-state=done]").wait_for(timeout=300_000)
    phone.page.locator(f"#graph circle[data-ply='{BLUNDER}']").tap()
    phone.page.wait_for_function(
        "n => document.getElementById('app').dataset.viewPly === String(n)", arg=BLUNDER
    )
    assert phone.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(artifacts / "analysis-phone.png")
