"""The teaching plots show the trace's numbers: every stage draws, per-head stages show the chosen head,
−∞ stays visible, refresh() follows edits in place, and the bar/line panels match independent references."""

import numpy as np
import pyqtgraph as pg
import pytest
import torch
import torch.nn.functional as F

from engine import Model, ModelConfig
from gui.plots import PlotOptions, draw_stage
from gui.plots.attention import LinesPanel, MaskPanel, RowBarsPanel, ScalePanel, WeightedSumPanel
from gui.plots.ffn import ActivationPanel
from gui.plots.matrix import MatrixPanel
from gui.plots.output import TopKPanel
from gui.plots.predicts import predicting_rows

CONFIGS = {
    "encoder": ModelConfig(d_model=4, n_heads=2, decimals=1),
    "variants": ModelConfig(
        architecture="decoder",
        d_model=4,
        n_heads=2,
        activation="swiglu",
        positional="rope",
        switches=("no_scale", "no_residual", "no_layernorm"),
        decimals=1,
    ),
    "bert-like": ModelConfig(
        d_model=4,
        n_heads=2,
        activation="gelu_tanh",
        positional="learned",
        type_vocab=2,
        embed_norm=True,
        switches=("no_pe",),
        decimals=1,
    ),
    "decoder": ModelConfig(architecture="decoder", d_model=4, n_heads=2, norm="pre", activation="gelu", decimals=1),
    "encoder-decoder": ModelConfig(
        architecture="encoder-decoder", d_model=4, n_heads=2, positional="learned", decimals=1
    ),
}


def make_trace(arch: str):
    target = "ich liebe KI" if arch == "encoder-decoder" else None
    return Model.create(CONFIGS[arch]).trace("I love AI", target)


@pytest.fixture
def layout(qapp):
    view = pg.GraphicsLayoutWidget()
    yield view.ci
    view.close()


def panel(figure, kind):
    return next(p for p in figure.panels if isinstance(p, kind))


def shown(heatmap) -> np.ndarray:
    return heatmap.image.image.T  # ImageItem data is [x, y] = [col, row]


@pytest.mark.parametrize("arch", ["encoder-decoder", "decoder", "variants", "bert-like"])
def test_every_stage_draws_and_its_matrix_shows_the_stage(layout, arch):
    trace = make_trace(arch)
    opts = PlotOptions(head=1, row=1)
    for name in trace.stage_names:
        figure = draw_stage(layout, trace, name, opts)
        assert figure.panels, name
        matrix = next(p for p in figure.panels if isinstance(p, MatrixPanel) and p.name == name)
        value = trace[name]
        value = value[1] if value.dim() == 3 else value.reshape(value.shape[0], -1)
        expected = value.double().numpy()
        got = shown(matrix.heatmap)
        assert np.array_equal(np.isnan(got), ~np.isfinite(expected)), name
        assert np.allclose(got[np.isfinite(expected)], expected[np.isfinite(expected)], atol=1e-6), name


def test_masked_cells_are_shown_as_minus_infinity(layout):
    trace = make_trace("decoder")
    figure = draw_stage(layout, trace, "dec.0.self_attn.masked", PlotOptions())
    heat = panel(figure, MatrixPanel).heatmap
    n = trace["dec.0.self_attn.masked"].shape[-1]
    texts = [text for _, _, text, _ in heat.cells]  # what the cell numbers say (drawn where they fit)
    hidden = [texts[i * n + j] for i in range(n) for j in range(n) if j > i]
    assert hidden and all(t == "−∞" for t in hidden)
    assert all(item.isVisible() for item in heat.backdrop)
    mask = panel(figure, MaskPanel)
    assert np.array_equal(shown(mask.pattern) > 0.5, np.triu(np.ones((n, n), bool), 1))


def test_signed_stages_centre_the_colour_map_on_zero(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.scores", PlotOptions())
    lo, hi = panel(figure, MatrixPanel).heatmap.bar.levels()
    assert lo == -hi and hi == pytest.approx(float(trace["enc.0.attn.scores"][0].abs().max()))
    figure = draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions())
    assert panel(figure, MatrixPanel).heatmap.bar.levels() == (0.0, 1.0)


