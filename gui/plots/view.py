"""Plot areas the window embeds: a GraphicsLayoutWidget that shrinks a figure too big for it to fit, and a cache
of the figures a view has drawn. (The stage view's FigureView, whose right-click menu exports the figure, is
gui/views/figure_view.py: plots import nothing above them.)"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QMargins, QObject, QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QPainter, QRegion
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView, QWidget

from gui.plots.axis import lay_out_tick_text, start_plans_afresh
from gui.plots.pyqtgraph_compat import readied_in
from gui.plots.stacking import stack_for

SETTLE_PASSES = 3  # layout passes a figure takes: its panels, their axes sized for the ticks, the numbers fitted


class FittedLayoutWidget(pg.GraphicsLayoutWidget):
    """A figure whose panels need more room than the view has (titles, axes and colour bars have minimum
    sizes) is scaled down as a whole, so it is never cut at the edge; otherwise one scene unit is one pixel."""

    fitting = False  # pyqtgraph resizes the view while it is being built, before there is a figure to fit
    keeps_shrink = True  # its figures have axes that turn crowded labels (see fit); the map's have none

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # No spatial index: pyqtgraph items (axes with grids, layouts swapped in and out) change their bounds
        # without telling the scene, and a BSP index then keeps pointers to removed, deleted items that the
        # next paint follows (a segfault in QGraphicsView::paintEvent after hundreds of actions).
        self.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        # The view paints its background itself, a solid fill: Qt filled each repainted part of the viewport with
        # its palette first, and pyqtgraph copied the background from a cached pixmap over it (a plain fill is
        # cheaper than a copy); the figure's cells then cover it a third time.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self.scale = 1.0  # scene units per pixel: above 1 when the figure is shrunk to fit
        self.fitted: tuple = ()  # the view's size and the layout at the last fit
        self.fit_timer = QTimer(self)
        self.fit_timer.setSingleShot(True)
        self.fit_timer.setInterval(0)
        self.fit_timer.timeout.connect(self.fit)
        self.ci.installEventFilter(self)  # a new or re-captioned panel changes the figure's minimum size
        self.fitting = True

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        """The background of the part repainted, but where an opaque heatmap covers it (a third of the pixels a
        heatmap's repaint wrote were the background under its cells). Each covered rectangle keeps a pixel of
        background round it: its edges may fall between pixels."""
        region = QRegion(painter.transform().mapRect(rect).toAlignedRect())
        for item in [] if self.closed else figure_covers(self.ci):
            opaque = item.opaque_rect() if item.isVisible() else None
            if opaque is not None:
                covered = item.mapRectToScene(opaque).intersected(item.parentItem().sceneBoundingRect())
                region -= QRegion(painter.transform().mapRect(covered).toAlignedRect().adjusted(1, 1, -1, -1))
        painter.save()
        painter.resetTransform()
        brush = self.backgroundBrush()
        for part in region:
            painter.fillRect(part, brush)
        painter.restore()

    def sizeHint(self) -> QSize:
        """The least the figure needs (fit shrinks it to any less). QGraphicsView's own hint is its scene rect
        plus its frame, and pyqtgraph sets the scene rect to the view's size: in a layout that follows its
        children's hints (the What-if dock's scroll area) the view grew by its frame at each layout pass."""
        least = self.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).toSize()
        frame = 2 * self.frameWidth()
        return least.grownBy(QMargins(0, 0, frame, frame))

    def event(self, event: QEvent) -> bool:
        """A language switch repaints every widget (Qt hands it from each window to all its children, each updated):
        a figure in another language is drawn by its view, which repaints it then, so the figure shown is not painted
        once more before (the cost dock's: 4–5 ms of a switch)."""
        if event.type() == QEvent.Type.LanguageChange:
            return True
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.ci and event.type() == QEvent.Type.LayoutRequest:
            self.fit_timer.start()
        return False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.fitting:
            if event is not None:  # (None: a figure swapped in, which show_layout sees to)
                start_plans_afresh(self.shown_items())
            self.fit()

    def show_layout(self, layout: pg.GraphicsLayout) -> None:
        """Show another figure's layout in place of the current one (which is kept as it is, to be shown again)."""
        if layout is self.ci:
            return
        self.ci.removeEventFilter(self)
        self.ci = layout
        kept = getattr(layout, "fitted_view", None)  # how it was fitted when last shown here
        same_size = kept is not None and kept[0] == (max(1, self.width()), max(1, self.height()))
        if same_size:
            # shown as it was: at its scale, its geometry and its axes' plans as they are (set to the geometry of the
            # figure shown before, it was resized and every axis laid out anew, then fitted back, to other plans)
            _, self.scale, range_, self.autoPixelRange = kept
            self.range = QRectF(range_)
            self.fitted = (*kept[0], layout)
        self._swap_in(layout)
        if not same_size:
            start_plans_afresh(self.shown_items())
        layout.installEventFilter(self)
        self.fit_timer.start()

    def _swap_in(self, layout: pg.GraphicsLayout) -> None:
        """Show `layout` in place of the figure shown, which is parked in the scene, not taken out: taken out (and put
        back when shown again), each of its items was told of its new scene (pyqtgraph reconnects it to its view) and
        lost its paint cache. Hidden instead, Qt laid the figure out anew without its hidden parts, and again when
        shown."""
        old = self.centralWidget
        if old is not None and shiboken6.isValid(old):
            park(old)
        self.centralWidget = layout
        if layout.scene() is not self.scene():
            self.scene().addItem(layout)
        unpark(layout)
        self.resizeEvent(None)  # (fit puts it where the view shows it)

    def hold(self, layout: pg.GraphicsLayout) -> None:
        """Park a figure drawn ahead in the scene until it is shown."""
        self.scene().addItem(layout)
        park(layout)

    def shown_items(self) -> list:
        """The items of the figure shown (the scene also holds the figures parked, to be shown again); none once the
        view is closed (pyqtgraph's close deletes every item, and resizes the view after)."""
        return [] if self.closed else figure_items(self.ci)

    def settle(self) -> None:
        """Lay a new or refreshed figure out and fit it now, so that it is painted once, finished (left to the event
        loop, it takes a few passes, each painted: the axes widen for their new tick labels, and so on)."""
        self.stack()
        axes = [] if self.closed else figure_axes(self.ci)
        for _ in range(SETTLE_PASSES):  # until the numeric axes, sized for their tick text, stay as they are
            for _ in range(SETTLE_PASSES):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            # and the category axes take their best plan for the room they have now: a plan forced by a passing
            # narrower layout (a figure drawn ahead, its panels added one by one) turned the labels of a 190 px
            # column on their side
            if not lay_out_tick_text(axes) and not start_plans_afresh(axes):
                break
        self.fit()
        # what pyqtgraph leaves to the paint (view boxes' transforms, auto ranges) is done now: done inside the
        # paint, the items it moves ask for a second paint straight after the first
        self.scene().prepareForPaint()

    def stack(self) -> bool:
        """A row of panels stacked for a view not wide enough, or side by side again (gui/plots/stacking.py): whether
        they moved."""
        if not stack_for(self.ci, max(1, self.width()), max(1, self.height())):
            return False
        start_plans_afresh(self.shown_items())
        return True

    def fit(self) -> None:
        """Show the figure at its natural size, or scaled down until its minimum size fits the view."""
        if self.closed:
            return
        width, height = max(1, self.width()), max(1, self.height())
        if self.stack():
            self.fit_timer.start()  # laid out anew, then fitted again
        least = self.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        scale = max(1.0, least.width() / width, least.height() / height)
        if self.keeps_shrink and (width, height, self.ci) == self.fitted and scale < self.scale:
            # Same view, same figure: never shrink less again. Axes that turn their labels when crowded ask for
            # another minimum size once the figure is shrunk, and could otherwise flip back and forth.
            scale = self.scale
        self.fitted = (width, height, self.ci)
        if scale == 1.0:
            if not self.autoPixelRange:
                self.autoPixelRange = True
                super().resizeEvent(None)  # back to one scene unit per pixel
        elif abs(scale - self.scale) > 1e-3 or self.autoPixelRange:
            self.setRange(QRectF(0, 0, width * scale, height * scale), padding=0, lockAspect=True)
        if self.ci.geometry() != self.range:  # laid out when it needed more room than now (Qt keeps it that wide)
            self.ci.setGeometry(self.range)
        self.scale = scale
        self.ci.fitted_view = ((width, height), scale, QRectF(self.range), self.autoPixelRange)  # (show_layout)


def figure_items(layout: pg.GraphicsLayout) -> list:
    """A figure's layout and every item in it, outermost first."""
    items, todo = [], [layout]
    while todo:
        item = todo.pop(0)
        items.append(item)
        todo.extend(item.childItems())
    return items


def figure_covers(layout: pg.GraphicsLayout) -> list:
    """A figure's items that can cover the background (heatmaps' images: `opaque_rect`)."""
    return found_once(layout, "covers_found", lambda item: hasattr(item, "opaque_rect"))


def figure_axes(layout: pg.GraphicsLayout) -> list[pg.AxisItem]:
    """A figure's axes."""
    return found_once(layout, "axes_found", lambda item: isinstance(item, pg.AxisItem))


def found_once(layout: pg.GraphicsLayout, name: str, keep: Callable[[object], bool]) -> list:
    """The items of a figure that `keep` picks, found once per set of panels and kept on the layout as `name` (a
    figure's panels make their axes and images when they are drawn; a refresh adds numbers and lines, never those):
    the walk through every item of the figure was a tenth of laying an edited figure out."""
    panels = len(layout.items)
    found = getattr(layout, name, None)
    if found is None or found[0] != panels:
        found = (panels, [item for item in figure_items(layout) if keep(item)])
        setattr(layout, name, found)
    return found[1]


PARKED = QPointF(-1e6, 0)  # where a figure waits to be shown again: far from the view, so under no mouse


def park(layout: pg.GraphicsLayout) -> None:
    """Take a figure out of sight, laid out as it is: not painted (fully transparent), under no mouse (far away), and
    not readied before each paint of its view. pyqtgraph readies every view box and text item of a scene before each
    paint, the parked figures' too: after one pass through a lesson's stages, 147 of them at each paint of the stage
    view, an edit half as slow again."""
    layout.setOpacity(0.0)
    layout.setPos(PARKED)
    scene = layout.scene()
    if scene is None or getattr(layout, "unreadied", None) is not None:
        return
    slots = [
        item.prepareForPaint if isinstance(item, pg.ViewBox) else item.updateTransform
        for item in figure_items(layout)
        if isinstance(item, pg.ViewBox) or (isinstance(item, pg.TextItem) and readied_in(item, scene))
    ]
    for slot in slots:
        scene.sigPrepareForPaint.disconnect(slot)
    layout.unreadied = slots


def unpark(layout: pg.GraphicsLayout) -> None:
    """Show a figure again (the view puts it in place), readied before each paint again."""
    layout.setOpacity(1.0)
    slots = getattr(layout, "unreadied", None)
    if slots is not None:
        for slot in slots:
            layout.scene().sigPrepareForPaint.connect(slot)
        layout.unreadied = None


def parked(item) -> bool:
    """Whether `item` belongs to a figure parked in its scene, out of sight."""
    return item.topLevelItem().opacity() == 0.0


class FigureCache:
    """The figures a view has drawn, each in a GraphicsLayout of its own, by build key: what the figure's items are
    built from, its numbers aside (e.g. gui.plots.figure_build_key). Showing a figure again swaps its layout in and
    refreshes its numbers from the trace shown now, which costs a small part of building its pyqtgraph items anew:
    a stage stepped to again, and a trace of the same structure (a what-if switch on or off, its undo) reuse the
    figures. The `limit` most recently shown are kept.

    The figures not shown wait in the view's scene, parked out of sight (FittedLayoutWidget.show_layout): swapped out
    of the scene and back, every item of a figure was told of its new scene and lost its paint cache (a step, a jump
    and a language switch of the toy translator with every dock open took 8–12 % longer).

    A figure the cache lets go (the oldest, all of them when the view goes or the presentation mode changes) has its Qt
    items deleted at once, while its Python objects are whole (the one shown once another is shown). Left to the
    cyclic garbage collector, the items were deleted while it cleared their attributes, and Qt asked a half-cleared
    LabelItem for its size hint."""

    def __init__(self, view: FittedLayoutWidget, limit: int = 48):
        self.view, self.limit = view, limit
        self.figures: OrderedDict[Hashable, tuple[pg.GraphicsLayout, object]] = OrderedDict()
        self.let_go_shown: list[pg.GraphicsLayout] = []  # let go of while shown: deleted once another is shown
        view.destroyed.connect(self.discard)

    def discard(self, *_) -> None:
        """Let go of every figure."""
        for layout, _ in self.figures.values():
            self._let_go(layout)
        self.figures.clear()

    def _let_go(self, layout: pg.GraphicsLayout) -> None:
        if layout is self.view.ci:
            self.let_go_shown.append(layout)
        else:
            _delete_unless_shown(layout)

    def _show_layout(self, layout: pg.GraphicsLayout) -> None:
        self.view.show_layout(layout)
        for old in [old for old in self.let_go_shown if old is not layout]:
            self.let_go_shown.remove(old)
            _delete_unless_shown(old)

    def show(
        self,
        key: Hashable,
        draw: Callable[[pg.GraphicsLayout], object],
        refresh: Callable[[object], None] | None = None,
    ):
        """The figure for `key`, shown: drawn into a new layout by `draw(layout)` the first time, else refreshed by
        `refresh(figure)` (edits change a trace in place; another trace of the same key has other numbers), and laid
        out (`settle`). None: the caller refreshes what it is given, new or cached, then settles the view itself (a
        generated token laid the Generate panel's and the KV cache's figures out twice, before and after)."""
        if key in self.figures:
            self.figures.move_to_end(key)
            layout, figure = self.figures[key]
            self._show_layout(layout)
            if refresh is not None:
                refresh(figure)
        else:
            layout = pg.GraphicsLayout()
            self._show_layout(layout)
            figure = draw(layout)
            self._keep(key, layout, figure)
        if refresh is not None:
            self.view.settle()
        return figure

    def is_shown(self, key: Hashable) -> bool:
        """Whether the figure for `key` is the one the view shows."""
        return key in self.figures and self.figures[key][0] is self.view.ci

    def prepare(self, key: Hashable, draw: Callable[[pg.GraphicsLayout], object]) -> None:
        """Draw the figure for `key` ahead of its showing, into a layout of its own, parked in the view's scene,
        unless the cache has it: `show` then only swaps it in and refreshes it (a step to the stage next to the one
        shown)."""
        if key in self.figures:
            return
        layout = pg.GraphicsLayout()
        layout.setGeometry(self.view.ci.geometry())  # drawn at the size it will be shown at, as `show` draws
        self._keep(key, layout, draw(layout))
        self.view.hold(layout)

    def _keep(self, key: Hashable, layout: pg.GraphicsLayout, figure) -> None:
        """Keep a new figure, letting the oldest go beyond `limit`."""
        self.figures[key] = (layout, figure)
        while len(self.figures) > self.limit:
            self._let_go(self.figures.popitem(last=False)[1][0])


def clear_layout(layout: pg.GraphicsLayout) -> None:
    """Empty `layout` for a new figure and delete the old figure's Qt items now (see FigureCache): taken out of
    the scene, they would otherwise wait, alive, for the cyclic garbage collector."""
    items = list(layout.items)
    layout.clear()
    for item in items:
        _delete_unless_shown(item)


def _delete_unless_shown(item: pg.GraphicsObject) -> None:
    """Delete a figure's Qt items now, unless they are shown in a scene (which deletes them when it goes)."""
    if shiboken6.isValid(item) and (item.scene() is None or parked(item)):
        shiboken6.delete(item)


def holds_data(plot: pg.PlotItem) -> bool:
    """Whether a plot draws something besides its axes: a curve, image, bar or point with data, or another visible
    item that is not empty (a line, a frame, a text). An empty panel is never drawn (show_when_drawn)."""
    return any(_draws(item) for item in plot.vb.childGroup.childItems())  # (addedItems lacks those ignoring bounds)


def _draws(item) -> bool:
    if not item.isVisible():
        return False
    if isinstance(item, pg.PlotDataItem):
        return item.xData is not None and len(item.xData) > 0
    if isinstance(item, pg.ImageItem):
        return item.image is not None
    if isinstance(item, pg.BarGraphItem):
        return item.opts.get("height") is not None and len(item.opts["height"]) > 0
    if isinstance(item, pg.ScatterPlotItem):
        return len(item.data) > 0
    if isinstance(item, QGraphicsRectItem):
        return not item.rect().isEmpty()
    if isinstance(item, QGraphicsLineItem):
        return item.line().length() > 0
    return True


def show_when_drawn(*views: QGraphicsView) -> None:
    """Each plot widget shown only while one of its plots holds data: no empty axes (−1.5 … 1.5) before a run, no
    empty "Gradient norm per layer" for a run without gradients."""
    for view in views:
        plots = [item for item in view.scene().items() if isinstance(item, pg.PlotItem)]
        view.setVisible(any(holds_data(plot) for plot in plots))
