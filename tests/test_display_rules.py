"""The display rules held where figures are built (issue 46): the panels and tables of one equation share one colour
scale, declared once per operation (gui/text/operations.py, shares_scale; gui/plots/scale.py, shared_scale)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from engine import Model, ModelConfig
from engine.formats.lesson import open_lesson, shipped_lessons
from gui.plots import PlotOptions, draw_stage
from gui.plots.bars import add_legend
from gui.plots.heads import draw_heads
from gui.plots.heatmap import Heatmap, format_cell
from gui.plots.matrix import MatrixPanel
from gui.plots.output import LARGE_VOCABULARY, TOP_K, TopKPanel
from gui.plots.scale import shared_scale_names
from gui.plots.style import color, new_plot
from gui.plots.tiles import TileMapPanel, TilePanel
from gui.plots.view import FittedLayoutWidget
from gui.state.app_state import AppState
from gui.text.operations import operation
from gui.views.head_colors import head_tint
from tests.figure_checks import missing_labels, rule_problems, view_problems


@pytest.fixture(scope="module")
def traces():
    return {info.name: open_lesson(info.name).trace() for info in shipped_lessons()}


def heatmaps(figure) -> dict[str, Heatmap]:
    """The figure's heatmaps by the tensor each draws (the tile map: the attention's full masked scores)."""
    found = {}
    for panel in figure.panels:
        if isinstance(panel, MatrixPanel | TilePanel):
            found[panel.name] = panel.heatmap
        elif isinstance(panel, TileMapPanel):
            found[panel.name.split(".tiled.", 1)[0] + ".masked"] = panel.heatmap
    return found


def test_scores_and_scaled_share_one_scale(qapp, traces):
    """scores and scaled = scores/√d_k were each on their own scale: 32 and 4 both yellow, the shrink invisible."""
    trace = traces["why-scale"]
    stage = next(st for st in trace.stages if st.op == "attn.scaled")
    view = pg.GraphicsLayoutWidget()
    figure = draw_stage(view.ci, trace, stage.name, PlotOptions())
    scaled = heatmaps(figure)[stage.name]
    scores = trace[stage.inputs[0]][0].numpy()
    assert np.abs(scores).max() > 1.5 * np.abs(trace[stage.name][0].numpy()).max()  # (the shrink to see)
    assert scaled.scale.hi == pytest.approx(float(np.abs(scores).max()))
    view.close()


def test_a_tile_and_the_full_scores_beside_it_share_one_scale(qapp, traces):
    """flash-attention coloured the same 1.35 differently in the tile and in the full scores it is outlined in."""
    trace = traces["flash-attention"]
    view = pg.GraphicsLayoutWidget()
    tiles = [st.name for st in trace.stages if st.op in ("attn.tiled.scores", "attn.tiled.m")]
    assert tiles
    for name in tiles:
        maps = heatmaps(draw_stage(view.ci, trace, name, PlotOptions()))
        assert maps[name].scale == maps[name.split(".tiled.", 1)[0] + ".masked"].scale, name
    view.close()


def test_every_shared_scale_is_drawn_as_one_over_every_lesson(qapp, traces):
    """Every stage of every shipped lesson whose operation declares a shared scale draws each of its tensors that
    it shows as a heatmap on that one scale."""
    view = pg.GraphicsLayoutWidget()
    checked = set()
    for lesson, trace in traces.items():
        for st in trace.stages:
            if operation(st.op).shares_scale is None or (st.op, lesson) in checked:
                continue
            checked.add((st.op, lesson))
            names = shared_scale_names(trace, st.name)
            maps = heatmaps(draw_stage(view.ci, trace, st.name, PlotOptions()))
            scales = {name: maps[name].scale for name in names if name in maps}
            assert len(set(scales.values())) <= 1, (lesson, st.name, scales)
    assert {op for op, _ in checked} >= {"add", "attn.scaled", "attn.masked", "attn.tiled.scores", "attn.tiled.m"}
    view.close()


@pytest.mark.parametrize("op", ["attn.scaled", "attn.tiled.m", "attn.tiled.l"])
def test_the_tables_of_one_equation_share_one_scale(qtbot, op):
    """The stage view coloured m = 1.17 yellow in the input table and 1.47 dark blue in the output (each table on
    its own scale); m before and after, scores and scaled, are one equation: one scale, the figure's."""
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "flash-attention")
    state = window.state
    stage = [st for st in state.trace.stages if st.op == op][-1]  # (the last tile's: m before and after)
    state.set_cursor(state.stage_names.index(stage.name))
    view = window.stage_view
    qtbot.waitUntil(lambda: view.output.model.slice.name == stage.name)
    models = {p.model.slice.name: p.model for p in view.panels() if not p.isHidden()}
    names = [name for name in shared_scale_names(state.trace, stage.name) if name in models]
    assert len(names) >= 2
    scales = {name: models[name].scale for name in names}
    assert len(set(scales.values())) == 1, scales
    top = max(np.abs(np.nan_to_num(state.trace[name][0].numpy(), neginf=0)).max() for name in names)
    assert scales[names[-1]].hi >= top - 1e-6


