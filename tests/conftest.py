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


@pytest.fixture(autouse=True)
def free_each_tests_objects_before_the_next():
    """Windows, controllers and lab threads a test made are destroyed at its end, not whenever the cyclic garbage
    collector next runs: in the middle of a later test, a collection that freed an earlier test's controller
    (its PySide slot table cleared before its undo stack) sent a signal into the cleared slots
    ("Slot 'LessonController::' not found"), or crashed while that test's lab thread ran."""
    yield
    app = QApplication.instance()
    if app is not None:
        app.sendPostedEvents(None, QEvent.DeferredDelete)  # windows the test closed (deleteLater)
        # the language a test chose (a CLI verb run in this process with --lang zh) is not the next test's
        i18n.set_language(app, "en")
    gc.collect()
