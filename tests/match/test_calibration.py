"""Elo against ln(nodes)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies

from ladder.match.calibration import calibrate_levels, fit_elo_vs_log_nodes


def test_least_squares_by_hand() -> None:
    # x = ln(nodes) = 1, 2, 3; y = 0, 10, 50
    # x_bar = 2, y_bar = 20; Sxy = (-1)(-20) + 0 + (1)(30) = 50; Sxx = 2
    # b = 25, a = 20 - 25 * 2 = -30; residuals 5, -10, 5 -> sd = sqrt(150 / 1) = 12.247
    fit = fit_elo_vs_log_nodes([(math.e, 0.0), (math.e**2, 10.0), (math.e**3, 50.0)])
    assert fit.slope == pytest.approx(25.0)
    assert fit.intercept == pytest.approx(-30.0)
    assert fit.residual_sd == pytest.approx(math.sqrt(150.0))
    assert fit.elo_per_doubling == pytest.approx(25.0 * math.log(2))
    assert fit.predict(math.e**4) == pytest.approx(70.0)


def test_weighted_least_squares_by_hand() -> None:
    # same points, weights 1, 1, 2:
    # x_bar = (1 + 2 + 6) / 4 = 2.25, y_bar = (0 + 10 + 100) / 4 = 27.5
    # Sxy = (-1.25)(-27.5) + (-.25)(-17.5) + 2 (.75)(22.5) = 34.375 + 4.375 + 33.75 = 72.5
    # Sxx = 1.5625 + .0625 + 2 * .5625 = 2.75
    # b = 72.5 / 2.75 = 26.3636, a = 27.5 - 26.3636 * 2.25 = -31.8182
    fit = fit_elo_vs_log_nodes(
        [(math.e, 0.0), (math.e**2, 10.0), (math.e**3, 50.0)], weights=[1, 1, 2]
    )
    assert fit.slope == pytest.approx(26.3636, abs=1e-4)
    assert fit.intercept == pytest.approx(-31.8182, abs=1e-4)


def test_calibrate_levels_marks_extrapolated_figures() -> None:
    # Measured: 100 Elo at 1000 nodes, +50 per doubling -> 150 at 2000, 200 at 4000.
    levels = {"L1": 500, "L2": 1000, "L3": 2000, "L4": 3000, "L5": 4000, "L6": 16000}
    measured = {"L2": 100.0, "L3": 150.0, "L5": 200.0}
    fit, table = calibrate_levels(levels, measured)
    assert fit.elo_per_doubling == pytest.approx(50.0)
    assert fit.residual_sd == pytest.approx(0.0, abs=1e-9)
    rows = {row.name: row for row in table}
    assert [row.name for row in table] == list(levels)
    assert not rows["L2"].extrapolated
    assert rows["L2"].elo == 100.0
    # L4: interpolated, 100 + 50 log2(3) = 179.248
    assert rows["L4"].extrapolated
    assert not rows["L4"].outside_range
    assert rows["L4"].elo == pytest.approx(100 + 50 * math.log2(3), abs=1e-9)
    # L1 (half of 1000 nodes): 50; L6 (16x): 300 -- both outside the measured range
    assert rows["L1"].elo == pytest.approx(50.0)
    assert rows["L6"].elo == pytest.approx(300.0)
    assert rows["L1"].outside_range and rows["L6"].outside_range
    assert rows["L1"].extrapolated and rows["L6"].extrapolated


def test_calibration_errors() -> None:
    with pytest.raises(ValueError):
        fit_elo_vs_log_nodes([(100, 0.0), (100, 10.0)])
    with pytest.raises(ValueError):
        fit_elo_vs_log_nodes([(0, 0.0), (100, 10.0)])
    with pytest.raises(ValueError):
        calibrate_levels({"a": 10}, {"b": 0.0})


@given(
    strategies.floats(min_value=-1000, max_value=1000),
    strategies.floats(min_value=-500, max_value=500),
    strategies.lists(
        strategies.integers(min_value=1, max_value=10**7), min_size=2, max_size=8, unique=True
    ),
)
def test_exact_line_is_recovered(a: float, b: float, nodes: list[int]) -> None:
    fit = fit_elo_vs_log_nodes([(n, a + b * math.log(n)) for n in nodes])
    assert fit.slope == pytest.approx(b, abs=1e-6)
    assert fit.intercept == pytest.approx(a, abs=1e-4)
