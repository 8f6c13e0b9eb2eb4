"""The start page: the lessons that come with Stepformer, each with its title and description in the
window's language, and a way to open a lesson file instead."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engine.formats.lesson import LessonInfo
from gui.views.fonts import scale_font, text_size

NAME_ROLE = Qt.UserRole + 1
STEPPING_KEYS = {Qt.Key_Right, Qt.Key_PageDown, Qt.Key_Space, Qt.Key_Left, Qt.Key_PageUp, Qt.Key_Home, Qt.Key_End}


class StartPage(QDialog):
    """Pick a lesson, the one open highlighted (`current`, a shipped lesson's name; none highlighted while a lesson
    file or a model is open). After exec(): `choice` is ("lesson", name), ("file", "") or None (closed).
    A stepping key (→, Page Down, Space, ←, Page Up, Home, End) is meant for the lesson behind, whatever has the
    focus here: it closes the page with no choice and leaves the key in `stepping_key` for the window's stepper.
    ↑ and ↓ choose in the list, Enter opens the highlighted lesson."""

    def __init__(self, lessons: list[LessonInfo], lang: str, show_at_start: bool, current: str = "", parent=None):
        # (Over 60 lines: the widgets are built in the order they stand on screen, one flat sequence.)
        super().__init__(parent)
        self.lessons, self.lang = {info.name: info for info in lessons}, lang
        self.choice: tuple[str, str] | None = None
        self.stepping_key: QKeySequence | None = None
        self.setWindowTitle(self.tr("Lessons"))

        heading = scale_font(QLabel(self.tr("Choose a lesson"), self), 1.6, bold=True)
        intro = QLabel(
            self.tr(
                "Each lesson opens a small Transformer with hand-readable numbers. "
                "Step through it with → and ←; every weight can be edited."
            ),
            self,
        )
        intro.setWordWrap(True)

        self.list = QListWidget(self)
        for number, info in enumerate(lessons, 1):
            item = QListWidgetItem(f"{number}.  {info.title[lang]}")
            item.setData(NAME_ROLE, info.name)
            self.list.addItem(item)
        scale_font(self.list, 1.15)
        self.list.setMinimumWidth(self.list.sizeHintForColumn(0) + 32)
        self.list.currentItemChanged.connect(self._show_selected)
        self.list.itemActivated.connect(lambda _item: self._choose_lesson())

        self.title = scale_font(QLabel(self), 1.3, bold=True)
        self.title.setWordWrap(True)
        self.description = scale_font(QLabel(self), 1.1)
        self.description.setWordWrap(True)
        self.description.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.description.setTextInteractionFlags(Qt.TextSelectableByMouse)
        details = QWidget(self)
        details_layout = QVBoxLayout(details)
        details_layout.addWidget(self.title)
        details_layout.addWidget(self.description, 1)
        scroll = QScrollArea(self)
        scroll.setWidget(details)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.NoFrame)

        middle = QHBoxLayout()
        middle.addWidget(self.list)
        middle.addWidget(scroll, 1)

        self.show_at_start = QCheckBox(self.tr("Show this page at start"), self)
        self.show_at_start.setChecked(show_at_start)
        buttons = QDialogButtonBox(self)
        self.open_button = QPushButton(self.tr("Open lesson"), self)
        self.open_button.setDefault(True)
        self.open_button.clicked.connect(self._choose_lesson)
        self.file_button = QPushButton(self.tr("Open a lesson file…"), self)
        self.file_button.clicked.connect(self._choose_file)
        buttons.addButton(self.open_button, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.file_button, QDialogButtonBox.ActionRole)
        buttons.addButton(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.show_at_start)
        bottom.addWidget(buttons, 1)

        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(intro)
        layout.addLayout(middle, 1)
        layout.addLayout(bottom)
        names = [info.name for info in lessons]
        self.list.setCurrentRow(names.index(current) if current in names else -1)  # none: a file or a model is open
        self._show_selected(self.list.currentItem())
        self.resize(text_size(self, 140, 34, QSize(1000, 600)))  # the list and its lesson's description beside it
        for child in self.findChildren(QWidget):  # the list, the buttons and the check box all let it pass
            child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A stepping key without modifiers closes the page and is kept for the window (see the class)."""
        if event.type() == QEvent.KeyPress and is_stepping_key(event):
            self.stepping_key = QKeySequence(event.key())
            self.reject()
            return True
        return super().eventFilter(watched, event)

    def _show_selected(self, item: QListWidgetItem | None) -> None:
        info = self.lessons[item.data(NAME_ROLE)] if item is not None else None
        self.title.setText(info.title[self.lang] if info else "")
        self.description.setText(info.description[self.lang] if info else "")
        self.open_button.setEnabled(info is not None)

    def _choose_lesson(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.choice = ("lesson", item.data(NAME_ROLE))
            self.accept()

    def _choose_file(self) -> None:
        self.choice = ("file", "")
        self.accept()


def is_stepping_key(event: QKeyEvent) -> bool:
    return event.key() in STEPPING_KEYS and not event.modifiers() & ~Qt.KeypadModifier
