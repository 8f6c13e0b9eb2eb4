"""Where the stage view puts its matrices, and how it shares its width between them and the figure.

X·W + b is a multiplication scheme (W above the output, X to its left, b below), so the row of X and the column of
W behind an output cell line up with it; a backward step is two columns, forward values (the stage, its
parameters) beside their gradients; otherwise the inputs stand above the output. Matrices that do not fit the
room they have that way reflow into one row, one column, the inputs in a row over the output, two columns
(reading order, two to a row), the inputs in a column beside the output, or the output over the inputs; then the
same in a slightly smaller table font (TABLE_SCALES; in presentation mode never below what the back row reads). In
presentation mode a stage shown as tables alone (no figure) that would leave most of the slide empty takes a larger
font instead (GROWTH_SCALES, up to twice the type), the largest at which an arrangement fits with every table whole.
The tables stay whole; when nothing fits, the arrangement that hides least of the stage's output (then one that scrolls
only down, then least of all) is shown, and scrolls (a 64×64 weight above it would push it off screen: then it
comes first).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QGridLayout, QWidget

from gui.state.display import BACK_ROW_PX
from gui.text.operations import BACKWARD, HEAD_PRODUCT, PRODUCT

PLOT_MIN_WIDTH = 320  # at the desk the plots keep at least this width …
PLOT_MIN_SHARE = 0.4  # … and this share of the width (wide matrices scroll)
PRESENT_PLOT_SHARES = (0.4, 0.25)  # presentation mode: the figure's share of the width beside tables shown whole
ARRANGEMENTS = ("natural", "row", "column", "over", "two", "beside", "output first")  # the stage's own layout first
TABLE_SCALES = (1.0, 0.9, 0.8)  # the tables' font, tried in turn until a stage's matrices fit
GROWTH_SCALES = (2.0, 1.8, 1.6, 1.45, 1.3, 1.15)  # presentation mode, tables without a figure: the larger that fits


def table_scales(table, presenting: bool) -> tuple[float, ...]:
    """The table font scales to try for `table` (a MatrixTable): all of TABLE_SCALES at the desk; in presentation
    mode those whose numbers stay BACK_ROW_PX or larger; only the readable size once the text was made larger
    (Ctrl+=): the numbers at the size asked for, reflowed or scrolling, never shrunk back to fit."""
    if table.settings.font_scale > 1.0:
        return TABLE_SCALES[:1]
    readable = [s for s in TABLE_SCALES if QFontInfo(table.scaled_font(s)).pixelSize() >= BACK_ROW_PX]
    return TABLE_SCALES if not presenting else tuple(readable) or TABLE_SCALES[:1]


def growth_scales(table, presenting: bool, figure_shown: bool) -> tuple[float, ...]:
    """The larger table fonts to try first for `table` (a MatrixTable): in presentation mode, on a stage shown as
    tables alone (no figure beside them), GROWTH_SCALES, so that a few small tables fill the slide rather than its top
    left corner; none at the desk, beside a figure, or once the text was made larger (Ctrl+=)."""
    if not presenting or figure_shown or table.settings.font_scale > 1.0:
        return ()
    return GROWTH_SCALES


def fits_in(size: QSize, room: QSize) -> bool:
    return size.width() <= room.width() and size.height() <= room.height()


def fitting(sizes: dict[str, QSize], room: QSize) -> list[str]:
    """The arrangements (ARRANGEMENTS order) whose matrices fit `room`."""
    return [a for a in ARRANGEMENTS if fits_in(sizes[a], room)]


def hidden(rect: QRect, room: QSize) -> int:
    """Pixels of `rect` outside `room` (placed at the origin)."""
    seen = rect.intersected(QRect(0, 0, room.width(), room.height()))
    return rect.width() * rect.height() - max(0, seen.width()) * max(0, seen.height())


def least_hidden(measures: dict[tuple[float, str], tuple[QSize, QRect]], room: QSize) -> tuple[float, str]:
    """Of (scale, arrangement) → (the matrices' size, the output's place), none fitting `room`: the one that hides
    least of the output, then one as narrow as the room (it scrolls down to whole tables; one wider shows a table cut
    mid-number at the room's right edge: cost-of-context's K beside Q in presentation mode with the Cost dock), then
    the one that hides least of all the matrices (the first, in the order given, of those alike)."""
    return min(
        measures,
        key=lambda k: (
            hidden(measures[k][1], room),
            measures[k][0].width() > room.width(),
            hidden(QRect(QPoint(0, 0), measures[k][0]), room),
        ),
    )


def arrange(inputs: list, output, kind: str, n_inputs: int, arrangement: str) -> tuple[list[tuple], list[list]]:
    """Where the panels of a stage (`inputs[:n_inputs]` and `output`) go in `arrangement`: the stage's own
    ("natural": its operation's `inputs` kind, gui/text/operations.py), or all in one "row" or "column", …
    (ARRANGEMENTS). Returns (panel, grid row, grid column) for each, and the groups of panels stacked cell under
    cell (they get the same column width)."""
    stacked = arrangement != "natural"
    shown = [*inputs[:n_inputs], output]
    if arrangement == "row":
        return [(p, 0, i) for i, p in enumerate(shown)], [[p] for p in shown]
    if arrangement == "over":  # the inputs side by side, the output under the first
        places = [(p, 0, i) for i, p in enumerate(inputs[:n_inputs])] + [(output, 1, 0)]
        return places, [[*inputs[:1], output] if n_inputs else [output], *[[p] for p in inputs[1:n_inputs]]]
    if arrangement == "two":
        return [(p, i // 2, i % 2) for i, p in enumerate(shown)], [c for c in (shown[0::2], shown[1::2]) if c]
    if arrangement == "output first":  # the output, then the inputs under it
        return [(output, 0, 0)] + [(p, i + 1, 0) for i, p in enumerate(inputs[:n_inputs])], [
            [output, *inputs[:n_inputs]]
        ]
    if arrangement == "beside":  # the inputs one over the other, the output right of the first
        places = [(p, i, 0) for i, p in enumerate(inputs[:n_inputs])] + [(output, 0, 1 if n_inputs else 0)]
        return places, [c for c in (inputs[:n_inputs], [output]) if c]
    if kind == BACKWARD and not stacked:
        weights = inputs[1:n_inputs]  # the parameters, then their gradients
        half = len(weights) // 2
        forward, grads = [inputs[0], *weights[:half]], [output, *weights[half:]]
        places = [(p, row, col) for col, panels in enumerate((forward, grads)) for row, p in enumerate(panels)]
        return places, [forward, grads]
    if kind in (PRODUCT, HEAD_PRODUCT) and not stacked:
        x, w, *b = inputs[:n_inputs]  # a layer without a bias (biases "none", "qkv"): X·W alone
        return [(w, 0, 1), (x, 1, 0), (output, 1, 1)] + [(p, 2, 1) for p in b], [[x], [w, output, *b]]
    places = [(p, i, 0) for i, p in enumerate(inputs[:n_inputs])] + [(output, n_inputs, 0)]
    return places, [[p for p, _, _ in places]]


def shared_sizes(columns: list[list], natural: dict) -> dict:
    """Each panel's table sections (column width, row-label width): the widest of the panels stacked with it."""
    sections = {}
    for column in columns:
        sizes = [natural[p] for p in column]
        width, header = max(s[0] for s in sizes), max(s[1] for s in sizes)
        sections.update((p, (width, header)) for p in column)
    return sections


def place_panels(
    grid: QGridLayout, inputs: list, output, kind: str, n_inputs: int, arrangement: str, natural: dict
) -> None:
    """Lay out the matrix panels of a stage in `grid` in `arrangement` (see arrange); `natural`: each panel's
    table.natural_sizes()."""
    for panel in [*inputs, output]:
        grid.removeWidget(panel)
    places, columns = arrange(inputs, output, kind, n_inputs, arrangement)
    for panel, row, col in places:
        grid.addWidget(panel, row, col, Qt.AlignLeft | Qt.AlignTop)
    last_row, last_col = max(row for _, row, _ in places), max(col for _, _, col in places)
    for i in range(len(inputs) + 2):  # the room left over goes below and right of the matrices, not between them
        grid.setRowStretch(i, 1 if i == last_row + 1 else 0)
        grid.setColumnStretch(i, 1 if i == last_col + 1 else 0)
    for panel, (width, header) in shared_sizes(columns, natural).items():
        panel.table.apply_sizes(width, header)


def arranged_size(grid: QGridLayout, places: list[tuple], hints: dict, output) -> tuple[QSize, QRect]:
    """The size `grid` asks for with the panels at `places`, each panel as large as its hint in `hints` (a
    hidden panel takes no room, nor a row or column of hidden ones), and where `output` stands in it."""
    widths: dict[int, int] = {}
    heights: dict[int, int] = {}
    for panel, row, col in places:
        if panel.isHidden():
            continue
        hint = hints[panel]
        widths[col] = max(widths.get(col, 0), hint.width())
        heights[row] = max(heights.get(row, 0), hint.height())
    margins = grid.contentsMargins()
    size = QSize(
        sum(widths.values()) + grid.horizontalSpacing() * max(0, len(widths) - 1) + margins.left() + margins.right(),
        sum(heights.values()) + grid.verticalSpacing() * max(0, len(heights) - 1) + margins.top() + margins.bottom(),
    )
    row, col = next((r, c) for p, r, c in places if p is output)
    x = margins.left() + sum(w + grid.horizontalSpacing() for c, w in widths.items() if c < col)
    y = margins.top() + sum(h + grid.verticalSpacing() for r, h in heights.items() if r < row)
    return size, QRect(QPoint(x, y), hints[output])


def matrices_widths(total: int, presenting: bool, figure_shown: bool) -> list[int]:
    """The widths of `total` pixels the matrices may take, the roomiest last: at the desk the plots keep
    PLOT_MIN_WIDTH and PLOT_MIN_SHARE; in presentation mode the tables come first, and the figure keeps each of
    PRESENT_PLOT_SHARES in turn (the tables whole beside a figure as wide as can be); with no figure, everything."""
    if not figure_shown:
        return [total]
    if presenting:
        return [round(total * (1 - share)) for share in PRESENT_PLOT_SHARES]
    return [total - max(PLOT_MIN_WIDTH, round(total * PLOT_MIN_SHARE))]


def matrices_width(total: int, wanted: int, presenting: bool, figure_shown: bool) -> int:
    """The matrices' share of `total` pixels when they would like `wanted` (at most the roomiest of
    matrices_widths)."""
    return min(wanted, matrices_widths(total, presenting, figure_shown)[-1])


class MatrixLayout:
    """The stage view's matrix panels in their grid: placed in the first arrangement (ARRANGEMENTS order) that suits
    the room they have, at the readable table font or a smaller one (`fit`). The arrangements are measured from
    the tables' sizes (MatrixPanel.hint_at), without moving a widget; only the one chosen is laid out."""

    def __init__(self, area: QWidget, grid: QGridLayout, inputs: list, output):
        self.area, self.grid, self.inputs, self.output = area, grid, inputs, output
        self.kind: str | None = None  # the stage's operation's `inputs` kind (None: no stage shown yet) …
        self.n_inputs = 0  # … and how many inputs it shows
        self.shown: tuple[float, str] | None = None  # the table font scale and arrangement placed
        self.natural: dict[float, dict] = {}  # scale → each panel's table.natural_sizes() in that font
        self.measured: dict[tuple, QSize] = {}  # (scale, the panels' places and columns) → the matrices' size

    def show(self, kind: str, n_inputs: int) -> None:
        """A new stage's matrices (their content shown already), placed by the next `fit` (no room yet: in the
        stage's own arrangement at the readable font)."""
        self.kind, self.n_inputs = kind, n_inputs
        self.remeasure()

    def remeasure(self) -> None:
        """Measured and placed again by the next `fit` (new matrices, or numbers of another width)."""
        self.natural, self.measured = {}, {}
        self.shown = None

    def fit(self, rooms: list[QSize], scales: tuple[float, ...] = TABLE_SCALES, larger: tuple[float, ...] = ()) -> None:
        """Place the matrices in the first of `rooms` where they fit: at the largest of `larger` (growth_scales)
        where one arrangement fits the last room with every table whole; else in the first arrangement that fits at
        the readable font, else at a smaller one of `scales`; else, scrolling in the last room, the arrangement and
        font of `scales` that hide least of the output (least_hidden)."""
        if self.kind is None:
            return  # no stage shown yet
        chosen = (self._grown(rooms[-1], larger) or self._first_fit(rooms, scales)) if rooms else (1.0, "natural")
        if chosen != self.shown:
            self._place(*chosen)

    def _grown(self, room: QSize, larger: tuple[float, ...]) -> tuple[float, str] | None:
        """The largest of `larger` and its first arrangement that fit `room` with every table whole (none: None)."""
        for scale in larger:
            if not all(p.table.whole_at(p.table.scaled_font(scale)) for p in self._natural(scale)):
                continue
            first = next((a for a in ARRANGEMENTS if fits_in(self.size(scale, a), room)), None)
            if first is not None:
                return scale, first
        return None

    def _first_fit(self, rooms: list[QSize], scales: tuple[float, ...]) -> tuple[float, str]:
        own, others = ARRANGEMENTS[0], ARRANGEMENTS[1:]
        for room in rooms:
            for scale in scales:  # (measured in turn: the stage's own arrangement mostly fits)
                if fits_in(self.size(scale, own), room):
                    return scale, own
                if not fits_in(self.largest_table(scale), room):
                    continue  # no arrangement fits a table the room cannot hold (a vocabulary of columns)
                first = next((a for a in others if fits_in(self.size(scale, a), room)), None)
                if first is not None:
                    return scale, first
        measures = {(scale, a): self.measure(scale, a) for scale in scales for a in ARRANGEMENTS}
        return least_hidden(measures, rooms[-1])

    def size(self, scale: float, arrangement: str) -> QSize:
        """The matrices' size in `arrangement` at table font `scale`, every table whole where it can be."""
        return self.measure(scale, arrangement)[0]

    def measure(self, scale: float, arrangement: str) -> tuple[QSize, QRect]:
        """The matrices' size in `arrangement` at table font `scale` and where the output stands in them. Measured
        once per placement: arrangements that place the panels alike (two matrices: one over the other is the
        stage's own, the column and the inputs over the output) share it."""
        places, columns = arrange(self.inputs, self.output, self.kind, self.n_inputs, arrangement)
        key = (scale, tuple((id(p), row, col) for p, row, col in places), tuple(tuple(map(id, c)) for c in columns))
        if key not in self.measured:
            sections = shared_sizes(columns, self._natural(scale))
            hints = {p: p.hint_at(p.table.scaled_font(scale), *sections[p]) for p, _, _ in places}
            self.measured[key] = arranged_size(self.grid, places, hints, self.output)
        return self.measured[key]

    def largest_table(self, scale: float) -> QSize:
        """The least any arrangement takes at `scale`: the widest and the tallest panel shown, each alone at its own
        column widths (arranged, a panel is at least that large, and shares its row and column)."""
        key = ("largest", scale)
        if key not in self.measured:
            natural = self._natural(scale)
            hints = [p.hint_at(p.table.scaled_font(scale), *natural[p]) for p in natural if not p.isHidden()]
            hints = hints or [QSize()]
            margins = self.grid.contentsMargins()
            self.measured[key] = QSize(
                max(h.width() for h in hints) + margins.left() + margins.right(),
                max(h.height() for h in hints) + margins.top() + margins.bottom(),
            )
        return self.measured[key]

    def _natural(self, scale: float) -> dict:
        if scale not in self.natural:
            panels = [*self.inputs[: self.n_inputs], self.output]  # those placed
            self.natural[scale] = {p: p.table.natural_sizes(p.table.scaled_font(scale)) for p in panels}
        return self.natural[scale]

    def _place(self, scale: float, arrangement: str) -> None:
        for panel in [*self.inputs, self.output]:
            panel.table.set_scale(scale)
        place_panels(self.grid, self.inputs, self.output, self.kind, self.n_inputs, arrangement, self._natural(scale))
        self.shown = (scale, arrangement)
        self.area.layout().activate()
