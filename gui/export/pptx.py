"""The lesson as a PowerPoint deck (python-pptx): the map, every head at a glance, then one slide per stage (with a
small "you are here" map), the explanation as speaker notes."""

from __future__ import annotations

import io
import math
from dataclasses import replace
from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QFontMetricsF

from engine.formats.files import write_atomic
from gui.plots import PlotOptions
from gui.plots.heatmap import format_cell
from gui.plots.map_items import slide_font

from .deck import (
    FIGURE_SIZE,
    OPENING,
    OPENING_PAGES,
    Progress,
    Slide,
    SlideMatrix,
    cut_note,
    shown_matrices,
    with_progress,
)
from .figure import PNG_QUALITY
from .map_slides import INSET_SIZE, map_inset
from .render import SCENE_H, SCENE_W, render_image

CJK_FONT = "Microsoft YaHei"  # East Asian typeface PowerPoint uses for Chinese; LibreOffice substitutes its own
TITLE_ONLY, BLANK = 5, 6  # layout indices in python-pptx's default template
FIGURE_WIDTH = Inches(8.6)
SLIDE_H = Inches(7.5)
TEXT_W = Inches(12.5)  # the title, place and formula lines …
TEXT_ROOM = TEXT_W - Inches(0.2)  # … less their boxes' insets
TABLES_LEFT, TABLES_TOP, TABLES_W = Inches(9.1), Inches(1.6), Inches(3.9)
TABLE_POINTS = 10
CAPTION_H, ROW_H, AFTER_TABLE = Inches(0.3), Inches(0.26), Inches(0.15)
PLACE_COLOR = RGBColor(90, 90, 90)
INSET_HEIGHT = Inches(1.7)  # the "you are here" map, above the tables


def points_wide(text: str, points: float, bold: bool = False) -> float:
    """How wide `text` is at `points` in the slides' type (measured in Qt's copy of it; PowerPoint's Latin type
    is no wider)."""
    font = slide_font(max(1, round(points)), bold, pixels=True)  # a pixel per point: the width comes in points
    return QFontMetricsF(font).horizontalAdvance(text)


def fitting_points(text: str, room: Emu, points: int, smallest: int, bold: bool = False) -> int:
    """`points`, or the largest size under it down to `smallest`, at which `text` fits `room` on one line; at
    `smallest` a longer text wraps."""
    return next((p for p in range(points, smallest, -1) if points_wide(text, p, bold) <= room / Pt(1)), smallest)


def png_of(image) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG", PNG_QUALITY)
    return bytes(buffer.data())


