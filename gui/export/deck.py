"""A whole lesson as slides: the map of the model first, every attention head at a glance (the overview), then one
per stage: title, formula, a small "you are here" map, matrices, the stage's figure, the explanation.

The PDF puts the explanation under the figure (PDF has no speaker notes); the PPTX (pptx.py) keeps it as notes.
gui.export.export_deck chooses between them by the file's extension.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PySide6.QtCore import QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter

from engine.formats.files import write_atomic_with
from gui.plots import PlotOptions
from gui.plots.captions import caption
from gui.plots.heatmap import format_cell
from gui.plots.map import draw_map
from gui.plots.map_items import slide_font
from gui.plots.matrix import is_per_head
from gui.plots.overview import draw_overview
from gui.text.formulas import formula, symbols
from gui.text.operations import stage_text, stage_title, token_stack
from gui.text.places import place
from gui.text.switches import switch_names

from .figure import fit, memory_file, open_painter, pdf_writer
from .map_slides import map_inset
from .matrix import matrix_of
from .render import SCENE_H, SCENE_W, offscreen_figure, paint

OPENING = (draw_map, draw_overview)  # the pages before the stages': the model's map, then every head at a glance
OPENING_PAGES = len(OPENING)
MAX_ROWS, MAX_COLS = 6, 5  # matrices on a slide are cut to this size (with …); the figure shows all of it


@dataclass
class SlideMatrix:
    symbol: str  # "W_Q", "Q", …
    name: str  # stage or parameter name
    values: np.ndarray  # [r, c], possibly cut to MAX_ROWS × MAX_COLS
    rows: list[str]
    cols: list[str]
    shape: tuple[int, int]  # the full shape before cutting
    decimals: int = 2  # digits the numbers are printed with (the figure's too)


@dataclass
class Slide:
    stage: str
    title: str  # the stage's human title (and the head shown)
    subtitle: str  # where it is in the model, and the parts a what-if lesson switched off
    formula: str
    notes: str
    matrices: list[SlideMatrix]


def cut(trace, name: str, symbol: str, head: int, decimals: int = 2) -> SlideMatrix:
    m, rows, cols = matrix_of(trace, name, head)
    decimals = 0 if token_stack(trace, name) is not None else decimals  # token ids are whole numbers
    return SlideMatrix(symbol, name, m[:MAX_ROWS, :MAX_COLS], rows[:MAX_ROWS], cols[:MAX_COLS], m.shape, decimals)


def slide_for(trace, stage: str, opts: PlotOptions) -> Slide:
    in_symbols, out_symbol = symbols(trace, stage)
    matrices = [
        cut(trace, name, sym, opts.head, opts.decimals)
        for name, sym in in_symbols.items()
        if token_stack(trace, name) is None
    ]
    matrices.append(cut(trace, stage, out_symbol, opts.head, opts.decimals))
    title = stage_title(trace, stage, opts.lang)  # the stage's id stays in file names and the command line
    if is_per_head(trace, stage):
        title += " · " + caption("head", opts.lang, head=opts.head)
    subtitle = place(trace, stage)
    if trace.config.switches:  # every slide of a what-if lesson says which parts are switched off
        subtitle += " · " + caption("what_if", opts.lang, switches=switch_names(trace.config.switches, opts.lang))
    notes = stage_text(trace, stage, opts.lang)
    return Slide(stage, title, subtitle, formula(trace, stage, opts.head, opts.decimals), notes, matrices)


def slides(trace, opts: PlotOptions, stages: list[str] | None = None) -> list[Slide]:
    """A slide for each of `stages` (default: every stage), in the trace's order."""
    return [slide_for(trace, name, opts) for name in trace.stage_names if stages is None or name in stages]


Progress = Callable[[int, int], None]  # (slides done, slides in all), e.g. for a progress bar


def with_progress(deck: list[Slide], progress: Progress | None, before: int = 0):
    """Each slide with its index, telling `progress` after each one (`before`: pages already made, e.g. the map)."""
    for k, slide in enumerate(deck):
        yield k, slide
        if progress is not None:
            progress(before + k + 1, before + len(deck))


def cut_note(m: SlideMatrix) -> str:
    r, c = m.shape
    return f"{m.symbol}  [{r}×{c}]" + ("  (…)" if (r, c) != m.values.shape else "")


