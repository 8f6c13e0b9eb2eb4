"""draw_stage: the plots that teach one stage, arranged in a GraphicsLayout, refreshed in place after edits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Protocol

import pyqtgraph as pg

from gui.text.operations import stage_op, stage_operation
from gui.text.places import place
from gui.text.switches import switch_names

from .attention import LinesPanel, MaskPanel, RowBarsPanel, ScalePanel, WeightedSumPanel
from .captions import caption
from .embedding import PositionCurvesPanel
from .ffn import ACTIVATION_NAMES, ActivationPanel
from .gate import GatePanel
from .matrix import MatrixPanel, is_per_head, stage_caption
from .norm import BeforeAfterPanel, NormStepsPanel
from .output import TopKPanel, large_vocabulary
from .rope import RopePanel
from .stacking import mark_row_of_panels, move
from .style import PlotOptions, font, foreground, slide_title
from .tiles import tile_panels
from .view import clear_layout

# The what-if switches that change which panels a stage of a kind of operation shows (the kinds of
# gui/text/operations.py, see PANELS); the others change numbers only, or a stage's inputs (its build key holds them).
LAYOUT_SWITCHES = {"positions": ("no_pe",)}


def trace_structure(trace) -> tuple:
    """What every figure of a trace is built from besides its stage: the model's settings (the what-if switches
    aside). Not the tokens: a figure's refresh writes its labels and sizes its rows (another sentence, a token
    generated, keeps the figures; tests/test_figure_reuse.py)."""
    cfg = trace.config
    settings = tuple(getattr(cfg, f.name) for f in fields(cfg) if f.name != "switches")
    return settings


def trace_tokens(trace) -> tuple:
    """The tokens of each stack, hashable: ((stack, (token, …)), …)."""
    return tuple((stack, tuple(tokens)) for stack, tokens in trace.tokens.items())


def figure_build_key(trace, stage: str) -> tuple:
    """What draw_stage (and gui.plots.heads.draw_heads) build the items of `stage` from, beyond the numbers their
    refresh reads: a figure drawn for another trace with the same key is refreshed for this one, not built again
    (a what-if switch on or off, another sentence, keeps nearly every figure)."""
    st = trace.stage(stage)
    if st is None:  # token ids
        return stage, None, trace_structure(trace)
    kind = stage_operation(trace, stage).panels
    switches = tuple(s for s in trace.config.switches if s in LAYOUT_SWITCHES.get(kind, ()))
    bars_only = kind == "top_k" and large_vocabulary(trace)  # (a free vocabulary grows past the heatmap's)
    return stage, (st.op, kind, st.inputs, st.rows, st.cols, st.tile, switches, bars_only), trace_structure(trace)


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


def figure_title(trace, stage: str, opts: PlotOptions, heading: str | None = None) -> str:
    """ "Scores Q·Kᵀ · head 1 — Encoder · Block 0 · Self-attention" (or another heading before where the stage sits;
    never its id), the model's kind on a second line."""
    small = font(opts, "caption").pointSize()
    return (
        f"{heading or stage_caption(trace, stage, opts)} — {place(trace, stage)}"
        f"<br><span style='font-size:{small}pt; font-weight:normal'>{model_line(trace.config, opts.lang)}</span>"
    )


def model_line(cfg, lang: str) -> str:
    """ "encoder · d_model 4 · 2 heads · post-LN · ReLU", and the parts switched off, in `lang`."""
    heads = caption("one_head" if cfg.n_heads == 1 else "n_heads", lang, n=cfg.n_heads)
    if cfg.kv_heads < cfg.n_heads:  # grouped-query attention
        heads += " · " + caption("kv_heads", lang, k=cfg.kv_heads)
    activation = "SwiGLU" if cfg.activation == "swiglu" else ACTIVATION_NAMES[cfg.activation]
    width, norm = caption("width", lang, d=cfg.d_model), caption(cfg.norm, lang)
    norm += " · RMSNorm" if cfg.norm_type == "rmsnorm" else ""
    line = f"{caption(cfg.architecture, lang)} · {width} · {heads} · {norm} · {activation}"
    if cfg.switches:
        line += " · " + caption("what_if", lang, switches=switch_names(cfg.switches, lang))
    return line


@dataclass(frozen=True)
class _Drawing:
    """Where the panels of one stage go: its layout, from row `top` down."""

    layout: pg.GraphicsLayout
    trace: object
    stage: str
    opts: PlotOptions
    top: int

    @property
    def args(self) -> tuple:  # what every teaching panel is made with
        return self.layout, self.trace, self.stage, self.opts

    @property
    def inputs(self) -> tuple[str, ...]:
        st = self.trace.stage(self.stage)
        return st.inputs if st is not None else ()

    def matrix(self, name: str | None = None, col: int = 0, select_row: bool | None = None, **kw) -> MatrixPanel | None:
        """A stage's heatmap; the selected row outlined in a per-head stage (or where select_row says). None where
        the stage's tables are shown beside the figure (PlotOptions.tables_shown): it would repeat one."""
        if self.opts.tables_shown:
            return None
        name = name or self.stage
        select = is_per_head(self.trace, name) if select_row is None else select_row
        kw.setdefault("scale_at", self.stage)  # on the scale its table shares (μ with x, scaled with scores)
        return MatrixPanel(self.layout, self.trace, name, self.opts, self.top, col, select_row=select, **kw)


