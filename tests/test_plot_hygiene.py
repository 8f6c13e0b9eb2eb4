"""Plot hygiene (issue 13): nothing in a figure reads as a wrong number, no label is dropped, the decimals setting
reaches the plots, nothing is blank, tokens survive HTML titles, and colours mean one thing on one screen.

Each test names the defect a tester found (see the issue) and fails on the code that had it."""

import numpy as np
import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QMenu

from engine import Model, ModelConfig
from engine.formats.lesson import open_lesson
from gui.export.render import offscreen_figure
from gui.plots import PlotOptions, draw_stage
from gui.plots.attention import LinesPanel, RowBarsPanel, ScalePanel
from gui.plots.bars import Bars
from gui.plots.heads import draw_heads
from gui.plots.heatmap import Heatmap, format_cell
from gui.plots.matrix import MatrixPanel
from gui.plots.output import TopKPanel
from gui.plots.scale import scale_for
from gui.plots.style import colormap, new_plot
from gui.plots.view import FittedLayoutWidget, parked
from gui.state.display import DisplaySettings, room_scale_for
from gui.text.numbers import format_number
from tests.figure_checks import axis_specs, drawn_labels, figure_problems, missing_labels, view_problems

NARROW = (620, 440)  # about what a 1280×720 window leaves a figure: where the tester saw −0.54 and lost labels


@pytest.fixture(scope="module")
def lessons():
    return {name: open_lesson(name).trace() for name in ("the-cat-sat", "masked-decoder", "i-love-ai")}


def shown_figure(qapp, trace, stage, opts, size=NARROW):
    """A window-style figure laid out and painted at `size`, as the stage view shows it."""
    view = FittedLayoutWidget()
    view.resize(*size)
    view.figure = draw_stage(view.ci, trace, stage, opts)
    view.show()
    for _ in range(3):
        qapp.processEvents()
        view.grab()
    return view


def panels(figure, kind):
    return [p for p in figure.panels if isinstance(p, kind)]


def problems_of(view):
    view.grab()  # painted once: text items place themselves by their anchors when first painted
    return view_problems(view)


# ---- 1. numbers that read as negative ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (-0.001, 2, "0.00"),
        (-0.004, 2, "0.00"),
        (-0.006, 2, "−0.01"),
        (-0.0004, 3, "0.000"),
        (0.4521, 3, "0.452"),
        (-1.5, 1, "−1.5"),
        (-123.4, 2, "−123"),
    ],
)
def test_a_rounded_zero_never_prints_as_minus_zero(value, decimals, text):
    assert format_cell(value, decimals) == text


def test_the_tables_and_files_never_print_minus_zero_either(qapp):
    settings = DisplaySettings()
    assert settings.format_value(-0.001) == "0.00" and settings.format_value(-0.006) == "−0.01"
    settings.set(decimals=3)
    assert settings.format_value(-0.0004) == "0.000"
    assert format_number(-0.001, 2, style="file") == "0.00"


@pytest.mark.parametrize(
    ("lesson", "stage", "lang"),
    [
        ("the-cat-sat", "enc.0.attn.weights", "en"),
        ("masked-decoder", "dec.0.self_attn.weights", "zh"),
        ("i-love-ai", "enc.0.attn.scores", "zh"),
    ],
)
@pytest.mark.parametrize("slide", [False, True])
def test_no_tick_touches_a_number_and_no_text_overlaps_another(qapp, lessons, lesson, stage, lang, slide):
    """softmax weights of the-cat-sat at 1280×720 read "cat −0.54": the row's tick beside the first number."""
    opts = PlotOptions(lang=lang, slide=slide)
    if slide:
        with offscreen_figure(lessons[lesson], stage, opts) as view:
            assert problems_of(view) == []
        return
    view = shown_figure(qapp, lessons[lesson], stage, opts)
    assert any(p.heatmap.numbers.texts() for p in panels(view.figure, MatrixPanel))
    assert problems_of(view) == []
    view.close()


