"""Export one stage's figure, in the slide style, to PNG, SVG or PDF, or copy it to the clipboard.

Qt's writers draw into memory (a QBuffer), never into the file: they do not report a full disk. The bytes
are then written by engine.formats.files.write_atomic, which checks that all of them reached the disk.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QGuiApplication, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from engine import EngineError
from engine.budget import check_export
from engine.formats.files import check_target, write_atomic
from gui.plots import PlotOptions, draw_stage
from gui.text.operations import stage_title

from .render import SCENE_H, SCENE_W, Draw, offscreen_figure, paint, render_image

FORMATS = ("png", "svg", "pdf")
SCREEN_DPI = 96
PNG_QUALITY = 80  # Qt's PNG quality: lighter compression, written about twice as fast, files ~20% larger
MIN_WIDTH, MAX_WIDTH = 200, 8000


def format_of(path: str | Path, fmt: str | None = None) -> str:
    """The format asked for, else the file's extension; anything else is refused with the choices."""
    fmt = (fmt or Path(path).suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise EngineError(
            f"cannot export a figure as {fmt or 'a file without extension'!r}; use one of {', '.join(FORMATS)}"
        )
    return fmt


def check_stage(trace, stage: str) -> None:
    if stage not in trace.stage_names:
        raise EngineError(f"no stage named {stage!r}; valid stages: {', '.join(trace.stage_names)}")


def slide_options(opts: PlotOptions) -> PlotOptions:
    return replace(opts, slide=True)


def export_figure(
    trace,
    stage: str | None,
    opts: PlotOptions,
    path: str | Path,
    fmt: str | None = None,
    width: int = 1920,
    draw: Draw = draw_stage,
) -> Path:
    """Write the stage's figure (or another figure `draw` makes at the stage) in the slide style; returns the path
    written. Stage None: a figure of the whole lesson that `draw` makes without a stage (the map)."""
    if stage is not None:
        check_stage(trace, stage)
    fmt = format_of(path, fmt)
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise EngineError(f"width {width} px is out of range; use {MIN_WIDTH} to {MAX_WIDTH}")
    path = Path(path)
    check_target(path)
    check_export(trace, "this figure", image_bytes(width) if fmt == "png" else 0)
    opts = slide_options(opts)
    buffer = memory_file()
    if fmt == "png":
        render_image(trace, stage, opts, width, draw=draw).save(buffer, "PNG", PNG_QUALITY)
    elif fmt == "svg":
        write_svg(trace, stage, opts, buffer, draw)
    else:
        write_pdf(trace, stage, opts, buffer, draw)
    write_atomic(path, bytes(buffer.data()))
    return path


def image_bytes(width: int) -> int:
    """What a PNG `width` pixels wide holds while it is made: the image (4 bytes a pixel) and, at most, its PNG."""
    return 2 * 4 * width * round(width * SCENE_H / SCENE_W)


def memory_file() -> QBuffer:
    """An open, empty in-memory file for Qt's writers."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    return buffer


def write_svg(trace, stage: str, opts: PlotOptions, buffer: QBuffer, draw: Draw = draw_stage) -> None:
    """Painted like the PNG and PDF (one code path, so the same layout); text stays text.

    (pyqtgraph's SVGExporter re-lays the scene out in export mode and can shift colour bars over the plot.)
    """
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(SCENE_W, SCENE_H))
    generator.setViewBox(QRectF(0, 0, SCENE_W, SCENE_H))
    generator.setResolution(SCREEN_DPI)
    # what a viewer shows as its name: the stage's human title; its id in the description, for scripts
    generator.setTitle(stage_title(trace, stage, opts.lang) if stage else "Stepformer")
    generator.setDescription(f"Stepformer: {stage}" if stage else "Stepformer")
    with offscreen_figure(trace, stage, opts, draw=draw) as view:
        painter = QPainter()
        if not painter.begin(generator):
            raise EngineError(f"cannot draw the figure of {stage} as SVG")
        paint(view, painter, QRectF(0, 0, SCENE_W, SCENE_H))
        painter.end()


def pdf_writer(device: QIODevice) -> QPdfWriter:
    """A 16:9 PDF page the size of the slide canvas at screen resolution, so text sits where it does on screen."""
    writer = QPdfWriter(device)
    writer.setResolution(SCREEN_DPI)
    mm = 25.4 / SCREEN_DPI
    writer.setPageSize(QPageSize(QSizeF(SCENE_W * mm, SCENE_H * mm), QPageSize.Unit.Millimeter, "16:9"))
    writer.setPageOrientation(QPageLayout.Orientation.Portrait)  # the size is already landscape
    writer.setPageMargins(QMarginsF(0, 0, 0, 0))
    writer.setTitle("Stepformer")
    return writer


def open_painter(writer: QPdfWriter) -> QPainter:
    painter = QPainter()
    if not painter.begin(writer):
        raise EngineError("cannot draw a PDF page")
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    return painter


def write_pdf(trace, stage: str, opts: PlotOptions, buffer: QBuffer, draw: Draw = draw_stage) -> None:
    writer = pdf_writer(buffer)
    with offscreen_figure(trace, stage, opts, draw=draw) as view:
        painter = open_painter(writer)
        paint(view, painter, fit(writer, SCENE_W, SCENE_H))
        painter.end()


def fit(writer: QPdfWriter, w: float, h: float) -> QRectF:
    """The largest rectangle of aspect w:h centred on the page."""
    page = QRectF(0, 0, writer.width(), writer.height())
    scale = min(page.width() / w, page.height() / h)
    return QRectF((page.width() - w * scale) / 2, (page.height() - h * scale) / 2, w * scale, h * scale)


def copy_figure(trace, stage: str, opts: PlotOptions, width: int = 1920, draw: Draw = draw_stage) -> None:
    """Put the figure on the clipboard as an image, ready to paste into slide software."""
    check_stage(trace, stage)
    check_export(trace, "this figure", image_bytes(width))
    QGuiApplication.clipboard().setImage(render_image(trace, stage, slide_options(opts), width, draw=draw))
