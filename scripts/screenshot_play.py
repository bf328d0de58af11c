"""The README's screenshot of the /play page, and docs/play.md's in each language at
desktop and phone sizes: an atomic-xiangqi game in progress on a 10+5 clock.

    make serve &                       # or any `ladder serve`
    .venv/bin/python scripts/screenshot_play.py [--url http://127.0.0.1:8000] [--out docs/play.png]
        [--language en|zh-Hans|zh-Hant] [--phone]

The language is the browser's (en-US, zh-CN, zh-TW): the page starts in it.

Plays Red by clicking the service's level-5 moves on the page against level 1 (seed 8)
until the ladder's answer has just blown something up, then takes the screenshot:
the last move ringed, the blast marks, the move list in WXF, the ladder's move, score
and time. Debian's chromium (scripts/install_browser.sh), driven by Playwright.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
FILES = "abcdefghi"
#: The browser's language for each of the page's: the page starts in it.
LOCALES = {"en": "en-US", "zh-Hans": "zh-CN", "zh-Hant": "zh-TW"}
SETTLED = """n => { const d = document.getElementById('app').dataset;
  return d.state === 'over' || (d.state === 'your-turn' && Number(d.ply) >= n); }"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "play.png")
    ap.add_argument("--seed", type=int, default=8, help="the ladder's seed")
    ap.add_argument("--language", choices=sorted(LOCALES), default="en")
    ap.add_argument("--phone", action="store_true", help="390 x 844, as a phone")
    args = ap.parse_args()
    device: dict[str, Any] = (
        {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True} if args.phone else {"viewport": {"width": 1200, "height": 760}}
    )  # fmt: skip
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = browser.new_page(**device, locale=LOCALES[args.language])
        page.goto(
            f"{args.url}/play?variant=atomic-xiangqi&level=1&colour=red&seed={args.seed}"
            "&clock=10%2B5"
        )
        board = page.locator("cg-board")
        for _ in range(60):
            page.wait_for_function(SETTLED, arg=0, timeout=60_000)
            state = page.eval_on_selector("#app", "e => ({...e.dataset})")
            blasts = page.locator(".marks .blast").count()
            if state["state"] == "over":
                raise SystemExit("the game ended first: try another --seed")
            if blasts and int(state["ply"]) >= 10:
                break
            moves = state["moves"].split()
            move = httpx.post(
                f"{args.url}/v1/move",
                json={"variant": "atomic-xiangqi", "moves": moves, "level": 5, "seed": 6},
                timeout=60,
            ).json()["move"]
            box = board.bounding_box()
            assert box is not None
            for point in re.findall(r"[a-i]\d{1,2}", move):  # Red is at the bottom
                f, r = FILES.index(point[0]), int(point[1:])
                x, y = (f + 0.5) * box["width"] / 9, (10 - r + 0.5) * box["height"] / 10
                board.click(position={"x": x, "y": y})
            page.wait_for_function(SETTLED, arg=len(moves) + 1, timeout=60_000)
        # the blast's burst and the pieces' moves finished
        page.wait_for_function(
            "() => document.getAnimations().every(a => a.playState !== 'running')"
        )
        page.screenshot(path=str(args.out))
        browser.close()
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