def _lab(c) -> np.ndarray:
    """A QColor in CIELAB (D65), to measure how far apart two colours look (ΔE: Euclidean distance)."""
    rgb = np.array(c.getRgbF()[:3])
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ rgb
    f = np.cbrt(xyz / np.array([0.9505, 1.0, 1.089]).clip(1e-9))
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _closest(colors) -> float:
    labs = [_lab(c) for c in colors]
    return min(np.linalg.norm(a - b) for i, a in enumerate(labs) for b in labs[i + 1 :])


def test_twelve_heads_have_twelve_colours_far_apart(qapp):
    """Twelve heads reused four colours (head 0 = 4 = 8): the palette had eight. On the marks and the tables' tinted
    headers, every head of a 12-head model has its own colour, far enough apart to tell."""
    assert _closest([color(h) for h in range(12)]) >= 25
    assert _closest([head_tint(h) for h in range(12)]) >= 10


def test_no_axis_writes_a_multiplier_into_its_label(qapp):
    """A y axis read "p(1−p) (×0.001)" over ticks 0 … 200 beside a verdict saying 0.217: pyqtgraph's SI prefix.
    Every plot is made without it (new_plot); the check sees one made by hand with it."""
    view = pg.GraphicsLayoutWidget()
    made = new_plot(view.ci, PlotOptions(), 0, 0)
    by_hand = view.ci.addPlot(row=0, col=1)
    for plot in (made, by_hand):
        plot.setLabel("left", "p(1−p)")
        plot.plot([0.0, 1.0], [0.0, 2e-4])
    view.resize(600, 300)
    view.show()
    qapp.processEvents()
    problems = [p for p in rule_problems(view.scene()) if "multiplier" in p]
    assert len(problems) == 1 and "(x1e-06)" in by_hand.getAxis("left").labelString()
    assert "(x" not in made.getAxis("left").labelString()
    view.close()


def test_the_loss_is_a_number_not_a_heatmap(qapp):
    """The loss L was a full-panel 1×1 heatmap with a colour bar from L to L: one number, written as one."""
    state = AppState.from_lesson(open_lesson("masked-decoder"))
    view = pg.GraphicsLayoutWidget()
    view.resize(500, 400)
    figure = draw_stage(view.ci, state.view, "loss", PlotOptions())
    view.show()
    qapp.processEvents()
    heat = figure.panels[0].heatmap
    assert not heat.image.isVisible() and not heat.bar.isVisible()
    assert heat.numbers.isVisible() and heat.numbers.texts() == [format_cell(float(state.view["loss"]), 2)]
    assert rule_problems(view.scene()) == []  # (no 1×1 heatmap, and the number keeps its panel from being empty)
    figure = draw_stage(view.ci, state.view, "loss.per_position", PlotOptions())  # a column: a heatmap again
    assert figure.panels[0].heatmap.image.isVisible()
    view.close()


def _lab_dock(qtbot):
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "masked-decoder")
    window.lab_dock.show()
    return window.lab_dock.widget()


def test_the_labs_legend_stands_outside_its_curves_and_its_axes_write_no_multiplier(qtbot):
    """The lab's legend floated over its curves (post-vs-pre-LN's four arms), and scale-saturation's y axis read
    "p(1−p) (×0.001)"."""
    lab = _lab_dock(qtbot)
    lab.start("scale-saturation", seeds=1)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
    qtbot.wait(200)  # (the curves' plot, shown with its first curve, laid out)
    plot = lab.curve_plot.getPlotItem()
    assert plot.legend.items and not plot.legend.sceneBoundingRect().intersects(plot.vb.sceneBoundingRect())
    assert rule_problems(lab.curve_plot.scene()) == []


