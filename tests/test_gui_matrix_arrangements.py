"""The stage view chooses how to arrange a stage's matrices from their sizes computed, not laid out
(gui/views/matrix_layout.py): each arrangement that fits the room, at each table font, is as large as the grid
asks for once the panels are really placed that way, for every stage of an encoder-decoder lesson, at the desk and
presenting. (One that does not fit is laid out squeezed, its wide tables scrolling: it is chosen only when
nothing fits, and then by how much of the output it would hide, whole.)"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize

from engine.formats.lesson import open_lesson
from gui.state import display
from gui.state.app_state import AppState
from gui.views.matrix_layout import ARRANGEMENTS, TABLE_SCALES, fits_in, least_hidden, place_panels
from tests.gui_window import show_window


def laid_out_size(layout, scale: float, arrangement: str):
    """The grid's size hint with the panels placed in `arrangement` at `scale` and laid out (twice: a table that
    scrolls asks for room for its scroll bar once it has its width)."""
    panels = [*layout.inputs, layout.output]
    for panel in panels:
        panel.table.set_scale(scale)
    natural = {p: p.table.natural_sizes() for p in panels}
    place_panels(layout.grid, layout.inputs, layout.output, layout.kind, layout.n_inputs, arrangement, natural)
    for _ in range(2):
        layout.area.layout().activate()
    return layout.area.sizeHint()


@pytest.mark.parametrize("presenting", [False, True], ids=["desk", "presenting"])
def test_every_arrangement_is_measured_as_large_as_it_lays_out(qtbot, presenting):
    lesson = open_lesson("cross-attention")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    if presenting:  # the type for a 1920×1080 projector
        state.display.set(presenting=True, room_scale=display.room_scale_for(1920, 1080))
    window = show_window(qtbot, state)
    window.resize(3840, 2160)  # room for most arrangements
    qtbot.waitUntil(lambda: window.size().width() == 3840)
    view = window.stage_view
    layout = view.layout_of_matrices
    compared, tried = 0, 0
    for stage in state.stage_names:
        state.go_to(stage)
        room = view.matrices_box.viewport().size()
        for scale in TABLE_SCALES:
            for arrangement in ARRANGEMENTS:
                computed = layout.size(scale, arrangement)
                tried += 1
                if computed.width() <= room.width() and computed.height() <= room.height():
                    assert computed == laid_out_size(layout, scale, arrangement), (stage, scale, arrangement)
                    compared += 1
    assert compared > 0.6 * tried


def first_fit_measuring_all(layout, rooms, scales):
    """The arrangement `fit` must choose, every arrangement measured: the first that fits the first room it can
    (ARRANGEMENTS order, the readable font first), else the one that hides least of the output in the last room."""
    for room in rooms:
        for scale in scales:
            for arrangement in ARRANGEMENTS:
                if fits_in(layout.size(scale, arrangement), room):
                    return scale, arrangement
    return least_hidden({(s, a): layout.measure(s, a) for s in scales for a in ARRANGEMENTS}, rooms[-1])


def test_a_table_too_large_for_the_room_rules_out_its_scale_without_changing_the_choice(qtbot):
    """`fit` skips the other arrangements at a font where one table alone is larger than the room (a vocabulary of
    columns beside the Generate and KV cache docks): the table alone is never larger than an arrangement, and the
    arrangement chosen is the one measuring them all would choose, for every stage and many rooms."""
    lesson = open_lesson("cross-attention")
    state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
    window = show_window(qtbot, state)
    layout = window.stage_view.layout_of_matrices
    rooms = [QSize(w, h) for w in (120, 260, 420, 700, 1100) for h in (90, 200, 420, 800)]
    skipped = 0
    for stage in state.stage_names:
        state.go_to(stage)
        for scale in TABLE_SCALES:
            least = layout.largest_table(scale)
            for arrangement in ARRANGEMENTS:
                size = layout.size(scale, arrangement)
                assert least.width() <= size.width() and least.height() <= size.height(), (stage, scale, arrangement)
        for room in rooms:
            for choice in ([room], [room, QSize(room.width() * 2, room.height())]):
                layout.remeasure()
                layout.fit(choice)
                assert layout.shown == first_fit_measuring_all(layout, choice, TABLE_SCALES), (stage, room)
                skipped += not fits_in(layout.largest_table(1.0), room)
    assert skipped > 0  # (some rooms too small for a table alone: the shortcut was taken)
