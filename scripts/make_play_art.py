"""Draw the /play page's pieces and board: ladder/service/play/pieces/{red,black}-{name}.svg
and ladder/service/play/board.svg.

Each piece is a disc with its Chinese character and, below it, the small letter of the
site's "Your turn" page (shared/seeds 004): G A E H R C S. Both are glyph outlines
(SVG paths), not text, so the pieces look the same on every device, with or without
CJK fonts: the character (and the river's 楚河 漢界) from Noto Serif CJK TC Bold (SIL
Open Font License; Debian's ``fonts-noto-cjk``), the letter from DejaVu Sans Bold
(``fonts-dejavu-core``). The page's CSS names the files (ladder/service/play/play.css).

    .venv/bin/python scripts/make_play_art.py      # installs the fonts if missing

The output is committed; this script is needed only to change the drawing. It uses
fontTools (installed in the virtualenv with matplotlib).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fontTools.pens.boundsPen import BoundsPen  # type: ignore[import-untyped]
from fontTools.pens.svgPathPen import SVGPathPen  # type: ignore[import-untyped]
from fontTools.ttLib import TTCollection, TTFont  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "ladder" / "service" / "play" / "pieces"
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
LATIN_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
FONT_PACKAGES = {CJK_FONT: "fonts-noto-cjk", LATIN_FONT: "fonts-dejavu-core"}

#: (letter shown, red character, black character, name) of each piece
PIECES = [
    ("G", "帥", "將", "general"),
    ("A", "仕", "士", "advisor"),
    ("E", "相", "象", "elephant"),
    ("H", "傌", "馬", "horse"),
    ("R", "俥", "車", "chariot"),
    ("C", "炮", "砲", "cannon"),
    ("S", "兵", "卒", "soldier"),
]
INK = {"red": "#b3121d", "black": "#1b1b1b"}


def ensure_fonts() -> None:
    missing = [pkg for path, pkg in FONT_PACKAGES.items() if not path.exists()]
    if missing:
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True)


def cjk_font() -> TTFont:
    """The Traditional Chinese face of the Noto Serif CJK collection."""
    for font in TTCollection(str(CJK_FONT)).fonts:
        if "TC" in font["name"].getDebugName(1):
            return font
    raise SystemExit(f"no TC face in {CJK_FONT}")


def glyph_path(font: TTFont, char: str, box: tuple[float, float, float, float]) -> str:
    """An SVG path of `char`, scaled to fit and centred in `box` (x, y, width, height)."""
    name = font.getBestCmap()[ord(char)]
    glyphs = font.getGlyphSet()
    bounds = BoundsPen(glyphs)
    glyphs[name].draw(bounds)
    assert bounds.bounds is not None, char
    x0, y0, x1, y1 = bounds.bounds
    bx, by, bw, bh = box
    scale = min(bw / (x1 - x0), bh / (y1 - y0))
    tx = bx + (bw - (x1 - x0) * scale) / 2 - x0 * scale
    ty = by + (bh - (y1 - y0) * scale) / 2 + y1 * scale  # font y grows upwards
    pen = SVGPathPen(glyphs, ntos=lambda v: f"{v:.1f}".rstrip("0").rstrip("."))
    glyphs[name].draw(pen)
    return (
        f'<path transform="matrix({scale:.5f} 0 0 {-scale:.5f} {tx:.2f} {ty:.2f})" '
        f'd="{pen.getCommands()}"/>'
    )


def piece_svg(colour: str, letter: str, char: str, name: str, cjk: TTFont, latin: TTFont) -> str:
    ink = INK[colour]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f"<title>{colour} {name} {char} {letter}</title>"
        '<circle cx="50" cy="51.5" r="46" fill="#6b4a26" opacity=".35"/>'
        f'<circle cx="50" cy="50" r="46" fill="#f4e2bd" stroke="{ink}" stroke-width="2.5"/>'
        f'<circle cx="50" cy="50" r="39.5" fill="none" stroke="{ink}" stroke-width="1.2"/>'
        f'<g fill="{ink}">{glyph_path(cjk, char, (26, 17, 48, 48))}'
        f"{glyph_path(latin, letter, (43, 70, 14, 13))}</g></svg>\n"
    )


#: Board: 9 x 10 cells of 100 units; the points (where pieces stand) are the cells'
#: centres, as chessgroundx places pieces in cells.
LINE = "#5b3a1a"


def _point(f: float, r: float) -> tuple[float, float]:
    """SVG coordinates of file f (0 = a), rank r (0 = rank 10, at the top)."""
    return 50 + 100 * f, 50 + 100 * r


def _line(f0: float, r0: float, f1: float, r1: float, width: float = 3) -> str:
    (x0, y0), (x1, y1) = _point(f0, r0), _point(f1, r1)
    return f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1:g}" stroke-width="{width:g}"/>'


def _corner_marks(f: int, r: int) -> str:
    """The small L marks around a cannon's or soldier's starting point."""
    x, y = _point(f, r)
    out = []
    for dx in (-1, 1):
        if not 0 <= f + dx <= 8:
            continue
        for dy in (-1, 1):
            ax, ay = x + dx * 8, y + dy * 8
            out.append(
                f'<polyline points="{ax + dx * 14:g},{ay:g} {ax:g},{ay:g} {ax:g},{ay + dy * 14:g}" '
                'fill="none" stroke-width="2.5"/>'
            )
    return "".join(out)


def board_svg(cjk: TTFont) -> str:
    parts = [_line(0, r, 8, r) for r in range(10)]
    for f in range(9):
        if f in (0, 8):
            parts.append(_line(f, 0, f, 9))
        else:  # the river cuts the inner files
            parts += [_line(f, 0, f, 4), _line(f, 5, f, 9)]
    for r0 in (0, 7):  # the palaces' diagonals
        parts += [_line(3, r0, 5, r0 + 2, 2), _line(5, r0, 3, r0 + 2, 2)]
    for f, r in [(1, 2), (7, 2), (1, 7), (7, 7)] + [
        (f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)
    ]:
        parts.append(_corner_marks(f, r))
    river = "".join(
        glyph_path(cjk, ch, (x, 462, 76, 76))
        for ch, x in (("楚", 162), ("河", 262), ("漢", 562), ("界", 662))
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 900 1000">'
        "<title>xiangqi board</title>"
        '<rect width="900" height="1000" fill="#e9c88e"/>'
        f'<rect x="42" y="42" width="816" height="916" fill="none" stroke="{LINE}" '
        'stroke-width="5"/>'
        f'<g stroke="{LINE}" stroke-linecap="square">{"".join(parts)}</g>'
        f'<g fill="{LINE}" opacity=".7">{river}</g></svg>\n'
    )


def main() -> int:
    ensure_fonts()
    cjk, latin = cjk_font(), TTFont(str(LATIN_FONT))
    OUT.mkdir(parents=True, exist_ok=True)
    for letter, red, black, name in PIECES:
        for colour, char in (("red", red), ("black", black)):
            path = OUT / f"{colour}-{name}.svg"
            path.write_text(piece_svg(colour, letter, char, name, cjk, latin))
            print(path.relative_to(ROOT))
    board = OUT.parent / "board.svg"
    board.write_text(board_svg(cjk))
    print(board.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
