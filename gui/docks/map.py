"""The map dock (View ▸ The map, Ctrl+M; on by default): the Transformer diagram of the loaded model beside the
stage view, with "you are here" (gui/plots/map.py). It follows the cursor: each step moves the frame (gliding,
unless View ▸ Reduce motion) and changes which boxes look computed; nothing is redrawn. A click on a box goes to
its first stage; "Inside the box" (or a double click) shows the current box's own diagram, which a wide dock
shows beside the map. Right-click exports or copies it; File ▸ Export the map… does too.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QToolButton, QVBoxLayout

from gui.plots.map import PANELS, MapFigure, draw_map
from gui.plots.view import FigureCache
from gui.state import preferences
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.views.export_dialogs import export_figure_dialog
from gui.views.figure_view import FigureView
from gui.views.lazy_view import LazyView

WIDE = 1.3  # a dock this much wider than high shows the map and the inside of the box side by side
MAP_SHARE = 0.22  # of the window's width, before the map is drawn
READABLE = 0.75  # screen pixels per drawing unit the dock is made wide enough for (a box's name: 11 px)
MIN_WIDTH, MAX_SHARE = 180, 0.26  # the dock's width in pixels, and as a share of the window's at most
BIG_SCREEN = 1600  # a window at least this wide gives the map the width its full height needs
REDUCED_MOTION = "view/reduced_motion"


def tr(text: str) -> str:
    return QCoreApplication.translate("MapView", text)


class MapView(LazyView):
    newModel = Signal()  # drawn for another model or sentence: the dock may want another width (not for a language)

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state, self.settings = state, state.display
        self.figure: MapFigure | None = None
        self.drawn_for = None  # what the figure shown was drawn for (map_key)
        self.zoom = QToolButton(self)
        self.texts = LiveTexts()  # what a language switch sets again
        self.texts.set(self.zoom.setText, lambda: self.tr("Inside the box"))
        self.texts.set(
            self.zoom.setToolTip, lambda: self.tr("Show the current box's own diagram (double-click a box does too)")
        )
        self.zoom.setCheckable(True)
        self.zoom.toggled.connect(lambda _on: self._rebuild())
        self.plot = FigureView(state, self, draw=draw_map, prefix="map.")
        self.plot.keeps_shrink = False  # its titles wrap to the width: the least size falls as they do
        self.plot.setMinimumSize(160, 90)  # other docks beside it in a small window: it gives way
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        self.figures = FigureCache(self.plot, limit=4)  # a what-if switch on, then off, in either language
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addStretch(1)
        bar.addWidget(self.zoom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.plot, 1)
        state.lessonChanged.connect(self._rebuild)
        state.cursorChanged.connect(self.schedule)
        self.redraw_on(self.settings, {"head"})  # "you are here" names the head

    def retranslate(self) -> None:
        """Another language: the button, and the map drawn anew (map_key names the language)."""
        self.texts.retranslate()
        self.schedule()

    def panels(self) -> tuple[str, ...]:
        if self.plot.width() > WIDE * self.plot.height():
            return PANELS
        return ("detail",) if self.zoom.isChecked() else ("map",)

    def _rebuild(self) -> None:
        """A new model, sentence or what-if switch, or other panels: the next draw shows the figure for them."""
        self.figure = None
        self.schedule()

    def map_key(self) -> tuple:
        """What a map figure is drawn from: the model (its what-if switches too: a switched-off part is marked),
        its stages, the panels and the language. (Another sentence changes only its inputs lines and tooltips:
        MapFigure.set_trace.)"""
        trace = self.state.view
        return repr(trace.config), tuple(trace.stage_names), self.panels(), self.settings.lang

    def draw(self, *_) -> None:
        key, view = self.map_key(), self.state.view
        glide = self.figure is not None and key == self.drawn_for and not preferences.read(REDUCED_MOTION, False)
        if self.figure is None or key != self.drawn_for:
            opts, panels = self.settings.plot_options(), self.panels()
            self.figure = self.figures.show(key, lambda layout: MapFigure(layout, view, opts, panels))
            self.plot.settle()
            if key != self.drawn_for:
                other_model = self.drawn_for is None or key[:-1] != self.drawn_for[:-1]  # (not only the language)
                self.drawn_for = key
                if other_model:
                    self.newModel.emit()
        self.figure.set_trace(view)
        self.zoom.setEnabled(self.figure.panels != PANELS)
        # titles wrap to the panel's width (a line of n columns takes about n · 0.6 em), never widening the figure
        width = self.plot.width() / len(self.figure.panels)
        self.figure.title_columns = max(12, int(width / (0.62 * self.fontMetrics().height())))
        self.figure.show_stage(self.state.current_stage, glide)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.figure is not None and self.figure.panels != self.panels():
            self._rebuild()
        elif self.figure is not None:
            self.schedule()  # the titles wrap to the new width

    def wanted_width(self, window_width: int) -> int:
        """Wide enough for the map's names to be read at READABLE, or at the scale its height allows when that is
        less (a tall map gains nothing from width); before the first drawing: MAP_SHARE of the window."""
        if self.figure is None or self.figure.drawing is None:
            return int(window_width * MAP_SHARE)
        bounds = self.figure.drawing.bounds
        tall = self.figure.views["map"].height() / bounds.height() if "map" in self.figure.views else READABLE
        # a small screen: names just readable, the stage view keeps the rest; a big one: the map as tall as it can
        scale = min(READABLE * self.settings.font_scale, tall) if window_width < BIG_SCREEN else tall
        wanted = bounds.width() * scale + 2 * self.plot.frameWidth() + 8
        return int(max(MIN_WIDTH, min(wanted, window_width * MAX_SHARE)))

    def _clicked(self, event) -> None:
        if self.figure is None or event.button() != Qt.MouseButton.LeftButton:
            return
        stage = self.figure.hit(event.scenePos())
        if stage is None:
            return
        self.state.go_to(stage)
        if event.double() and "map" in self.figure.panels and self.figure.panels != PANELS:
            self.zoom.setChecked(True)


def title() -> str:
    """The dock's title (gui/docks/registry.py)."""
    return tr("The map")


