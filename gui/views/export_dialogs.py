"""Export dialogs for the window: a figure (PNG/SVG/PDF), a matrix (LaTeX/CSV), the lesson as slides (PDF/PPTX).

The format follows the file name's extension; PNG asks for a width, matrices for the decimals (the window's, to
begin with). Figures are drawn with the display settings' slide options: the menu's export, a plot's right-click
export and the slides show the same head, row, temperature, colours and language as the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox, QProgressDialog, QWidget

from engine import EngineError
from engine.training.backward import forward_of
from gui.export import export_deck
from gui.export.figure import MAX_WIDTH, MIN_WIDTH, copy_figure, export_figure
from gui.export.matrix import export_matrix
from gui.export.render import Draw
from gui.plots import draw_stage
from gui.text.formulas import letter
from gui.text.operations import stage_title
from gui.text.places import weight_title
from gui.views.busy_cursor import busy_cursor


def tr(text: str) -> str:
    return QCoreApplication.translate("Export", text)


def named(state, name: str) -> str:
    """What the status bar calls a stage or a weight: its title, or "W_Q (Decoder · Block 0 · Masked
    self-attention)"; the id stays in the file's name."""
    view = state.view
    if name in view.stage_names:
        return stage_title(view, name, state.display.lang)
    return weight_title(view, name) if forward_of(name) in view.params else letter(view, name)


def _save_name(parent: QWidget, title: str, suggested: str, filters: str) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, filters)
    return path


def _with_suffix(path: str, allowed: tuple[str, ...], default: str) -> str:
    """Add the default extension when the teacher typed none (or one that is not offered)."""
    return path if Path(path).suffix.lower().lstrip(".") in allowed else f"{path}.{default}"


def _report(parent: QWidget, state, run) -> bool:
    """Run an export; a refusal is shown in a message box, success in the status bar."""
    try:
        with busy_cursor():
            done = run()
    except EngineError as exc:
        QMessageBox.warning(parent, tr("Export"), str(exc))
        return False
    state.message.emit(done)
    return True


def export_figure_dialog(parent: QWidget, state, draw: Draw = draw_stage, prefix: str = "") -> bool:
    """Ask for a file (.png, .svg or .pdf) and export the current stage's figure (or the one `draw` makes, e.g.
    a dock's, suggested as `prefix` + the stage's name) in the slide style."""
    opts = state.display.plot_options(slide=True)
    stage = state.current_stage
    filters = tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)")
    path = _save_name(parent, tr("Export figure"), f"{prefix}{stage}.png", filters)
    if not path:
        return False
    path = _with_suffix(path, ("png", "svg", "pdf"), "png")
    width = 1920
    if path.lower().endswith(".png"):
        width, ok = QInputDialog.getInt(
            parent, tr("Export figure"), tr("Width in pixels:"), 1920, MIN_WIDTH, MAX_WIDTH, 160
        )
        if not ok:
            return False
    return _report(
        parent,
        state,
        lambda: tr("Exported {0} to {1}").format(
            named(state, stage), export_figure(state.view, stage, opts, path, width=width, draw=draw)
        ),
    )


def copy_figure_to_clipboard(parent: QWidget, state, draw: Draw = draw_stage) -> bool:
    opts = state.display.plot_options(slide=True)
    stage = state.current_stage

    def run() -> str:
        copy_figure(state.view, stage, opts, draw=draw)
        return tr("Copied the figure of {0}").format(named(state, stage))

    return _report(parent, state, run)


def export_matrix_dialog(parent: QWidget, state, name: str) -> bool:
    """Ask for a file (.tex or .csv) and the decimals, and write a stage's or parameter's matrix."""
    filters = tr("LaTeX bmatrix (*.tex);;CSV table (*.csv)")
    path = _save_name(parent, tr("Export matrix"), f"{name}.tex", filters)
    if not path:
        return False
    path = _with_suffix(path, ("tex", "csv"), "tex")
    decimals, ok = QInputDialog.getInt(parent, tr("Export matrix"), tr("Decimals:"), state.display.decimals, 0, 8)
    if not ok:
        return False
    return _report(
        parent,
        state,
        lambda: tr("Exported {0} to {1}").format(
            named(state, name), export_matrix(state.view, name, path, decimals, state.head)
        ),
    )


def export_deck_dialog(parent: QWidget, state) -> bool:
    """Ask for a file (.pdf or .pptx) and write the whole lesson, one slide per stage, with a progress bar."""
    opts = state.display.plot_options(slide=True)
    filters = tr("PDF slides (*.pdf);;PowerPoint slides (*.pptx)")
    path = _save_name(parent, tr("Export lesson as slides"), "lesson.pdf", filters)
    if not path:
        return False
    path = _with_suffix(path, ("pdf", "pptx"), "pdf")
    names = state.trace.stage_names
    progress = QProgressDialog(tr("Drawing the slides…"), "", 0, len(names), parent)
    progress.setCancelButton(None)
    progress.setWindowModality(Qt.WindowModality.WindowModal)
    progress.setMinimumDuration(300)

    def step(done: int, total: int) -> None:
        progress.setMaximum(total)  # the map's slide, then the stages'
        progress.setValue(done)
        QApplication.processEvents()

    def run() -> str:
        if "modernise" in state.views:  # a lesson that tells 2017 → today: its story, a page per change
            from gui.export.story import export_story

            count = export_story(state.trace, opts, path, progress=step)
            return tr("Wrote {0} slides to {1}").format(count, path)
        count = export_deck(state.trace, opts, path, progress=step)
        return tr("Wrote {0} slides to {1}").format(count, path)

    try:
        return _report(parent, state, run)
    finally:
        progress.close()
