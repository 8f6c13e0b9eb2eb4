"""An edit repaints the stage's figure once and no more of it than changed: only the cells it changed when the colour
scale stays (the screen then shows what a whole repaint would), the whole figure, laid out first, when it moves."""

import numpy as np
from PySide6.QtGui import QImage

from gui.plots.colorbar import ColorBar
from gui.plots.heatmap import CellImage
from tests.gui_window import Regions, open_window, settle

W_Q, Q = "enc.0.attn.W_Q", "enc.0.attn.q"


def on_screen(window, widget) -> np.ndarray:
    """The widget's pixels as the window's backing store holds them (what the screen shows), not painted afresh."""
    top_left = widget.mapTo(window, widget.rect().topLeft())
    shot = window.screen().grabWindow(window.winId(), top_left.x(), top_left.y(), widget.width(), widget.height())
    image = shot.toImage().convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : 4 * image.width()].copy()  # (the image's memory goes with it)


def at_q(qtbot):
    """A window at Q = X·W_Q, its figure drawn, and a record of the regions its figure's view paints from now on."""
    window = open_window(qtbot)
    window.resize(1600, 1000)
    view = window.stage_view
    window.state.go_to(Q)
    qtbot.waitUntil(lambda: view.figure is not None)
    settle(qtbot)
    regions = Regions()
    view.plot.viewport().installEventFilter(regions)
    return window, regions


def test_an_edit_that_keeps_the_scale_repaints_only_its_column(qtbot):
    window, regions = at_q(qtbot)
    state, view = window.state, window.stage_view
    viewport = view.plot.viewport()
    images = [item for item in view.plot.shown_items() if isinstance(item, CellImage)]
    assert len(images) == 1
    image = images[0]
    heatmap_width = view.plot.mapFromScene(image.mapRectToScene(image.boundingRect())).boundingRect().width()
    levels = tuple(image.levels)
    # a change of W_Q[0, 1] that moves Q's column 1 (head 0) by many colours of the map but leaves its largest
    # |value| elsewhere: the scale stays
    x, q = state.trace["enc.x0"][:, 0], state.trace[Q][0]
    others = q[:, [c for c in range(q.shape[1]) if c != 1]].abs().max()
    delta = next(d for d in (0.5, -0.5, 0.3, -0.3, 0.2, -0.2) if (q[:, 1] + d * x).abs().max() < others)
    assert (delta * x).abs().max() > 20 * (levels[1] - levels[0]) / 256
    regions.painted.clear()
    assert state.edit_cell(W_Q, (0, 1), float(state.trace[W_Q][0, 1]) + delta)
    qtbot.waitUntil(lambda: len(regions.painted) > 0)
    settle(qtbot)
    assert tuple(image.levels) == levels
    painted = regions.painted[-1]
    assert 0 < painted.width() < 0.6 * heatmap_width  # one column of the two (and a pixel's margin), not both
    shown = on_screen(window, viewport)
    viewport.repaint()  # the whole of it, afresh
    assert np.array_equal(on_screen(window, viewport), shown)


def test_an_edit_that_widens_the_colour_bar_paints_the_figure_once(qtbot):
    """A new largest |value| relabels the colour bar; wider labels widen it, and the figure is laid out again. Laid
    out inside the paint, that took three more paints of the figure (a frame in the old layout, then the new)."""
    window, paints = at_q(qtbot)
    state, view = window.state, window.stage_view
    bar = next(item for item in view.plot.shown_items() if isinstance(item, ColorBar))
    for value in (40.0, 0.5, -90.0):  # labels of two or three digits, and back to one
        width = bar.axis.width()
        paints.painted.clear()
        assert state.edit_cell(W_Q, (0, 0), value)
        qtbot.waitUntil(lambda: len(paints.painted) > 0)
        settle(qtbot)
        assert bar.axis.width() != width and len(paints.painted) == 1, (value, width, len(paints.painted))
