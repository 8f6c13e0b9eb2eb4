"""The questions the lesson controller asks the teacher, with message boxes and file dialogs: restore an
autosave, save unsaved changes, which file to open or save to, and what went wrong. The tests replace them
(tests/gui_lessons.py, FakePrompts)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.formats.lesson import Lesson


class Prompts(QObject):
    """The questions asked with message boxes and file dialogs."""

    def restore(self, parent, lesson: Lesson) -> bool:
        text = self.tr(
            "Stepformer was not closed normally. Restore the lesson it autosaved (sentence “{0}”, with every edit)?"
        ).format(lesson.text)
        answer = QMessageBox.question(
            parent, self.tr("Restore autosaved lesson"), text, QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes
        )
        return answer == QMessageBox.Yes

    def unsaved(self, parent, name: str) -> str:
        """ "save", "discard" or "cancel"."""
        box = QMessageBox(
            QMessageBox.Warning,
            self.tr("Unsaved changes"),
            self.tr("“{0}” has changes that are not saved. Save them?").format(name),
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
            parent,
        )
        box.setDefaultButton(QMessageBox.Save)
        answer = box.exec()
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def open_path(self, parent, folder: str) -> str:
        path, _ = QFileDialog.getOpenFileName(
            parent, self.tr("Open lesson"), folder, self.tr("Stepformer lessons (*.stepformer)")
        )
        return path

    def save_path(self, parent, suggested: str) -> str:
        path, _ = QFileDialog.getSaveFileName(
            parent, self.tr("Save lesson as"), suggested, self.tr("Stepformer lessons (*.stepformer)")
        )
        return path

    def error(self, parent, title: str, text: str) -> None:
        QMessageBox.warning(parent, title, text)
