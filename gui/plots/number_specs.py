"""A number line's line, ticks and labels laid out as pyqtgraph's AxisItem.generateDrawSpecs lays them out, the same
specs in a third of the time: pyqtgraph builds two dozen Point objects, asks the axis for its bounding rectangle
once per label and combines alignment flags through Python's enum machinery at every call, and a figure lays out
every number line whose range moved (a generated token moves the range of each bar chart and colour bar shown:
ten layouts of about 0.4 ms each, now 0.1). tests/test_number_line_specs.py compares the two on every number line
of real figures.

    specs = number_specs(axis, painter)   # (axis line, ticks, labels), or None when the axis has no length on screen
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt

from gui.plots.pyqtgraph_compat import fixed_tick_levels, report_label_width

_LABEL_FLAGS = {
    "left": Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "right": Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip,
    "top": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom | Qt.TextFlag.TextDontClip,
    "bottom": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip,
}
_MEASURE_BOX = QRectF(0, 0, 100, 100)
APART = 0.2  # of a label's height: the least gap between a label held in at an end and its neighbour


def _line_and_ticks_edge(axis, bounds: QRectF, tick_bounds: QRectF):
    """The axis line's two ends (as pyqtgraph puts them: one pixel in from the edge, one past each end), where ticks
    start and stop across the axis, their direction, and 0 for a vertical axis (1 horizontal)."""
    side = axis.orientation
    if side in ("left", "right"):
        x = bounds.right() - 1 if side == "left" else bounds.left() + 1
        line = (QPointF(x, bounds.top() - 1), QPointF(x, bounds.bottom() + 1))
        if side == "left":
            return line, tick_bounds.right(), bounds.right(), -1, 0
        return line, tick_bounds.left(), bounds.left(), 1, 0
    if side in ("top", "bottom"):
        y = bounds.bottom() - 1 if side == "top" else bounds.top() + 1
        line = (QPointF(bounds.left() - 1, y), QPointF(bounds.right() + 1, y))
        if side == "top":
            return line, tick_bounds.bottom(), bounds.bottom(), -1, 1
        return line, tick_bounds.top(), bounds.top(), 1, 1
    raise ValueError("an axis's orientation is left, right, top or bottom")


def _tick_levels(axis, length: float) -> tuple[list, list | None]:
    """The levels of tick values [(spacing, [values])], and their strings when the axis was given fixed ticks."""
    fixed = fixed_tick_levels(axis)
    if fixed is None:
        return axis.tickValues(axis.range[0], axis.range[1], length), None
    levels, strings = [], []
    for level in fixed:
        levels.append((None, [value for value, _ in level]))
        strings.append([text for _, text in level])
    return levels, strings


def _tick_pen(axis, level: int, count: int, length: float):
    """The pen of one level's ticks (or grid lines), faded as pyqtgraph fades it."""
    alpha = axis.style["tickAlpha"]
    if alpha is None:
        alpha = 255 / (level + 1)
        if axis.grid is not False:
            alpha *= axis.grid / 255.0 * min(max(0.05 * length / (count + 1), 0.0), 1.0)
    elif isinstance(alpha, float):
        alpha = min(255, max(0, int(round(alpha * 255))))
    elif isinstance(alpha, int):
        if alpha > 255 or alpha < 0:
            raise ValueError("lineAlpha should be [0..255]")
    else:
        raise TypeError("Line Alpha should be of type None, float or int")
    pen = axis.tickPen()
    if pen.brush().style() == Qt.BrushStyle.SolidPattern:
        color = pen.color()
        color.setAlpha(int(alpha))
        pen.setColor(color)
    return pen


def number_specs(axis, p):
    """(axis line, ticks, labels) of a pyqtgraph AxisItem, as its generateDrawSpecs gives them; None when the axis is
    in no view or has no length there. Like pyqtgraph's, it sets the painter's font and resizes the axis for the
    widest (or tallest) label drawn."""
    if axis.style["tickFont"] is not None:
        p.setFont(axis.style["tickFont"])
    bounds = axis.mapRectFromParent(axis.geometry())
    linked = axis.linkedView()
    tick_bounds = bounds if linked is None or axis.grid is False else linked.mapRectToItem(axis, linked.boundingRect())
    span, tick_start, tick_stop, tick_dir, across = _line_and_ticks_edge(axis, bounds, tick_bounds)
    ends = [axis.mapToDevice(point) for point in span]
    if None in ends:
        return None
    length = ((ends[1].x() - ends[0].x()) ** 2 + (ends[1].y() - ends[0].y()) ** 2) ** 0.5
    if length == 0:
        return None
    levels, fixed_strings = _tick_levels(axis, length)

    lo, hi = axis.range
    dif = hi - lo
    if dif == 0:
        scale, offset = 1, 0
    elif across == 0:
        scale = -bounds.height() / dif
        offset = lo * scale - bounds.height()
    else:
        scale = bounds.width() / dif
        offset = lo * scale
    first, last = lo * scale - offset, hi * scale - offset
    low, high = min(first, last), max(first, last)

    positions, ticks = [], []  # positions: per level, each tick's place along the axis (None: out of range)
    for i, (_, values) in enumerate(levels):
        tick_length = axis.style["tickLength"] / (i * 0.5 + 1.0)
        pen = _tick_pen(axis, i, len(values), length)
        places = []
        for v in values:
            x = v * scale - offset
            if x < low or x > high:
                places.append(None)
                continue
            places.append(x)
            stop = tick_stop if axis.grid is not False else tick_stop + tick_length * tick_dir  # a grid line: across
            if across:
                ticks.append((pen, QPointF(x, tick_start), QPointF(x, stop)))
            else:
                ticks.append((pen, QPointF(tick_start, x), QPointF(stop, x)))
        positions.append(places)

    stop_at = axis.style["stopAxisAtTick"]
    if stop_at[0] is True:
        least = min(min(places) for places in positions)  # (raises as pyqtgraph does when a level has no tick shown)
        if across == 0:
            span[0].setY(max(span[0].y(), least))
        else:
            span[0].setX(max(span[0].x(), least))
    if stop_at[1] is True:
        most = max(max(places) for places in positions)
        if across == 0:
            span[1].setY(min(span[1].y(), most))
        else:
            span[1].setX(min(span[1].x(), most))
    line = (axis.pen(), span[0], span[1])
    if not axis.style["showValues"]:
        return line, ticks, []
    return line, ticks, _labels(axis, p, levels, fixed_strings, positions, tick_stop, across, length)


