"""A step lays the stage view out before it returns: whatever the event loop does later (a LayoutRequest, a re-fit on
a timer) would come after the first paint, and everything moved would be painted again."""

import pytest
from PySide6.QtWidgets import QWidget

from tests.gui_window import open_window, settle


def places(view) -> list[tuple]:
    page = view.pages.widget(0)  # the stage (the other page: a sentence that cannot be stepped through)
    shown = [w for w in page.findChildren(QWidget) if w.parentWidget() is page and w.isVisibleTo(page)]
    return [(type(w).__name__, w.geometry().getRect()) for w in shown]


@pytest.mark.parametrize(("width", "presenting"), [(760, False), (1000, False), (1280, False), (1280, True)])
def test_a_step_leaves_nothing_to_lay_out_after_it(qtbot, width, presenting):
    window = open_window(qtbot)
    window.resize(width, 720)
    state, view = window.state, window.stage_view
    view.set_presenting(presenting)  # (three lines of explanation at most, no title: other heights)
    settle(qtbot, passes=10, wait_ms=20)
    qtbot.waitUntil(lambda: not window.teaching.placement.timer.isActive())  # the docks placed for the new width
    settle(qtbot)
    moved = []
    for name in state.stage_names:
        state.go_to(name)
        at_step = places(view)
        settle(qtbot, passes=3, wait_ms=5)
        settled = places(view)
        if settled != at_step:
            moved.append((name, [(a, b) for a, b in zip(at_step, settled) if a != b]))
    assert not moved
