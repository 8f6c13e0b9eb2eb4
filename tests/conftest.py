import gc
import os
import tempfile

import pytest
import torch
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never the real user's settings or autosave: a fresh folder for this test run (tests may point elsewhere).
os.environ["STEPFORMER_SETTINGS_DIR"] = tempfile.mkdtemp(prefix="stepformer-settings-")
os.environ["STEPFORMER_DATA_DIR"] = tempfile.mkdtemp(prefix="stepformer-data-")
# One thread: on a 2-core machine the tiny tensors here run faster (and reproducibly) without thread hand-offs.
torch.set_num_threads(1)

# The modules every test uses, imported once and then frozen out of the garbage collector's view: the
# collection after each test (below) then looks only at objects made since, in ~1 ms instead of ~0.3–0.6 s
# for the ~200,000 objects of torch, Qt, pyqtgraph and the app's modules.
import gui.lesson.controller  # noqa: E402,F401
import gui.plots  # noqa: E402,F401
from gui.text import i18n  # noqa: E402

gc.collect()
gc.freeze()


# Tests that time themselves or count paints and redraws: `make test` runs them alone, after the others (`-m serial`,
# one process), so that another test's work neither slows them nor delays the timers that decide how often Qt paints.
SERIAL_MODULES = {
    "test_startup",  # a window within a deadline, key presses replayed in time
    "test_table_repaints",
    "test_heatmap_repaint",
    "test_gui_redraws",
    "test_stage_layout",  # nothing left to lay out (or paint again) after a step
    "test_parked_figures",  # what is readied before each paint
}
SERIAL_TESTS = {
    "test_settings_that_need_gigabytes_are_refused_with_the_figure",  # refused in under 0.1 s
    "test_a_zip_bomb_inside_the_size_limits_is_refused_before_it_inflates",  # refused in under 0.5 s
    "test_a_step_paints_the_cost_dock_once",
    "test_a_language_switch_paints_the_cost_dock_once",
    "test_a_step_redraws_only_the_per_stage_panel_and_a_new_sentence_every_panel",
    "test_a_settled_figure_is_painted_once_in_its_final_layout",
    "test_on_screen_an_unchanged_axis_is_copied_not_drawn_again_and_exports_stay_vector",
    "test_an_edit_repaints_every_cell_whose_number_or_mark_moved",
    "test_a_figure_swapped_out_waits_in_its_scene_out_of_sight",
}
# The slowest tests (30 s and more in a parallel run of the suite on the busy 2-core machine; most walk every stage of
# a lesson in each language and size): marked for information only (`-m "not slow"` leaves them out of a quick
# run by hand); `make test` runs them.
SLOW_TESTS = {
    "test_every_stage_figure_fits_the_window",  # tests/test_gui_fit.py
    "test_every_stage_is_readable_and_whole",  # tests/test_gui_layout.py
    "test_every_stage_figure_fits_beside_the_map_at_1280x720",  # tests/test_gui_map_window.py
    "test_a_figure_refreshed_with_a_trace_of_its_build_key_equals_one_drawn_for_it",  # tests/test_figure_reuse.py
    "test_a_figure_refreshed_with_another_sentence_equals_one_drawn_for_it",
    "test_every_shipped_lesson_opens_and_steps_to_its_last_stage",  # tests/test_gui_lessons.py
    "test_flash_attention_lesson_steps_through_every_tile",  # tests/test_gui_flash.py
    "test_a_table_too_large_for_the_room_rules_out_its_scale_without_changing_the_choice",
    "test_retraining_from_the_shipped_corpus_reproduces_the_accuracy",  # tests/test_toy_models.py
    "test_trace_and_stages_open_a_named_model",  # tests/test_cli.py
    "test_presentation_figures_overlap_nothing_and_name_every_token",  # tests/test_gui_present_mode.py
    "test_no_stage_parameter_or_switch_id_is_shown_outside_tooltips",  # tests/test_gui_no_ids.py
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        if module in SERIAL_MODULES or item.originalname in SERIAL_TESTS:
            item.add_marker(pytest.mark.serial)
        if item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


def made_qt_objects(request, app_before, widgets_before: int) -> bool:
    """Whether the test may have left Qt objects to the garbage collector: it used the QApplication (the qapp
    fixture, directly or through qtbot or a window fixture), or it made the QApplication or left widgets behind
    (a CLI verb run in this process)."""
    app = QApplication.instance()
    if app is None:
        return False
    return "qapp" in request.fixturenames or app is not app_before or len(app.allWidgets()) != widgets_before


@pytest.fixture(autouse=True)
def free_each_tests_objects_before_the_next(request):
    """Windows, controllers and lab threads a test made are destroyed at its end, not whenever the cyclic garbage
    collector next runs: in the middle of a later test, a collection that freed an earlier test's controller
    (its PySide slot table cleared before its undo stack) sent a signal into the cleared slots
    ("Slot 'LessonController::' not found"), or crashed while that test's lab thread ran. Only a test that made Qt
    objects is collected after (made_qt_objects): a pure engine test leaves no Qt object to a later collection, and
    a full collection after each of them cost more than the tests themselves (17.5 s for 5 s in the suite)."""
    app_before = QApplication.instance()
    widgets_before = len(app_before.allWidgets()) if app_before is not None else 0
    yield
    app = QApplication.instance()
    if app is not None:
        app.sendPostedEvents(None, QEvent.DeferredDelete)  # windows the test closed (deleteLater)
        # the language a test chose (a CLI verb run in this process with --lang zh) is not the next test's
        i18n.set_language(app, "en")
    if made_qt_objects(request, app_before, widgets_before):
        gc.collect()
