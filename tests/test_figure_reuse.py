"""A figure drawn for one trace and refreshed with another of the same build key (a what-if switch, its undo, an
edited weight) shows exactly what a figure drawn anew for that trace shows: every item's numbers, text, colours,
ticks and ranges. Checked for every stage (backward ones too) and every head grid of two lessons."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
import shiboken6
import torch
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsTextItem,
)

from engine.formats.lesson import open_lesson
from engine.model import Model
from engine.training.shown_trace import ShownTrace
from gui.plots import PlotOptions, draw_stage, figure_build_key
from gui.plots.heads import draw_heads
from gui.plots.heatmap import CellNumbers
from gui.plots.pyqtgraph_compat import fixed_tick_levels
from gui.plots.view import FigureCache, FittedLayoutWidget
from gui.text.operations import stage_operation

# (lesson, the switch trace B turns on, the weight B changes): B's numbers differ from A's at every stage
CASES = [("two-heads", "no_scale", "enc.embed.W_E"), ("cross-attention", "no_mask", "dec.embed.W_E")]
SIZE = (900, 640)


def traces(lesson_name: str, switch: str, weight: str) -> tuple[ShownTrace, ShownTrace]:
    lesson = open_lesson(lesson_name)
    model = lesson.build_model()
    other = model.with_config(model.config.replace(switches=(*model.config.switches, switch)))
    other = Model(other.config, {**other.params, weight: other.params[weight] * 1.5 + 0.25}, other.vocabs)
    return (ShownTrace(model.trace(lesson.text, lesson.target)), ShownTrace(other.trace(lesson.text, lesson.target)))


def _value(item) -> object:
    """What one graphics item shows, as plain values."""
    if isinstance(item, pg.ImageItem):
        return item.image, item.levels, item.lut
    if isinstance(item, pg.BarGraphItem):
        o = item.opts
        return o["x"], o["height"], o["width"], [pg.mkBrush(b).color().name() for b in o.get("brushes") or []]
    if isinstance(item, pg.ErrorBarItem):
        return item.opts["x"], item.opts["y"], item.opts["height"]
    if isinstance(item, (pg.PlotCurveItem, pg.ScatterPlotItem)):
        return item.getData()
    if isinstance(item, pg.InfiniteLine):
        return item.value()
    if isinstance(item, pg.AxisItem):
        return item.isVisible(), fixed_tick_levels(item), item.labelText, tuple(item.range)
    if isinstance(item, pg.ViewBox):
        return np.round(np.array(item.viewRange()), 6)
    if isinstance(item, QGraphicsTextItem):
        return item.toHtml(), item.defaultTextColor().name()
    if isinstance(item, CellNumbers):  # a heatmap's cell numbers
        return [(x, y, text, ink.name()) for x, y, text, ink in item.cells], item.area, item.font.key()
    if isinstance(item, QGraphicsRectItem):
        pen = item.pen()
        return item.rect(), item.brush().color().name(), item.brush().style(), pen.color().name(), pen.widthF()
    if isinstance(item, QGraphicsLineItem):
        pen = item.pen()
        return item.line(), pen.color().name(pen.color().NameFormat.HexArgb), pen.widthF()
    if isinstance(item, QGraphicsPixmapItem):
        return item.pixmap().toImage()
    return None


def describe(layout: pg.GraphicsLayout) -> list[tuple]:
    """Every item shown under the layout, in order: its type and what it shows (hidden items show nothing: a
    refreshed figure may keep hidden cell numbers that one drawn anew never made)."""
    found, todo = [], [layout]
    while todo:
        item = todo.pop(0)
        if item.isVisible():
            found.append((type(item).__name__, _value(item)))
            todo[:0] = item.childItems()
    return found


def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if a is None or b is None:
            return a is b
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and np.allclose(a, b, equal_nan=True, rtol=1e-9, atol=1e-12)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def assert_same(got: list[tuple], expected: list[tuple], what: str) -> None:
    assert len(got) == len(expected), f"{what}: {len(got)} items, drawn anew {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        assert same(g, e), f"{what}: item {k} ({g[0]}) differs\n refreshed: {g}\n drawn anew: {e}"


@pytest.fixture
def views(qapp):
    """Two plot areas of the same size: one refreshed, one drawn anew."""
    pair = [pg.GraphicsLayoutWidget() for _ in range(2)]
    for view in pair:
        view.resize(*SIZE)
        view.show()
    yield pair
    for view in pair:
        view.close()


def compare(qapp, views, draw, a, b, name: str, opts: PlotOptions) -> None:
    refreshed, anew = (pg.GraphicsLayout() for _ in views)
    for view, layout in zip(views, (refreshed, anew)):
        view.setCentralItem(layout)
    draw(refreshed, a, name, opts).refresh(b, opts)
    draw(anew, b, name, opts)
    qapp.processEvents()  # both laid out at the same size (ticks and numbers fit to it)
    assert_same(describe(refreshed), describe(anew), name)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_figure_refreshed_with_a_trace_of_its_build_key_equals_one_drawn_for_it(qapp, views, case):
    torch.set_num_threads(1)
    a, b = traces(*case)
    opts = PlotOptions(head=1, row=1)
    reused = [name for name in a.stage_names if figure_build_key(a, name) == figure_build_key(b, name)]
    assert len(reused) > 0.9 * len(a.stage_names)  # the switch changes numbers only: nearly every figure is kept
    for name in reused:
        compare(qapp, views, draw_stage, a, b, name, opts)
        if stage_operation(a, name).heads:  # the head grid's figure too
            compare(qapp, views, draw_heads, a, b, name, opts)


def test_a_switch_that_changes_a_stage_s_panels_changes_its_build_key():
    lesson = open_lesson("positional-encoding")
    model = lesson.build_model()
    off = model.trace(lesson.text)
    on = model.with_config(model.config.replace(switches=("no_pe",))).trace(lesson.text)
    assert figure_build_key(off, "enc.pos") != figure_build_key(on, "enc.pos")  # the wave panel goes
    assert figure_build_key(off, "enc.0.attn.q") == figure_build_key(on, "enc.0.attn.q")


def test_figures_let_go_are_deleted_at_once_not_by_the_garbage_collector(qapp):
    """A teardown's garbage collection cleared a cached figure's attributes while deleting its items, and Qt asked
    a half-cleared LabelItem for its size hint (an error in the Qt event loop). The cache deletes the figures it
    lets go itself: the oldest when full, every one when its view goes."""
    view = FittedLayoutWidget()
    cache = FigureCache(view, limit=2)
    layouts = []

    def draw(layout):
        layouts.append(layout)
        layout.addLabel("a title")
        return object()

    for key in range(3):
        cache.show(key, draw, lambda figure: None)
    assert not shiboken6.isValid(layouts[0])  # the oldest, let go
    assert shiboken6.isValid(layouts[1]) and shiboken6.isValid(layouts[2])
    shiboken6.delete(view)  # the window goes
    assert not shiboken6.isValid(layouts[1])  # kept, not shown: deleted with its view
    assert not shiboken6.isValid(layouts[2])  # shown: deleted with the scene


def test_a_figure_swapped_out_waits_in_its_scene_out_of_sight(qapp, monkeypatch):
    """A figure swapped out was taken out of the scene and put back when shown again: each of its items was told of
    its new scene (pyqtgraph disconnected it from the view and connected it again) and lost its paint cache. Now it
    waits in the scene, parked: laid out as it was, never painted, under no mouse, and shown again without any of its
    items changing scene. A figure the cache lets go while shown goes once another is shown."""
    from gui.plots.axis import Axis
    from gui.plots.view import figure_items, parked

    lesson = open_lesson("two-heads")
    trace = ShownTrace(lesson.build_model().trace(lesson.text))
    view = FittedLayoutWidget()
    view.resize(*SIZE)
    view.show()
    cache = FigureCache(view)
    stages = ("enc.0.attn.weights", "enc.0.norm1.out")
    for stage in stages:
        cache.show(stage, lambda layout, s=stage: draw_stage(layout, trace, s, PlotOptions()))
        view.grab()
    first = cache.figures[stages[0]][0]

    def inner_geometries() -> list:  # (the figure's own: it is placed as a whole)
        return [item.geometry() for item in figure_items(first)[1:] if isinstance(item, pg.GraphicsWidget)]

    geometries = inner_geometries()
    assert first.scene() is view.scene() and parked(first) and not parked(view.ci)
    assert not first.sceneBoundingRect().intersects(view.sceneRect())  # under no mouse
    painted = []
    for item in view.scene().items():  # (painted from their caches, the axes of the figure shown paint nothing)
        if isinstance(item, pg.AxisItem):
            item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    draw_picture = Axis.drawPicture
    monkeypatch.setattr(Axis, "drawPicture", lambda self, *args: painted.append(self) or draw_picture(self, *args))
    view.grab()
    assert painted and all(not parked(axis) for axis in painted)  # the figure shown is painted, the parked one not
    moved = []
    change_parent = pg.GraphicsItem.changeParent
    monkeypatch.setattr(pg.GraphicsItem, "changeParent", lambda self: moved.append(self) or change_parent(self))
    cache.show(stages[0], lambda layout: pytest.fail("drawn anew"))
    assert view.ci is first and not parked(first) and moved == []
    assert inner_geometries() == geometries  # (not laid out anew while it waited)
    cache.discard()  # (presentation mode: every figure let go, the one shown once another is shown)
    assert shiboken6.isValid(first)
    cache.show("new", lambda layout: layout.addLabel("a title"))
    assert not shiboken6.isValid(first)
    view.close()


def test_a_figure_shown_again_keeps_its_scale_and_its_axes_laid_out(qapp, monkeypatch):
    """A cached figure swapped back into a view of the same size (a step back, a language switched back) is shown at
    the scale it was fitted to: it was first set to the geometry of the figure shown before it, which relaid out every
    axis, then fitted back (the cost dock's ten axes at each language switch)."""
    from gui.plots.axis import Axis

    lesson = open_lesson("two-heads")
    trace = ShownTrace(lesson.build_model().trace(lesson.text))
    view = FittedLayoutWidget()
    view.resize(300, 220)  # small: each figure shrunk to fit, by its own scale
    view.show()
    cache = FigureCache(view)
    for stage in ("enc.0.attn.weights", "enc.0.norm1.out"):
        cache.show(stage, lambda layout, s=stage: draw_stage(layout, trace, s, PlotOptions()))
        view.grab()
    for _ in range(10):  # (its fit, left to the event loop)
        qapp.processEvents()
    first = view.scale
    again = view.grab()
    laid_out = []
    generate = Axis.generateDrawSpecs
    monkeypatch.setattr(Axis, "generateDrawSpecs", lambda self, p: laid_out.append(self) or generate(self, p))
    cache.show("enc.0.attn.weights", lambda layout: pytest.fail("drawn anew"))
    shown_before = view.scale
    cache.show("enc.0.norm1.out", lambda layout: pytest.fail("drawn anew"))
    assert view.scale == first and shown_before != first  # (each its own scale)
    assert view.grab().toImage() == again.toImage()
    assert [axis for axis in laid_out if isinstance(axis.parentItem(), pg.PlotItem)] == []  # (a colour bar's: one)
    view.close()


@pytest.mark.parametrize("redraw", ["stage", "whatif", "map", "heads"])
def test_a_figure_drawn_over_another_deletes_the_old_ones_items_at_once(qapp, redraw):
    """The docks draw a new figure into the layout they show (a what-if tab for a new sentence, the map for a new
    model): the old figure's items, taken out of the scene, are deleted then, not left alive to the collector."""
    from gui.plots.map import MapFigure
    from gui.plots.whatif import draw_whatif

    lesson = open_lesson("two-heads")
    trace = ShownTrace(lesson.build_model().trace(lesson.text))
    draw = {
        "stage": lambda layout: draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions()),
        "whatif": lambda layout: draw_whatif(layout, trace, "no_scale", PlotOptions()),
        "map": lambda layout: MapFigure(layout, trace, PlotOptions(), ("map",)),
        "heads": lambda layout: draw_heads(layout, trace, "enc.0.attn.weights", PlotOptions()),
    }[redraw]
    view = FittedLayoutWidget()
    view.resize(*SIZE)
    draw(view.ci)
    old = list(view.ci.items)
    assert old and all(shiboken6.isValid(item) for item in old)
    draw(view.ci)
    assert not any(shiboken6.isValid(item) for item in old)
    assert all(shiboken6.isValid(item) and item.scene() is view.scene() for item in view.ci.items)
    view.close()


