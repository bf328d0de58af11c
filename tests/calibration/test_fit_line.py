"""The line elo = a + b ln(nodes) that extrapolates a level without games."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder.calibration.fit_line import LogNodesLine


def test_least_squares_by_hand() -> None:
    # x = ln(nodes) = 1, 2, 3; y = 0, 10, 50
    # x_bar = 2, y_bar = 20; Sxy = (-1)(-20) + 0 + (1)(30) = 50; Sxx = 2
    # b = 25, a = 20 - 25 * 2 = -30; residuals 5, -10, 5 -> sd = sqrt(150 / 1) = 12.247
    line = LogNodesLine.fit([(math.e, 0.0, 1.0), (math.e**2, 10.0, 1.0), (math.e**3, 50.0, 1.0)])
    assert line.slope == pytest.approx(25.0)
    assert line.intercept == pytest.approx(-30.0)
    assert line.residual_sd == pytest.approx(math.sqrt(150.0))
    elo, lo, hi = line.predict(math.e**4, 1.96)
    assert elo == pytest.approx(70.0)
    # the interval: sqrt(1/3 + (4-2)^2/2 + 150) = sqrt(152.333)
    assert hi - elo == pytest.approx(1.96 * math.sqrt(1 / 3 + 2 + 150))
    assert elo - lo == pytest.approx(hi - elo)


def test_weighted_least_squares_by_hand() -> None:
    # same points, weights 1, 1, 2:
    # x_bar = (1 + 2 + 6) / 4 = 2.25, y_bar = (0 + 10 + 100) / 4 = 27.5
    # Sxy = (-1.25)(-27.5) + (-.25)(-17.5) + 2 (.75)(22.5) = 34.375 + 4.375 + 33.75 = 72.5
    # Sxx = 1.5625 + .0625 + 2 * .5625 = 2.75
    # b = 72.5 / 2.75 = 26.3636, a = 27.5 - 26.3636 * 2.25 = -31.8182
    line = LogNodesLine.fit([(math.e, 0.0, 1.0), (math.e**2, 10.0, 1.0), (math.e**3, 50.0, 2.0)])
    assert line.slope == pytest.approx(26.3636, abs=1e-4)
    assert line.intercept == pytest.approx(-31.8182, abs=1e-4)


def test_one_node_count_is_not_a_line() -> None:
    with pytest.raises(ValueError, match="two or more"):
        LogNodesLine.fit([(100, 0.0, 1.0), (100, 10.0, 1.0)])


@given(
    st.floats(min_value=-1000, max_value=1000),
    st.floats(min_value=-500, max_value=500),
    st.lists(st.integers(min_value=1, max_value=10**7), min_size=2, max_size=8, unique=True),
)
def test_exact_line_is_recovered(a: float, b: float, nodes: list[int]) -> None:
    line = LogNodesLine.fit([(n, a + b * math.log(n), 1.0) for n in nodes])
    assert line.slope == pytest.approx(b, abs=1e-6)
    assert line.intercept == pytest.approx(a, abs=1e-4)
