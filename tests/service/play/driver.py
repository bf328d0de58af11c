"""Drives the /play page as a player does (clicks, taps, drags, keys) and reads what it
shows; checks what it shows against the service's own answers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from playwright.sync_api import ConsoleMessage, FloatRect, Page, Position, Request, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from ladder.rules import Game

FILES = "abcdefghi"
#: How long a page state may take to come (the ladder's move included): generous, for
#: a loaded 2-core machine; nothing waits this long when things work.
WAIT_MS = 60_000
#: The browser's language is English unless a test says otherwise (the page starts in
#: the browser's language).
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}, "locale": "en-US"}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "locale": "en-US",
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
#: Records every burst of blast marks the page draws (points of one move, in order).
BLAST_RECORDER = """
window.__bursts = [];
new MutationObserver(records => {
  const points = records.flatMap(r => [...r.addedNodes])
    .filter(n => n.classList && n.classList.contains('burst')).map(n => n.dataset.point);
  if (points.length) window.__bursts.push(points.sort());
}).observe(document, {childList: true, subtree: true});
"""


_STEP = re.compile(r"^([a-i]\d{1,2})([a-i]\d{1,2})$")
_DROP = re.compile(r"^([A-Z])@([a-i]\d{1,2})$")
#: The points of the board squares with a class (chessgroundx keeps each square's key,
#: e.g. 'e:' for e10, in a property of its element).
_MARKED = """cls => [...document.querySelectorAll(`cg-board square.${cls}`)]
  .map(s => s.cgKey[0] + (s.cgKey[1] === ':' ? '10' : s.cgKey[1]))"""
#: The pieces on the board as drawn: point -> FEN letter (chessgroundx's roles are FEN
#: letters, its white is Red); a piece being animated away is not counted.
_PIECES = """() => Object.fromEntries([...document.querySelectorAll('cg-board piece')]
  .filter(p => !p.classList.contains('fading'))
  .map(p => [p.cgKey[0] + (p.cgKey[1] === ':' ? '10' : p.cgKey[1]),
             ((l) => p.classList.contains('white') ? l.toUpperCase() : l)(
               [...p.classList].find(c => c.endsWith('-piece'))[0])]))"""
_HTTP_ERROR_LOG = "Failed to load resource: the server responded with a status of"
#: chessgroundx's role of a drop letter (FEN letters).
ROLE = {"A": "a-piece", "B": "b-piece", "N": "n-piece", "R": "r-piece", "C": "c-piece"}
ROLE["P"] = "p-piece"


@dataclass
class PlayPage:
    """One /play page in a browser tab."""

    page: Page
    url: str  #: the server's base URL
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("request", self._on_request)
        self.page.on("requestfailed", self._on_failed)
        self.page.on("response", self._on_response)
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))

    def _on_request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _on_failed(self, request: Request) -> None:
        # A request the page itself abandoned (undo, new game) is not a failure.
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"request failed: {request.url} {request.failure}")

    def _on_response(self, response: Response) -> None:
        # The page's own files must all load; the API's error answers are the tests' doing.
        if response.status >= 400 and "/v1/" not in response.url:
            self.problems.append(f"{response.status} for {response.url}")

    def _on_console(self, msg: ConsoleMessage) -> None:
        # (the browser logs every error answer; _on_response judges those)
        if msg.type == "error" and not msg.text.startswith(_HTTP_ERROR_LOG):
            self.problems.append(f"console error: {msg.text}")

    # -- reading ----------------------------------------------------------------------

    def data(self) -> dict[str, str]:
        """The game's state as the page publishes it on #app (data-*)."""
        return dict(self.page.eval_on_selector("#app", "e => ({...e.dataset})"))

    def moves(self) -> list[str]:
        return self.data().get("moves", "").split()

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def bodies_sent(self, endpoint: str) -> list[Any]:
        """The JSON bodies of the page's requests to ``endpoint`` (such as ``/v1/move``),
        in the order sent, from now on: the list grows as the page sends them."""
        bodies: list[Any] = []
        self.page.on(
            "request",
            lambda r: bodies.append(r.post_data_json) if r.url.endswith(endpoint) else None,
        )
        return bodies

    def marked(self, css_class: str) -> list[str]:
        """Points whose board square has `css_class` (last-move, check, move-dest, ...),
        read from where chessgroundx drew them."""
        return sorted(self.page.evaluate(_MARKED, css_class))

    def wait_marked(self, css_class: str, points: list[str]) -> None:
        """Wait until exactly `points` are marked with `css_class` (the board redraws on
        the next animation frame after a tap)."""
        try:
            self.page.wait_for_function(
                f"([c, want]) => JSON.stringify(({_MARKED})(c).sort()) === JSON.stringify(want)",
                arg=[css_class, sorted(points)],
                timeout=WAIT_MS,
            )
        except PlaywrightTimeoutError:
            raise AssertionError(f"{css_class}: {self.marked(css_class)} != {points}") from None

    def board_pieces(self) -> dict[str, str]:
        """The pieces chessgroundx drew, as FEN letters by point (Red's upper case)."""
        return dict(self.page.evaluate(_PIECES))

    def wait_pieces(self, variant: str, moves: list[str]) -> None:
        """Wait until the board draws the position after `moves` (the rules checker's)."""
        want = pieces_after(variant, moves)
        try:
            self.page.wait_for_function(
                f"want => JSON.stringify(Object.entries(({_PIECES})()).sort()) === want",
                arg=json.dumps(sorted([k, v] for k, v in want.items()), separators=(",", ":")),
                timeout=WAIT_MS,
            )
        except PlaywrightTimeoutError:
            raise AssertionError(f"board {self.board_pieces()} != {want}") from None

    def point_clip(self, point: str) -> FloatRect:
        """The screen rectangle of `point`'s cell (for a screenshot of it)."""
        box = self.page.locator("cg-board").bounding_box()
        assert box is not None
        w, h = box["width"] / 9, box["height"] / 10
        at = self._point_offset(point)
        return {"x": box["x"] + at["x"] - w / 2, "y": box["y"] + at["y"] - h / 2, "width": w,
                "height": h}  # fmt: skip

    def download(self, selector: str) -> str:
        """Click `selector` and read the file the page gives for download."""
        with self.page.expect_download(timeout=WAIT_MS) as info:
            self.page.click(selector)
        return Path(info.value.path()).read_text(encoding="utf-8")

    def blast_marks(self) -> list[str]:
        return sorted(
            self.page.eval_on_selector_all(".marks .blast", "ms => ms.map(m => m.dataset.point)")
        )

    # -- waiting ----------------------------------------------------------------------

    def open(self, **params: Any) -> None:
        self.page.goto(f"{self.url}/play?{urlencode(params)}")
        self.wait_settled(0)

    def wait_settled(self, after_ply: int, through_errors: bool = False) -> dict[str, str]:
        """Wait until it is the player's turn or the game is over, more than `after_ply`
        moves in, or (unless `through_errors`) the page shows an error; the page's state
        then."""
        try:
            self.page.wait_for_function(
                """([n, through]) => {
                  const d = document.getElementById('app').dataset;
                  return (d.state === 'error' && !through) ||
                    (['your-turn', 'over'].includes(d.state) && Number(d.ply) >= n);
                }""",
                arg=[after_ply, through_errors],
                timeout=WAIT_MS,
            )
        except PlaywrightTimeoutError:
            raise AssertionError(
                f"no turn after ply {after_ply}: {self.data()}; status {self.text('#status')!r}"
            ) from None
        state = self.data()
        assert state["state"] != "error", self.text("#error")
        return state

    # -- acting -----------------------------------------------------------------------

    def _point_offset(self, point: str) -> Position:
        """Where `point` is, in pixels from the board's top left corner."""
        box = self.page.locator("cg-board").bounding_box()
        assert box is not None
        red = self.page.locator("#board.orientation-white").count() == 1
        f, r = FILES.index(point[0]), int(point[1:]) - 1
        col, row = (f, 9 - r) if red else (8 - f, r)
        return {"x": (col + 0.5) * box["width"] / 9, "y": (row + 0.5) * box["height"] / 10}

    def click_point(self, point: str) -> None:
        self.page.locator("cg-board").click(position=self._point_offset(point))

    def tap_point(self, point: str) -> None:
        self.page.locator("cg-board").tap(position=self._point_offset(point))

    def hand_piece(self, letter: str) -> Any:
        """The piece of the player's hand (the bottom one) with drop letter `letter`."""
        return self.page.locator(f"#pocket-bottom piece.{ROLE[letter]}")

    def play(self, move: str, how: str = "click") -> None:
        """Make `move` on the page: `click` (mouse: the piece, then its dot), `tap`
        (touch), `drag` (mouse, press on the piece and release on the point), or `keys`
        (the keyboard cursor)."""
        drop, step = _DROP.match(move), _STEP.match(move)
        assert drop or step, move
        if how == "keys":
            self._play_by_keys(move)
            return
        if how == "drag":
            board = self.page.locator("cg-board")
            if drop:
                self.hand_piece(drop.group(1)).hover()
                target = drop.group(2)
            else:
                assert step is not None
                board.hover(position=self._point_offset(step.group(1)))
                target = step.group(2)
            self.page.mouse.down()
            box = board.bounding_box()
            assert box is not None
            offset = self._point_offset(target)
            self.page.mouse.move(box["x"] + offset["x"], box["y"] + offset["y"], steps=8)
            self.page.mouse.up()
            return
        act = self.tap_point if how == "tap" else self.click_point
        if drop:
            piece = self.hand_piece(drop.group(1))
            piece.tap() if how == "tap" else piece.click()
            act(drop.group(2))
        else:
            assert step is not None
            act(step.group(1))
            act(step.group(2))

    def _cursor_to(self, point: str) -> None:
        """Arrow keys until the board's cursor is on `point` (as seen on the screen)."""
        red = self.page.locator("#board.orientation-white").count() == 1
        here = self.page.get_attribute("#board", "data-cursor") or "e1"
        df = FILES.index(point[0]) - FILES.index(here[0])
        dr = int(point[1:]) - int(here[1:])
        if not red:
            df, dr = -df, -dr
        keys = ["ArrowRight" if df > 0 else "ArrowLeft"] * abs(df)
        keys += ["ArrowUp" if dr > 0 else "ArrowDown"] * abs(dr)
        for key in keys:
            self.page.keyboard.press(key)
        assert self.page.get_attribute("#board", "data-cursor") == point

    def _play_by_keys(self, move: str) -> None:
        drop, step = _DROP.match(move), _STEP.match(move)
        if drop:
            square = self.page.locator(f"#pocket-bottom square:has(piece.{ROLE[drop.group(1)]})")
            square.focus()
            self.page.keyboard.press("Enter")  # the cursor goes to the board
            self._cursor_to(drop.group(2))
        else:
            assert step is not None
            self.page.locator("#board").focus()
            self._cursor_to(step.group(1))
            self.page.keyboard.press("Enter")
            self._cursor_to(step.group(2))
        self.page.keyboard.press("Enter")

    def play_service_moves(
        self, variant: str, plies: int, *, level: int, seed: int, how: str = "click"
    ) -> list[str]:
        """Play the player's side with the service's moves at ``level`` (``seed``), made
        by ``how`` (:meth:`play`), each answered by the ladder, until ``plies`` moves are
        on the board; the game's moves then."""
        moves = self.moves()
        while len(moves) < plies:
            mine = ladder_move(self.url, variant, moves, level, seed)["move"]
            self.play(mine, how)
            moves = self.wait_settled(len(moves) + 2)["moves"].split()
        return moves

    def fill_seed(self, seed: str) -> None:
        """Type a seed in the new-game form (behind its "Details")."""
        self.page.locator("#setup-more").evaluate("d => { d.open = true; }")
        self.page.fill("#seed", seed)

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=str(path), full_page=True)


