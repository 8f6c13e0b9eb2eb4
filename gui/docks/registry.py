"""Every dock of the main window, declared once (DockSpec): its key, title, view, where it opens, its shortcut,
whether the toolbar has a button for it and whether a lesson's "views" may open it.

The window adds them all one way (add_docks), in the registry's order; the View menu (gui/window/menus.py), the
toolbar and a lesson's views (gui/docks/teaching_docks.py), the placement (gui/docks/placement.py) and the tests read
the docks it made (`window.docks`, by key). A dock made elsewhere (a plug-in, a test) joins every window built after
`register(DockSpec(...))`; a lesson may then name it if it is lesson_openable (engine.formats.lesson.VIEWS).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from engine.formats import lesson
from gui.docks import map as map_dock
from gui.docks import overview, training_step
from gui.docks.cost import CostView
from gui.docks.generation import GenerationPanel
from gui.docks.heads import HeadGridView
from gui.docks.kv_cache import KVCacheView
from gui.docks.lens import LensView
from gui.docks.modernise import ModerniseView
from gui.docks.modernise import title as modernise_title
from gui.docks.neuron import NeuronView
from gui.docks.placement import DockPlacement
from gui.docks.training_lab import TrainingLab
from gui.docks.whatif import WhatIfView
from gui.state.app_state import AppState
from gui.views.scrolling import scrolling

BESIDE = "beside"  # placed beside the stage view (a composed slide's one companion) each time it opens (place)
BELOW = "below"  # under the stage view in a tall window, beside it in a short one (keep_below)
SIDES_AND_BOTTOM = Qt.LeftDockWidgetArea | Qt.RightDockWidgetArea | Qt.BottomDockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    key: str  # window.docks[key]; a lesson's "views" name it; its object name is dock_<key> (see layout_name)
    title: Callable[[], str]  # in the language shown: a translate() call whose context has a zh translation
    view: Callable[[AppState], QWidget]  # makes its view of the app state, a widget with retranslate()
    area: Qt.DockWidgetArea = Qt.RightDockWidgetArea  # where it opens first
    placed: str | None = BESIDE  # BESIDE, BELOW, or None: where its area and its setup put it (the map)
    shortcut: str = ""  # of its show/hide toggle (View menu)
    toolbar: bool = False  # a button on the toolbar: its toggle, or `button`
    lesson_openable: bool = False  # a lesson's "views" may open it
    shown: bool = False  # shown in a new window (a stored layout then says where and whether)
    scrolls: bool = True  # its view in a scroll area (beside the stage view it asks for no more height)
    tab_with: str = ""  # the key of a dock it opens as a tab of
    under: str = ""  # the key of a dock it opens under
    areas: Qt.DockWidgetArea = SIDES_AND_BOTTOM  # where the teacher may drag it
    button: Callable[[QWidget], QAction] | None = None  # the toolbar's button if not its toggle: an action of its view
    button_text: Callable[[], str] | None = None  # the toolbar button's text if shorter than the title
    setup: Callable[[QMainWindow, Dock], None] | None = None  # what else it needs, once every dock is added
    layout_name: str = ""  # its object name where it is not dock_<key> (layouts stored before the registry)

    @property
    def object_name(self) -> str:
        """What stored window layouts (QMainWindow.saveState) know it by."""
        return self.layout_name or f"dock_{self.key}"


@dataclass(frozen=True)
class Dock:
    """A dock of one window: its spec, the dock widget and its view (inside a scroll area if the spec scrolls)."""

    spec: DockSpec
    widget: QDockWidget
    view: QWidget

    @property
    def toggle(self) -> QAction:
        """Shows or hides it (View menu, with the spec's shortcut)."""
        return self.widget.toggleViewAction()


_SPECS: list[DockSpec] = [
    DockSpec(
        "map",
        map_dock.title,
        map_dock.MapView,
        area=Qt.LeftDockWidgetArea,  # beside the stage list: the docks on the right keep their height, the map its own
        placed=None,  # as wide as its names need (map.DockWidth)
        shortcut="Ctrl+M",
        shown=True,
        scrolls=False,
        setup=lambda window, dock: map_dock.set_up(window, dock.widget),
    ),
    DockSpec(
        "heads",
        lambda: QCoreApplication.translate("TeachingViews", "Heads side by side"),
        HeadGridView,
        shortcut="Ctrl+H",
        toolbar=True,
        lesson_openable=True,
    ),
    DockSpec(
        "overview",
        lambda: QCoreApplication.translate("TeachingViews", "Every head at a glance"),
        overview.OverviewView,
        placed=None,  # beside the stage view at the desk, the whole slide in presentation mode (overview.set_up)
        shortcut="Ctrl+Shift+H",
        toolbar=True,
        lesson_openable=True,
        scrolls=False,
        button_text=lambda: QCoreApplication.translate("TeachingViews", "All heads"),
        setup=overview.set_up,
    ),
    DockSpec(
        "whatif",
        lambda: QCoreApplication.translate("TeachingViews", "What if"),
        WhatIfView,
        lesson_openable=True,
        tab_with="heads",
    ),
    DockSpec(
        "generation",
        lambda: QCoreApplication.translate("TeachingViews", "Generate"),
        GenerationPanel,
        toolbar=True,
        lesson_openable=True,
        button=lambda view: view.generate_action,
    ),
    DockSpec(
        "kv_cache",
        lambda: QCoreApplication.translate("TeachingViews", "KV cache"),
        KVCacheView,
        toolbar=True,
        lesson_openable=True,
        under="generation",
    ),
    DockSpec(
        "cost",
        lambda: QCoreApplication.translate("TeachingViews", "Cost of this model"),
        CostView,
        toolbar=True,
        lesson_openable=True,
        button_text=lambda: QCoreApplication.translate("TeachingViews", "Cost"),
    ),
    DockSpec(
        "lab",
        lambda: QCoreApplication.translate("TrainingLab", "Training lab"),
        lambda state: TrainingLab(state.lab_run, state.display),
        area=Qt.BottomDockWidgetArea,
        placed=BELOW,
        lesson_openable=True,
        scrolls=False,
        areas=Qt.AllDockWidgetAreas,
        layout_name="dock_training_lab",
    ),
    DockSpec(
        "training_step",
        lambda: QCoreApplication.translate("TrainingStepView", "Training step"),
        training_step.TrainingStepView,
        area=Qt.BottomDockWidgetArea,
        placed=BELOW,
        scrolls=False,
        areas=Qt.AllDockWidgetAreas,
        setup=lambda window, dock: training_step.show_on_step(window, dock.widget),
    ),
    DockSpec(
        "neuron",
        lambda: QCoreApplication.translate("NeuronView", "Neuron view"),
        NeuronView,
        lesson_openable=True,
    ),
    DockSpec(
        "lens",
        lambda: QCoreApplication.translate("LensView", "Logit lens"),
        LensView,
        area=Qt.BottomDockWidgetArea,
        placed=BELOW,
        lesson_openable=True,
        scrolls=False,
        areas=Qt.AllDockWidgetAreas,
    ),
    DockSpec(
        "modernise",
        modernise_title,
        ModerniseView,
        lesson_openable=True,
    ),
]


def specs() -> tuple[DockSpec, ...]:
    """The docks every window is built with, in the order they are added, listed and put on the toolbar."""
    return tuple(_SPECS)


def lesson_views() -> tuple[str, ...]:
    """The keys of the docks a lesson's "views" may open."""
    return tuple(spec.key for spec in _SPECS if spec.lesson_openable)


def register(spec: DockSpec) -> None:
    """`spec` joins the docks of every window built from now on (after the others); a lesson may name it if it is
    lesson_openable. A key or object name taken already is refused (a stored layout would give one dock's place to
    the other)."""
    if any(spec.key == s.key or spec.object_name == s.object_name for s in _SPECS):
        raise ValueError(f"a dock named {spec.key!r} is registered already")
    _SPECS.append(spec)
    lesson.set_views(lesson_views())


def unregister(key: str) -> None:
    """The dock `key` leaves the windows built from now on (and the names a lesson may open)."""
    _SPECS[:] = [spec for spec in _SPECS if spec.key != key]
    lesson.set_views(lesson_views())


def add_docks(window: QMainWindow, placement: DockPlacement) -> dict[str, Dock]:
    """Every registered dock added to `window` (a MainWindow) one way, by key: its title in `window.texts`, its
    shortcut, its tab or column, where it opens (`placement`), shown or hidden, then its own setup."""
    docks = {spec.key: _add(window, placement, spec) for spec in _SPECS}
    for dock in docks.values():
        if dock.spec.tab_with:
            window.tabifyDockWidget(docks[dock.spec.tab_with].widget, dock.widget)
        if dock.spec.under:
            window.splitDockWidget(docks[dock.spec.under].widget, dock.widget, Qt.Vertical)
    for dock in docks.values():
        if not dock.spec.shown:
            dock.widget.hide()
        if dock.spec.setup is not None:
            dock.spec.setup(window, dock)
    return docks


def _add(window: QMainWindow, placement: DockPlacement, spec: DockSpec) -> Dock:
    view = spec.view(window.state)
    widget = QDockWidget(window)
    window.texts.set(widget.setWindowTitle, spec.title)
    widget.setObjectName(spec.object_name)
    widget.setWidget(scrolling(view) if spec.scrolls else view)
    in_sight = getattr(view, "in_sight", None)  # a view that draws only while in sight (gui/views/lazy_view.py)
    if in_sight is not None:
        widget.visibilityChanged.connect(lambda visible: visible and in_sight())  # (also when its tab is chosen)
    widget.setAllowedAreas(spec.areas)
    window.addDockWidget(spec.area, widget)
    if spec.shortcut:
        widget.toggleViewAction().setShortcut(QKeySequence(spec.shortcut))
    if spec.placed == BESIDE:
        widget.toggleViewAction().triggered.connect(lambda on: on and placement.place(widget))
    elif spec.placed == BELOW:
        placement.keep_below(widget)
    return Dock(spec, widget, view)
