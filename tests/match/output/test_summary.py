"""The running figures' text (ladder.match.output.summary): ordinary samples, and the samples
that give no finite Elo or no nElo, which must say so instead of printing nan."""

from __future__ import annotations

from ladder.match.game.play import GameRecord
from ladder.match.output.summary import MatchStats, MatchTally
from ladder.match.statistics.elo import pentanomial_elo, trinomial_elo
from ladder.match.statistics.results import Pentanomial, Trinomial


def stats(tri: Trinomial, penta: Pentanomial | None) -> MatchStats:
    elo = pentanomial_elo(penta) if penta is not None else trinomial_elo(tri)
    return MatchStats("A", "B", trinomial=tri, pentanomial=penta or Pentanomial(), elo=elo)


def test_ordinary_sample() -> None:
    # Worked example of tests/match/statistics/test_elo.py: 10 pairs, score 0.55.
    s = stats(Trinomial(8, 6, 6), Pentanomial(1, 1, 4, 3, 1))
    e = s.elo
    assert e is not None
    assert s.line() == (
        f"W-D-L 8-6-6  Elo {e.elo:+.1f} ±{e.elo_error:.1f}  "
        f"nElo {e.nelo:+.1f}  LOS {100 * e.los:.1f}%"
    )
    report = s.report()
    assert f"Elo {e.elo:+.1f} ± {e.elo_error:.1f} (95%, pentanomial; " in report
    assert f"nElo {e.nelo:+.1f} ± {e.nelo_error:.1f}" in report
    assert "nan" not in report


def test_every_pair_scored_the_same() -> None:
    # A deterministic level against itself: every pair is one win and one loss.
    s = stats(Trinomial(10, 0, 10), Pentanomial(0, 0, 10, 0, 0))
    # no spread, yet the interval does not collapse (the padded one: ladder/match/statistics/elo.py)
    assert s.line() == "W-D-L 10-0-10  Elo +0.0 ±80.6  nElo n/a  LOS 50.0%"
    assert (
        "Elo +0.0 ± 80.6 (95%, pentanomial; [-80.6, +80.6])  "
        "nElo n/a (every pair scored the same)  LOS 50.0%"
    ) in s.report()


def test_two_pairs_that_split_their_wins_say_the_sample_is_small() -> None:
    s = stats(Trinomial(2, 0, 2), Pentanomial(0, 0, 2, 0, 0))
    assert s.line() == "W-D-L 2-0-2  Elo +0.0 ±296.5 (small sample)  nElo n/a  LOS 50.0%"
    assert "(95%, pentanomial, small sample: 2 pairs, a rough interval; [-296.5, +296.5])" in (
        s.report()
    )
    assert s.as_dict()["elo"]["small_sample"] is True


def test_perfect_and_zero_scores() -> None:
    won = stats(Trinomial(6, 0, 0), Pentanomial(0, 0, 0, 0, 3))
    assert won.line() == "W-D-L 6-0-0  Elo +inf (small sample)  nElo n/a  LOS 100.0%"
    assert "Elo +inf (score 100% over 3 pairs: no finite estimate)  LOS 100.0%" in won.report()
    lost = stats(Trinomial(0, 0, 5), None)  # no complete pair: per game
    assert lost.line() == "W-D-L 0-0-5  Elo -inf (small sample)  nElo n/a  LOS 0.0%"
    assert "Elo -inf (score 0% over 5 games: no finite estimate)" in lost.report()
    assert "nan" not in won.report() + lost.report()


def test_an_unbounded_interval_prints_as_inf() -> None:
    # 4 pairs won outright, one won and drawn: the upper bound of the score is 1.
    s = stats(Trinomial(9, 1, 0), Pentanomial(0, 0, 0, 1, 4))
    e = s.elo
    assert e is not None and e.elo_hi == float("inf")
    assert s.line().startswith(f"W-D-L 9-1-0  Elo {e.elo:+.1f} ±inf (small sample)  nElo ")
    small = "small sample: 5 pairs, a rough interval"
    assert f"Elo {e.elo:+.1f} ± inf (95%, pentanomial, {small}; [{e.elo_lo:+.1f}, +inf])" in (
        s.report()
    )


def test_the_line_counts_the_games_its_elo_counts() -> None:
    # A pair drawn twice, then a game won and one lost of two pairs still in play: the
    # Elo is the complete pair's, and so is the W-D-L, the others said apart.
    tally = MatchTally("A", "B")
    for pair, score in [(0, 0.5), (0, 0.5), (1, 1.0), (2, 0.0)]:
        tally.add(record(pair, score))
    s = tally.stats()
    assert s.trinomial == Trinomial(1, 2, 1) and s.pentanomial.pairs == 1
    assert s.line().startswith("W-D-L 0-2-0 in 1 pairs (+2 unpaired)  Elo ")
    tally.add(record(1, 0.0))
    tally.add(record(2, 1.0))
    assert tally.stats().line().startswith("W-D-L 2-2-2  Elo ")  # every pair complete


def record(pair: int, a_score: float) -> GameRecord:
    result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[a_score]
    return GameRecord(
        match_id="m", game_no=0, pair_no=pair, opening_no=0, variant="xiangqi", red="A",
        black="B", red_slot="A", start_fen="", book_plies=0, moves=[], infos=[],
        result=result, winner=None, reason="max-plies", search_seconds={}, wall_seconds=0.0,
        worker="h:1", finished_at=0.0,
    )  # fmt: skip
