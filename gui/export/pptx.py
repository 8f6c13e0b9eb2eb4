"""The lesson as a PowerPoint deck (python-pptx): the map, then one slide per stage (with a small "you are here"
map), the explanation as speaker notes."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from pptx import Presentation
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt
from PySide6.QtCore import QBuffer, QIODevice

from engine.formats.files import write_atomic
from gui.plots import PlotOptions
from gui.plots.heatmap import format_cell
from gui.plots.map import draw_map

from .deck import FIGURE_SIZE, Progress, Slide, SlideMatrix, cut_note, with_progress
from .figure import PNG_QUALITY
from .map_slides import INSET_SIZE, map_inset
from .render import SCENE_H, SCENE_W, render_image

CJK_FONT = "Microsoft YaHei"  # East Asian typeface PowerPoint uses for Chinese; LibreOffice substitutes its own
TITLE_ONLY, BLANK = 5, 6  # layout indices in python-pptx's default template
FIGURE_WIDTH = Inches(8.6)
LABEL_CHARS = 7  # longer token labels are cut so table cells stay one line


INSET_WIDTH = Inches(3.9)  # the "you are here" map, above the tables


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


def add_table(shapes, m: SlideMatrix, left: Emu, top: Emu, width: Emu) -> Emu:
    """A native (editable) table of the matrix under a caption; returns the height used."""
    caption = shapes.add_textbox(left, top, width, Inches(0.3))
    set_text(caption.text_frame, cut_note(m), 11, bold=True)
    r, c = m.values.shape
    row_h = Inches(0.26)
    table = shapes.add_table(r + 1, c + 1, left, top + Inches(0.3), width, row_h * (r + 1)).table
    cells = [(0, j + 1, m.cols[j][:LABEL_CHARS], True) for j in range(c)]
    cells += [(i + 1, 0, m.rows[i][:LABEL_CHARS], True) for i in range(r)]
    cells += [(i + 1, j + 1, format_cell(m.values[i, j], m.decimals), False) for i in range(r) for j in range(c)]
    for i, j, text, bold in cells:
        cell = table.cell(i, j)
        cell.margin_left = cell.margin_right = Inches(0.03)
        cell.margin_top = cell.margin_bottom = Inches(0.01)
        set_text(cell.text_frame, text, 9, bold=bold)
    return Inches(0.3) + row_h * (r + 1) + Inches(0.15)


def add_map_slide(prs, trace, opts: PlotOptions) -> None:
    """The first slide: the whole model, with its own title."""
    page = prs.slides.add_slide(prs.slide_layouts[BLANK])
    image = render_image(trace, None, replace(opts, title=True), SCENE_W, (SCENE_W, SCENE_H), draw=draw_map)
    page.shapes.add_picture(io.BytesIO(png_of(image)), 0, 0, width=prs.slide_width)


def add_slide(prs, slide: Slide, image: bytes, inset: bytes | None = None) -> None:
    page = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    title = page.shapes.title
    title.left, title.top, title.width, title.height = Inches(0.4), Inches(0.2), Inches(12.5), Inches(0.8)
    set_text(title.text_frame, slide.title, 26, bold=True)
    formula = page.shapes.add_textbox(Inches(0.4), Inches(0.95), Inches(12.5), Inches(0.5))
    set_text(formula.text_frame, slide.formula, 14)
    page.shapes.add_picture(io.BytesIO(image), Inches(0.3), Inches(1.6), width=FIGURE_WIDTH)
    left, top, width = Inches(9.1), Inches(1.6), Inches(3.9)
    if inset is not None:
        picture = page.shapes.add_picture(io.BytesIO(inset), left, top, width=INSET_WIDTH)
        top += picture.height + Inches(0.1)
    for m in slide.matrices:
        if top > Inches(6.3):
            break
        top += add_table(page.shapes, m, left, top, width)
    set_text(page.notes_slide.notes_text_frame, slide.notes, 12)


def write_pptx_deck(
    trace, opts: PlotOptions, deck: list[Slide], path: Path, progress: Progress | None, inset: bool
) -> int:
    """The map's 16:9 slide, then one per slide of `deck` (slides() with the slides' `opts`); returns the count."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    add_map_slide(prs, trace, opts)
    if progress is not None:
        progress(1, len(deck) + 1)
    with map_inset(trace, opts) as small:
        for _, slide in with_progress(deck, progress, before=1):
            on_map = png_of(small.image(slide.stage, 2 * INSET_SIZE[0])) if inset else None
            add_slide(prs, slide, png_bytes(trace, slide.stage, opts), on_map)
    buffer = io.BytesIO()
    prs.save(buffer)
    write_atomic(path, buffer.getvalue())
    return len(deck) + 1