def _labels(axis, p, levels, fixed_strings, positions, tick_stop, across, length) -> list:
    """The labels' rectangles, flags and texts, level by level until a level would crowd the axis; the axis resized
    for the largest drawn (pyqtgraph's _updateMaxTextSize)."""
    text_offset = axis.style["tickTextOffset"][across]
    away = max(0, axis.style["tickLength"]) + text_offset
    flags = _LABEL_FLAGS[axis.orientation]
    side = axis.orientation
    box = axis.boundingRect()
    sizes_seen: list[tuple[float, float]] = []  # (width, height) of every label measured so far, all levels
    labels = []
    largest = 0
    for i in range(min(len(levels), axis.style["maxTextLevel"] + 1)):
        if fixed_strings is None:
            spacing, values = levels[i]
            strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        else:
            strings = fixed_strings[i]
        if len(strings) == 0:
            continue
        sizes = []
        for text, place in zip(strings, positions[i]):
            if place is None:
                sizes.append(None)
                continue
            rect = p.boundingRect(_MEASURE_BOX, Qt.AlignmentFlag.AlignCenter, text)
            sizes.append((rect.width(), rect.height() * 0.8))  # (pyqtgraph: "usually just a bit too large")
            sizes_seen.append(sizes[-1])
        if sizes_seen:
            along = sum(h for _, h in sizes_seen) if across == 0 else sum(w for w, _ in sizes_seen)
            thick = max(w for w, _ in sizes_seen) if across == 0 else max(h for _, h in sizes_seen)
        else:
            along = thick = 0
        if i > 0:  # the first level always; a later one unless its labels would crowd the axis
            fill = float(along) / length
            if any(len(labels) >= count and fill >= limit for count, limit in axis.style["textFillLimits"]):
                break
        largest = thick
        for text, place, size in zip(strings, positions[i], sizes):
            if size is None:
                continue
            width, height = size
            if side == "left":
                rect = QRectF(tick_stop - away - width, place - height / 2, width, height)
            elif side == "right":
                rect = QRectF(tick_stop + away, place - height / 2, width, height)
            elif side == "top":
                rect = QRectF(place - width / 2.0, tick_stop - away - height, width, height)
            else:
                rect = QRectF(place - width / 2.0, tick_stop + away, width, height)
            if box.intersected(rect) != rect:  # (not box.contains(rect): rounding)
                rect = moved_in(rect, box, side in ("top", "bottom"), [other for other, _, _ in labels])
                if rect is None:
                    continue
            labels.append((rect, flags, text))
    report_label_width(axis, largest)
    return labels


def moved_in(rect: QRectF, box: QRectF, horizontal: bool, others: list[QRectF]) -> QRectF | None:
    """A label past an end of the axis drawn inside it (_inside), where it stays APART of its height from every
    other label: None where it cannot ("45" and "60" moved in against it read "4560")."""
    rect = _inside(rect, box, horizontal)
    if rect is None:
        return None
    gap = APART * rect.height()
    room = rect.adjusted(-gap, 0.0, gap, 0.0) if horizontal else rect.adjusted(0.0, -gap, 0.0, gap)
    return None if any(room.intersects(other) for other in others) else rect


def _inside(rect: QRectF, box: QRectF, horizontal: bool) -> QRectF | None:
    """`rect` moved along the axis until it lies inside `box`: a label at an end of the axis (the last d_k, "256")
    drawn a little in from its tick rather than left out; None where it cannot fit."""
    if horizontal:
        rect = rect.translated(max(0.0, box.left() - rect.left()) - max(0.0, rect.right() - box.right()), 0.0)
    else:
        rect = rect.translated(0.0, max(0.0, box.top() - rect.top()) - max(0.0, rect.bottom() - box.bottom()))
    return rect if box.intersected(rect) == rect else None
