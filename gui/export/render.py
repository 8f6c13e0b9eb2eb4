"""Render a stage's figure offscreen in the light slide style: to an image, a PDF page or an SVG."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from PySide6.QtCore import QCoreApplication, QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication

from gui.plots import PlotOptions, draw_stage
from gui.plots.view import FittedLayoutWidget

SCENE_W, SCENE_H = 1600, 900  # the slide canvas (16:9) the fonts are sized for; images scale from it
Draw = Callable  # (layout, trace, stage, opts) -> a figure: draw_stage, or a dock's own (gui/plots/cost.draw_cost)


def ensure_app() -> QApplication:
    return QApplication.instance() or QApplication([])


@contextlib.contextmanager
def offscreen_figure(
    trace, stage: str | None, opts: PlotOptions, size=(SCENE_W, SCENE_H), draw: Draw = draw_stage
) -> Iterator[FittedLayoutWidget]:
    """A laid-out figure widget that is never shown on screen (shrunk as a whole if it needs more room), deleted
    as soon as the `with` block ends: a deck draws one figure at a time and holds none of them."""
    app = ensure_app()
    view = FittedLayoutWidget()
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)  # "shown" (laid out, painted once) off screen
    view.setBackground("w")
    view.resize(*size)
    view.figure = draw(view.ci, trace, stage, opts)  # kept alive: its panels re-fit labels on resizes
    view.show()
    app.processEvents()
    view.settle()  # the axes sized for their tick text before the figure is painted: the same figure every time
    try:
        yield view
    finally:
        view.close()
        view.deleteLater()
        # now, not when control returns to an event loop: a deck draws all its figures without returning to one
        # (the command line has none), and each figure held its scene, images and fonts (3 GiB at 64 tokens)
        QCoreApplication.sendPostedEvents(view, QEvent.Type.DeferredDelete)


def paint(view: FittedLayoutWidget, painter: QPainter, target: QRectF) -> None:
    view.scene().render(painter, target, view.sceneRect())  # the whole figure, however much it was shrunk


def render_image(
    trace, stage: str | None, opts: PlotOptions, width: int = 1920, size=(SCENE_W, SCENE_H), draw: Draw = draw_stage
) -> QImage:
    """The figure laid out on a canvas of `size`, scaled to an image `width` pixels wide."""
    with offscreen_figure(trace, stage, opts, size, draw) as view:
        return image_of(view, width)


def image_of(view: FittedLayoutWidget, width: int) -> QImage:
    """The figure a view shows now, as an image `width` pixels wide."""
    ratio = width / view.width()
    image = QImage(width, round(view.height() * ratio), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(ratio)  # Qt scales every item, text included, as on a high-DPI screen
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint(view, painter, QRectF(0, 0, view.width(), view.height()))
    painter.end()
    image.setDevicePixelRatio(1.0)
    return image