def _sum(d: _Drawing) -> list[Panel]:
    """x0 and add as aligned matrices: the parts, then the sum (one matrix when add has one input)."""
    if len(d.inputs) < 2:
        return [d.matrix()]
    keys = ("residual_in", "sublayer_out") if stage_op(d.trace, d.stage) == "add" else (None,) * len(d.inputs)
    # (one colour scale for the parts and the sum: the stage's, gui/plots/scale.py)
    return [d.matrix(name, col=k, label=key) for k, (name, key) in enumerate(zip(d.inputs, keys))] + [
        d.matrix(col=len(d.inputs), label="sum")
    ]


def _positions(d: _Drawing) -> list[Panel]:
    cfg = d.trace.config
    if cfg.positional == "sinusoidal" and "no_pe" not in cfg.switches:
        return [d.matrix(), PositionCurvesPanel(*d.args, d.top, 1)]
    return [d.matrix()]


def _gate(d: _Drawing) -> list[Panel]:
    """The activation curve, and SwiGLU's gate under it."""
    panels = [d.matrix(), ActivationPanel(*d.args, d.top, 1)]
    if d.trace.config.activation == "swiglu":
        panels.append(GatePanel(*d.args, d.top + 1, 0, colspan=2))
    return panels


def _weights(d: _Drawing) -> list[Panel]:
    """The weights, the selected row's bars, and who attends to whom: in the head shown and, where there are more
    heads, in all of them (one head would draw the same lines twice: its lines take the whole width)."""
    one_head = d.trace.config.n_heads == 1
    panels = [
        d.matrix(),
        RowBarsPanel(*d.args, d.top, 1),
        LinesPanel(*d.args, d.top + 1, 0, all_heads=False, colspan=2 if one_head else 1),
    ]
    if not one_head:
        panels.append(LinesPanel(*d.args, d.top + 1, 1, all_heads=True))
    return panels


# The plots of each kind of operation: the `panels` of its entry in gui/text/operations.py.
PANELS: dict[str, Callable[[_Drawing], list[Panel]]] = {
    "matrix": lambda d: [d.matrix()],
    "sum": _sum,
    "positions": _positions,
    "scale": lambda d: [d.matrix(colspan=2), ScalePanel(*d.args, d.top + 1)],
    "mask": lambda d: [d.matrix(), MaskPanel(*d.args, d.top)],
    "weights": _weights,
    "weighted_sum": lambda d: [d.matrix(), WeightedSumPanel(*d.args, d.top, 1)],
    "norm": lambda d: [
        d.matrix(colspan=2),
        BeforeAfterPanel(*d.args, d.top + 1, 0),
        NormStepsPanel(*d.args, d.top + 1, 1),
    ],
    "rope": lambda d: [d.matrix(), RopePanel(*d.args, d.top, 1)],
    "activation": lambda d: [d.matrix(), ActivationPanel(*d.args, d.top, 1)],
    "gate": _gate,
    "top_k": lambda d: (
        [TopKPanel(*d.args, d.top, 0, colspan=2)]  # (a large vocabulary: named bars only, the rest summed)
        if large_vocabulary(d.trace)
        else [d.matrix(select_row=True), TopKPanel(*d.args, d.top, 1)]
    ),
    "tiles": lambda d: tile_panels(*d.args, d.top),
}


def _panels(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions, top: int) -> list[Panel]:
    """The panels that teach a stage, placed from layout row `top` down (no heatmaps where the tables are shown)."""
    panels = PANELS[stage_operation(trace, stage).panels](_Drawing(layout, trace, stage, opts, top))
    if opts.tables_shown:
        _close_gaps(layout)
    return [p for p in panels if p is not None]


def _close_gaps(layout: pg.GraphicsLayout) -> None:
    """An item with empty cells on its left in its row (where a heatmap was left out) spans them."""
    taken = {cell for cells in layout.items.values() for cell in cells}
    for item, cells in list(layout.items.items()):
        rows = {r for r, _ in cells}
        first, last = min(c for _, c in cells), max(c for _, c in cells)
        if len(rows) != 1 or first == 0 or any((r, c) in taken for r in rows for c in range(first)):
            continue
        (row,) = rows
        move(layout, item, row, 0, colspan=last + 1)
        taken.update(layout.items[item])


def draw_stage(layout: pg.GraphicsLayout, trace, stage: str, opts: PlotOptions) -> StageFigure:
    """Clear `layout` and draw the plots for `stage` (a name from trace.stage_names)."""
    if stage not in trace.stage_names:
        raise KeyError(f"no stage named {stage!r}")
    clear_layout(layout)
    title, top = slide_title(layout, opts)
    panels = _panels(layout, trace, stage, opts, top=top)
    mark_row_of_panels(layout)  # side by side, or one under the other in a view not wide enough
    if title is not None:  # span the title over every column the panels used
        cols = 1 + max(c for cells in layout.items.values() for _, c in cells)
        layout.layout.removeItem(title)
        layout.layout.addItem(title, 0, 0, 1, cols)
    figure = StageFigure(stage, panels, title)
    figure.refresh(trace, opts)
    return figure
