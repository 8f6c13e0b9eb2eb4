"""A lesson controller and its app state form reference cycles (lambdas, views, the autosaver), so Python's
cyclic garbage collector frees them at some later moment, often inside another test, clearing the objects'
attributes in an order nobody chooses. PySide keeps the slots a Python method was connected as (the
controller's `_changed`, `_undo_index_changed`, …) in the controller's own `__dict__`: once the collector has
cleared it, a signal still connected to the controller fails with "Slot 'LessonController::' not found".
The undo stack signals as it is destroyed, so the state must never be destroyed while the controller listens.
"""

from __future__ import annotations

import gc

from gui.lesson.controller import LessonController
from tests.gui_lessons import FakePrompts, state_for


def test_the_collector_clearing_a_controller_first_delivers_no_signal_to_it(qapp):
    state = state_for("two-heads")
    assert state.edit_cell("enc.0.attn.W_Q", (0, 0), 0.5)  # a stack with a command signals when destroyed
    controller = LessonController(state, "en", shipped="two-heads", prompts=FakePrompts())
    autosaver = controller.autosaver  # its snapshot function holds the state too
    # The worst order the collector may take: the controller's attributes first, then the autosaver's,
    # then the last reference to the state.
    vars(controller).clear()
    vars(autosaver).clear()
    del state
    gc.collect()
    del controller, autosaver
    gc.collect()
