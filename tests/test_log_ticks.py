"""A log axis is labelled at decades or at its measured values, never at minor ticks that run together (the lab's
p(1−p) axis read "0.009 0.008 0.007" stacked, its n axis "3·10¹4·10¹5·10¹")."""

from __future__ import annotations

import math

from gui.plots.log_ticks import MOST_DECADES, decade_ticks, power_of_ten, value_ticks


def test_decades_are_labelled_as_numbers_near_1_and_as_powers_beyond():
    assert [power_of_ten(k) for k in (-5, -3, -1, 0, 2, 4, 18)] == ["10⁻⁵", "0.001", "0.1", "1", "100", "10⁴", "10¹⁸"]
    assert [label for _, label in decade_ticks([0.0008, 0.2])] == ["10⁻⁴", "0.001", "0.01", "0.1", "1"]


def test_a_wide_span_labels_at_most_a_few_decades_evenly_and_a_narrow_one_adds_2_and_5():
    wide = decade_ticks([1.3e-19, 0.52, None, math.nan, 0.0])  # gradient-highway's 20 decades
    assert len(wide) <= MOST_DECADES and (0.0, "1") in wide
    assert len({b - a for (a, _), (b, _) in zip(wide, wide[1:])}) == 1  # evenly spaced
    assert [label for _, label in decade_ticks([2.5, 8.0])] == ["1", "2", "5", "10"]


def test_measured_values_are_labelled_where_they_are():
    ticks = value_ticks([64, 4, 8, 16, 32, 4])
    assert [label for _, label in ticks] == ["4", "8", "16", "32", "64"]
    assert math.isclose(ticks[-1][0], math.log10(64))