@pytest.mark.parametrize(("lesson", "lang"), [("masked-decoder", "zh"), ("cross-attention", "en"), ("why-scale", "zh")])
def test_presentation_figures_overlap_nothing_in_a_quarter_of_the_screen(qapp, lesson, lang):
    """Presentation mode at 1920×1080 draws its type 2.1 times larger, and a figure beside wide tables keeps a
    quarter of the width (about 480 × 800 px): the colour bar's end labels fell off the A·V figure, and a bar's
    value touched its neighbour's ("0.040.04"); why-scale's 64 features over z read "0 15 30 4560"."""
    trace = open_lesson(lesson).trace()
    opts = PlotOptions(lang=lang, font_scale=room_scale_for(1920, 1080), tables_shown=True)
    drawn = 0
    for stage in trace.stage_names:
        view = shown_figure(qapp, trace, stage, opts, size=(480, 800))
        if view.figure.panels:
            drawn += 1
            assert problems_of(view) == [], stage
        view.close()
    assert drawn > 10  # (the stages whose figure adds to the tables)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_figure_scaled_down_to_fit_overlaps_nothing(qapp, lessons, lang):
    """At 1280×720 with the Generate and KV cache docks open the stage view leaves its figure about 320 × 350 px,
    and a figure that needs more is scaled down as a whole: pyqtgraph's legends kept their own size, so the two
    legends of "softmax without / with ÷√d_k" ran into each other ("probability gra▆t pro(1-p)ility")."""
    trace, shrunk = lessons["masked-decoder"], 0
    for stage in trace.stage_names:
        view = shown_figure(qapp, trace, stage, PlotOptions(lang=lang), size=(320, 350))
        shrunk += view.scale > 1
        assert problems_of(view) == [], stage
        view.close()
    assert shrunk > 5  # (the figures this test is about: scaled down to fit)


# ---- 2. labels dropped ---------------------------------------------------------------------------------------
def test_every_column_of_the_probabilities_is_named(qapp, lessons):
    """The probs heatmap named 1 of 7 columns (2 of 13 for MiniLM)."""
    wide = Model.create(ModelConfig(architecture="decoder", d_model=8, n_heads=2, decimals=1)).trace(
        " ".join(f"w{i}" for i in range(10))
    )  # 13 words in the vocabulary
    for trace in (lessons["masked-decoder"], wide):
        view = shown_figure(qapp, trace, "probs", PlotOptions(lang="zh"), size=(360, 300))
        heat = panels(view.figure, MatrixPanel)[0].heatmap
        assert len(heat.labels[1]) == len(trace.model.vocabs["dec"].tokens) >= 7
        assert missing_labels(heat.plot, "top", heat.labels[1]) == []
        assert missing_labels(heat.plot, "left", heat.labels[0]) == []
        view.close()


def test_every_bar_is_named_and_a_probability_axis_fits_its_data(qapp, lessons):
    """The top-k bars left bars unnamed, on an axis fixed at 1.1 when the largest value was 0.19."""
    trace = lessons["masked-decoder"]
    view = shown_figure(qapp, trace, "probs", PlotOptions(temperature=5.0), size=(360, 300))
    bars = panels(view.figure, TopKPanel)[0].bars
    heights = bars.items[0].opts["height"]
    assert max(heights) < 0.3  # a flat distribution
    assert missing_labels(bars.plot, "bottom", bars.categories) == [] and len(bars.categories) == len(heights)
    top = bars.plot.vb.viewRange()[1][1]
    assert max(heights) < top < 2 * max(heights)
    assert problems_of(view) == []
    view.close()


def test_a_short_number_line_spaces_its_labels_apart(qapp, lessons):
    """pyqtgraph spaces a number line's labelled ticks for its length alone: a 60 px colour bar printed 0, 0.2, 0.4 …
    1.0 one over the other."""
    from PySide6.QtGui import QFontMetricsF

    from gui.plots.axis import Axis
    from gui.plots.style import font

    tick_font = font(PlotOptions(), "tick")
    for side, label in (("right", QFontMetricsF(tick_font).height()), ("bottom", 0)):
        axis = Axis(side)
        axis.setStyle(tickFont=tick_font)
        for length in (40, 60, 100, 300, 1000):
            (spacing, values), *_ = axis.tickValues(0.0, 1.0, length)
            pitch = label or max(QFontMetricsF(tick_font).horizontalAdvance(f"{v:g}") for v in values)
            assert spacing * length >= pitch, (side, length, values)
    view = shown_figure(qapp, lessons["masked-decoder"], "probs", PlotOptions(), size=(360, 300))
    assert problems_of(view) == []  # its heatmap's colour bar is 60 px
    view.close()