def test_colour_blind_safe_maps(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions(colormap="cb-safe"))
    assert panel(figure, MatrixPanel).heatmap.bar.colorMap().name == "cividis"
    figure = draw_stage(layout, trace, "enc.0.attn.scores", PlotOptions(colormap="cb-safe"))
    assert panel(figure, MatrixPanel).heatmap.bar.colorMap().name == "CET-CBD1"


def test_refresh_follows_an_edit_in_place(layout):
    trace = make_trace("encoder")
    opts = PlotOptions(head=1)
    figure = draw_stage(layout, trace, "enc.0.attn.scores", opts)
    heat = panel(figure, MatrixPanel).heatmap
    image, plot = heat.image, heat.plot
    trace.set_cell("enc.0.attn.W_Q", (0, 3), 2.5)
    figure.refresh(trace, opts)
    assert heat.image is image and heat.plot is plot and layout.getItem(0, 0) is plot
    assert np.allclose(shown(heat), trace["enc.0.attn.scores"][1].numpy(), atol=1e-6)


def test_unknown_stage_is_refused(layout):
    with pytest.raises(KeyError):
        draw_stage(layout, make_trace("encoder"), "enc.0.attn.nope", PlotOptions())


def test_scale_panel_bars_are_softmax_with_and_without_scaling(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.scaled", PlotOptions(head=0, row=2))
    scale = panel(figure, ScalePanel)
    scores = trace["enc.0.attn.scores"][0, 2]
    for bars, s in ((scale.unscaled, scores), (scale.scaled, scores / (2**0.5))):
        p = F.softmax(s.double(), -1).numpy()
        heights = [item.opts["height"] for item in bars.items]
        assert np.allclose(heights[0], p, atol=1e-6) and np.allclose(heights[1], p * (1 - p), atol=1e-6)
    token = trace.tokens["enc"][2]  # the row is named as a row, not after a "·" that reads as a product
    titles = [bars.plot.titleLabel.text.replace("<br>", " ") for bars in (scale.unscaled, scale.scaled)]
    assert all(t.startswith(f"Row of {token}: softmax with") for t in titles) and "·" not in "".join(titles), titles


def test_softmax_row_bars_sum_to_one(layout):
    trace = make_trace("decoder")
    figure = draw_stage(layout, trace, "dec.0.self_attn.weights", PlotOptions(head=1, row=2))
    bars = panel(figure, RowBarsPanel).bars
    heights = bars.items[0].opts["height"]
    assert np.allclose(heights, trace["dec.0.self_attn.weights"][1, 2].numpy())
    assert heights.sum() == pytest.approx(1.0, abs=1e-6) and "sum = 1.00" in bars.plot.titleLabel.text


def test_attention_lines_opacity_is_the_weight(layout):
    trace = make_trace("encoder-decoder")
    name = "dec.0.cross_attn.weights"
    figure = draw_stage(layout, trace, name, PlotOptions(head=1))
    one, every = (p for p in figure.panels if isinstance(p, LinesPanel))
    w = trace[name]  # [h, n_dec, n_enc]
    alphas = [line.pen().color().alphaF() for line in one.lines]
    assert np.allclose(alphas, w[1].flatten().numpy(), atol=1 / 255)
    alphas = [line.pen().color().alphaF() for line in every.lines]
    assert np.allclose(alphas, w.flatten().numpy(), atol=1 / 255)
    assert len({line.pen().color().rgb() & 0xFFFFFF for line in every.lines}) == 2  # a colour per head
    words = one.plot.getAxis("left").categories + one.plot.getAxis("right").categories
    assert words == predicting_rows(trace) + trace.tokens["enc"]  # "<start> → ich": the word each row predicts


def test_weighted_sum_rows_add_up_to_z(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.z", PlotOptions(head=1, row=0))
    m = shown(panel(figure, WeightedSumPanel).heatmap)
    w, v = trace["enc.0.attn.weights"][1, 0], trace["enc.0.attn.v"][1]
    assert np.allclose(m[:-1], (w[:, None] * v).numpy(), atol=1e-6)
    assert np.allclose(m[-1], trace["enc.0.attn.z"][1, 0].numpy(), atol=1e-6)


def test_activation_panel_points_and_switched_off_count(layout):
    trace = make_trace("decoder")  # GELU
    figure = draw_stage(layout, trace, "dec.0.ffn.up", PlotOptions())
    act = panel(figure, ActivationPanel)
    up = trace["dec.0.ffn.up"]
    x, y = act.all.getData()
    assert np.allclose(x, up.flatten().numpy()) and np.allclose(y, F.gelu(up).flatten().numpy(), atol=1e-6)
    off = int((up <= 0).sum())
    assert f"{off} of {up.numel()} switched off" in act.plot.titleLabel.text


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_top_k_bars_use_the_temperature(layout, temperature):
    trace = make_trace("decoder")
    figure = draw_stage(layout, trace, "probs", PlotOptions(row=1, temperature=temperature))
    bars = panel(figure, TopKPanel).bars
    p = torch.softmax(trace["logits"][1].double() / temperature, -1)
    top = torch.sort(p, descending=True).values[: len(bars.items[0].opts["height"])]
    assert np.allclose(bars.items[0].opts["height"], top.numpy(), atol=1e-6)
    vocab = trace.model.vocabs["dec"].tokens
    assert bars.categories == [vocab[i] for i in torch.argsort(p, descending=True)[: len(bars.categories)].tolist()]


def test_captions_follow_the_language(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions(lang="zh"))
    title = panel(figure, MatrixPanel).heatmap.plot.titleLabel.text
    assert "注意力权重" in title and "头 0" in title


def test_slide_style_has_a_title_naming_stage_and_head(layout):
    trace = make_trace("encoder")
    figure = draw_stage(layout, trace, "enc.0.attn.q", PlotOptions(slide=True, head=1))
    assert "Queries Q · head 1 — Encoder · Block 0 · Self-attention" in figure.title.text  # no stage id
    assert "enc.0.attn.q" not in figure.title.text
    assert "encoder" in figure.title.text and "d_model 4" in figure.title.text


def test_swiglu_curve_is_the_gate_silu_and_title_names_the_switches(layout):
    trace = make_trace("variants")
    figure = draw_stage(layout, trace, "dec.0.ffn.act", PlotOptions(slide=True))
    act = panel(figure, ActivationPanel)
    gate = trace["dec.0.ffn.gate"]
    x, y = act.all.getData()
    assert np.allclose(x, gate.flatten().numpy()) and np.allclose(y, F.silu(gate).flatten().numpy(), atol=1e-6)
    assert np.allclose(trace["dec.0.ffn.act"], F.silu(gate) * trace["dec.0.ffn.up"], atol=1e-6)
    assert "what if: No scaling (÷√d_k), No residual connections, No LayerNorm" in figure.title.text


def test_crowded_labels_are_all_drawn_and_numbers_hidden_only_when_cells_are_too_small(qapp):
    from gui.export.render import offscreen_figure
    from tests.figure_checks import drawn_labels

    long = Model.create(CONFIGS["decoder"]).trace(" ".join(f"w{i}" for i in range(30)))
    for trace, crowded in ((make_trace("encoder"), False), (long, True)):
        name = "dec.0.norm1.mean" if crowded else "enc.0.attn.scores"  # [31, 1] or [3, 3]
        with offscreen_figure(trace, name, PlotOptions(slide=True), size=(800, 450)) as view:
            heat = next(p for p in view.figure.panels if isinstance(p, MatrixPanel)).heatmap
            assert drawn_labels(heat.plot, "left") == heat.labels[0]  # every token, however crowded
            assert heat.cells and len(heat.numbers.texts()) == (0 if crowded else len(heat.cells))


def test_a_one_head_model_draws_who_attends_to_whom_once_across_the_figure(layout):
    """With one head, "all heads" drew the very same lines a second time beside the first."""
    trace = Model.create(ModelConfig(d_model=8, n_heads=1, d_ff=16)).trace("I love AI")
    figure = draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions())
    (lines,) = [p for p in figure.panels if isinstance(p, LinesPanel)]
    assert not lines.all_heads and len(lines.lines) == 9
    assert {col for _, col in layout.items[lines.plot]} == {0, 1}  # the figure's whole width


def test_big_models_draw_each_querys_strongest_keys_only(layout):
    cfg = ModelConfig(d_model=48, n_heads=12, d_ff=96, seed=3)
    trace = Model.create(cfg).trace(" ".join(f"w{i}" for i in range(40)))
    figure = draw_stage(layout, trace, "enc.0.attn.weights", PlotOptions())
    every = [p for p in figure.panels if isinstance(p, LinesPanel)][1]
    assert len(every.lines) <= LinesPanel.MAX_LINES
    per_query = len(every.lines) // (12 * 40)  # 2 strongest keys per query and head
    w = trace["enc.0.attn.weights"]
    for k, (h, i) in enumerate((h, i) for h in range(12) for i in range(40)):
        keys = {round(every.lines[k * per_query + m].line().y2()) for m in range(per_query)}
        assert keys == set(torch.topk(w[h, i], per_query).indices.tolist())


def test_tick_marks_point_away_from_the_cells_and_token_axes_have_none(layout):
    """A tick beside the first column's numbers read as a minus sign ("I —0.54"): number axes tick outward, and
    the token axes of a heatmap draw no tick marks at all (the cells mark the tokens)."""
    trace = make_trace("encoder")
    for name in ("enc.0.attn.weights", "enc.x0"):
        figure = draw_stage(layout, trace, name, PlotOptions())
        for plot in [item for item in layout.items if isinstance(item, pg.PlotItem)]:
            for side in ("left", "top", "bottom", "right"):
                axis = plot.getAxis(side)
                assert axis.style["tickLength"] == 0 if axis.categories else axis.style["tickLength"] > 0, (name, side)
        heat = next(p for p in figure.panels if isinstance(p, MatrixPanel)).heatmap
        assert heat.plot.getAxis("left").categories and heat.plot.getAxis("top").categories


def test_start_token_is_shown_in_every_title(layout):
    """Plot titles are HTML: a token such as <start> must be escaped, or it vanishes as an unknown tag."""
    trace = make_trace("decoder")
    assert trace.tokens["dec"][0] == "<start>"
    for name, row_panels in (("dec.0.self_attn.scaled", 2), ("dec.0.self_attn.weights", 1)):
        draw_stage(layout, trace, name, PlotOptions(head=0, row=0))
        titles = [item.titleLabel.item.toPlainText() for item in layout.items if isinstance(item, pg.PlotItem)]
        assert sum("<start>" in t for t in titles) == row_panels, (name, titles)


def test_an_axis_measures_its_labels_taking_each_fonts_key_once(qapp, monkeypatch):
    """A category axis measures every label in each of its fonts when its labels change (a token more); Qt builds a
    font's key anew at each call, so it is taken once per font, not once per label, and each label, the bold one
    (the current token) too, is measured in its own font."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from gui.plots import axis

    plot = pg.PlotWidget(axisItems={"bottom": axis.Axis("bottom")})
    bottom = plot.getPlotItem().getAxis("bottom")
    tokens = [f"token{k}" for k in range(40)]
    bottom.set_categories(tokens, bold=7)
    monkeypatch.setattr(axis, "LABEL_SIZES", {})
    keys = []
    key = QFont.key
    monkeypatch.setattr(QFont, "key", lambda font: keys.append(1) or key(font))
    plan = axis.Plan(QFont("DejaVu Sans", 9), rotated=False)
    measure = bottom._measure(plan)
    sizes = [measure(i, text) for i, text in enumerate(tokens)]
    assert len(keys) == 2  # the plain font's and the bold one's
    bold = QFont(plan.font)
    bold.setBold(True)
    for i, (text, (along, _)) in enumerate(zip(tokens, sizes)):
        assert along == QFontMetricsF(bold if i == 7 else plan.font).horizontalAdvance(text)
    assert sizes[7][0] > sizes[6][0]  # (bold is wider)
