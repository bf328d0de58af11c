"""The /play page's languages (ladder/service/play/i18n.js, lang/*.json): every catalogue
has every string of the English one, with the same placeholders; every string the page's
code asks for is in the catalogues; the page starts in the browser's language (zh-CN
reads 简体, zh-TW 繁體, anything else English), the switch changes every string at once
mid-game and is remembered; the server lists whatever catalogues there are."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ladder.service.http.play_page import LANG_DIR, PLAY_DIR, languages

from ..helpers import Server
from .driver import DESKTOP, PHONE, Opener, PlayPage

PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: t('key' ...) and t(`prefix.${...}`) in the page's modules.
LITERAL_KEY = re.compile(r"\bt\(\s*'([\w.-]+)'")
TEMPLATE_KEY = re.compile(r"\bt\(\s*`([\w.-]+)\.\$\{")


def catalogue(code: str) -> dict[str, str]:
    return dict(json.loads((LANG_DIR / f"{code}.json").read_text(encoding="utf-8")))


CODES = [p.stem for p in sorted(LANG_DIR.glob("*.json"))]


def test_languages_listed_from_the_catalogues() -> None:
    listed = languages()
    assert listed[0]["code"] == "en"
    assert sorted(entry["code"] for entry in listed) == sorted(CODES)
    assert {"en", "zh-Hans", "zh-Hant"} <= set(CODES)
    names = {entry["code"]: entry["name"] for entry in listed}
    assert names["zh-Hans"] == "简体中文" and names["zh-Hant"] == "繁體中文"


@pytest.mark.parametrize("code", [c for c in CODES if c != "en"])
def test_catalogue_complete(code: str) -> None:
    english, other = catalogue("en"), catalogue(code)
    # (`key.one` is English's singular; a language without one uses `key`)
    assert set(english) - {k for k in english if k.endswith(".one")} <= set(other)
    assert set(other) <= set(english), set(other) - set(english)
    for key, text in other.items():
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), key
        assert text.strip(), key


def test_every_key_the_page_uses_is_catalogued() -> None:
    english = catalogue("en")
    sources = [p.read_text(encoding="utf-8") for p in PLAY_DIR.glob("*.js")]
    html = (PLAY_DIR / "index.html").read_text(encoding="utf-8")
    used = {k for src in sources for k in LITERAL_KEY.findall(src)}
    used |= set(re.findall(r'data-i18n="([\w.-]+)"', html))
    used |= {k for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html)
             for k in (pair.split("=")[1] for pair in pairs.split(";"))}  # fmt: skip
    assert len(used) > 100
    assert used <= set(english), used - set(english)
    prefixes = {p for src in sources for p in TEMPLATE_KEY.findall(src)}
    assert prefixes == {"variant", "reason", "side", "piece", "judgement", "engine", "notation"}
    for prefix in prefixes:
        assert any(k.startswith(f"{prefix}.") for k in english), prefix


def html_strings(play: PlayPage) -> dict[str, str]:
    """The text of every element of the page's HTML that has a catalogue key."""
    return dict(
        play.page.eval_on_selector_all(
            "[data-i18n]", "es => es.map(e => [e.dataset.i18n, e.textContent])"
        )
    )


def check_language(play: PlayPage, code: str) -> None:
    """The page speaks `code`: its HTML's strings, the status line, the selectors."""
    strings = catalogue(code)
    english = catalogue("en")
    play.page.wait_for_function("code => document.documentElement.lang === code", arg=code)
    for key, text in html_strings(play).items():
        assert text == strings.get(key, english[key]), key
    side = strings[f"side.{play.data()['player']}"]
    if play.data()["state"] == "your-turn":
        assert play.text("#status") == strings["status.your_move"].replace("{side}", side)
    variants = play.page.eval_on_selector_all("#variant option", "os => os.map(o => o.text)")
    assert variants == [strings[f"variant.{v}"] for v in
                        ["xiangqi", "atomic-xiangqi", "crazyhouse-xiangqi"]]  # fmt: skip
    assert play.page.input_value("#language") == code


@pytest.mark.parametrize(
    ("locale", "code"), [("zh-CN", "zh-Hans"), ("zh-TW", "zh-Hant"), ("de-DE", "en")]
)
def test_browser_language_is_the_default(
    server: Server, open_page: Opener, locale: str, code: str
) -> None:
    play = open_page(server, {**DESKTOP, "locale": locale}, level=1, colour="red", seed=1)
    check_language(play, code)


def test_switch_mid_game_and_remembered(server: Server, open_page: Opener, artifacts: Path) -> None:
    device: dict[str, Any] = {**PHONE, "locale": "zh-CN"}
    play = open_page(server, device, level=1, colour="red", seed=4)
    check_language(play, "zh-Hans")
    play.play("h3e3")
    play.wait_settled(2)
    hans = catalogue("zh-Hans")
    assert play.text("#engine-heading") == hans["engine.heading"]
    assert play.page.locator("#engine-info dt").first.inner_text() == hans["engine.move"]
    play.page.select_option("#language", "zh-Hant")
    check_language(play, "zh-Hant")
    hant = catalogue("zh-Hant")
    assert play.page.locator("#engine-info dt").first.inner_text() == hant["engine.move"]
    assert play.text("#top-name") == hant["side.ladder"].format(
        ladder=hant["strength.level"].format(n=1), side=hant["side.black"]
    )
    label = play.page.get_attribute("#board", "aria-label")
    assert label == hant["board.label"]
    play.screenshot(artifacts / "language-zh-Hant-phone.png")
    play.page.select_option("#language", "en")
    check_language(play, "en")
    # Remembered on this browser, over the browser's own language; the game goes on.
    play.page.reload()
    play.wait_settled(2)
    check_language(play, "en")
    assert play.moves()[0] == "h3e3"
