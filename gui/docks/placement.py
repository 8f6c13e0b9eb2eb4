"""Where a dock opens beside the stage view: a slide is composed, never covered.

A dock opens beside the stage view with DOCK_SHARE of the window's width, as long as the stage view keeps
STAGE_MIN_WIDTH for its tables and figure: at the desk, in a wide window, docks stand beside it, one above the other
(or tabbed, in a window shorter than STACK_MIN_HEIGHT), as many as the teacher opens. Where that leaves the dock
under DOCK_MIN_WIDTH (a small screen), and always in presentation mode, the slide is *composed*: the stage view and
one companion, the dock opened last, share the window in its one layout (QMainWindow's). The companion takes
DOCK_MIN_WIDTH (at most COMPANION_MAX_SHARE of what it and the stage view share); the stage view fits its title,
formula, tables, figure and explanation into the rest (its tables reflow, or take a smaller font down to the back
row's size, then scroll down: gui/views/matrix_layout.py). Opening another dock, beside or under the stage view,
replaces the companion (closes it, and the map: their toggles bring them back). Nothing floats over the stage view:
a dock given back floating over it (a stored layout, a window built anew for presentation mode, the text size or a
language) is docked beside it again and placed like one just opened; a dock the teacher dragged elsewhere stays
there. (The overview in presentation mode is not a companion but a page of its own: gui/docks/overview.py.)

The widths are in pixels at normal type and grow with the display settings' type_scale. A window made smaller later,
or its type made larger, places the docks again the same way; a window not shown yet places them once it is; a
window given back a stored layout keeps its docks where that layout has them (composed, with one companion). The
docks that open under the stage view (the training step, the lab) take BELOW_SHARE of a tall window's height; in a
window shorter than STACK_MIN_HEIGHT they open beside the stage view like the others (under it, the stage view would
keep too little height for its tables).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QStyle

DOCK_SHARE = 0.34  # of the window's width, when the stage view keeps …
STAGE_MIN_WIDTH = 720  # … this much (times the type scale) for its tables and figure
DOCK_MIN_WIDTH = 340  # a dock narrower than this (times the type scale) composes the slide instead
COMPANION_MAX_SHARE = 0.5  # a companion takes at most this share of the width it and the stage view share
STACK_MIN_HEIGHT = 900  # a window shorter than this (times the type scale) tabs docks rather than stack them
REFIT_DELAY_MS = 200  # after the window is shown or resized, the docks are placed for its new size
SIDES = (Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea)
BELOW_SHARE = 0.4  # of a tall window's height, for a dock under the stage view


class DockPlacement(QObject):
    """Places the docks `docks()` of `window` (a MainWindow: its stage list and stage view) when they open, and those
    given to keep_below."""

    def __init__(self, window: QMainWindow, docks: Callable[[], list[QDockWidget]]):
        super().__init__(window)
        self.window, self.docks = window, docks
        self.pending: list[QDockWidget] = []  # opened before the window was shown
        self.below: list[QDockWidget] = []  # the docks that open under the stage view in a tall window (keep_below)
        self.companion: QDockWidget | None = None  # the dock placed last: the one a composed slide keeps
        self.fitted: tuple[int, float] | None = None  # the window's width and type scale the docks were placed for
        self.restored_layout = False  # given a stored layout since the last refit
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(REFIT_DELAY_MS)
        self.timer.timeout.connect(self.refit)
        window.resized.connect(self.timer.start)
        window.shown.connect(self.timer.start)

    @property
    def scale(self) -> float:
        return self.window.state.display.type_scale

    def composed(self) -> bool:
        """Whether the slide is composed (the stage view and one companion): in presentation mode, and where a dock
        beside the stage view would get less than DOCK_MIN_WIDTH."""
        return self.window.presenting or self._beside_width() < DOCK_MIN_WIDTH * self.scale

    def place(self, dock: QDockWidget) -> None:
        """A dock just opened: beside the stage view (see the module's note)."""
        window = self.window
        if not window.isVisible():
            self.pending.append(dock)
            return
        if dock.isFloating():
            if not self._over_stage(dock):
                return  # where the teacher put it
            dock.setFloating(False)  # (back in the area it was docked in)
            if window.dockWidgetArea(dock) not in SIDES:
                window.addDockWidget(Qt.RightDockWidgetArea, dock)
        if window.dockWidgetArea(dock) not in SIDES:
            return
        self.companion = dock
        if self.composed():
            self._alone(dock)
            least = round(DOCK_MIN_WIDTH * self.scale)
            window.resizeDocks([dock], [min(least, round(self._free(dock) * COMPANION_MAX_SHARE))], Qt.Horizontal)
            return
        window.resizeDocks([dock], [self._beside_width(dock)], Qt.Horizontal)
        self._tab_if_short(dock)
        self._share_height(dock)

    def restored(self, width: int, scale: float) -> None:
        """The window was given a stored layout whose docks were placed for a window `width` wide at type `scale`."""
        self.fitted = (width, scale)
        self.restored_layout = True  # (its docks are looked at once more, at the next refit)

    def carry_over(self, old: DockPlacement) -> None:
        """The window replacing `old`'s: the companion its composed slide kept is this one's too."""
        if old.companion is not None:
            docks = {dock.objectName(): dock for dock in [*self.docks(), *self.below]}
            self.companion = docks.get(old.companion.objectName())

    def keep_below(self, dock: QDockWidget) -> None:
        """`dock` opens under the stage view in a tall window, with BELOW_SHARE of its height, else beside it."""
        self.below.append(dock)
        dock.visibilityChanged.connect(
            lambda visible: visible and QTimer.singleShot(0, dock, lambda: self._below(dock))
        )

    def _below(self, dock: QDockWidget) -> None:
        window = self.window
        if not dock.isVisible() or (dock.isFloating() and not self._over_stage(dock)):
            return
        if window.height() < STACK_MIN_HEIGHT * self.scale:
            if dock.isFloating():
                dock.setFloating(False)
            if window.dockWidgetArea(dock) not in SIDES:
                window.addDockWidget(Qt.RightDockWidgetArea, dock)
            self.place(dock)
            return
        if dock.isFloating():
            dock.setFloating(False)
        if window.dockWidgetArea(dock) == Qt.BottomDockWidgetArea:
            self.companion = dock
            if self.composed():
                self._alone(dock)
            window.resizeDocks([dock], [int(window.height() * BELOW_SHARE)], Qt.Vertical)

    def refit(self) -> None:
        """The window was shown or resized: docks opened meanwhile are placed, docks given back floating over the
        stage view docked beside it again, a composed slide left with one companion, and, unless the docks were placed
        for this width or a wider one at this type size, docks beside a stage view squeezed under STAGE_MIN_WIDTH
        placed again; after a stored layout was given back (presentation mode, a new language), a dock alone beside
        the stage view narrower than DOCK_MIN_WIDTH is placed again too."""
        pending, self.pending = self.pending, []
        for dock in pending:
            if dock.isVisible():
                self.place(dock)
        for dock in self.docks():
            if dock.isVisible() and dock.isFloating() and self._over_stage(dock):
                self.place(dock)
        for dock in self.below:
            if dock.isVisible() and dock.isFloating() and self._over_stage(dock):
                self._below(dock)
        shown = self._shown()
        if self.composed() and len(shown) > 1:
            self.place(self.companion if self.companion in shown else shown[0])
        width, fitted = self.window.width(), self.fitted
        narrowed = fitted is None or width < fitted[0] or self.scale > fitted[1]
        squeezed = narrowed and self.window.stage_view.width() < STAGE_MIN_WIDTH * self.scale
        for dock in self._beside():
            if squeezed or (self.restored_layout and self._alone_too_narrow(dock)):
                self.place(dock)
        self.fitted, self.restored_layout = (width, self.scale), False

    def _alone(self, dock: QDockWidget) -> None:
        """`dock` the slide's one companion: the other docks shown beside or under the stage view close, and the map
        (left of the stage list at the desk: Ctrl+M brings it back)."""
        for other in [*self._shown(), self.window.map_dock]:
            if other is not dock:
                other.close()

    def _alone_too_narrow(self, dock: QDockWidget) -> bool:
        """Whether `dock` stands alone on its side of the stage view narrower than DOCK_MIN_WIDTH: the Cost dock came
        back 82 px wide in presentation mode, its stored layout given back at the larger type (docks the teacher put
        side by side keep the widths they share)."""
        area = self.window.dockWidgetArea(dock)
        alone = all(d is dock or self.window.dockWidgetArea(d) != area for d in self._beside())
        return alone and dock.width() < DOCK_MIN_WIDTH * self.scale

    def _beside_width(self, dock: QDockWidget | None = None) -> int:
        """The width a dock beside the stage view gets at the desk: DOCK_SHARE of the window, as long as the stage
        view keeps STAGE_MIN_WIDTH."""
        free = self._free(dock)
        return min(round(self.window.width() * DOCK_SHARE), free - round(STAGE_MIN_WIDTH * self.scale))

    def _free(self, dock: QDockWidget | None) -> int:
        """The width the stage view and `dock`'s side share (None: the right side): the window's, less the stage list
        and its splitter handle, the docks on the other side (the map, left of the stage list) and the edges."""
        window, stage_list = self.window, self.window.stage_list
        side = Qt.RightDockWidgetArea if dock is None else window.dockWidgetArea(dock)
        others = [
            d.width()
            for d in window.findChildren(QDockWidget)
            if d.isVisible()
            and not d.isFloating()
            and window.dockWidgetArea(d) in SIDES
            and window.dockWidgetArea(d) != side
        ]
        # the central widget's margins, the splitter's handle and a separator beside each side's docks (Fusion:
        # 6 + 6 + 4 + 6, and 6 more with the map: 28 px, where a constant 24 left the stage view 4 px short)
        margins = window.centralWidget().layout().contentsMargins()
        separator = window.style().pixelMetric(QStyle.PM_DockWidgetSeparatorExtent, None, window)
        edges = margins.left() + margins.right() + separator * (1 + bool(others))
        listed = stage_list.width() + window.splitter.handleWidth() if stage_list.isVisible() else 0
        return window.width() - listed - max(others, default=0) - edges

    def _beside(self) -> list[QDockWidget]:
        window = self.window
        return [d for d in self.docks() if d.isVisible() and not d.isFloating() and window.dockWidgetArea(d) in SIDES]

    def _shown(self) -> list[QDockWidget]:
        """The docks shown beside or under the stage view."""
        window = self.window
        areas = (*SIDES, Qt.BottomDockWidgetArea)
        docks = [*self.docks(), *self.below]
        return [d for d in docks if d.isVisible() and not d.isFloating() and window.dockWidgetArea(d) in areas]

    def _over_stage(self, dock: QDockWidget) -> bool:
        """Whether floating `dock` lies over the stage view (a part of it: what it covers the class cannot read)."""
        view = self.window.stage_view
        return dock.frameGeometry().intersects(QRect(view.mapToGlobal(QPoint(0, 0)), view.size()))

    def _tab_if_short(self, dock: QDockWidget) -> None:
        """In a window shorter than STACK_MIN_HEIGHT, a dock opened in a column where another dock is shown is tabbed
        with that one (one above the other, each would get too little height to read)."""
        window = self.window
        if window.height() >= STACK_MIN_HEIGHT * self.scale:
            return
        tabbed = window.tabifiedDockWidgets(dock)
        shown = [
            d
            for d in self._beside()
            if d is not dock and d not in tabbed and window.dockWidgetArea(d) == window.dockWidgetArea(dock)
        ]
        if shown:
            window.tabifyDockWidget(shown[0], dock)
            dock.raise_()

    def _share_height(self, dock: QDockWidget) -> None:
        """A dock opened in a column where others are shown, one above the other (a tall window), shares its
        height with them evenly: Qt gave the newcomer what the others could spare, the KV cache's figure a strip
        too low to read under the Generate panel at 1920×1080."""
        window = self.window
        area = window.dockWidgetArea(dock)
        column = [d for d in self._beside() if window.dockWidgetArea(d) == area and not window.tabifiedDockWidgets(d)]
        if dock in column and len(column) > 1:
            window.resizeDocks(column, [window.height() // len(column)] * len(column), Qt.Vertical)
