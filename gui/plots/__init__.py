"""Plots that teach each stage, drawn with pyqtgraph into a GraphicsLayout.

Contract for the window:

    figure = draw_stage(layout, trace, "enc.0.attn.scores", PlotOptions(head=1, row=0, lang="zh"))
    figure.refresh(trace, opts)   # after an edit: new numbers, same layout

The same draw_stage renders exports (PlotOptions(slide=True): white background, large fonts, a title).
"""

from .figure import StageFigure, draw_stage, figure_build_key
from .style import PlotOptions

__all__ = ["PlotOptions", "StageFigure", "draw_stage", "figure_build_key"]
