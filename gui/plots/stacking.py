"""A stage's panels side by side in one row (E, PE and their sum; a matrix and its curves) stand one under the other
in a view that is not wide enough, and side by side again when it widens: three panels across a narrow window's
figure were tall strips, a 5 × 4 heatmap's cells 14 px wide and 70 px tall.

    mark_row_of_panels(layout)          # draw_stage, once its panels are placed
    stack_for(layout, width, height)    # FittedLayoutWidget.fit, at every size: whether the panels moved
"""

from __future__ import annotations

import pyqtgraph as pg

# The shape (width / height) a panel reads best at: a heatmap's cells hold numbers wider than tall, and bars and curves
# are drawn across. Side by side or stacked, whichever gives the panels a shape nearer it: n panels side by side in
# a view of aspect a have n times less than a, stacked n times more, so stacked is nearer whenever a < PANEL_ASPECT.
PANEL_ASPECT = 1.6


def move(layout: pg.GraphicsLayout, item, row: int, col: int, colspan: int = 1) -> None:
    """Put `item` of `layout` in another cell (spanning `colspan` columns), as pyqtgraph's addItem would have."""
    for r, c in layout.items[item]:
        del layout.rows[r][c]
    layout.layout.removeItem(item)
    layout.layout.addItem(item, row, col, 1, colspan)
    layout.items[item] = [(row, col + k) for k in range(colspan)]
    for _, c in layout.items[item]:
        layout.rows.setdefault(row, {})[c] = item


def mark_row_of_panels(layout: pg.GraphicsLayout) -> None:
    """Let the panels of `layout` stack when they sit side by side in one row, one cell each (not a title above
    them, not panels spanning others)."""
    cells = list(layout.items.values())
    rows = {r for item_cells in cells for r, _ in item_cells}
    one_row = len(cells) > 1 and len(rows) == 1 and all(len(item_cells) == 1 for item_cells in cells)
    layout.panel_row = sorted(layout.items, key=lambda item: layout.items[item][0][1]) if one_row else []
    layout.stacked = False


def stack_for(layout: pg.GraphicsLayout, width: float, height: float) -> bool:
    """Stack the marked panels of `layout` in a view of `width` × `height` narrower than PANEL_ASPECT, else put them
    side by side; whether they moved."""
    panels = getattr(layout, "panel_row", [])
    stacked = width < PANEL_ASPECT * height
    if not panels or stacked == layout.stacked:
        return False
    top = min(r for r, _ in layout.items[panels[0]])
    for k, item in enumerate(panels):
        move(layout, item, top + k, 0) if stacked else move(layout, item, top, k)
    layout.stacked = stacked
    return True