def ladder_move(url: str, variant: str, moves: list[str], level: int, seed: int) -> dict[str, Any]:
    """The service's move (POST /v1/move)."""
    reply = httpx.post(
        f"{url}/v1/move",
        json={"variant": variant, "moves": moves, "level": level, "seed": seed},
        timeout=120,
    )
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def position(url: str, variant: str, moves: list[str]) -> dict[str, Any]:
    """The service's verdict (POST /v1/position, with WXF)."""
    reply = httpx.post(
        f"{url}/v1/position",
        json={"variant": variant, "moves": moves, "wxf": True},
        timeout=120,
    )
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def pieces_after(variant: str, moves: list[str]) -> dict[str, str]:
    """The pieces on the board after `moves`, by point (the rules checker's view)."""
    game = Game.from_fen(variant, None, moves)
    points = (f"{f}{r}" for f in FILES for r in range(1, 11))
    return {p: piece for p in points if (piece := game.piece_at(p))}


def removed_points(variant: str, moves: list[str]) -> list[str]:
    """The points the last of `moves` emptied, its origin aside (the rules checker's
    view): what an atomic-xiangqi blast removed."""
    before = Game.from_fen(variant, None, moves[:-1])
    after = Game.from_fen(variant, None, moves)
    step = _STEP.match(moves[-1])
    origin = step.group(1) if step else None
    points = [f"{f}{r}" for f in FILES for r in range(1, 11)]
    return sorted(
        p for p in points if p != origin and before.piece_at(p) and after.piece_at(p) is None
    )


#: open_page(server, device=DESKTOP, **address parameters) -> PlayPage
Opener = Callable[..., "PlayPage"]
