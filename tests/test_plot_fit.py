"""Plots fit the room they get: captions wrap instead of widening a plot, a title row is as tall as its lines,
and a figure that still needs more room than its view is shrunk as a whole rather than cut at the edge."""

from functools import partial

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPicture
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from engine import Model, ModelConfig
from gui.plots import PlotOptions, draw_stage
from gui.plots.style import WINDOW_CAPTION_COLUMNS, new_plot, set_caption
from gui.plots.view import FittedLayoutWidget
from gui.plots.wrap import _columns, wrap_caption

LONG = "Top 5 next tokens after &lt;start&gt; (T = 1.5) in a sentence that goes on and on"


@pytest.mark.parametrize(
    "text",
    [
        LONG,
        "位置编码（位置 × 维度）与本句的激活前数值，共有很多个被关闭的单元",
        "ReLU 作用于本句的数值：192 个中 101 个被关闭",
    ],
)
@pytest.mark.parametrize("columns", [14, 28])  # the longest word, &lt;start&gt;, is 13
def test_wrapped_lines_are_short_and_keep_every_word(text, columns):
    lines = wrap_caption(text, columns).split("<br>")
    assert len(lines) > 1
    assert all(_columns(line) <= columns for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost, only spaces at breaks
    assert not any(line != line.strip() for line in lines)


def test_wrapping_keeps_words_and_equations_whole_and_obeys_line_breaks():
    assert wrap_caption("Steps for cat\nμ = 0.12, σ² = 1.25", 12) == "Steps<br>for cat<br>μ = 0.12,<br>σ² = 1.25"
    assert wrap_caption("层归一化前（○）后（●）的各词元", 28) == "层归一化前（○）<br>后（●）的各词元"  # balanced
    assert wrap_caption("short", 28) == "short"
    # two lines break after a label's colon where they can ("你在这里：查" over "询 Q · 头 0" before)
    assert wrap_caption("你在这里：查询 Q · 头 0", 14) == "你在这里：<br>查询 Q · 头 0"
    assert wrap_caption("You are here: Queries Q · head 0", 20) == "You are here:<br>Queries Q · head 0"
    assert wrap_caption("Row of &lt;start&gt; → 我: sum = 1.00", 30) == "Row of &lt;start&gt; → 我:<br>sum = 1.00"
    assert wrap_caption("a_very_long_unbreakable_stage_name", 8) == "a_very_long_unbreakable_stage_name"
    # "= value" stays with the character before it, not with the whole Chinese phrase: the map dock's title was
    # one 37-column line at 18 columns, and the map was drawn at 8 px to fit it
    lines = wrap_caption("你在这里：掩码后的分数（−∞ = 不可见）· 头 0", 18).split("<br>")
    assert all(_columns(line) <= 18 for line in lines) and "（−∞ = 不可见）" in "".join(lines), lines
    assert wrap_caption("中文字", 4) == "中文<br>字"  # a Chinese character is two columns wide
    assert "<br>&lt;start&gt; → 我:<br>" in wrap_caption("Row of &lt;start&gt; → 我: sum = 1.00", 12)  # one label
    lines = wrap_caption("层归一化前（○）后（●）的各词元", 6).split("<br>")
    assert not any(line[0] in "）：，。" for line in lines)  # a closing mark stays with what it closes
    for columns in range(8, 40):  # a quoted token: its quotes and colon stay with it ("chose “模型" then "” (p = …")
        lines = wrap_caption("Next token after “模型”: chose “大” (p = 0.124), greedy", columns).split("<br>")
        assert not any(line[0] in "”’）:" or line[-1] in "“‘（" for line in lines), lines
        assert "".join(lines).replace(" ", "") == "Nexttokenafter“模型”:chose“大”(p=0.124),greedy"
    for odd in ("a “ b", "模型“", "“", "（“模型”）"):  # marks with nothing to stay with are kept too
        assert wrap_caption(odd, 4).replace("<br>", "").replace(" ", "") == odd.replace(" ", "")


@pytest.fixture
def view(qapp):
    figure_view = FittedLayoutWidget()
    yield figure_view
    figure_view.close()


def test_a_long_caption_neither_widens_the_plot_nor_overlaps_it(view):
    plot = view.ci.addPlot()
    set_caption(plot, LONG, PlotOptions())
    label = plot.titleLabel
    assert label.text.count("<br>") >= 2
    assert label.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() < 10 * WINDOW_CAPTION_COLUMNS
    # pyqtgraph gives a title one 30 px line; ours is as tall as its lines, above the plot's own area
    assert plot.layout.rowMinimumHeight(0) == pytest.approx(label.item.boundingRect().height())
    assert label.item.boundingRect().height() > 30


def test_a_figure_too_big_for_its_view_is_shrunk_to_fit_and_restored_when_there_is_room(view, qapp):
    trace = Model.create(ModelConfig(d_model=8, n_heads=2, decimals=1)).trace("I love AI")
    draw_stage(view.ci, trace, "enc.0.attn.weights", PlotOptions())
    view.resize(900, 700)
    view.show()
    qapp.processEvents()
    assert view.scale == 1.0 and view.transform().isIdentity()
    view.resize(260, 200)
    for _ in range(3):  # crowded axes turn their labels, and the figure refits once more
        qapp.processEvents()
    least = view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
    assert least.width() > 260 and view.scale > 1.0
    assert least.width() <= 260 * view.scale + 1e-6 and least.height() <= 200 * view.scale + 1e-6
    shown = view.mapFromScene(view.ci.geometry()).boundingRect()
    assert QRectF(view.viewport().rect()).adjusted(-1, -1, 1, 1).contains(QRectF(shown))
    view.resize(900, 700)
    qapp.processEvents()
    assert view.scale == 1.0 and view.transform().isIdentity()
    assert view.ci.geometry().width() == pytest.approx(900)


def test_a_caption_that_grows_after_an_edit_refits_the_figure(view, qapp, qtbot):
    plot = view.ci.addPlot()
    view.resize(200, 150)
    view.show()
    qapp.processEvents()
    assert view.scale == 1.0
    plot.getAxis("left").setWidth(400)  # the figure now needs more than the view has
    qtbot.waitUntil(lambda: view.scale > 2.0, timeout=2000)  # refitted when the layout request arrives


def test_crowded_labels_turn_once_and_stay_turned_until_the_view_is_resized(view, qapp):
    """Two axes of a plot could chase each other for ever (the top labels turn, the plot gets shorter, the left
    labels shrink, the plot gets wider, the top labels fit flat again …), repainting without end: the heads dock
    of the toy translator at 1280×720 never went idle. An axis now only turns to a more compact plan until the
    labels change or the view is resized."""
    plot = new_plot(view.ci, PlotOptions(), 0, 0)
    plot.setXRange(0, 4, padding=0)
    axis = plot.getAxis("bottom")
    axis.set_categories(["translator", "attention", "embedding", "position"], offset=0.5)
    view.resize(900, 300)
    view.show()
    qapp.processEvents()
    assert not axis.plan.rotated
    left = plot.getAxis("left")
    left.setWidth(820)  # the plot left of it narrows: the labels no longer fit flat
    qapp.processEvents()
    assert axis.plan.rotated
    left.setWidth(40)  # and widens again, as the other axis's answer would make it: the labels stay turned
    qapp.processEvents()
    assert axis.plan.rotated
    view.resize(901, 300)  # the view itself resized: the best plan that fits again
    qapp.processEvents()
    assert not axis.plan.rotated


def test_a_figure_view_under_wrapped_text_in_a_scroll_area_keeps_its_height(qapp):
    """The What-if dock: a word-wrapped explanation over a figure, in a scroll area that sizes its page by its
    children's hints. The view's hint was its own size plus its frame, so it grew 2 px at each layout pass (a
    hundred passes, each laying the figure out, after a language switch) until the figure overflowed the dock."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    page = QWidget()
    column = QVBoxLayout(page)
    explanation = QLabel("What if the scores were not divided by the square root of d_k? " * 3)
    explanation.setWordWrap(True)
    view = FittedLayoutWidget()
    column.addWidget(explanation)
    column.addWidget(view, 1)
    area.setWidget(page)
    area.resize(360, 520)
    area.show()
    trace = Model.create(ModelConfig(d_model=8, n_heads=2, decimals=1)).trace("I love AI")
    draw_stage(view.ci, trace, "enc.0.attn.weights", PlotOptions())
    heights = []
    for _ in range(12):
        view.settle()
        qapp.processEvents()
        heights.append(view.height())
    assert len(set(heights[3:])) == 1, heights
    assert page.height() <= area.viewport().height()  # nothing to scroll: the figure is shrunk to fit instead
    area.close()


def test_on_screen_an_unchanged_axis_is_copied_not_drawn_again_and_exports_stay_vector(qapp, monkeypatch):
    """Each repaint replayed every axis's picture (text and all: ~3 ms an axis in a shrunk figure, 40 ms for the
    cost dock); on screen an axis is cached as a pixmap until it changes. Slides draw every axis (vector)."""
    from PySide6.QtWidgets import QGraphicsItem

    from gui.plots.axis import Axis

    trace = Model.create(ModelConfig(d_model=8, n_heads=2, decimals=1)).trace("I love AI")
    view = FittedLayoutWidget()
    view.resize(700, 500)
    view.show()
    draw_stage(view.ci, trace, "enc.0.attn.weights", PlotOptions())
    for _ in range(5):
        qapp.processEvents()
    axes = [item for item in view.scene().items() if isinstance(item, Axis) and item.isVisible()]
    assert axes and all(a.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache for a in axes)
    painted = []
    monkeypatch.setattr(Axis, "paint", lambda self, *args: painted.append(self))
    view.viewport().repaint()
    assert painted == []
    slide = FittedLayoutWidget()
    draw_stage(slide.ci, trace, "enc.0.attn.weights", PlotOptions(slide=True))
    assert all(a.cacheMode() == QGraphicsItem.CacheMode.NoCache for a in slide.scene().items() if isinstance(a, Axis))
    view.close()
    slide.close()


def test_a_heatmap_repaints_from_a_premultiplied_image_and_cached_numbers_and_hatches_only_hidden_cells(qapp):
    """A repaint of one 6×4 heatmap filling its view took 8 ms: Qt scaled pyqtgraph's 8-bit indexed image pixel
    by pixel through its colour table (4 ms), the hidden cells' hatching was drawn under a matrix that hid none
    (2 ms), and each cell's number laid its text out again (2 ms); laying the colour bar's axis out for new
    levels took 3 ms, 2 of them for a third level of ticks. Slides keep vector numbers."""
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QGraphicsItem

    from gui.plots.matrix import MatrixPanel

    def heatmaps(view):
        return [p.heatmap for p in view.figure.panels if isinstance(p, MatrixPanel)]

    trace = Model.create(ModelConfig(d_model=8, n_heads=2, decimals=1, architecture="decoder")).trace("I love AI")
    view = FittedLayoutWidget()
    view.resize(700, 500)
    view.show()
    for stage, hides in (("dec.0.self_attn.q", False), ("dec.0.self_attn.masked", True)):
        view.figure = draw_stage(view.ci, trace, stage, PlotOptions())
        view.settle()
        view.grab()  # painted
        heat = heatmaps(view)[-1]
        assert heat.image.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
        assert heat.image.cells  # on screen, painted a rectangle per cell (the image would be scaled)
        assert [item.isVisible() for item in heat.backdrop] == [hides, hides], stage
        assert heat.numbers.texts() and heat.numbers.laid  # on screen each number laid out once (QStaticText)
        # the colour bar: copied from pixmaps; its axis ticks the labelled values and halfway, not every 0.1
        assert {item.cacheMode() for item in (heat.bar.axis, heat.bar.strip)} == {
            QGraphicsItem.CacheMode.DeviceCoordinateCache
        }
        ticks = heat.bar.axis.tickValues(*heat.bar.levels(), heat.bar.axis.height())
        assert len(ticks) == 2, ticks
    slide = FittedLayoutWidget()
    slide.resize(700, 500)
    slide.figure = draw_stage(slide.ci, trace, "dec.0.self_attn.q", PlotOptions(slide=True))
    slide.settle()
    heat = heatmaps(slide)[-1]
    slide.grab()  # painted: a slide draws its numbers as text (vector in an SVG), none laid out for the screen
    assert heat.numbers.texts() and heat.numbers.cacheMode() == QGraphicsItem.CacheMode.NoCache
    view.close()
    slide.close()


def test_an_axis_rewrites_its_label_on_a_new_range_only_when_it_shows_one(qapp, monkeypatch):
    """pyqtgraph rewrote every axis's (hidden, empty) label at each range change; a shown label is written again,
    with its unit as given (no SI prefix or multiplier: the display rules)."""
    from gui.plots.axis import Axis

    layout = pg.GraphicsLayout()
    plot = new_plot(layout, PlotOptions(), 0, 0)
    left = plot.getAxis("left")
    assert isinstance(left, Axis)
    written = []
    monkeypatch.setattr(left.label, "setHtml", lambda html: written.append(html))
    left.setRange(0, 1e-3)
    assert written == []
    left.setLabel("voltage", units="V")
    left.setRange(0, 1e-3)
    assert "voltage (V)" in written[-1]


@pytest.mark.parametrize("stage", ["enc.0.attn.scores", "enc.0.norm1.hat", "enc.0.ffn.act"])
def test_a_settled_figure_is_painted_once_in_its_final_layout(qapp, stage):
    """pyqtgraph lays a numeric axis's tick text out in its first paint and only then sizes the axis for it, so
    each view painted, relaid out and painted again, two to four times a step. settle() lays the text out first:
    painting a settled figure moves nothing."""
    trace = Model.create(ModelConfig(d_model=8, n_heads=2, decimals=1)).trace("I love AI")
    view = FittedLayoutWidget()
    view.resize(700, 500)
    view.show()
    qapp.processEvents()
    draw_stage(view.ci, trace, stage, PlotOptions())
    view.settle()

    def geometries():
        return [item.geometry() for item in view.scene().items() if isinstance(item, pg.GraphicsWidget)]

    settled = geometries()
    view.viewport().repaint()
    for _ in range(3):
        qapp.processEvents()
    assert geometries() == settled
    view.close()


def _axis_image(axis, paint) -> QImage:
    rect = axis.boundingRect().toRect()
    image = QImage(rect.width() + 4, rect.height() + 4, QImage.Format_ARGB32_Premultiplied)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    painter.translate(2 - rect.x(), 2 - rect.y())
    paint(painter)
    painter.end()
    return image


def _ink_box(image) -> tuple[int, int, int, int]:
    dark = [(x, y) for y in range(image.height()) for x in range(image.width()) if image.pixelColor(x, y).value() < 160]
    xs, ys = [x for x, _ in dark], [y for _, y in dark]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("side", ["left", "bottom"])
def test_an_axis_draws_what_pyqtgraph_draws_from_specs_laid_out_once(qapp, monkeypatch, side):
    """An axis paints its line, ticks and labels straight from its specs (pyqtgraph replays a recorded QPicture, up to
    10× slower for text): the same picture, laid out once until it goes stale."""
    from gui.plots.axis import Axis

    widget = FittedLayoutWidget()
    widget.resize(420, 320)
    plot = new_plot(widget.ci, PlotOptions(font_scale=1.6), row=0, col=0)  # a tick font of its own
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.plot([0, 1, 2, 3], [0.0, 0.35, 0.12, 0.3])
    widget.show()
    plot.getAxis("bottom").set_categories(["The", "cat", "sat", "on"], 0.0)
    plot.setRange(xRange=(-0.5, 3.5), yRange=(0, 0.4), padding=0)
    widget.grab()
    axis = plot.getAxis(side)
    laid_out = []
    generate = Axis.generateDrawSpecs
    monkeypatch.setattr(Axis, "generateDrawSpecs", lambda self, p: laid_out.append(self) or generate(self, p))
    axis.picture = None
    ours = _axis_image(axis, lambda p: axis.paint(p, None, None))
    again = _axis_image(axis, lambda p: axis.paint(p, None, None))
    assert laid_out == [axis] and ours == again  # laid out once, drawn twice alike
    axis.picture = None
    theirs = _axis_image(axis, lambda p: pg.AxisItem.paint(axis, p, None, None))  # recorded, then replayed
    assert abs(np.subtract(_ink_box(ours), _ink_box(theirs))).max() <= 1
    different = sum(ours.pixel(x, y) != theirs.pixel(x, y) for x in range(ours.width()) for y in range(ours.height()))
    assert different <= 0.01 * ours.width() * ours.height()
    axis.setRange(0, 0.8)  # stale: laid out anew at the next paint
    _axis_image(axis, lambda p: axis.paint(p, None, None))
    assert len(laid_out) == 3
    widget.close()


def _drawn(axis, shift: tuple[float, float], draw, scale: float = 1.0) -> QImage:
    """The axis drawn by `draw(painter, *specs)` on a painter shifted by `shift`, then scaled by `scale` (a figure
    shrunk to fit its view is drawn scaled below 1)."""

    def paint(p):
        p.translate(*shift)
        p.scale(scale, scale)
        draw(p, *axis.generateDrawSpecs(p))

    return _axis_image(axis, paint)


@pytest.mark.parametrize(("shift", "scale"), [((2, 2), 1.0), ((2.37, 1.61), 1.0), ((2, 2), 0.67), ((1.3, 2.8), 1.5)])
def test_translucent_grid_lines_are_filled_on_the_pixels_qt_would_draw_them_on(qapp, shift, scale):
    """A number line's translucent ticks and grid lines are filled as rows or columns of pixels (Qt blends a
    translucent line pixel by pixel: 0.5 ms a grid line): the same pixels as pyqtgraph's lines, at any offset and in
    a figure shrunk (or grown) to fit its view; an export's vector painter still draws lines."""
    from gui.plots.axis import fill_grid_lines

    widget = FittedLayoutWidget()
    widget.resize(420, 320)
    plot = new_plot(widget.ci, PlotOptions(), row=0, col=0)
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.plot([0, 1, 2, 3], [0.0, 0.35, 0.12, 0.3])
    plot.setRange(xRange=(-0.3, 3.3), yRange=(0, 0.4), padding=0)
    widget.show()
    widget.grab()
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        ticks, left = [], []
        _drawn(
            axis,
            shift,
            lambda p, line, lines, texts, seen=ticks, kept=left: (
                seen.extend(lines) or kept.extend(fill_grid_lines(p, lines))
            ),
            scale,
        )
        assert len(ticks) >= 4 and all(pen.color().alpha() < 255 for pen, _, _ in ticks)  # the grid, translucent
        assert left == []  # every one filled
        ours = _drawn(axis, shift, axis.drawPicture, scale)
        assert ours == _drawn(axis, shift, partial(pg.AxisItem.drawPicture, axis), scale), side
        if scale != 1.0:  # a vector export's painter (here a recording) scaled: the lines stay lines
            picture = QPicture()
            vector = QPainter(picture)
            vector.scale(scale, scale)
            assert len(fill_grid_lines(vector, ticks)) == len(ticks)
            vector.end()
    widget.close()
