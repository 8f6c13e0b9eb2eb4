"""draw_stage: the plots that teach one stage, arranged in a GraphicsLayout, refreshed in place after edits."""

from __future__ import annotations

from typing import Protocol

import pyqtgraph as pg

from ..backward_trace import extra_stages
from .attention import LinesPanel, MaskPanel, RowBarsPanel, ScalePanel, WeightedSumPanel
from .cost import cost_panels
from .embedding import PositionCurvesPanel
from .ffn import ActivationPanel
from .gate import GatePanel
from .matrix import MatrixPanel, is_per_head, stage_caption, stage_op
from .norm import BeforeAfterPanel, NormStepsPanel
from .output import TopKPanel
from .rope import RopePanel
from .style import PlotOptions, font, foreground
from .text import caption
from .tiles import tile_panels


class Panel(Protocol):
    def update(self, trace, opts: PlotOptions) -> None: ...


class StageFigure:
    """The panels drawn for one stage; refresh() re-reads the trace without rebuilding the layout."""

    def __init__(self, stage: str, panels: list[Panel], title: pg.LabelItem | None):
        self.stage, self.panels, self.title = stage, panels, title

    def refresh(self, trace, opts: PlotOptions) -> None:
        for panel in self.panels:
            panel.update(trace, opts)
        if self.title is not None:
            self.title.setText(figure_title(trace, self.stage, opts), color=foreground(opts))


def figure_title(trace, stage: str, opts: PlotOptions) -> str:
    """"Scores Q·Kᵀ · head 1 — enc.0.attn.scores", the model's switches on a second line."""
    cfg = trace.config
    heads = caption("one_head" if cfg.n_heads == 1 else "n_heads", opts.lang, n=cfg.n_heads)
    switches = f"{cfg.architecture} · d_model {cfg.d_model} · {heads} · {cfg.norm}-LN · {cfg.activation}"
    if cfg.switches:
        switches += " · " + caption("what_if", opts.lang, switches=", ".join(cfg.switches))
    small = font(opts, "caption").pointSize()
    return (f"{stage_caption(trace, stage, opts)} — {stage}"
            f"<br><span style='font-size:{small}pt; font-weight:normal'>{switches}</span>")


def _panels(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions, top: int) -> list[Panel]:
    """The panels that teach a stage, placed from layout row `top` down; with the config's cost view, the
    stage's matrix and what it costs (gui/plots/cost.py); the cost view covers the forward pass, not the loss
    and the backward pass."""
    if trace.config.cost_view and stage not in extra_stages(trace):
        first = [MatrixPanel(layout, trace, stage, opts, top, 0, select_row=is_per_head(trace, stage))]
        return cost_panels(layout, trace, stage, opts, top, first)
    return _teaching_panels(layout, trace, stage, opts, top)


def _teaching_panels(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions, top: int) -> list[Panel]:
    """The panels that teach a stage, placed from layout row `top` down."""
    op, t, args = stage_op(trace, stage), top, (layout, trace, stage, opts)
    inputs = trace.stage(stage).inputs if trace.stage(stage) else ()

    def matrix(name=stage, row=t, col=0, **kw) -> MatrixPanel:
        return MatrixPanel(layout, trace, name, opts, row, col, select_row=is_per_head(trace, name), **kw)

    cfg = trace.config
    if op.startswith("attn.tiled."):
        return tile_panels(layout, trace, stage, opts, t)
    if op == "pos" and cfg.positional == "sinusoidal" and "no_pe" not in cfg.switches:
        return [matrix(), PositionCurvesPanel(*args, t, 1)]
    if op in ("x0", "add") and len(inputs) > 1:  # the sum as aligned matrices: the parts, then the sum
        keys = ("residual_in", "sublayer_out") if op == "add" else (None,) * len(inputs)
        parts = [matrix(name, col=k, label=key) for k, (name, key) in enumerate(zip(inputs, keys))]
        return parts + [matrix(col=len(inputs), label="sum")]
    if op == "attn.scaled":
        return [matrix(colspan=2), ScalePanel(*args, t + 1)]
    if op == "attn.masked":
        return [matrix(), MaskPanel(*args, t)]
    if op == "attn.weights":
        return [matrix(), RowBarsPanel(*args, t, 1), LinesPanel(*args, t + 1, 0, all_heads=False),
                LinesPanel(*args, t + 1, 1, all_heads=True)]
    if op == "attn.z":
        return [matrix(), WeightedSumPanel(*args, t, 1)]
    if op.startswith("norm."):
        return [matrix(colspan=2), BeforeAfterPanel(*args, t + 1, 0), NormStepsPanel(*args, t + 1, 1)]
    if op in ("attn.q_rot", "attn.k_rot"):
        return [matrix(), RopePanel(*args, t, 1)]
    if op in ("ffn.gate", "ffn.act") and cfg.activation == "swiglu":
        return [matrix(), ActivationPanel(*args, t, 1), GatePanel(*args, t + 1, 0, colspan=2)]
    if op in ("ffn.up", "ffn.gate", "ffn.act"):
        return [matrix(), ActivationPanel(*args, t, 1)]
    if op in ("logits", "probs"):
        return [MatrixPanel(layout, trace, stage, opts, t, 0, select_row=True), TopKPanel(*args, t, 1)]
    return [matrix()]


def draw_stage(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions) -> StageFigure:
    """Clear `layout` and draw the plots for `stage` (a name from trace.stage_names)."""
    if stage not in trace.stage_names:
        raise KeyError(f"no stage named {stage!r}")
    layout.clear()
    title = None
    if opts.slide and opts.title:
        title = pg.LabelItem(justify="center")
        title.item.setFont(font(opts, "title"))
        layout.addItem(title, row=0, col=0)
    panels = _panels(layout, trace, stage, opts, top=0 if title is None else 1)
    if title is not None:  # span the title over every column the panels used
        cols = 1 + max(c for cells in layout.items.values() for _, c in cells)
        layout.layout.removeItem(title)
        layout.layout.addItem(title, 0, 0, 1, cols)
    figure = StageFigure(stage, panels, title)
    figure.refresh(trace, opts)
    return figure
