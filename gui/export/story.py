"""The deck of a lesson that opens "2017 → today" (engine.modernise): the 2017 block's map, then one page per change,
each with the map before and after it side by side, who introduced the change and when, what changed and why, and,
for grouped-query attention, the KV cache's bytes per token before and after.

Each page is painted by one function (draw_change_page) into a PDF page or, for a PPTX, into a picture of the slide
with the explanation also in the speaker's notes."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from engine import EngineError, Trace, cost
from engine.budget import PICTURE_BYTES, check_export
from engine.formats.files import check_target, write_atomic, write_atomic_with
from engine.modernise import CHANGES, STEPS, model_at
from gui.plots import PlotOptions
from gui.plots.map import draw_map
from gui.plots.map_items import slide_font
from gui.text import modernise as texts

from .deck import MARGIN, PLACE_COLOR, TEXT_COLOR, Progress, draw_line, pdf_pages
from .map_slides import draw_inset
from .render import SCENE_H, SCENE_W, offscreen_figure, paint

MAP_TOP, MAP_H = 104, 600  # the two maps' boxes on a page
MAP_LAYOUT = (300, 400)  # each map is laid out at this size and painted larger: its names stay legible
LABEL_COLOR = {"before": QColor(120, 120, 120), "after": QColor(192, 57, 43)}


def story_traces(trace: Trace) -> list[Trace]:
    """The lesson's sentences through the model at every step, 0 (the 2017 block) … STEPS (today's), each with the
    weights of the step before it (engine.modernise.model_at)."""
    tokens = {s: list(t) for s, t in trace.tokens.items()}
    return [Trace(model_at(trace.model, step), tokens, dict(trace.ids)) for step in range(STEPS + 1)]


def kv_line(before: Trace, after: Trace, lang: str) -> str:
    """The KV cache's bytes per generated token before → after a change ("" when they are the same)."""
    old, new = cost.kv_cache(before)["per_token_bytes"], cost.kv_cache(after)["per_token_bytes"]
    if old == new:
        return ""
    if lang == "zh":
        return f"KV 缓存：每生成一个词元 {old} → {new} 字节"
    return f"KV cache: {old} → {new} bytes per generated token"


def page_title(step: int, lang: str) -> str:
    change = CHANGES[step - 1]
    return f"{step}. {texts.change_name(change.key, lang)}"


def page_subtitle(step: int, lang: str) -> str:
    change = CHANGES[step - 1]
    count = f"2017 → 今天，第 {step} / {STEPS} 个改变" if lang == "zh" else f"2017 → today, change {step} of {STEPS}"
    return f"{texts.introduced(change, lang)} · {count}"


def notes_of(step: int, before: Trace, after: Trace, lang: str) -> str:
    """What changed and why, what the map shows, and the KV cache's bytes where they change."""
    return "\n".join(t for t in (texts.why(step, lang), texts.on_map(step, lang), kv_line(before, after, lang)) if t)


def draw_change_page(
    painter: QPainter, step: int, before: Trace, after: Trace, opts: PlotOptions, page: int, pages: int
) -> None:
    """One change on the slide canvas (SCENE_W × SCENE_H): its title and who introduced it, the map before and after
    it side by side under their labels, what changed and why under them, the page number."""
    lang, width = opts.lang, SCENE_W - 2 * MARGIN
    painter.setPen(TEXT_COLOR)
    draw_line(painter, QRectF(MARGIN, 10, width, 40), page_title(step, lang), slide_font(26, bold=True), 16)
    painter.setPen(PLACE_COLOR)
    draw_line(painter, QRectF(MARGIN, 52, width, 28), page_subtitle(step, lang), slide_font(15), 10)
    half = (width - 24) / 2
    for k, (key, trace) in enumerate((("before", before), ("after", after))):
        x = MARGIN + k * (half + 24)
        painter.setPen(LABEL_COLOR[key])
        label = texts.side_name(key, lang)
        center = Qt.AlignmentFlag.AlignHCenter
        draw_line(painter, QRectF(x, MAP_TOP - 22, half, 24), label, slide_font(16, bold=True), 10, center)
        with offscreen_figure(trace, None, opts, MAP_LAYOUT, draw=draw_inset) as view:  # the boxes without captions
            paint(view, painter, QRectF(x, MAP_TOP, half, MAP_H))
    painter.setPen(TEXT_COLOR)
    painter.setFont(slide_font(15))
    top = MAP_TOP + MAP_H + 14
    painter.drawText(
        QRectF(MARGIN, top, width, SCENE_H - top - 30), Qt.TextFlag.TextWordWrap, notes_of(step, before, after, lang)
    )
    painter.setFont(slide_font(10))
    painter.drawText(QRectF(0, SCENE_H - 24, SCENE_W - MARGIN, 20), Qt.AlignmentFlag.AlignRight, f"{page} / {pages}")


