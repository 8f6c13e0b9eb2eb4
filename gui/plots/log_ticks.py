"""Tick labels for a logarithmic axis that never run together: pyqtgraph labels the minor ticks of a log axis
spanning few decades ("0.009 0.008 0.007" stacked on one another, "3·10¹4·10¹5·10¹"). These put a label only at
each decade, or at the values an axis is measured at (d_k = 4, 16, … 4096; n = 4, 8, … 64). Positions are log10 of
the values, as pyqtgraph's log mode expects them."""

from __future__ import annotations

import math

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
MOST_DECADES = 7  # labelled on one axis; a wider span labels every second, third … decade


def power_of_ten(exponent: int) -> str:
    """1, 10, 0.1 … 1000 as numbers; beyond, 10⁻⁵, 10¹⁸."""
    if -3 <= exponent <= 3:
        return f"{10.0**exponent:.{max(0, -exponent)}f}"
    return "10" + str(exponent).translate(SUPERSCRIPT)


def decade_ticks(values: list[float]) -> list[tuple[float, str]]:
    """A label at each power of ten the positive `values` span, or at every k-th for a span of more than
    MOST_DECADES (1, 2, 5 times it too when they span one decade or less)."""
    positive = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not positive:
        return []
    low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
    step = math.ceil((high - low + 1) / MOST_DECADES)
    ticks = [(float(k), power_of_ten(k)) for k in range(high, low - 1, -step)]  # (from the top: 1 is labelled)
    if high - low <= 1:
        ticks += [(k + math.log10(m), f"{m * 10.0**k:g}") for k in range(low, high) for m in (2, 5)]
    return sorted(ticks)


def value_ticks(values: list[float]) -> list[tuple[float, str]]:
    """A label at each value an axis is measured at (the positive ones)."""
    return [(math.log10(v), f"{v:g}") for v in sorted(set(values)) if v > 0]
