"""The map in a slide deck: the first slide shows the whole model, and each stage's slide a small "you are here"
inset, painted from one offscreen map that only moves its frame from slide to slide."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gui.plots import PlotOptions
from gui.plots.map import MapFigure

from .render import image_of, offscreen_figure, paint

INSET_SIZE = (300, 240)  # laid out at this size: the boxes' names stay legible when printed small


def draw_inset(layout, trace, stage: str | None, opts: PlotOptions) -> MapFigure:
    figure = MapFigure(layout, trace, replace(opts, title=False), ("map",), captions=False)
    figure.show_stage(stage)
    return figure


class Inset:
    """The offscreen map of a deck, shown at one stage after another."""

    def __init__(self, view):
        self.view = view

    def paint(self, stage: str, painter: QPainter, box: QRectF) -> None:
        self.view.figure.show_stage(stage)
        paint(self.view, painter, box)

    def image(self, stage: str, width: int) -> QImage:
        self.view.figure.show_stage(stage)
        return image_of(self.view, width)


@contextlib.contextmanager
def map_inset(trace, opts: PlotOptions) -> Iterator[Inset]:
    with offscreen_figure(trace, None, opts, INSET_SIZE, draw=draw_inset) as view:
        yield Inset(view)