def _cells(layout) -> list[tuple[int, int]]:
    return sorted(cell for cells in layout.items.values() for cell in cells)


@pytest.mark.parametrize(
    ("lesson", "stage"),
    [
        ("the-cat-sat", "enc.x0"),
        ("the-cat-sat", "enc.0.attn.z"),
        ("the-cat-sat", "enc.0.ffn.up"),
        ("masked-decoder", "probs"),
    ],
)
def test_panels_side_by_side_stand_one_under_the_other_in_a_narrow_view(qapp, lessons, lesson, stage):
    """A 1280×720 window leaves a figure about 370 × 400 px: E, PE and their sum side by side were strips, a 6 × 8
    heatmap's cells 11 px wide and 60 px tall; the probabilities' heatmap beside the bars, 12 px wide. Stacked, a
    heatmap takes the figure's width, a small matrix's cells wider than tall; side by side again when it widens."""
    view = shown_figure(qapp, lessons[lesson], stage, PlotOptions(), size=(370, 400))
    n = len(view.ci.items)
    assert n >= 2 and _cells(view.ci) == [(r, 0) for r in range(n)]
    for panel in panels(view.figure, MatrixPanel):  # the figure's width, not a strip of it
        rows, cols = panel.heatmap.shape
        assert panel.heatmap.plot.vb.width() > 0.6 * view.width()
        if cols <= 8:
            assert panel.heatmap.plot.vb.width() / cols >= panel.heatmap.plot.vb.height() / rows
    assert problems_of(view) == []
    view.resize(1100, 400)
    for _ in range(3):
        qapp.processEvents()
        view.grab()
    assert _cells(view.ci) == [(0, c) for c in range(n)]
    assert problems_of(view) == []
    view.close()


def test_bars_compared_side_by_side_share_their_axis(qapp, lessons):
    view = shown_figure(qapp, lessons["the-cat-sat"], "enc.0.attn.scaled", PlotOptions(), size=(700, 520))
    scale = panels(view.figure, ScalePanel)[0]
    assert scale.unscaled.plot.vb.viewRange()[1] == pytest.approx(scale.scaled.plot.vb.viewRange()[1])
    view.close()


def test_attention_lines_name_every_word_unclipped_with_a_legend_of_heads(qapp, lessons):
    """The lines plots clipped words ("ove", "莫型"), let them collide in exports ("love|love") and gave the
    all-heads colours no legend."""
    trace = lessons["the-cat-sat"]
    for slide in (False, True):
        with offscreen_figure(trace, "enc.0.attn.weights", PlotOptions(slide=slide), size=(900, 520)) as view:
            for lines in panels(view.figure, LinesPanel):
                words = trace.tokens["enc"]
                assert drawn_labels(lines.plot, "left") == words and drawn_labels(lines.plot, "right") == words
            every = [p for p in panels(view.figure, LinesPanel) if p.all_heads][0]
            legend = every.plot.legend
            names = [label.text for _, label in legend.items]
            assert names == ["head 0", "head 1"]
            assert problems_of(view) == []


# ---- 3. the decimals setting reaches the plots ---------------------------------------------------------------
def test_the_plots_print_the_decimals_the_tables_do(qapp, lessons):
    """The table showed 0.452 and the bar 0.45."""
    trace = lessons["the-cat-sat"]
    view = shown_figure(qapp, trace, "enc.0.attn.weights", PlotOptions(decimals=3), size=(1000, 700))
    heat = panels(view.figure, MatrixPanel)[0].heatmap
    w = trace["enc.0.attn.weights"][0].numpy()
    assert heat.numbers.texts() == [f"{v:.3f}" for v in w.ravel()]
    bars = panels(view.figure, RowBarsPanel)[0].bars
    assert [item.textItem.toPlainText() for item in bars.labels] == [f"{v:.3f}" for v in w[0]]
    assert "1.000" in bars.plot.titleLabel.text
    view.close()


