"""Where a dock beside the stage view opens, so both stay readable at 1280×720 and in presentation mode.

A dock opens beside the stage view with DOCK_SHARE of the window's width, as long as the stage view keeps
STAGE_MIN_WIDTH for its tables and figure; where that leaves the dock under DOCK_MIN_WIDTH (a small screen, presentation
mode's large type) it floats over the stage view's right part instead, the tables left uncovered (where they leave it
less than DOCK_MIN_WIDTH, it keeps that width, and they are fitted left of it). Tables that grow under it later (another
stage, a generated token) push it aside, narrower; it stays so when they shrink. Where it is at its least width and
still reaches over them (a stage without a figure in presentation mode, whose tables take the whole width), the stage
view fits its tables left of it (StageView.set_covered): reflowed, or scrolling, never cut under it mid-number. The
docks floating there take turns, like tabs: one floated over another closes it (hidden under the new one it was drawn
for nothing, and its toolbar button closed it instead of bringing it up); one the teacher moved away stays, and one a
stored layout gives back floating there takes turns as well. In a window shorter than STACK_MIN_HEIGHT a dock opened
where another is shown becomes a tab beside it, rather than take half its height. The widths are in pixels at normal
type and grow with the display settings' type_scale. A window made smaller later, or its type made larger, narrows the
docks (or floats them) the same way; a window not shown yet places them once it is; a window given back a stored layout
(leaving presentation mode, a new language) keeps its docks where that layout has them. The docks that open under the
stage view (the training step, the lab) take BELOW_SHARE of a tall window's height; in a window shorter than
STACK_MIN_HEIGHT they open beside the stage view like the others (under it, the stage view would keep too little height
for its tables).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

DOCK_SHARE = 0.34  # of the window's width, when the stage view keeps …
STAGE_MIN_WIDTH = 720  # … this much (times the type scale) for its tables and figure
DOCK_MIN_WIDTH = 340  # a dock narrower than this (times the type scale) floats over the stage view instead
EDGES = 24  # the window's margins, the splitter's handle and the docks' separator
STACK_MIN_HEIGHT = 900  # a window shorter than this (times the type scale) tabs docks rather than stack them
REFIT_DELAY_MS = 200  # after the window is shown or resized, the docks are placed for its new size
FLOAT_MAX_SHARE = 0.6  # a dock floating over the stage view covers at most this share of it
SIDES = (Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea)
BELOW_SHARE = 0.4  # of a tall window's height, for a dock under the stage view


class DockPlacement(QObject):
    """Places the docks `docks()` of `window` (a MainWindow: its stage list and stage view) when they open."""

    def __init__(self, window: QMainWindow, docks: Callable[[], list[QDockWidget]]):
        super().__init__(window)
        self.window, self.docks = window, docks
        self.pending: list[QDockWidget] = []  # opened before the window was shown
        self.floated: dict[QDockWidget, None] = {}  # floated over the stage view here (kept over it), last placed last
        self.fitted: tuple[int, float] | None = None  # the window's width and type scale the docks were placed for
        self.restored_layout = False  # given a stored layout since the last refit
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(REFIT_DELAY_MS)
        self.timer.timeout.connect(self.refit)
        window.resized.connect(self.timer.start)
        window.shown.connect(self.timer.start)
        window.stage_view.tablesFitted.connect(self._tables_fitted)
        self.cover_timer = QTimer(self)  # a floating dock moved, resized, shown or closed: the tables' room again
        self.cover_timer.setSingleShot(True)
        self.cover_timer.setInterval(0)
        self.cover_timer.timeout.connect(self._cover)

    @property
    def scale(self) -> float:
        return self.window.state.display.type_scale

    def place(self, dock: QDockWidget) -> None:
        """A dock just opened: beside the stage view, or floating over it (see the module's note)."""
        window, scale = self.window, self.scale
        if not window.isVisible():
            self.pending.append(dock)
            return
        self._adopt()
        if dock.isFloating() and (dock in self.floated or self._over_stage(dock)):
            self._float_over_stage(dock, last=True)  # shown again over the stage view: its turn
            return
        if dock.isFloating() or window.dockWidgetArea(dock) not in SIDES:
            return
        width = min(round(window.width() * DOCK_SHARE), self._free(dock) - round(STAGE_MIN_WIDTH * scale))
        if width < DOCK_MIN_WIDTH * scale:
            dock.setAttribute(Qt.WA_ShowWithoutActivating)  # the keys stay with the window: → still steps
            dock.setFloating(True)
            self._float_over_stage(dock, last=True)
            if window.isActiveWindow() or dock.isActiveWindow():
                window.activateWindow()  # (a window manager may still give a new window the focus)
            self.timer.start()  # and again once the stage view has the room the dock left
            return
        window.resizeDocks([dock], [width], Qt.Horizontal)
        self._tab_if_short(dock)
        self._share_height(dock)

    def restored(self, width: int, scale: float) -> None:
        """The window was given a stored layout whose docks were placed for a window `width` wide at type `scale`."""
        self.fitted = (width, scale)
        self.restored_layout = True  # (its docks are looked at once more, at the next refit)

    def carry_over(self, old: DockPlacement) -> None:
        """The window replacing `old`'s: the docks floated over the old stage view float over this one, once it is
        shown (the stored layout alone would leave them where the old window's stage view was)."""
        docks = {dock.objectName(): dock for dock in self.docks()}
        self.floated = {docks[dock.objectName()]: None for dock in old.floated if dock.objectName() in docks}

    def keep_below(self, dock: QDockWidget) -> None:
        """`dock` opens under the stage view in a tall window, with BELOW_SHARE of its height, else beside it."""
        dock.visibilityChanged.connect(
            lambda visible: visible and QTimer.singleShot(0, dock, lambda: self._below(dock))
        )

    def _below(self, dock: QDockWidget) -> None:
        window = self.window
        if not dock.isVisible() or dock.isFloating():
            return
        if window.height() < STACK_MIN_HEIGHT * self.scale:
            if window.dockWidgetArea(dock) not in SIDES:
                window.addDockWidget(Qt.RightDockWidgetArea, dock)
            self.place(dock)
        elif window.dockWidgetArea(dock) == Qt.BottomDockWidgetArea:
            window.resizeDocks([dock], [int(window.height() * BELOW_SHARE)], Qt.Vertical)

    def refit(self) -> None:
        """The window was shown or resized: docks opened meanwhile are placed, floated ones kept over the stage
        view, and, unless the docks were placed for this width or a wider one at this type size, docks beside a stage
        view squeezed under STAGE_MIN_WIDTH placed again; after a stored layout was given back (presentation mode, a new
        language), a dock alone beside the stage view narrower than DOCK_MIN_WIDTH is placed again too."""
        pending, self.pending = self.pending, []
        for dock in pending:
            if dock.isVisible():
                self.place(dock)
        self._adopt()
        for dock in list(self.floated):  # (in the order they were placed: the last placed stays on top)
            if dock.isFloating() and dock.isVisible():
                self._float_over_stage(dock)
        width, fitted = self.window.width(), self.fitted
        narrowed = fitted is None or width < fitted[0] or self.scale > fitted[1]
        squeezed = narrowed and self.window.stage_view.width() < STAGE_MIN_WIDTH * self.scale
        for dock in self._beside():
            if squeezed or (self.restored_layout and self._alone_too_narrow(dock)):
                self.place(dock)
        self.fitted, self.restored_layout = (width, self.scale), False

    def _alone_too_narrow(self, dock: QDockWidget) -> bool:
        """Whether `dock` stands alone on its side of the stage view narrower than DOCK_MIN_WIDTH: the Cost dock came
        back 82 px wide in presentation mode, its stored layout given back at the larger type (docks the teacher put
        side by side keep the widths they share)."""
        area = self.window.dockWidgetArea(dock)
        alone = all(d is dock or self.window.dockWidgetArea(d) != area for d in self._beside())
        return alone and dock.width() < DOCK_MIN_WIDTH * self.scale

    def _free(self, dock: QDockWidget) -> int:
        """The width the stage view and `dock`'s side share: the window's, less the stage list and the docks on
        the other side (the map, left of the stage list)."""
        window, stage_list = self.window, self.window.stage_list
        side = window.dockWidgetArea(dock)
        others = [
            d.width()
            for d in window.findChildren(QDockWidget)
            if d.isVisible()
            and not d.isFloating()
            and window.dockWidgetArea(d) in SIDES
            and window.dockWidgetArea(d) != side
        ]
        return window.width() - (stage_list.width() if stage_list.isVisible() else 0) - max(others, default=0) - EDGES

    def _beside(self) -> list[QDockWidget]:
        window = self.window
        return [d for d in self.docks() if d.isVisible() and not d.isFloating() and window.dockWidgetArea(d) in SIDES]

    def _float_over_stage(self, dock: QDockWidget, last: bool = False) -> None:
        """Over the right part of the stage view, right of the width its tables would like: at least DOCK_MIN_WIDTH,
        at most FLOAT_MAX_SHARE of the stage view; the docks placed there before it and mostly under it closed.
        `last`: placed now (kept on top when the docks are placed again)."""
        if last:
            self.floated.pop(dock, None)
            self.floated[dock] = None
        spot = self._spot()
        dock.setGeometry(spot)
        dock.raise_()
        dock.installEventFilter(self)  # (once: installed again, a filter only moves to the front)
        for other in self.floated:  # those placed before it
            if other is dock:
                break
            if other.isFloating() and other.isVisible() and _mostly_under(other.geometry(), spot):
                other.close()

    def _spot(self) -> QRect:
        """Where a dock floats over the stage view (global coordinates): see _float_over_stage."""
        view = self.window.stage_view
        least, most = round(DOCK_MIN_WIDTH * self.scale), round(view.width() * FLOAT_MAX_SHARE)
        width = min(view.width(), max(least, min(most, view.width() - view.tables_width())))
        return QRect(view.mapToGlobal(QPoint(view.width() - width, 0)), QSize(width, view.height()))

    def _tables_fitted(self) -> None:
        """The stage view's tables were laid out anew (another stage, a generated token): the docks floating over it
        that now reach over them are placed again, narrower, right of them. They do not widen again when the tables
        shrink: a dock moves only to uncover a table (resized at every step, its figure would be drawn again)."""
        left = self._spot().left()
        for dock in list(self.floated):
            if dock.isFloating() and dock.isVisible() and self._over_stage(dock) and dock.geometry().left() < left:
                self._float_over_stage(dock)
        self._cover()

    def _cover(self) -> None:
        """Tell the stage view how far the docks floating over it reach from its right edge (0: none), and whether one
        of them is at its least width (it can move aside no further: the tables make room)."""
        view, least = self.window.stage_view, round(DOCK_MIN_WIDTH * self.scale)
        right = view.mapToGlobal(QPoint(view.width(), 0)).x()
        over = [d for d in self.floated if d.isFloating() and d.isVisible() and self._over_stage(d)]
        reach = max([0, *(right - dock.frameGeometry().left() for dock in over)])
        view.set_covered(reach, any(dock.geometry().width() <= least for dock in over))

    def eventFilter(self, watched, event) -> bool:
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide):
            self.cover_timer.start()
        return False

    def _over_stage(self, dock: QDockWidget) -> bool:
        """Whether `dock` covers mostly the stage view."""
        view = self.window.stage_view
        return _mostly_under(dock.geometry(), QRect(view.mapToGlobal(QPoint(0, 0)), view.size()))

    def _adopt(self) -> None:
        """Docks a stored layout gave back floating over the stage view (placed there by an earlier window) take
        turns with those placed here."""
        for dock in self.docks():
            if dock not in self.floated and dock.isFloating() and dock.isVisible() and self._over_stage(dock):
                self.floated[dock] = None

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


def _mostly_under(rect: QRect, cover: QRect) -> bool:
    """Whether `cover` hides more than half of `rect`."""
    both = rect.intersected(cover)
    return 2 * both.width() * both.height() > rect.width() * rect.height()