# ---- PDF --------------------------------------------------------------------------------------
MARGIN = 32
TEXT_COLOR = QColor(20, 20, 20)
PLACE_COLOR = QColor(90, 90, 90)
LINE = 21  # a table row
ANYWHERE = QRectF(0, 0, 10 * SCENE_W, SCENE_H)  # room to measure a line of text in


def fitted(painter: QPainter, font: QFont, text: str, width: float, smallest: int) -> QFont:
    """`font`, or the largest point size under it down to `smallest`, in which `text` fits `width` on one line as
    `painter` draws it (set as the painter's font); at `smallest`, a text still too long wraps rather than be cut."""
    f = QFont(font)
    for size in range(font.pointSize(), smallest - 1, -1):
        f.setPointSize(size)
        painter.setFont(f)
        if painter.boundingRect(ANYWHERE, Qt.AlignmentFlag.AlignLeft, text).width() <= width:
            break
    return f


def draw_line(painter: QPainter, rect: QRectF, text: str, font: QFont, smallest: int, align=Qt.AlignmentFlag.AlignLeft):
    """`text` in `rect`, in `font` or smaller until it fits one line (wrapped at `smallest`)."""
    fitted(painter, font, text, rect.width(), smallest)
    painter.drawText(rect, int(align | Qt.TextFlag.TextWordWrap), text)


def matrix_height(m: SlideMatrix) -> float:
    return 26 + (m.values.shape[0] + 1) * LINE + 12


def shown_matrices(matrices: list[SlideMatrix], heights: list[float], room: float) -> list[SlideMatrix]:
    """The matrices a slide has room for, each whole (`heights`, within `room`), in their order: the stage's
    output (the last) first, then each input that still fits."""
    output = len(matrices) - 1
    keep, used = set(), 0.0
    for k in [output, *range(output)]:
        if used + heights[k] <= room:
            keep.add(k)
            used += heights[k]
    return [m for k, m in enumerate(matrices) if k in keep]


def draw_matrix(painter: QPainter, m: SlideMatrix, x: float, y: float, width: float) -> None:
    """A small table of numbers under its symbol and shape (matrix_height tall); every token label whole, in a
    smaller type where it is long."""
    painter.setFont(slide_font(14, bold=True))
    painter.drawText(QRectF(x, y, width, 26), Qt.AlignmentFlag.AlignLeft, cut_note(m))
    y += 26
    font = slide_font(12)
    painter.setFont(font)
    r, c = m.values.shape
    widest = max((painter.boundingRect(ANYWHERE, 0, label).width() for label in m.rows), default=0)
    label_w = min(widest + 10, width * 0.4)
    cell_w = min(72.0, (width - label_w) / max(c, 1))
    right = Qt.AlignmentFlag.AlignRight
    for j in range(c):
        draw_line(painter, QRectF(x + label_w + j * cell_w + 4, y, cell_w - 4, LINE), m.cols[j], font, 7, right)
    for i in range(r):
        top = y + (i + 1) * LINE
        draw_line(painter, QRectF(x, top, label_w - 6, LINE), m.rows[i], font, 7, right)
        painter.setFont(font)
        for j in range(c):
            painter.drawText(
                QRectF(x + label_w + j * cell_w, top, cell_w, LINE), right, format_cell(m.values[i, j], m.decimals)
            )


FIGURE_BOX = QRectF(MARGIN, 112, 1060, 596)
FIGURE_SIZE = (1060, 596)  # figures on slides are laid out at this size, so their text keeps its size


INSET_H = 200  # the "you are here" map above the matrices


