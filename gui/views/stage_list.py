"""The list of all stages, grouped by stack → block → sublayer; the current one highlighted, later ones grey."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QLabel, QStyle, QTreeView, QVBoxLayout, QWidget

from engine.training.backward import forward_of, is_backward
from gui.state.app_state import AppState
from gui.text.live_texts import LiveTexts
from gui.text.operations import stage_title
from gui.text.places import group_path, tr

NAME_ROLE = Qt.UserRole + 1
NOT_COMPUTED = QColor("#9a9a9a")
SIGHT_ROWS = 3  # the list laid out anew keeps this many rows in sight above and below the current stage


def tree_title(trace, name: str, lang: str) -> str:
    """How the breadcrumb names a stage: its title, as the stage view shows it (in cross-attention, the
    cross-attention wording); a step of the backward pass, ∂L/∂ and the title of the stage whose gradient it is; a
    step of tiled attention also says which tile (block of queries, block of keys)."""
    if is_backward(name):
        return "∂L/∂ " + tree_title(trace, forward_of(name), lang)
    title = stage_title(trace, name, lang)
    tile = tile_group(trace, name)
    return title if tile is None else f"{title} · {tile}"


def tile_group(trace, name: str) -> str | None:
    """ "tile 1, 2" for a step of tiled attention (block of queries, block of keys); None for any other stage."""
    stage = trace.stage(name)
    if stage is None or stage.tile is None:
        return None
    return tr("tile {0}, {1}").format(stage.tile.row_block, stage.tile.col_block)


def list_row(trace, name: str, lang: str) -> tuple[tuple[str, ...], str, str]:
    """(groups, title, stage) of a leaf of the stage tree: the steps of one tile sit in a group of their own, so
    that six steps of six tiles do not read alike, cut to "Running row max m · tile …" at a fifth of the window."""
    path = group_path(trace, name)
    tile = None if is_backward(name) else tile_group(trace, name)
    if tile is None:
        return tuple(path), tree_title(trace, name, lang), name
    return (*path, tile), stage_title(trace, name, lang), name


def leaf_text(path: tuple[str, ...], title: str) -> str:
    """A leaf's text: its title less the name of the group it sits in ("Cross-attention: queries from the decoder"
    under Cross-attention reads "queries from the decoder"; ∂L/∂ kept), so that a list at a fifth of a 1280-px window
    does not cut nine titles to the same "Cross-attention: …". Its tooltip keeps the whole title."""
    if path:
        for lead in ("", "∂L/∂ "):
            for sep in (": ", "："):
                repeated = f"{lead}{path[-1]}{sep}"
                if title.startswith(repeated) and len(title) > len(repeated):
                    return lead + title[len(repeated) :]
    return title


def tree_shape(rows: list[tuple]) -> list[tuple]:
    """The tree's shape, words aside: each leaf's stage and the groups it sits in, numbered in order of appearance."""
    numbers: dict[tuple[str, ...], int] = {}
    return [
        (name, tuple(numbers.setdefault(path[:depth], len(numbers)) for depth in range(1, len(path) + 1)))
        for path, _, name in rows
    ]


def depth(item: QStandardItem) -> int:
    """How many groups an item sits under."""
    levels, parent = 0, item.parent()
    while parent is not None:
        levels, parent = levels + 1, parent.parent()
    return levels


class StageList(QWidget):
    """A tree of the stages; clicking one moves the cursor there."""

    def __init__(self, state: AppState, parent=None):
        super().__init__(parent)
        self.state = state
        self.model = QStandardItemModel(self)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setIndentation(14)  # four levels deep: narrow steps leave room for the stage titles
        self.tree.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.tree.setUniformRowHeights(True)
        self.tree.viewport().installEventFilter(self)
        self.tree.clicked.connect(self._go)
        self.tree.activated.connect(self._go)
        legend = QLabel(self)
        self.texts = LiveTexts()  # what a language switch sets again
        self.texts.set(legend.setText, lambda: self.tr("Bold: current stage · grey: not computed yet"))
        legend.setWordWrap(True)
        legend.setStyleSheet("color: #666")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree, 1)
        layout.addWidget(legend)
        self.leaves: list[QStandardItem] = []
        self.looks: list[tuple | None] = []  # how each leaf is marked now: (current, not computed yet, font)
        self.rows: list[tuple] = []  # (group path, title, stage name) of each leaf
        state.lessonChanged.connect(self.rebuild)
        state.cursorChanged.connect(self.mark_cursor)
        self.rebuild()

    def retranslate(self) -> None:
        self.texts.retranslate()
        self.rebuild()  # the stages' titles and groups in the new language

    def rebuild(self) -> None:
        """One leaf per stage under its groups (rebuilt for a new model or sentence; a what-if switch that leaves
        every stage's place and title as they were only moves the cursor's mark)."""
        trace, lang = self.state.view, self.state.display.lang
        rows = [list_row(trace, name, lang) for name in trace.stage_names]
        if rows == self.rows:
            self.mark_cursor(self.state.cursor)
            return
        if tree_shape(rows) == tree_shape(self.rows):  # the same tree in other words (a language): renamed in place
            self.rows = rows
            for (path, title, _), leaf in zip(rows, self.leaves):
                leaf.setText(leaf_text(path, title))
                group = leaf.parent()
                for word in reversed(path):
                    if group.text() != word:  # a group holds many leaves: each setText is a change the view handles
                        group.setText(word)
                    group = group.parent()
            self.looks = [None] * len(self.leaves)  # (their tooltips hold the titles)
            self.mark_cursor(self.state.cursor)
            return
        self.rows = rows
        self.model.clear()
        self.leaves = []
        groups: dict[tuple[str, ...], QStandardItem] = {}
        for path, title, name in rows:
            parent = self.model.invisibleRootItem()
            for depth in range(1, len(path) + 1):
                key = path[:depth]
                if key not in groups:
                    groups[key] = QStandardItem(path[depth - 1])
                    parent.appendRow(groups[key])
                parent = groups[key]
            leaf = QStandardItem(leaf_text(path, title))
            leaf.setData(name, NAME_ROLE)
            parent.appendRow(leaf)
            self.leaves.append(leaf)
        self.looks = [None] * len(self.leaves)
        self.tree.expandAll()
        self.mark_cursor(self.state.cursor)

    def natural_width(self) -> int:
        """The width that shows every stage title whole (bold for the current one), scroll bar included."""
        bar = self.tree.style().pixelMetric(QStyle.PM_ScrollBarExtent)
        bold = QFont(self.tree.font())
        bold.setBold(True)
        widest = max(
            (
                QFontMetrics(bold).horizontalAdvance(leaf.text()) + self.tree.indentation() * depth(leaf)
                for leaf in self.leaves
            ),
            default=0,
        )
        return widest + self.tree.indentation() + bar + 2 * self.tree.frameWidth() + 12

    def mark_cursor(self, cursor: int) -> None:
        """Bold for the current stage, grey italics for stages after it; only the leaves whose mark changes are
        touched (a step changes two: each leaf set is a repaint of the list)."""
        base, later_tip = self.tree.font(), "  — " + self.tr("not computed yet")
        key = base.key()
        for i, leaf in enumerate(self.leaves):
            look = (i == cursor, i > cursor, key)
            if look == self.looks[i]:
                continue
            self.looks[i] = look
            font = QFont(base)
            font.setBold(i == cursor)
            font.setItalic(i > cursor)
            leaf.setFont(font)
            leaf.setForeground(QBrush(NOT_COMPUTED) if i > cursor else QBrush())
            later = later_tip if i > cursor else ""
            _, title, name = self.rows[i]
            leaf.setToolTip(f"{title}\n{name}{later}")  # the whole title, where a list cuts it
        if 0 <= cursor < len(self.leaves):
            index = self.leaves[cursor].index()
            out_of_sight = not self._in_sight(index, 0)  # (a stage clicked in the list stays under the mouse)
            self.tree.setCurrentIndex(index)  # (which scrolls it just into sight: to the edge it was beyond)
            if out_of_sight:
                self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _in_sight(self, index: QModelIndex, rows: int) -> bool:
        """Whether the list shows the row of `index`, and `rows` rows above and below it."""
        rect = self.tree.visualRect(index)
        margin = rows * rect.height()
        return self.tree.viewport().rect().adjusted(0, margin, 0, -margin).contains(rect)

    def eventFilter(self, watched, event) -> bool:
        cursor = self.state.cursor
        if event.type() == QEvent.Type.Resize and 0 <= cursor < len(self.leaves):
            # laid out at last (a window opened at a stage deep in the list: marked when the list was a row or two
            # high, it stood in the top row, under no group), or made smaller: the current stage brought to the middle
            index = self.leaves[cursor].index()
            if not self._in_sight(index, SIGHT_ROWS):
                self.tree.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return False

    def _go(self, index: QModelIndex) -> None:
        """A stage moves the cursor to it; a group to its first stage."""
        item = self.model.itemFromIndex(index)
        while item is not None and item.data(NAME_ROLE) is None:
            item = item.child(0)
        if item is not None:
            self.state.go_to(item.data(NAME_ROLE))