def test_the_window_and_the_command_line_pass_the_decimals_on(qtbot):
    from gui.cli import plot_options
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "the-cat-sat")
    state = window.state
    state.set_cursor(state.stage_names.index("enc.0.attn.weights"))
    state.display.set(decimals=4)  # View ▸ Decimals
    window.stage_view.draw_plots()
    heat = next(p.heatmap for p in window.stage_view.figure.panels if isinstance(p, MatrixPanel))
    assert heat.cells and all(len(text.split(".")[1]) == 4 for _, _, text, _ in heat.cells)  # what its numbers say
    assert state.display.plot_options(slide=True).decimals == 4  # the figure and deck exports
    args = type("Args", (), dict(head=0, row=0, temperature=1.0, colormap="default", decimals=3))()
    assert plot_options(args, state.trace, "en").decimals == 3  # export --decimals 3


# ---- 4. nothing blank ------------------------------------------------------------------------------------------
def test_the_kv_cache_dock_keeps_room_for_its_plots_after_generating(qtbot):
    """After Generate at 1280×720 the K/V heatmaps shrank to a 3 px strip and the multiply-adds chart was empty."""
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "masked-decoder")
    window.resize(1280, 720)
    views = window.teaching
    views.generation.generate_action.trigger()
    qtbot.waitUntil(views.generation_dock.isVisible)
    if not views.kv_dock.isVisible():  # floating over the stage view, the two take turns (gui/docks/placement.py)
        views.kv_action.trigger()
    qtbot.waitUntil(lambda: views.kv_dock.isVisible() and views.kv_cache.rows() == 6)
    plot = views.kv_cache.plot
    for _ in range(3):
        qtbot.wait(1)
        plot.grab()
    for item in plot.scene().items():
        if isinstance(item, pg.ViewBox) and not parked(item) and not isinstance(item.parentItem(), pg.ColorBarItem):
            rect = plot.mapFromScene(item.sceneBoundingRect()).boundingRect()
            assert rect.height() >= 24 and rect.width() >= 24, rect
    heights = [item.opts["height"] for item in views.kv_cache.macs.bars.items]
    assert all(np.all(np.asarray(h) > 0) for h in heights)
    assert drawn_labels(views.kv_cache.macs.bars.plot, "bottom") == window.state.trace.tokens["dec"]


# ---- 5. tokens in titles ---------------------------------------------------------------------------------------
def titles(scene) -> list[tuple[str, str]]:
    """(HTML, the text shown) of every title shown in a scene."""
    found = []
    for item in scene.items():
        if isinstance(item, pg.LabelItem) and item.text and item.isVisible() and not parked(item):
            document = QTextDocument()
            document.setHtml(item.text)
            found.append((item.text, document.toPlainText()))
    return found


def test_start_survives_every_title_and_caption(qapp, lessons):
    """<start> vanished from plot titles: a token put into their HTML unescaped."""
    trace = lessons["masked-decoder"]
    view = pg.GraphicsLayoutWidget()
    seen = 0
    for name in trace.stage_names:
        for draw in (draw_stage, draw_heads):
            try:
                draw(view.ci, trace, name, PlotOptions(lang="zh", slide=True))
            except KeyError:  # no heads to show
                continue
            for html, shown in titles(view.scene()):
                assert "&lt;" not in shown and "&amp;" not in shown, (name, html)
                if "start" in html:
                    assert "<start>" in shown, (name, html)
                    seen += 1
    assert seen > 10
    view.close()


