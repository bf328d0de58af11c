"""The running figures' text (ladder.match.summary): ordinary samples, and the samples
that give no finite Elo or no nElo, which must say so instead of printing nan."""

from __future__ import annotations

from ladder.match.elo import pentanomial_elo, trinomial_elo
from ladder.match.results import Pentanomial, Trinomial
from ladder.match.summary import MatchStats


def stats(tri: Trinomial, penta: Pentanomial | None) -> MatchStats:
    elo = pentanomial_elo(penta) if penta is not None else trinomial_elo(tri)
    return MatchStats("A", "B", trinomial=tri, pentanomial=penta or Pentanomial(), elo=elo)


def test_ordinary_sample() -> None:
    # Worked example of tests/match/test_elo.py: 10 pairs, score 0.55.
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
    assert s.line() == "W-D-L 10-0-10  Elo +0.0 ±0.0  nElo n/a  LOS 50.0%"
    assert (
        "Elo +0.0 ± 0.0 (95%, pentanomial; [+0.0, +0.0])  "
        "nElo n/a (every pair scored the same)  LOS 50.0%"
    ) in s.report()


def test_perfect_and_zero_scores() -> None:
    won = stats(Trinomial(6, 0, 0), Pentanomial(0, 0, 0, 0, 3))
    assert won.line() == "W-D-L 6-0-0  Elo +inf  nElo n/a  LOS 100.0%"
    assert "Elo +inf (score 100% over 3 pairs: no finite estimate)  LOS 100.0%" in won.report()
    lost = stats(Trinomial(0, 0, 5), None)  # no complete pair: per game
    assert lost.line() == "W-D-L 0-0-5  Elo -inf  nElo n/a  LOS 0.0%"
    assert "Elo -inf (score 0% over 5 games: no finite estimate)" in lost.report()
    assert "nan" not in won.report() + lost.report()


def test_an_unbounded_interval_prints_as_inf() -> None:
    # 4 pairs won outright, one won and drawn: the upper bound of the score is 1.
    s = stats(Trinomial(9, 1, 0), Pentanomial(0, 0, 0, 1, 4))
    e = s.elo
    assert e is not None and e.elo_hi == float("inf")
    assert s.line().startswith(f"W-D-L 9-1-0  Elo {e.elo:+.1f} ±inf  nElo ")
    assert f"Elo {e.elo:+.1f} ± inf (95%, pentanomial; [{e.elo_lo:+.1f}, +inf])" in s.report()