def draw_page(
    painter: QPainter,
    slide: Slide,
    draw_figure: Callable[[QRectF], None],
    page: int,
    pages: int,
    draw_inset: Callable[[QRectF], None] | None = None,
) -> None:
    """The title on one line (smaller if it is long), the place in the model (and a what-if lesson's switches)
    under it, the formula, the figure, the inset map and the tables beside it, the explanation under it."""
    width = SCENE_W - 2 * MARGIN
    painter.setPen(TEXT_COLOR)
    draw_line(painter, QRectF(MARGIN, 10, width, 40), slide.title, slide_font(24, bold=True), 16)
    painter.setPen(PLACE_COLOR)
    draw_line(painter, QRectF(MARGIN, 50, width, 26), slide.subtitle, slide_font(15), 10)
    painter.setPen(TEXT_COLOR)
    draw_line(painter, QRectF(MARGIN, 78, width, 34), slide.formula, slide_font(13), 9)
    figure_box = FIGURE_BOX
    draw_figure(figure_box)
    x, y, width = figure_box.right() + 24, figure_box.top(), SCENE_W - figure_box.right() - 24 - MARGIN
    if draw_inset is not None:
        draw_inset(QRectF(x, y, width, INSET_H))
        y += INSET_H + 12
    matrices = slide.matrices
    for m in shown_matrices(matrices, [matrix_height(m) for m in matrices], figure_box.bottom() - y):
        draw_matrix(painter, m, x, y, width)
        y += matrix_height(m)
    painter.setPen(TEXT_COLOR)
    painter.setFont(slide_font(15))
    notes = QRectF(MARGIN, figure_box.bottom() + 14, SCENE_W - 2 * MARGIN, SCENE_H - figure_box.bottom() - 40)
    painter.drawText(notes, Qt.TextFlag.TextWordWrap, slide.notes)
    painter.setFont(slide_font(10))
    painter.drawText(QRectF(0, SCENE_H - 24, SCENE_W - MARGIN, 20), Qt.AlignmentFlag.AlignRight, f"{page} / {pages}")


def write_pdf_deck(
    trace, opts: PlotOptions, deck: list[Slide], path: Path, progress: Progress | None, inset: bool
) -> int:
    """The map's page and the overview's, then one page per slide of `deck` (slides() with the slides' `opts`);
    returns the count. Each page goes to the file as it is drawn: the deck is never held in memory."""
    write_atomic_with(path, lambda file: draw_pdf_deck(trace, opts, deck, file, progress, inset))
    return len(deck) + OPENING_PAGES


class Spool:
    """A PDF writer's memory file, emptied into an open binary file after each page: the deck is never held whole
    (Qt's writers do not report a failed write, so they write into memory; Python's file raises)."""

    def __init__(self, file: BinaryIO):
        self.file, self.buffer, self.written = file, memory_file(), 0

    def drain(self) -> None:
        data = self.buffer.data().data()
        self.file.write(data)
        self.written += len(data)
        self.buffer.close()
        self.buffer.setData(b"")
        self.buffer.open(QIODevice.OpenModeFlag.WriteOnly)


class PdfPages:
    """A painter on the slide-sized pages of a PDF written into `file` page by page (Spool): new_page() sends the page
    before to the file."""

    def __init__(self, file: BinaryIO):
        self.spool = Spool(file)
        self.writer = pdf_writer(self.spool.buffer)
        self.painter = open_painter(self.writer)
        page = fit(self.writer, SCENE_W, SCENE_H)
        self.painter.translate(page.topLeft())
        self.painter.scale(page.width() / SCENE_W, page.height() / SCENE_H)

    def new_page(self) -> None:
        self.writer.newPage()
        self.spool.drain()

    @property
    def written(self) -> int:
        return self.spool.written


@contextmanager
def pdf_pages(file: BinaryIO) -> Iterator[PdfPages]:
    """PdfPages whose painter ends however the drawing ends; the last page goes to the file when it ends well."""
    pages = PdfPages(file)
    try:
        yield pages
    finally:
        pages.painter.end()
    pages.spool.drain()


def draw_pdf_deck(
    trace, opts: PlotOptions, deck: list[Slide], file: BinaryIO, progress: Progress | None, inset: bool
) -> int:
    """Write the deck's pages into `file` as they are drawn; returns the bytes written."""
    with pdf_pages(file) as pdf:
        painter = pdf.painter
        pages = len(deck) + OPENING_PAGES
        for k, draw in enumerate(OPENING):
            if k:
                pdf.new_page()
            with offscreen_figure(trace, None, replace(opts, title=True), draw=draw) as view:
                paint(view, painter, QRectF(0, 0, SCENE_W, SCENE_H))
            if progress is not None:
                progress(k + 1, pages)
        with map_inset(trace, opts) as small:
            for k, slide in with_progress(deck, progress, before=OPENING_PAGES):
                pdf.new_page()  # the page before goes into the memory file
                on_map = (lambda box, s=slide.stage: small.paint(s, painter, box)) if inset else None
                with offscreen_figure(trace, slide.stage, opts, FIGURE_SIZE) as view:
                    page = k + OPENING_PAGES + 1
                    draw_page(painter, slide, lambda box, v=view: paint(v, painter, box), page, pages, on_map)
    return pdf.written