def set_up(window, dock: QDockWidget) -> None:
    """The map's dock (gui/docks/registry.py adds it, beside the stage list) kept as wide as its names need, and its
    actions in `window.map_actions` (the menus place them): View ▸ Reduce motion stops its glide, File ▸ Export the
    map… writes it; "toggle" is its View ▸ The map."""
    dock.width_keeper = DockWidth(window, dock)
    calm = QAction(window)
    window.texts.set(calm.setText, lambda: tr("Reduce motion (no animations)"))
    calm.setCheckable(True)
    calm.setChecked(preferences.read(REDUCED_MOTION, False))
    calm.toggled.connect(lambda on: preferences.write(REDUCED_MOTION, on))
    export = QAction(window)
    window.texts.set(export.setText, lambda: tr("Export the map…"))
    export.triggered.connect(lambda: export_figure_dialog(window, window.state, draw_map, "map."))
    window.map_actions = {"toggle": dock.toggleViewAction(), "reduce_motion": calm, "export": export}


class DockWidth(QObject):
    """The map beside the stage view is made as wide as its names need (MapView.wanted_width) when it opens and
    when it shows another model, and again when a resized window leaves it far from that (the stage view gets
    the rest)."""

    def __init__(self, window, dock: QDockWidget):
        super().__init__(dock)
        self.window, self.dock = window, dock
        self.timer = QTimer(self)  # after the layout pass that asked for it
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.fit)
        dock.visibilityChanged.connect(lambda visible: visible and self.timer.start())
        dock.widget().newModel.connect(self.timer.start)
        window.resized.connect(lambda: self.fit(slack=0.2))

    def fit(self, slack: float = 0.0) -> None:
        """The wanted width, unless the dock is already within `slack` of it (floating or hidden: nothing)."""
        if not self.dock.isVisible() or self.dock.isFloating():
            return
        wanted = self.dock.widget().wanted_width(self.window.width())
        if abs(self.dock.width() - wanted) > slack * wanted:
            self.window.resizeDocks([self.dock], [wanted], Qt.Horizontal)