# ---- 6. colours that mean one thing ----------------------------------------------------------------------------
def test_each_kind_of_number_gets_its_kind_of_map(qapp, lessons):
    cat, love = lessons["the-cat-sat"], lessons["i-love-ai"]
    assert not scale_for("norm.var", cat["enc.0.norm1.var"].numpy()).signed  # variance: sequential
    assert scale_for("attn.weights") == scale_for("probs") and not scale_for("probs").signed
    assert (scale_for("probs").lo, scale_for("probs").hi) == (0.0, 1.0)
    assert scale_for("attn.scores", cat["enc.0.attn.scores"].numpy()).signed  # signed scores: diverging on 0
    assert (love["enc.0.attn.scores"] >= 0).all()
    assert not scale_for("attn.scores", love["enc.0.attn.scores"].numpy()).signed  # all-positive: sequential
    signed = scale_for("attn.scores", cat["enc.0.attn.scores"].numpy())
    assert signed.lo == -signed.hi
    view = pg.GraphicsLayoutWidget()
    for stage, sequential in (("enc.0.norm1.var", True), ("enc.0.attn.weights", True), ("enc.0.attn.scores", False)):
        figure = draw_stage(view.ci, cat, stage, PlotOptions())
        heat = panels(figure, MatrixPanel)[0].heatmap
        assert heat.scale.signed != sequential
        assert heat.bar.colorMap().name == colormap(PlotOptions(), not sequential).name
    view.close()


def test_token_ids_are_a_labelled_table_not_a_heatmap(qapp, lessons):
    trace = lessons["the-cat-sat"]
    view = shown_figure(qapp, trace, "enc.tokens", PlotOptions(), size=(600, 400))
    heat = panels(view.figure, MatrixPanel)[0].heatmap
    assert heat.bar is None  # no colour bar: ids are not amounts
    colors = {tuple(c) for c in heat.image.getColorMap().getLookupTable(nPts=8)}
    assert len(colors) == 1  # one plain colour for every cell
    ids = [str(int(i)) for i in trace["enc.tokens"]]
    assert heat.numbers.texts() == ids
    assert drawn_labels(heat.plot, "left") == trace.tokens["enc"]
    view.close()


@pytest.mark.parametrize("stage", ["enc.x0", "enc.0.add1"])
def test_the_panels_of_one_equation_share_one_scale(qapp, lessons, stage):
    """E + PE = X drew each panel on its own scale: one colour meant three values."""
    trace = lessons["the-cat-sat"]
    view = pg.GraphicsLayoutWidget()
    figure = draw_stage(view.ci, trace, stage, PlotOptions())
    maps = [p.heatmap for p in panels(figure, MatrixPanel)]
    assert len(maps) == 3 and len({m.scale for m in maps}) == 1
    parts = [trace[name].numpy() for name in (*trace.stage(stage).inputs, stage)]
    top = max(np.abs(p).max() for p in parts)
    assert maps[0].scale.hi == pytest.approx(top)
    assert sum(m.bar is not None for m in maps) == 1  # one colour bar for the three
    view.close()


@pytest.mark.parametrize("step", ["mean", "var", "hat"])
def test_x_and_its_mean_share_one_scale_in_layernorms_steps(qtbot, step):
    """μ = 1.4 was as yellow as x's 3.6 (masked-decoder, the mean of each row), each table on its own scale: x and
    μ are subtracted (x − μ), one colour is one number for both; σ² and x_norm keep their own."""
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    stage = f"dec.0.norm1.{step}"
    state.set_cursor(state.stage_names.index(stage))
    view = window.stage_view
    qtbot.waitUntil(lambda: view.output.model.slice.name == stage)
    models = {p.model.slice.name: p.model for p in view.panels() if not p.isHidden()}
    x, mean = models["dec.0.add1"], models["dec.0.norm1.mean"]
    top = max(np.abs(state.trace["dec.0.add1"].numpy()).max(), np.abs(state.trace["dec.0.norm1.mean"].numpy()).max())
    assert x.scale == mean.scale and x.scale.hi == pytest.approx(top)
    if step == "var":
        assert models["dec.0.norm1.var"].scale != x.scale


def plot_color(heat: Heatmap, value: float):
    lo, hi = heat.scale.lo, heat.scale.hi
    return heat.bar.colorMap().map((value - lo) / (hi - lo), mode="byte")[:3]


