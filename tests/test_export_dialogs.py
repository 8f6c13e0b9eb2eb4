"""The window's export dialogs and the plot area's right-click menu write what the teacher picked."""

import pytest
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from engine import ModelConfig
from gui.plots import draw_stage
from gui.state.app_state import AppState
from gui.text.operations import stage_title
from gui.views import export_dialogs as dialogs
from gui.views.figure_view import FigureView


@pytest.fixture
def state(qapp):
    s = AppState(ModelConfig(d_model=4, n_heads=2, decimals=1), "I love AI")
    s.go_to("enc.0.attn.weights")
    s.set_head(1)
    return s


@pytest.fixture
def parent(qtbot, state):
    widget = QWidget()
    state.display.set(lang="zh")
    qtbot.addWidget(widget)
    return widget


@pytest.fixture
def answers(monkeypatch):
    """What the teacher types into the file and number dialogs."""
    given = {"path": "", "number": (640, True)}
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (given["path"], ""))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: given["number"])
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    given["warnings"] = warnings
    return given


def test_export_figure_dialog_writes_png_of_the_chosen_width(state, parent, answers, tmp_path, qtbot):
    answers["path"] = str(tmp_path / "fig")  # no extension: PNG is the default
    with qtbot.waitSignal(state.message) as message:
        assert dialogs.export_figure_dialog(parent, state)
    assert QImage(str(tmp_path / "fig.png")).width() == 640
    # the status bar names the stage by its title, never its id (the file's name may hold it)
    assert stage_title(state.view, "enc.0.attn.weights", "zh") in message.args[0]
    assert "enc.0.attn.weights" not in message.args[0]


def test_export_figure_dialog_svg_and_cancel(state, parent, answers, tmp_path):
    answers["path"] = str(tmp_path / "fig.svg")
    assert dialogs.export_figure_dialog(parent, state)
    assert (tmp_path / "fig.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    answers["path"] = ""  # cancelled
    assert not dialogs.export_figure_dialog(parent, state)
    answers["path"], answers["number"] = str(tmp_path / "x.png"), (0, False)  # width dialog cancelled
    assert not dialogs.export_figure_dialog(parent, state)
    assert not (tmp_path / "x.png").exists()


def test_export_failure_is_shown_not_raised(state, parent, answers, tmp_path):
    answers["path"] = str(tmp_path / "missing" / "fig.pdf")
    assert not dialogs.export_figure_dialog(parent, state)
    assert answers["warnings"] and "missing" in answers["warnings"][0]


def test_export_matrix_dialog_writes_csv_with_the_decimals(state, parent, answers, tmp_path, qtbot):
    answers["path"], answers["number"] = str(tmp_path / "w.csv"), (3, True)
    with qtbot.waitSignal(state.message) as message:
        assert dialogs.export_matrix_dialog(parent, state, "enc.0.attn.W_Q")
    assert "W_Q (Encoder · Block 0 · Self-attention)" in message.args[0] and "enc.0" not in message.args[0]
    assert dialogs.export_matrix_dialog(parent, state, "enc.0.attn.weights")
    lines = (tmp_path / "w.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",I,love,AI"
    first = [float(x) for x in lines[1].split(",")[1:]]
    assert first == [round(float(x), 3) for x in state.trace["enc.0.attn.weights"][1, 0]]


def test_export_deck_dialog_reports_progress(state, parent, answers, tmp_path, monkeypatch):
    calls = []

    def fake_deck(trace, opts, path, progress=None):
        for k in range(1, 4):
            progress(k, 3)
        calls.append((path, opts.lang, opts.head))
        return 3

    monkeypatch.setattr(dialogs, "export_deck", fake_deck)
    answers["path"] = str(tmp_path / "lesson.pptx")
    assert dialogs.export_deck_dialog(parent, state)
    assert calls == [(str(tmp_path / "lesson.pptx"), "zh", 1)]


def test_figure_view_menu_copies_the_figure(state, qtbot):
    view = FigureView(state)
    qtbot.addWidget(view)
    draw_stage(view.ci, state.trace, state.current_stage, state.display.plot_options())
    actions = {a.text(): a for a in view.context_menu().actions()}
    assert set(actions) == {"Export figure…", "Copy figure"}
    QGuiApplication.clipboard().clear()
    actions["Copy figure"].trigger()
    assert QGuiApplication.clipboard().image().width() == 1920


def test_window_exports_the_current_matrix_and_a_right_clicked_table(qtbot, answers, tmp_path):
    from gui.views.matrix_view import MatrixTable
    from tests.gui_window import open_window

    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.weights")
    answers["path"], answers["number"] = str(tmp_path / "w.csv"), (3, True)
    window.export_matrix()
    rows = (tmp_path / "w.csv").read_text(encoding="utf-8").strip().splitlines()
    weights = state.trace["enc.0.attn.weights"][state.head]
    assert [float(v) for v in rows[1].split(",")[1:]] == [round(float(x), 3) for x in weights[0]]

    # Right-click on the W_Q table at the Q stage: its menu exports W_Q.
    state.go_to("enc.0.attn.q")
    table = next(
        t
        for t in window.findChildren(MatrixTable)
        if t.isVisible() and t.matrix().slice is not None and t.matrix().slice.name == "enc.0.attn.W_Q"
    )
    answers["path"] = str(tmp_path / "wq.tex")
    table.context_menu().actions()[0].trigger()
    assert "\\begin{bmatrix}" in (tmp_path / "wq.tex").read_text(encoding="utf-8")