# (lesson, source and target of trace A, of trace B): other words and other counts, as generating a token makes
SENTENCES = [
    ("two-heads", ("I love AI", ""), ("AI love I love", "")),
    ("two-heads", ("I love AI", ""), ("AI", "")),
    ("masked-decoder", ("我 爱 大 模型", ""), ("我 爱 大 模型 我", "")),
    ("cross-attention", ("I love", "我 爱"), ("I love AI", "我")),
    ("positional-encoding", ("狗 咬 人", ""), ("人 咬 狗 人", "")),
    ("flash-attention", ("the cat sat on mat", ""), ("the cat sat on mat the", "")),
]


@pytest.mark.parametrize("case", SENTENCES, ids=[f"{c[0]}-{len(c[2][0].split())}" for c in SENTENCES])
def test_a_figure_refreshed_with_another_sentence_equals_one_drawn_for_it(qapp, views, case):
    """Tokens are numbers to a figure: one drawn for a sentence and refreshed for another (a generated token, a
    sentence typed) shows what one drawn anew shows, its labels and the number of its rows included."""
    torch.set_num_threads(1)
    lesson_name, (text_a, target_a), (text_b, target_b) = case
    model = open_lesson(lesson_name).build_model()
    a, b = ShownTrace(model.trace(text_a, target_a)), ShownTrace(model.trace(text_b, target_b))
    opts = PlotOptions(head=1, row=0)
    kept = [n for n in b.stage_names if n in a.stage_names and figure_build_key(a, n) == figure_build_key(b, n)]
    rebuilt = {b.stage(n).op for n in b.stage_names if n not in kept}
    assert all("tiled" in op for op in rebuilt), rebuilt  # a tile more (flash attention), forward and backward
    for name in kept:
        compare(qapp, views, draw_stage, a, b, name, opts)
        if stage_operation(a, name).heads:
            compare(qapp, views, draw_heads, a, b, name, opts)