def test_a_large_vocabulary_is_its_top_k_named_and_the_rest_summed(qapp, traces):
    """The Probabilities figure of a 48-word vocabulary drew every word on a heatmap's axis, labels 4–5 px high: a
    large vocabulary is drawn as its top-k bars, every one named, and one bar for the rest."""
    trace = traces["lab-gradient-highway"]
    vocabulary = trace["logits"].shape[-1]
    assert vocabulary > LARGE_VOCABULARY
    view = FittedLayoutWidget()
    view.resize(900, 500)
    view.figure = draw_stage(view.ci, trace, "probs", PlotOptions())
    view.show()
    qapp.processEvents()
    assert not [p for p in view.figure.panels if isinstance(p, MatrixPanel)]
    (bars,) = [p.bars for p in view.figure.panels if isinstance(p, TopKPanel)]
    heights = bars.items[0].opts["height"]
    assert len(bars.categories) == TOP_K + 1 and bars.categories[-1] == f"other {vocabulary - TOP_K}"
    assert heights.sum() == pytest.approx(1.0, abs=1e-5)
    assert missing_labels(bars.plot, "bottom", bars.categories) == []
    assert view_problems(view, view.figure, trace) == []
    view.close()


def test_the_lab_draws_no_empty_panel(qtbot):
    """Before a run the lab drew empty curves, an empty "Gradient norm per layer" and an attention map on −1.5 … 1.5
    axes; a run without gradients kept its empty bars. Each plot is shown once it holds something."""
    lab = _lab_dock(qtbot)
    qtbot.waitUntil(lambda: lab.curve_plot is not None and lab.attention_panel.isVisible())
    qtbot.wait(300)  # (the plots are shown with the dock's layout, after it)
    views = (lab.curve_plot, lab.bar_plot, lab.attention_view)

    def empty_shown() -> list[str]:
        return [p for view in views if view.isVisible() for p in rule_problems(view.scene()) if "empty" in p]

    assert empty_shown() == [] and not lab.curve_plot.isVisible()
    lab.start("scale-saturation", seeds=1)
    qtbot.waitUntil(lambda: lab.result is not None, timeout=30_000)
    assert empty_shown() == [] and lab.curve_plot.isVisible()


def test_the_loss_is_coloured_among_the_losses_it_averages(qtbot):
    """The table of L, one cell, was the top of a scale of its own (yellow whatever its value); L = (1/m)·Σ ℓᵢ is
    one equation: L takes its colour among the ℓᵢ."""
    from tests.gui_window import open_lesson_window

    window = open_lesson_window(qtbot, "masked-decoder")
    state = window.state
    state.set_cursor(state.stage_names.index("loss"))
    view = window.stage_view
    qtbot.waitUntil(lambda: view.output.model.slice.name == "loss")
    models = {p.model.slice.name: p.model for p in view.panels() if not p.isHidden()}
    losses, mean = models["loss.per_position"], models["loss"]
    assert mean.scale == losses.scale and mean.scale.hi == pytest.approx(float(state.view["loss.per_position"].max()))


def test_a_legend_stands_under_its_plot_and_the_check_sees_one_over_the_data(qapp):
    """The lab's legend floated over its curves (pyqtgraph's addLegend draws inside the view box); add_legend puts it
    in a row under the plot."""
    view = pg.GraphicsLayoutWidget()
    view.resize(800, 400)
    inside, under = new_plot(view.ci, PlotOptions(), 0, 0), new_plot(view.ci, PlotOptions(), 0, 1)
    inside.addLegend(offset=(-10, 10))
    add_legend(under, PlotOptions())
    for plot in (inside, under):
        plot.plot([0.0, 1.0, 2.0], [2.0, 1.0, 3.0], name="post-LN")
    view.show()
    qapp.processEvents()
    legends = [p for p in rule_problems(view.scene()) if "legend" in p]
    assert len(legends) == 1
    assert not under.legend.sceneBoundingRect().intersects(under.vb.sceneBoundingRect())
    view.close()


def test_the_head_numbers_on_the_concat_bands_read_on_every_colour(qapp):
    """The head bands over the concat wrote "head h" in white on every colour: on yellow and sky blue unreadable."""
    trace = Model.create(ModelConfig(d_model=24, n_heads=12)).trace("I love AI")
    view = pg.GraphicsLayoutWidget()
    concat = next(st.name for st in trace.stages if st.op == "attn.concat")
    figure = draw_heads(view.ci, trace, concat, PlotOptions())
    (bands,) = [p.concat for p in figure.panels if hasattr(p, "concat")]
    for h, label in enumerate(bands.labels):
        band, ink = _lab(color(h)), _lab(label.textItem.defaultTextColor())
        assert abs(band[0] - ink[0]) >= 40, (h, color(h).name(), label.textItem.defaultTextColor().name())
    view.close()
