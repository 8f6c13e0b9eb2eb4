from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from tests import gui_lessons
from tests.test_gui_present_mode import present, settled

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window


def test_probe(qtbot, start_window):
    controller = start_window("cost-of-context", "zh")
    window = present(qtbot, controller, (1920, 1080))
    settled(qtbot, window)
    qtbot.wait(2500)
    QApplication.processEvents()
    cost = window.teaching.cost
    plot = cost.plot
    least = plot.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
    pref = plot.ci.effectiveSizeHint(Qt.SizeHint.PreferredSize)
    print("\nview", plot.size(), "least", least, "pref", pref, "scale", plot.scale, "dock", window.teaching.cost_dock.frameGeometry())
    from gui.plots.stacking import stack_for
    print([ (type(i).__name__, cells) for i, cells in plot.ci.items.items()])