def png_bytes(trace, stage: str, opts: PlotOptions) -> bytes:
    # 1.5× the layout size is sharp on a projector
    return png_of(render_image(trace, stage, opts, 3 * FIGURE_SIZE[0] // 2, FIGURE_SIZE))


def set_text(frame, text: str, points: int, bold: bool = False) -> None:
    """Replace a text frame's text, in one run with a Latin and an East Asian font."""
    frame.text = text
    frame.word_wrap = True
    for paragraph in frame.paragraphs:
        for run in paragraph.runs:
            run.font.size = Pt(points)
            run.font.bold = bold
            rpr = run._r.get_or_add_rPr()
            ea = rpr.find(qn("a:ea"))
            if ea is None:
                ea = rpr.makeelement(qn("a:ea"), {})
                rpr.append(ea)
            ea.set("typeface", CJK_FONT)


def table_height(m: SlideMatrix) -> Emu:
    return CAPTION_H + ROW_H * (m.values.shape[0] + 1) + AFTER_TABLE


def add_table(shapes, m: SlideMatrix, left: Emu, top: Emu, width: Emu) -> None:
    """A native (editable) table of the matrix under a caption (table_height tall), its token labels whole: the
    label column as wide as the longest, the labels in a smaller type where even that is too narrow."""
    caption = shapes.add_textbox(left, top, width, CAPTION_H)
    set_text(caption.text_frame, cut_note(m), 12, bold=True)
    r, c = m.values.shape
    table = shapes.add_table(r + 1, c + 1, left, top + CAPTION_H, width, ROW_H * (r + 1)).table
    margins = Inches(0.1)  # the cell's insets, and a little room
    widest = max((points_wide(label, TABLE_POINTS, bold=True) for label in m.rows), default=0.0)
    labels_w = min(Emu(math.ceil(Pt(widest))) + margins, Emu(width * 2 // 5))
    table.columns[0].width = labels_w
    for j in range(c):
        table.columns[j + 1].width = Emu((width - labels_w) // max(c, 1))
    cells = [(0, j + 1, m.cols[j], True, table.columns[j + 1].width) for j in range(c)]
    cells += [(i + 1, 0, m.rows[i], True, labels_w) for i in range(r)]
    cells += [(i + 1, j + 1, format_cell(m.values[i, j], m.decimals), False, None) for i in range(r) for j in range(c)]
    for i, j, text, bold, room in cells:
        cell = table.cell(i, j)
        cell.margin_left = cell.margin_right = Inches(0.03)
        cell.margin_top = cell.margin_bottom = Inches(0.01)
        points = TABLE_POINTS if room is None else fitting_points(text, room - margins, TABLE_POINTS, 6, bold=True)
        set_text(cell.text_frame, text, points, bold=bold)


def add_opening_slide(prs, trace, opts: PlotOptions, draw) -> None:
    """A slide before the stages' (the whole model, every head at a glance): one figure, with its own title."""
    page = prs.slides.add_slide(prs.slide_layouts[BLANK])
    image = render_image(trace, None, replace(opts, title=True), SCENE_W, (SCENE_W, SCENE_H), draw=draw)
    page.shapes.add_picture(io.BytesIO(png_of(image)), 0, 0, width=prs.slide_width)


def add_slide(prs, slide: Slide, image: bytes, inset: bytes | None = None) -> None:
    """The title on one line (smaller if it is long), the place in the model (and a what-if lesson's switches)
    under it, the formula, the figure, the inset map and the tables that fit whole beside it; the explanation as
    the speaker's notes."""
    page = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    title = page.shapes.title
    title.left, title.top, title.width, title.height = Inches(0.4), Inches(0.15), TEXT_W, Inches(0.6)
    set_text(title.text_frame, slide.title, fitting_points(slide.title, TEXT_ROOM, 28, 18, bold=True), bold=True)
    place = page.shapes.add_textbox(Inches(0.4), Inches(0.75), TEXT_W, Inches(0.35))
    set_text(place.text_frame, slide.subtitle, fitting_points(slide.subtitle, TEXT_ROOM, 16, 11))
    for paragraph in place.text_frame.paragraphs:
        for run in paragraph.runs:
            run.font.color.rgb = PLACE_COLOR
    formula = page.shapes.add_textbox(Inches(0.4), Inches(1.1), TEXT_W, Inches(0.4))
    set_text(formula.text_frame, slide.formula, fitting_points(slide.formula, TEXT_ROOM, 14, 10))
    page.shapes.add_picture(io.BytesIO(image), Inches(0.3), TABLES_TOP, width=FIGURE_WIDTH)
    top = TABLES_TOP
    if inset is not None:
        picture = page.shapes.add_picture(io.BytesIO(inset), TABLES_LEFT, top, height=INSET_HEIGHT)
        top += picture.height + Inches(0.1)
    matrices = slide.matrices
    for m in shown_matrices(matrices, [table_height(m) for m in matrices], SLIDE_H - Inches(0.2) - top):
        add_table(page.shapes, m, TABLES_LEFT, top, TABLES_W)
        top += table_height(m)
    set_text(page.notes_slide.notes_text_frame, slide.notes, 12)


def write_pptx_deck(
    trace, opts: PlotOptions, deck: list[Slide], path: Path, progress: Progress | None, inset: bool
) -> int:
    """The map's 16:9 slide and the overview's, then one per slide of `deck` (slides() with the slides' `opts`);
    returns the count."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    for k, draw in enumerate(OPENING):
        add_opening_slide(prs, trace, opts, draw)
        if progress is not None:
            progress(k + 1, len(deck) + OPENING_PAGES)
    with map_inset(trace, opts) as small:
        for _, slide in with_progress(deck, progress, before=OPENING_PAGES):
            on_map = png_of(small.image(slide.stage, 2 * INSET_SIZE[0])) if inset else None
            add_slide(prs, slide, png_bytes(trace, slide.stage, opts), on_map)
    buffer = io.BytesIO()
    prs.save(buffer)
    write_atomic(path, buffer.getbuffer())  # the zipped bytes themselves, not a copy
    return len(deck) + OPENING_PAGES