@pytest.mark.parametrize(
    ("lesson", "stage"),
    [
        ("the-cat-sat", "enc.0.attn.weights"),
        ("the-cat-sat", "enc.x0"),
        ("the-cat-sat", "enc.0.norm1.var"),
        ("i-love-ai", "enc.0.attn.scores"),
        ("masked-decoder", "dec.0.norm1.mean"),
    ],
)
@pytest.mark.parametrize("colormap_name", ["default", "cb-safe"])
def test_a_table_and_its_plot_give_one_number_one_colour(qtbot, lesson, stage, colormap_name):
    """Tables used hand-blended ramps while plots used CET-D1/viridis: one number, two colours on one screen."""
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, lesson)
    state = window.state
    state.display.set(colormap=colormap_name)
    state.set_cursor(state.stage_names.index(stage))
    window.stage_view.draw_plots()
    heat = next(p.heatmap for p in window.stage_view.figure.panels if isinstance(p, MatrixPanel) and p.name == stage)
    model = window.stage_view.output.model
    values = model.shown.numpy()
    for r in range(values.shape[0]):
        for c in range(values.shape[1]):
            table = model.color(r, c)
            expected = plot_color(heat, float(values[r, c]))
            assert max(abs(int(a) - int(b)) for a, b in zip((table.red(), table.green(), table.blue()), expected)) <= 6
    ink = model.ink(0, 0)
    assert ink.name() in ("#000000", "#ffffff")
    torch.testing.assert_close(
        torch.tensor([model.scale.lo, model.scale.hi]), torch.tensor([heat.scale.lo, heat.scale.hi]), check_dtype=False
    )


def test_bars_are_named_even_when_crowded(qapp):
    """Sixty-four bars in a narrow plot: every one named (the labels turn and shrink), none thinned out."""
    view = pg.GraphicsLayoutWidget()
    view.resize(500, 300)
    bars = Bars(view.ci, PlotOptions(), 0, 0, [("", pg.mkColor("b"))])
    names = [f"tok{i}" for i in range(64)]
    bars.set(names, [np.linspace(0, 1, 64)], PlotOptions(), "")
    view.show()
    for _ in range(3):
        qapp.processEvents()
        view.grab()
    assert drawn_labels(bars.plot, "bottom") == names
    assert bars.plot.getAxis("bottom").plan.rotated
    assert figure_problems(view.scene()) == []
    view.close()


@pytest.mark.parametrize("size", [NARROW, (340, 400)])
def test_no_axis_label_is_cut_at_the_end_of_its_axis(qapp, lessons, size):
    """The labels of a number line (features 0, 10, 20, 30 of H [6×32]) stand centred on their columns: in a narrow
    heatmap the first and last ran past the ends of the axis, which clips them ("0" drawn half)."""
    trace = lessons["the-cat-sat"]
    view = shown_figure(qapp, trace, "enc.0.ffn.up", PlotOptions(), size)
    checked = 0
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem) and getattr(item, "categories", None) and item.isVisible():
            bounds = item.sceneBoundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
            labels, _ = axis_specs(item)
            outside = [text for text, rect in labels if not bounds.contains(rect)]
            assert outside == [], (item.orientation, outside)
            checked += len(labels)
    assert checked >= 6 + 4  # the tokens and the features
    view.close()


