"""Tick labels that read as numbers: pyqtgraph writes an axis's large and tiny numbers as "1e+08" or "5e-05" (its
%g), which a class does not read. These write 5·10⁷ and 10⁸ instead, and the numbers from 0.001 to 9999 as they are,
each to the digits its tick spacing needs; the axis label states the unit, with no multiplier (plain_axes).

    plot = pg.PlotWidget(axisItems={"left": PlainNumberAxis("left")})
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from gui.plots.log_ticks import SUPERSCRIPT

PLAIN_RANGE = (1e-3, 1e4)  # magnitudes written as they are; beyond, as a·10ⁿ


def plain_number(value: float, spacing: float) -> str:
    """A tick value as a class reads it, to the digits that tell it from its neighbours `spacing` away."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else f"{value}"
    step = math.floor(math.log10(abs(spacing))) if spacing > 0 else 0
    if PLAIN_RANGE[0] <= abs(value) < PLAIN_RANGE[1]:
        return f"{value:.{max(0, -step)}f}".replace("-", "−")
    exponent = math.floor(math.log10(abs(value)))
    mantissa, exponent = f"{value:.{max(0, exponent - step)}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    power = "10" + str(int(exponent)).translate(SUPERSCRIPT)
    if mantissa in ("1", "-1"):
        return power if mantissa == "1" else "−" + power
    return f"{mantissa}·{power}".replace("-", "−")


class PlainNumberAxis(pg.AxisItem):
    """An axis of numbers written plainly (plain_number); a log axis keeps pyqtgraph's labels or those set."""

    def tickStrings(self, values, scale, spacing) -> list[str]:
        if self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [plain_number(v * scale, spacing * scale) for v in values]