def draw_opening(painter: QPainter, first: Trace, opts: PlotOptions) -> None:
    """The 2017 block's whole map, with its title."""
    with offscreen_figure(first, None, replace(opts, title=True), draw=draw_map) as view:
        paint(view, painter, QRectF(0, 0, SCENE_W, SCENE_H))


def export_story(
    trace: Trace, opts: PlotOptions, path: str | Path, fmt: str | None = None, progress: Progress | None = None
) -> int:
    """Write the story's deck (.pdf or .pptx, by `fmt` or the file's extension) of the lesson whose trace is `trace`;
    returns the pages written. A bad file name or format is refused in one line before anything is drawn."""
    path = Path(path)
    check_target(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in ("pdf", "pptx"):
        raise EngineError(f"cannot export slides as {fmt or 'a file without extension'!r}; use one of pdf, pptx")
    steps = story_traces(trace)  # (a config a step cannot build is refused here, before the file is touched)
    pages = STEPS + 1
    check_export(trace, f"these {pages} slides", pages * PICTURE_BYTES if fmt == "pptx" else 0)
    opts = replace(opts, slide=True, title=False)
    if fmt == "pdf":
        write_atomic_with(path, lambda file: _draw_pdf(steps, opts, file, progress))
    else:
        write_atomic(path, _pptx_bytes(steps, opts, progress))
    return pages


def _pages(steps: list[Trace], opts: PlotOptions):
    """(page number, a function that paints the page) for every page, in order."""
    yield 1, lambda painter: draw_opening(painter, steps[0], opts)
    for step in range(1, STEPS + 1):
        yield (
            step + 1,
            lambda painter, k=step: draw_change_page(painter, k, steps[k - 1], steps[k], opts, k + 1, STEPS + 1),
        )


def _draw_pdf(steps: list[Trace], opts: PlotOptions, file, progress: Progress | None) -> int:
    with pdf_pages(file) as pdf:
        for number, draw in _pages(steps, opts):
            if number > 1:
                pdf.new_page()
            draw(pdf.painter)
            if progress is not None:
                progress(number, STEPS + 1)
    return pdf.written


def _pptx_bytes(steps: list[Trace], opts: PlotOptions, progress: Progress | None) -> bytes:
    from pptx import Presentation  # python-pptx loads only when a PPTX is asked for
    from pptx.util import Inches

    from .pptx import BLANK, png_of

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    for number, draw in _pages(steps, opts):
        image = QImage(2 * SCENE_W, 2 * SCENE_H, QImage.Format.Format_ARGB32)
        image.setDevicePixelRatio(2)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        draw(painter)
        painter.end()
        slide = prs.slides.add_slide(prs.slide_layouts[BLANK])
        slide.shapes.add_picture(io.BytesIO(png_of(image)), 0, 0, width=prs.slide_width)
        if number > 1:
            step = number - 1
            slide.notes_slide.notes_text_frame.text = notes_of(step, steps[step - 1], steps[step], opts.lang)
        if progress is not None:
            progress(number, STEPS + 1)
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()
