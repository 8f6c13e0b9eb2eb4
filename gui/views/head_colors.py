"""Each head's colour on the features it owns, for the matrix headers: the columns of W_Q, W_K, W_V and their
biases, of a head's q, k, v and z, of the concat, and the rows of W_O (the colours of the head plots)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from engine.heads import head_of_feature
from gui.plots.style import color
from gui.text.operations import operation

HEAD_COLUMNS = ("W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V")  # parameters whose columns are split into heads
HEAD_ROWS = ("W_O",)  # … whose rows are


def header_head(trace, window, section: int, horizontal: bool) -> int | None:
    """The head that owns header `section` of a matrix window (None when it is not a head's feature)."""
    cfg = trace.config
    stage = trace.stage(window.name)
    if stage is not None:
        columns = operation(stage.op).columns
        if horizontal and columns == "head" and window.head is not None:
            return window.head
        if horizontal and columns == "heads":
            return head_of_feature(cfg, section)
        return None
    leaf = window.name.rsplit(".", 1)[-1]  # a parameter: only attention's are split into heads
    if horizontal and leaf in HEAD_COLUMNS:
        return head_of_feature(cfg, window.col_start + section)
    if not horizontal and leaf in HEAD_ROWS:
        return head_of_feature(cfg, section)
    return None


def head_tint(head: int) -> QColor:
    """The head's colour, lightened so black labels stay readable."""
    c = color(head)
    return QColor.fromRgbF(*(0.55 + 0.45 * x for x in c.getRgbF()[:3]))


def header_tint(trace, window, section: int, horizontal: bool) -> QColor | None:
    head = header_head(trace, window, section, horizontal)
    return None if head is None else head_tint(head)