def test_a_plot_makes_no_windows_and_keeps_its_options(qapp):
    """pyqtgraph gives every PlotItem a menu of plot options, seven pop-up windows of 30 widgets, even with its menu
    off; a language switch sends every window an event that each hands on to its children (the figures kept per
    stage and language held 480 such menus). A plot leaves no window now, its option widgets hear no language
    switch, and the options PlotItem reads from them (the grid, a curve's averaging) still work."""

    class Heard(QObject):
        count = 0

        def eventFilter(self, _obj, event) -> bool:
            self.count += event.type() == QEvent.Type.LanguageChange
            return False

    before = set(QApplication.topLevelWidgets())
    view = FittedLayoutWidget()
    plots = [new_plot(view.ci, PlotOptions(), row=i, col=0) for i in range(3)]
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert [w for w in QApplication.topLevelWidgets() if w not in before and isinstance(w, QMenu)] == []
    plots[0].showGrid(x=True, y=True, alpha=0.3)
    plots[0].plot([0.0, 1.0, 0.5])
    assert plots[0].ctrl.xGridCheck.isChecked()
    heard = Heard()
    plots[0].ctrl.xGridCheck.installEventFilter(heard)
    QApplication.sendEvent(QApplication.instance(), QEvent(QEvent.Type.LanguageChange))
    QApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    assert heard.count == 0
    view.deleteLater()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_number_line_labels_its_end_values_in_from_the_ends_rather_than_leave_them_out(qapp, lang):
    """The What if dock's d_k axis (2 … 256) read 2 … 128 and its y axis began at 0.2: a label centred on a tick at
    an end of the axis ran past it and was left out. It is drawn in from the end now, whole, overlapping nothing."""
    view = FittedLayoutWidget()
    view.resize(700, 600)
    plot = new_plot(view.ci, PlotOptions(lang=lang), row=0, col=0)
    plot.plot([0, 20, 40, 60, 80, 100], [0.5, 0.6, 0.7, 0.8, 0.9, 0.96])
    plot.setYRange(0, 1, padding=0)
    plot.setXRange(0, 100, padding=0)
    view.show()
    for _ in range(3):
        qapp.processEvents()
        view.grab()
    for side, ends in (("bottom", ("0", "100")), ("left", ("0", "1"))):
        axis = plot.getAxis(side)
        labels, _ = axis_specs(axis)
        texts = [text.replace(".0", "") for text, _ in labels]
        assert all(end in texts for end in ends), (side, texts)
        bounds = axis.sceneBoundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        assert all(bounds.contains(rect) for _, rect in labels)
        rects = [rect for _, rect in labels]
        assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
    view.close()


def test_a_legend_writes_a_long_period_in_digits(qapp, lessons):
    """The positional encoding's legend read "sin 6 (period 6.28e+03)" beside "period 628": plain digits."""
    trace = lessons["the-cat-sat"]
    view = shown_figure(qapp, trace, "enc.pos", PlotOptions())
    names = [label.text for item in view.scene().items() if isinstance(item, pg.LegendItem) for _, label in item.items]
    assert any("6,283" in name for name in names) and not any("e+" in name for name in names), names


@pytest.mark.parametrize("size", [(472, 891), (480, 800), (420, 700)])
def test_a_number_line_of_64_features_reads_as_numbers(qapp, size):
    """why-scale's weighted sum in presentation mode at 1920×1080 (its figure 472 × 891 px): the 64 features over z read
    "0 15 30 4560", the last label, moved in from the axis's end, drawn against its neighbour."""
    trace = open_lesson("why-scale").trace()
    opts = PlotOptions(lang="zh", font_scale=room_scale_for(1920, 1080), tables_shown=True)
    view = shown_figure(qapp, trace, "enc.0.attn.z", opts, size=size)
    assert problems_of(view) == []
    view.close()


def test_a_thinned_number_line_never_runs_two_numbers_together(qapp):
    """Features 0 … 63 over a heatmap of any width, at presentation type: the last label shown, held in at the
    axis's end, stood against the one before it in why-scale's weighted sum ("0 15 30 4560")."""
    opts = PlotOptions(font_scale=room_scale_for(1920, 1080))
    found = []
    for width in range(150, 420, 3):
        view = pg.GraphicsLayoutWidget()
        view.resize(width, 260)
        heat = Heatmap(view.ci, opts, True, 0, 0, colorbar=False)
        heat.set(np.zeros((3, 64)), ["a", "b", "c"], [str(i) for i in range(64)], opts, "")
        view.show()
        for _ in range(3):
            qapp.processEvents()
            view.grab()
        found += [f"{width} px: {problem}" for problem in figure_problems(view.scene()) if "one number" in problem]
        view.close()
    assert found == []
