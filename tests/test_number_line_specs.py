"""A number line is laid out by gui/plots/number_specs.py and Axis.tickValues, in plain Python, in place of
pyqtgraph's AxisItem.generateDrawSpecs and tickValues: the same line, ticks (their pens faded alike), labels and
axis size, on every number line of real figures, and the same tick values over many ranges."""

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPicture

from engine.formats.lesson import open_lesson
from gui.plots import PlotOptions, draw_stage
from gui.plots.axis import Axis
from gui.plots.number_specs import moved_in, number_specs
from gui.plots.style import new_plot
from gui.plots.view import FittedLayoutWidget


def _pen(pen) -> tuple:
    return pen.color().getRgb(), pen.widthF(), pen.style(), pen.isCosmetic()


def _point(point) -> tuple[float, float]:
    return point.x(), point.y()


def _plain(specs) -> tuple | None:
    """Specs as plain values, to compare."""
    if specs is None:
        return None
    (pen, start, stop), ticks, labels = specs
    return (
        (_pen(pen), _point(start), _point(stop)),
        [(_pen(p), _point(a), _point(b)) for p, a, b in ticks],
        [(rect.getRect(), int(flags), text) for rect, flags, text in labels],
    )


def _number_lines(view: FittedLayoutWidget) -> list[Axis]:
    return [
        item
        for item in view.scene().items()
        if isinstance(item, Axis) and item.categories is None and item.isVisible() and item.mapToDevice(item.pos())
    ]


def _compare(axis: Axis) -> None:
    """Laid out as pyqtgraph lays it out; but a label pyqtgraph leaves out at an end of the axis (its text running
    past the end) is drawn moved in, inside the axis and over no other label, and then, one label more, the next
    level of labels may be found too crowded where pyqtgraph's was not (its sizes with it)."""
    picture = QPicture()
    painter = QPainter(picture)
    try:
        theirs = _plain(pg.AxisItem.generateDrawSpecs(axis, painter))
        size = (axis.textWidth, axis.textHeight, axis.width(), axis.height())
        ours = _plain(number_specs(axis, painter))
    finally:
        painter.end()
    moved_in = [] if ours is None or theirs is None else [label for label in ours[2] if label not in theirs[2]]
    if not moved_in:
        assert ours == theirs
        assert (axis.textWidth, axis.textHeight, axis.width(), axis.height()) == size
        return
    assert ours[:2] == theirs[:2]
    bounds = axis.boundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
    rects = [QRectF(*rect) for rect, _, _ in ours[2]]
    assert all(bounds.contains(rect) for rect in rects)
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])


def _shown(qapp, draw, size=(620, 440)) -> FittedLayoutWidget:
    view = FittedLayoutWidget()
    view.resize(*size)
    view.figure = draw(view.ci)
    view.show()
    for _ in range(3):
        qapp.processEvents()
        view.grab()
    return view


@pytest.mark.parametrize("lesson", ["masked-decoder", "cross-attention", "the-cat-sat"])
def test_every_number_line_of_every_stage_is_laid_out_as_pyqtgraph_lays_it_out(qapp, lesson):
    trace = open_lesson(lesson).trace()
    compared = 0
    for k, stage in enumerate(trace.stage_names):
        opts = PlotOptions(lang="zh" if k % 2 else "en", slide=k % 5 == 0)
        view = _shown(qapp, lambda layout, stage=stage, opts=opts: draw_stage(layout, trace, stage, opts))
        for axis in _number_lines(view):
            _compare(axis)
            compared += 1
        view.close()
    assert compared > 20  # colour bars, bars' value axes, line plots


def test_log_axes_fixed_ticks_grids_and_hidden_values_are_laid_out_alike(qapp):
    def draw(layout):
        opts = PlotOptions()
        log = new_plot(layout, opts, row=0, col=0)
        log.setLogMode(x=True, y=True)
        log.showGrid(x=True, y=True, alpha=0.25)
        log.plot([1, 10, 100, 1000], [3, 40, 200, 9000])
        fixed = new_plot(layout, opts, row=0, col=1)
        fixed.getAxis("bottom").setTicks([[(0.0, "zero"), (2.5, "half"), (5.0, "five")], []])
        fixed.getAxis("bottom").setStyle(showValues=True)
        fixed.getAxis("left").setStyle(showValues=False)
        fixed.plot([0, 5], [-0.3, 0.7])
        plain = new_plot(layout, opts, row=1, col=0)
        plain.showAxis("right")
        plain.showGrid(y=True, alpha=0.2)
        plain.plot([0, 1, 2], [2478.0, 1285.2, 3939.6])
        stopped = new_plot(layout, opts, row=1, col=1)
        stopped.getAxis("left").setStyle(stopAxisAtTick=(True, True), tickAlpha=0.5)
        stopped.getAxis("bottom").setStyle(tickAlpha=120)
        stopped.plot([-1e-4, 3e-4], [-2.0, 2.0])
        return [log, fixed, plain, stopped]

    view = _shown(qapp, draw, (900, 700))
    axes = _number_lines(view)
    assert len(axes) >= 8
    for axis in axes:
        _compare(axis)
    view.close()


@pytest.mark.parametrize("length", [40.0, 232.0, 700.0])
def test_the_tick_values_are_pyqtgraphs(qapp, length):
    """Every level's values, over ranges small and large, signed and not, and with a scale."""
    layout = pg.GraphicsLayout()
    plot = new_plot(layout, PlotOptions(), row=0, col=0)
    axis = plot.getAxis("left")
    rng = np.random.default_rng(3)
    ranges = [(0.0, 1.0), (0.0, 0.502), (-2.3, 2.3), (0.0, 3939.6), (-1e-4, 3e-4), (5.0, 5.0 + 1e-9), (1.8, 0.0)]
    ranges += [tuple(sorted(rng.normal(0, 10.0 ** rng.integers(-3, 4), 2).tolist())) for _ in range(40)]
    for scale in (1.0, 1000.0):
        axis.setScale(scale)
        for lo, hi in ranges:
            ours = axis.tickValues(lo, hi, length)
            theirs = pg.AxisItem.tickValues(axis, lo, hi, length)
            assert ours == [(s, list(v)) for s, v in theirs], (lo, hi, scale)
            assert all(math.isfinite(v) for _, values in ours for v in values)


def test_a_label_moved_in_from_an_end_keeps_apart_from_its_neighbour():
    """why-scale's 64 features in presentation mode: "60", moved in from the axis's end, stood 0.4 px from "45" and
    the class read "4560". It is drawn moved in only where it keeps a gap from every other label."""
    box = QRectF(197.0, 0.0, 166.3, 30.0)
    beyond = QRectF(337.6, 5.0, 31.8, 20.0)  # past the right end by 6 px
    assert moved_in(beyond, box, True, [QRectF(299.4, 5.0, 31.8, 20.0)]) is None  # would touch "45"
    kept = moved_in(beyond, box, True, [QRectF(280.0, 5.0, 31.8, 20.0)])  # 19 px of room: drawn, inside
    assert kept is not None and kept.right() <= box.right() and kept.left() - 311.8 >= 0.2 * 20.0
