"""The figures a view keeps wait in its scene, parked (gui/plots/view.py): pyqtgraph readies every view box and text
item of a scene before each paint (sigPrepareForPaint), and after one pass through a lesson's stages the stage view's
scene held 147 of them, an edit half as slow again. Only the figure shown is readied; a figure shown again is readied
again, and parking and showing never disconnect a slot twice (PySide warns)."""

import warnings

import pyqtgraph as pg
from PySide6.QtCore import SIGNAL
from PySide6.QtWidgets import QApplication

from gui.plots.pyqtgraph_compat import readied_in
from gui.plots.view import figure_items
from tests.gui_window import open_window

READIED = SIGNAL("sigPrepareForPaint()")


def readied_items(view) -> list:
    """The shown figure's items that pyqtgraph readies before a paint: view boxes, and text items once painted."""
    scene = view.scene()
    return [
        item
        for item in figure_items(view.ci)
        if isinstance(item, pg.ViewBox) or (isinstance(item, pg.TextItem) and readied_in(item, scene))
    ]


def test_only_the_figure_shown_is_readied_before_each_paint(qtbot):
    window = open_window(qtbot)
    state, plot = window.state, window.stage_view.plot
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a slot disconnected that was not connected: a RuntimeWarning
        for k in [*range(len(state.stage_names)), *reversed(range(len(state.stage_names)))]:
            state.set_cursor(k)
            window.stage_view.draw_plots()
            plot.repaint()  # text items connect themselves at their first paint
            QApplication.processEvents()
            assert plot.scene().receivers(READIED) == len(readied_items(plot)), state.current_stage
    assert len(window.stage_view.figures.figures) > 10  # the stages' figures, parked in the scene
    assert len(readied_items(plot)) < 20
