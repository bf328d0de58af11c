"""What a calibration writes: the levels file and docs/ladder.md."""

from __future__ import annotations

from pathlib import Path

from ladder.calibration.fit import Criterion, VariantCalibration
from ladder.calibration.report import ladder_markdown, write_docs, write_levels_file
from ladder.levels import LEVELS_FILE, RATING_KEYS, Rating, load_levels


def _calibration(variant: str, rated: int) -> VariantCalibration:
    levels = load_levels()[variant]
    ratings: dict[int, Rating | None] = {
        n: Rating(100.0 * n, 100.0 * n - 50, 100.0 * n + 50, 10 * n, n == rated)
        if n <= rated
        else None
        for n in levels
    }
    cal = VariantCalibration(variant, None, levels, ratings)
    cal.seconds = {1: 0.0123, 2: 1.5}
    cal.others = {"random": Rating(0, 0, 0, 40), "greedy": Rating(200, 150, 250, 60)}
    cal.criteria = [Criterion("strictly increasing", True, "yes")]
    return cal


def test_levels_file_gets_the_figures_and_keeps_the_settings(tmp_path: Path) -> None:
    source = tmp_path / "levels.toml"
    # The shipped file's level tables, plus a per-variant setting that writing must keep.
    base = LEVELS_FILE.read_text().split("\n[variant.")[0]
    source.write_text(base + "\n\n[variant.atomic-xiangqi.1]\nnodes = 800\n")
    before = source.read_text()
    out = tmp_path / "out" / "levels.toml"
    write_levels_file(source, out, [_calibration("atomic-xiangqi", 8), _calibration("xiangqi", 2)])
    assert source.read_text() == before  # the source is never touched
    table = load_levels(out)
    one = table["atomic-xiangqi"][1]
    assert one.nodes == 800 and one.rating == Rating(100.0, 50.0, 150.0, 10, False)
    assert one.seconds_per_move == 0.0123
    assert table["atomic-xiangqi"][8].rating == Rating(800.0, 750.0, 850.0, 80, True)
    assert table["xiangqi"][2].seconds_per_move == 1.5 and table["xiangqi"][3].rating is None
    assert table["crazyhouse-xiangqi"][1].rating is None
    assert out.read_text().startswith(base[:200])
    # writing over it again replaces the tables, never duplicates them
    write_levels_file(out, out, [_calibration("xiangqi", 2)])
    assert out.read_text().count("[variant.xiangqi.1]") == 1


def test_ladder_markdown_has_a_table_and_the_criteria_per_variant(tmp_path: Path) -> None:
    cal = _calibration("xiangqi", 8)
    md = ladder_markdown([cal], {"xiangqi": "ladder-xiangqi.png"}, {"xiangqi": "## Blunders"})
    top = load_levels(LEVELS_FILE)["xiangqi"][8].nodes
    assert "## xiangqi" in md and f"| **level 8** | {top:,} |" in md
    assert "(extrapolated)" in md and "12.3 ms" in md and "1.50 s" in md
    assert "- strictly increasing: **met** (yes)" in md and "## Blunders" in md
    path = write_docs([cal], tmp_path)
    assert path.read_text().startswith("# The ladder's measured strength")
    assert (tmp_path / "ladder-xiangqi.png").read_bytes()[:4] == b"\x89PNG"


def test_levels_file_keeps_every_comment_and_line(tmp_path: Path) -> None:
    """The shipped file rated: each of its lines is still there, in order (the comments
    inside the variant tables say why a setting is what it is), and a level without a
    table gets one among its variant's, in level order."""
    out = tmp_path / "levels.toml"
    write_levels_file(LEVELS_FILE, out, [_calibration("atomic-xiangqi", 8)])
    source, written = LEVELS_FILE.read_text().splitlines(), out.read_text().splitlines()
    settings = [x for x in source if x.split(" =")[0] not in (*RATING_KEYS, "seconds_per_move")]
    rest = iter(written)
    assert all(line in rest for line in settings)  # a subsequence: nothing dropped or moved
    headers = [x for x in written if x.startswith("[variant.atomic-xiangqi.")]
    assert headers == [f"[variant.atomic-xiangqi.{n}]" for n in range(1, 9)]
    table = load_levels(out)
    assert table["atomic-xiangqi"][4].rating == Rating(400.0, 350.0, 450.0, 40, False)
    assert table["atomic-xiangqi"][8].nodes == load_levels()["atomic-xiangqi"][8].nodes
    assert table["xiangqi"] == load_levels()["xiangqi"]
    # rated again: the figures are replaced in place, the file does not grow
    write_levels_file(out, out, [_calibration("atomic-xiangqi", 8)])
    assert out.read_text().splitlines() == written


def test_new_tables_go_in_level_order_beside_their_comments(tmp_path: Path) -> None:
    """Levels without a table get one in level order: above the comment of the
    variant's first table, or after the nearest lower level; a table that loses its
    figures keeps its header and comments, so rating, unrating and rating again comes
    back to the same file."""
    base = LEVELS_FILE.read_text().split("\n[variant.")[0].rstrip()
    source = tmp_path / "levels.toml"
    source.write_text(
        base + "\n\n# why level 2\n[variant.atomic-xiangqi.2]  # a note\nmultipv = 77\n"
        "\n# why level 8\n[variant.atomic-xiangqi.8]\nnodes = 600_000\n"
    )
    out = tmp_path / "out.toml"
    write_levels_file(source, out, [_calibration("atomic-xiangqi", 8)])
    written = out.read_text().splitlines()
    headers = [i for i, x in enumerate(written) if x.startswith("[variant.atomic-xiangqi.")]
    assert [written[i].split("]")[0] + "]" for i in headers] == [
        f"[variant.atomic-xiangqi.{n}]" for n in range(1, 9)
    ]
    # each comment still stands right above its own table
    assert written[written.index("# why level 2") + 1].startswith("[variant.atomic-xiangqi.2]")
    assert written[written.index("# why level 8") + 1] == "[variant.atomic-xiangqi.8]"
    assert written.index("[variant.atomic-xiangqi.1]") < written.index("# why level 2")
    table = load_levels(out)["atomic-xiangqi"]
    assert table[2].variety is not None and table[2].variety.multipv == 77
    ratings = [table[n].rating for n in range(1, 9)]
    assert [r.elo if r else None for r in ratings] == [100.0 * n for n in range(1, 9)]
    # unrated above level 3, then rated again: the same file, no lines left over
    write_levels_file(out, tmp_path / "unrated.toml", [_calibration("atomic-xiangqi", 3)])
    assert load_levels(tmp_path / "unrated.toml")["atomic-xiangqi"][8].rating is None
    assert load_levels(tmp_path / "unrated.toml")["atomic-xiangqi"][8].nodes == 600_000
    write_levels_file(
        tmp_path / "unrated.toml", tmp_path / "again.toml", [_calibration("atomic-xiangqi", 8)]
    )
    assert (tmp_path / "again.toml").read_text() == out.read_text()
    assert not list(tmp_path.glob("*.tmp"))
