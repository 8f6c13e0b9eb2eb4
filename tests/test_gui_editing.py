"""Editing by hand: only what is downstream recomputes, exactly as the engine would; undo, redo, refusals."""

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from engine import Model
from engine.formats.lesson import open_lesson
from engine.provenance import ALL
from gui.state.app_state import AppState
from tests.gui_window import open_window, panel_for, press, snapshot

W_Q = "enc.0.attn.W_Q"


def engine_recompute(state) -> dict[str, torch.Tensor]:
    """The engine's own answer: a fresh trace of the same weights and sentence."""
    params = {k: v.clone() for k, v in state.trace.params.items()}
    model = Model(state.config, params, state.model.vocabs)
    return model.trace(state.text, state.target or None).values


def type_into_cell(qtbot, table, row: int, col: int, text: str) -> None:
    """Double-click a cell, type, press Enter — as a teacher would."""
    qtbot.wait(1)  # let a new stage's layout settle, as between a teacher's actions
    pos = table.visualRect(table.model().index(row, col)).center()
    qtbot.mousePress(table.viewport(), Qt.LeftButton, pos=pos)  # QTest's double-click lacks the first press
    qtbot.mouseDClick(table.viewport(), Qt.LeftButton, pos=pos)
    editor = table.findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    editor.clear()
    qtbot.keyClicks(editor, text)
    commit(qtbot, table)


def commit(qtbot, table) -> None:
    """Enter in the cell editor; the delegate commits through a queued call."""
    qtbot.keyClick(table.findChild(QLineEdit), Qt.Key_Return)
    qtbot.waitUntil(lambda: table.state() != QAbstractItemView.EditingState)


def test_editing_w_q_recomputes_downstream_only_and_undo_restores_everything(qtbot):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.q")
    before = snapshot(state)
    old = float(before[W_Q][1, 0])
    type_into_cell(qtbot, panel_for(window, W_Q).table, 1, 0, "1.5")
    assert float(state.trace[W_Q][1, 0]) == 1.5
    names = state.stage_names
    changed = {n for n in names if not torch.equal(before[n], state.trace.values[n])}
    assert "enc.0.attn.q" in changed
    assert changed == set(state.trace.downstream(W_Q))
    first = names.index("enc.0.attn.q")
    assert not changed & set(names[:first])  # nothing before attn.q moved
    fresh = engine_recompute(state)
    for n in names:
        assert torch.equal(state.trace.values[n], fresh[n]), n
    # the view shows the new numbers, marked as changed
    q = window.stage_view.output.model
    assert torch.equal(q.shown, state.trace["enc.0.attn.q"][0])
    assert q.changed is not None  # W_Q[1, 0] feeds column 0 of Q, in every row, and nothing else
    assert bool(q.changed[:, 0].all()) and not q.changed[:, 1].any()
    w_q = panel_for(window, W_Q).model
    assert w_q.text(1, 0) == "1.50" and w_q.is_changed(1, 0) and not w_q.is_changed(0, 0)
    # named as the formula names it, where it sits (the id "enc.0.attn.W_Q" stays off the screen); − as the table
    old_text = f"{old:.2f}".replace("-", "−")
    assert window.undo_action.text() == f"Undo W_Q[1,0] (Encoder · Block 0 · Self-attention): {old_text} → 1.50"
    after = snapshot(state)

    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    now = snapshot(state)
    for n in before:
        assert torch.equal(now[n], before[n]), n
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    now = snapshot(state)
    for n in after:
        assert torch.equal(now[n], after[n]), n
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    press(qtbot, window, Qt.Key_Y, Qt.ControlModifier)
    assert float(state.trace[W_Q][1, 0]) == 1.5
    assert torch.equal(window.stage_view.output.model.shown, after["enc.0.attn.q"][0])


@pytest.mark.parametrize("text", ["abc", "nan", "NaN", "inf", "-inf", "1e7", "-2000000", "", "1,5"])
def test_invalid_cell_input_is_refused_and_changes_nothing(qtbot, text):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.q")
    before = snapshot(state)
    panel = panel_for(window, W_Q)
    shown = panel.model.text(1, 0)
    type_into_cell(qtbot, panel.table, 1, 0, text)
    now = snapshot(state)
    assert all(now[n] is before[n] for n in before)  # not even a recompute
    assert state.undo_stack.count() == 0
    assert panel.model.text(1, 0) == shown
    assert window.statusBar().currentMessage()


def test_committing_an_unchanged_cell_is_not_an_edit(qtbot):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.q")
    before = snapshot(state)
    table = panel_for(window, W_Q).table
    pos = table.visualRect(table.model().index(1, 0)).center()
    qtbot.mousePress(table.viewport(), Qt.LeftButton, pos=pos)
    qtbot.mouseDClick(table.viewport(), Qt.LeftButton, pos=pos)
    commit(qtbot, table)  # Enter on the text the editor opened with
    assert state.undo_stack.count() == 0
    assert all(snapshot(state)[n] is before[n] for n in before)


def test_selecting_a_cell_and_typing_edits_it(qtbot):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.ffn.up")
    qtbot.wait(1)  # let the new stage's layout settle, as between a teacher's actions
    table = panel_for(window, "enc.0.ffn.b1").table
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualRect(table.model().index(0, 5)).center())
    qtbot.keyClick(table, "-")  # the first key opens the editor, which then has the focus
    qtbot.keyClicks(table.findChild(QLineEdit), "0.25")
    commit(qtbot, table)
    assert float(state.trace["enc.0.ffn.b1"][5]) == -0.25
    assert window.undo_action.text() == "Undo b1[5] (Encoder · Block 0 · Feed-forward): 0.00 → −0.25"


def test_difference_toggle_shows_the_change_of_the_last_edit(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.scores")
    before = state.trace["enc.0.attn.scores"]
    assert state.edit_cell(W_Q, (0, 1), 2.0)
    after = state.trace["enc.0.attn.scores"]
    view.controls.difference_action.setChecked(True)
    assert torch.equal(view.output.model.shown, (after - before)[0])
    assert not view.output.model.flags(view.output.model.index(0, 0)) & Qt.ItemIsEditable
    view.controls.difference_action.setChecked(False)
    assert torch.equal(view.output.model.shown, after[0])


def hover(qtbot, window, table, row: int, col: int) -> None:
    """The mouse onto a cell. Qt drops a move to where the cursor already is, and an earlier test may have left
    it just there: it goes to the window's corner first, so the move onto the cell is always a move."""
    qtbot.mouseMove(window, QPoint(0, 0))
    qtbot.mouseMove(table.viewport(), table.visualRect(table.model().index(row, col)).center())


def test_hover_highlights_the_cells_an_output_came_from(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.scores")
    table = view.output.table
    hover(qtbot, window, table, 2, 0)
    qtbot.waitUntil(lambda: view.output.model.highlight is not None)
    q, k = panel_for(window, "enc.0.attn.q").model, panel_for(window, "enc.0.attn.k").model
    assert q.highlight == (2, ALL) and k.highlight == (0, ALL)  # the Q row of "AI" and the K row of "I"
    assert q.is_highlighted(2, 1) and not q.is_highlighted(1, 1)
    tip = view.output.model.data(view.output.model.index(2, 0), Qt.ToolTipRole)
    assert f"{float(state.trace['enc.0.attn.scores'][0, 2, 0]):.6g}" in tip and "AI" in tip and "I" in tip
    table.hovered.emit(None)  # the mouse leaves
    assert q.highlight is None and k.highlight is None

    state.go_to("enc.0.attn.q")
    state.set_head(1)
    table = view.output.table
    x, w, b = (panel_for(window, n).model for n in ("enc.x0", W_Q, "enc.0.attn.b_Q"))
    qtbot.wait(10)  # the new tables settle (the mouse may first be over another row of them)
    hover(qtbot, window, table, 1, 0)
    qtbot.waitUntil(lambda: x.highlight == (1, ALL))  # the token's row of X …
    assert w.highlight == (ALL, 0) and w.is_highlighted(3, 0) and not w.is_highlighted(3, 1)  # … column 2 of W_Q
    assert b.highlight == (ALL, 0)


def test_reset_weights_returns_to_the_lesson_and_can_be_undone(qtbot):
    window = open_window(qtbot)
    state = window.state
    original = snapshot(state)
    assert state.edit_cell(W_Q, (0, 0), 3.0)
    assert state.edit_cell("enc.0.ffn.W1", (1, 2), -1.0)
    edited = snapshot(state)
    window.reset_action.trigger()
    now = snapshot(state)
    for n in original:
        assert torch.equal(now[n], original[n]), n
    state.undo_stack.undo()
    now = snapshot(state)
    for n in edited:
        assert torch.equal(now[n], edited[n]), n


def test_the_input_x_is_editable_and_undo_removes_the_pin(qtbot):
    window = open_window(qtbot)
    state = window.state
    state.go_to("enc.0.attn.q")
    x = panel_for(window, "enc.x0")
    assert x.model.editable
    assert not panel_for(window, "enc.0.attn.q").model.editable  # computed stages are not typed over
    before = snapshot(state)
    type_into_cell(qtbot, x.table, 0, 3, "-0.5")
    assert float(state.trace["enc.x0"][0, 3]) == -0.5 and "enc.x0" in state.trace.overrides
    assert not torch.equal(state.trace["enc.0.attn.q"], before["enc.0.attn.q"])
    assert torch.equal(state.trace["enc.embed"], before["enc.embed"])
    state.undo_stack.undo()
    assert "enc.x0" not in state.trace.overrides
    assert all(torch.equal(state.trace.values[n], before[n]) for n in state.stage_names)


def test_clicking_a_token_row_selects_it_for_the_plots(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.weights")
    table = view.output.table
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualRect(table.model().index(2, 1)).center())
    assert state.row == 2
    assert state.display.plot_options().row == 2


def test_an_edit_repaints_every_cell_whose_number_or_mark_moved(qtbot):
    """Edits repaint only part of a table: every cell whose number, colour or change mark moved is inside."""
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    assert state.edit_cell(W_Q, (0, 0), 0.5)  # leaves change marks that the next edit must clear
    for value, cell in ((0.7, (2, 1)), (0.71, (2, 1)), (-3.0, (3, 0))):
        panels = view.panels()
        before = {p: (p.model.shown.clone(), p.model.changed, p.model.scale) for p in panels}
        repainted = {p: [] for p in panels}
        for p in panels:
            p.model.cellsChanged.connect(lambda boxes, seen=repainted[p]: seen.extend(boxes))
        assert state.edit_cell(W_Q, cell, value)
        for p in panels:
            old, old_marks, old_scale = before[p]
            rows, cols = p.model.shown.shape
            must = ~torch.eq(old, p.model.shown)
            for marks in (old_marks, p.model.changed):
                if marks is not None:
                    must |= torch.from_numpy(marks)
            if p.model.scale != old_scale:
                must[:] = True
            covered = torch.zeros(rows, cols, dtype=torch.bool)
            for top, bottom, left, right in repainted[p]:
                covered[top : bottom + 1, left : right + 1] = True
            assert not (must & ~covered).any(), p.model.slice.name
            p.model.cellsChanged.disconnect()


def test_an_edit_reads_afresh_only_the_tables_it_can_have_moved(qtbot, monkeypatch):
    """A table the edit did not recompute keeps its numbers unread, unless it must lose the change marks of the
    edit before."""
    from gui.views.matrix_model import MatrixModel

    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    x = state.view.stage("enc.0.attn.q").inputs[0]  # the stream X, editable (a pin)
    read = []
    numbers = MatrixModel._numbers
    monkeypatch.setattr(MatrixModel, "_numbers", lambda self, part: read.append(part.name) or numbers(self, part))
    assert state.edit_cell(x, (1, 1), 0.25)
    table = next(p.model for p in view.panels() if p.model.slice.name == x)
    assert table.changed is not None  # X's marks …
    read.clear()
    assert state.edit_cell(W_Q, (0, 0), 0.5)
    assert x in read and table.changed is None  # … are cleared by the next edit
    read.clear()
    assert state.edit_cell(W_Q, (0, 1), 0.5)
    assert x not in read and {W_Q, "enc.0.attn.q"} <= set(read)


@pytest.mark.parametrize("scrolled", [False, True])
def test_a_table_paints_each_cell_in_its_colour_in_its_place_with_its_marks(qtbot, scrolled):
    """The table paints its cells itself (no delegate): each cell its model's colour inside its grid lines, its
    number right-aligned in its ink, the selected cell framed and an edited cell's change mark in its corner —
    scrolled too, and after a repaint of part of it."""
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.ffn.up")
    panel = max((p for p in view.panels() if p.model.editable), key=lambda p: p.model.shown.shape[1])  # W1
    table, model = panel.table, panel.model
    assert state.edit_cell(panel.model.slice.name, (1, 2), 0.9)
    table.setCurrentIndex(model.index(0, 1))
    if scrolled:  # the table alone in a window of 3½ columns and 2½ rows, scrolled to its middle
        table.setParent(None)
        qtbot.addWidget(table)  # closed and deleted after the test, as the window is
        column, line = table.horizontalHeader().defaultSectionSize(), table.verticalHeader().defaultSectionSize()
        room = table.verticalHeader().width() + table.verticalScrollBar().sizeHint().width() + 2 * table.frameWidth()
        table.resize(room + int(3.5 * column), table.header_height + int(2.5 * line) + room)
        table.show()
        qtbot.waitExposed(table)
        for bar in (table.horizontalScrollBar(), table.verticalScrollBar()):
            assert bar.maximum() > 0
            bar.setValue(bar.maximum() // 2 + 3)
    qtbot.wait(1)
    table.viewport().update(0, 0, 60, 40)  # a repaint of part: the rest must stay as painted
    qtbot.wait(1)
    image = table.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    seen, grid = 0, set()
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            rect = table.visualRect(model.index(r, c))
            if not table.viewport().rect().contains(rect):
                continue
            seen += 1
            pixel = image.pixelColor(int((rect.left() + 1) * dpr), int((rect.top() + rect.height() // 2) * dpr))
            if (r, c) != (0, 1):  # the selected cell's left edge is its dotted frame
                assert pixel.rgb() == model.color(r, c).rgb(), (r, c)
            right = image.pixelColor(int((rect.right() + 1) * dpr), int((rect.top() + rect.height() // 2) * dpr))
            below = image.pixelColor(int((rect.left() + 4) * dpr), int((rect.bottom() + 1) * dpr))
            grid.update({right.rgb(), below.rgb()})  # the grid lines right of and below the cell: one colour
            # the number: ink in the cell's right half, centred on the cell's middle line
            inked = [
                y
                for x in range(rect.center().x(), rect.right() - 3)
                for y in range(rect.top() + 1, rect.bottom())
                if image.pixelColor(int(x * dpr), int(y * dpr)).rgb() == model.ink(r, c).rgb()
            ]
            assert inked, (r, c)
            assert abs((min(inked) + max(inked)) / 2 - rect.center().y()) <= 2, (r, c, min(inked), max(inked), rect)
            corner = image.pixelColor(int(rect.right() * dpr), int((rect.top() + 1) * dpr))
            assert (corner.name() == "#e66100") == model.is_changed(r, c), (r, c)
    assert seen >= (2 if scrolled else 8)
    assert len(grid) == 1 and grid.isdisjoint(model.color(r, c).rgb() for r, c in np.ndindex(*model.shown.shape))
    if not scrolled:
        rect = table.visualRect(model.index(0, 1))
        frame = image.pixelColor(int((rect.left() + 1) * dpr), int((rect.top() + 1) * dpr))
        assert frame.rgb() == 0xFF000000  # the selected cell's frame …
        inside = image.pixelColor(int((rect.left() + 4) * dpr), int((rect.top() + rect.height() // 2) * dpr))
        assert inside.rgb() == model.color(0, 1).rgb()  # … not filled (by the change mark's brush, say)


@pytest.mark.parametrize("size", [None, 9, 21])  # None: the application's own font, as a table at the desk has
def test_a_cell_s_number_is_drawn_centred_in_its_cell_in_any_font(qapp, size):
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QColor, QFont, QImage, QPainter

    from gui.views.matrix_view import CellTexts

    font = QFont()
    if size:
        font.setPixelSize(size)
    image = QImage(120, 60, QImage.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(font)
    texts = CellTexts()
    texts.use(painter.font())
    cell = QRect(10, 10, 90, 40)
    painter.setPen(QColor("black"))
    texts.draw(painter, cell.right() + 1, cell.top(), cell.height(), "−0.447")
    painter.end()
    inked = [(x, y) for x in range(120) for y in range(60) if image.pixelColor(x, y).lightness() < 128]
    xs, ys = [x for x, _ in inked], [y for _, y in inked]
    assert cell.contains(min(xs), min(ys)) and cell.contains(max(xs), max(ys))
    assert abs((min(ys) + max(ys)) / 2 - (cell.top() + cell.height() / 2)) <= 2
    assert cell.right() - 8 <= max(xs) <= cell.right() - 4  # right-aligned, 5 px in


def test_a_selected_cell_painted_after_a_changed_one_is_framed_not_filled(qtbot):
    """The change mark's brush stayed set: a selected or highlighted cell painted after a changed one was filled with
    the mark's orange, its number unreadable."""
    from PySide6.QtCore import QPoint, QSize
    from PySide6.QtGui import QImage, QPainter

    from gui.views.matrix_view import paint_cells

    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    assert state.edit_cell(W_Q, (1, 0), 0.75)  # W_Q's cell (1, 0) changed, its mark drawn
    table, model = next((p.table, p.model) for p in view.inputs if p.model.slice.name == W_Q)
    model.set_highlight((2, 0))
    size = QSize(table.horizontalHeader().defaultSectionSize(), table.verticalHeader().defaultSectionSize())
    image = QImage(4 * size.width(), 4 * size.height(), QImage.Format.Format_RGB32)
    painter = QPainter(image)
    table.texts.use(painter.font())
    paint_cells(painter, model, [(1, 0), (0, 0), (2, 0)], size, QPoint(0, 0), {(0, 0)}, table.texts)
    painter.end()
    middle = size.height() // 2
    assert image.pixelColor(4, middle).rgb() == model.color(0, 0).rgb()  # inside the selected cell's frame
    assert image.pixelColor(4, 2 * size.height() + middle) != model.color(2, 0)  # highlighted: tinted …
    assert image.pixelColor(4, 2 * size.height() + middle).name() != "#e66100"  # … not the mark's orange


def test_a_table_keeps_its_model_until_it_goes_itself(qtbot):
    """A table's model is deleted with the table, after it: a table taken out of its panel, the panel then deleted
    (as a window closing deletes its panels), still repaints its numbers. With the model a child of the panel, the
    clean-clone suite's table shown on its own raised at each of its paints in every later test, then crashed."""
    import shiboken6

    from gui.views.matrix_view import MatrixPanel

    window = open_window(qtbot)
    panel = MatrixPanel(window.state)
    panel.show_tensor(window.stage_view.output.model.slice, "X", editable=False)
    table, model = panel.table, panel.model
    assert model.parent() is table
    table.setParent(None)
    qtbot.addWidget(table)
    shiboken6.delete(panel)
    table.show()
    qtbot.waitExposed(table)
    assert shiboken6.isValid(model) and table.model() is model and model.rowCount() > 0
    table.viewport().repaint()  # an exception here fails the test (pytest-qt)


def test_an_edit_that_writes_a_wider_number_widens_its_columns(qtbot):
    """W_Q[0, 0] = −90 makes Q's column 0 hold −254.41 where it held −0.00-sized numbers: the columns are measured
    again, so no number is cut (drawn right-aligned in a column too narrow, −254.41 read "254.41")."""
    window = open_window(qtbot)
    window.resize(1600, 1000)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    qtbot.wait(1)

    def cut() -> list[str]:
        texts = []
        for panel in view.panels():
            table, model = panel.table, panel.model
            metrics = QFontMetricsF(table.font())
            for r in range(model.rowCount()):
                for c in range(model.columnCount()):
                    if metrics.horizontalAdvance(model.text(r, c)) + 5 > table.horizontalHeader().sectionSize(c):
                        texts.append(model.text(r, c))
        return texts

    assert cut() == []
    for value, digits in ((-90.0, 3), (1234.5, 4), (0.5, 1)):  # Q's widest number: three, four, one digit(s)
        assert state.edit_cell(W_Q, (0, 0), value)
        qtbot.wait(1)
        widest = max(len(view.output.model.text(r, 0).lstrip("−").split(".")[0]) for r in range(3))
        assert widest == digits and cut() == [], value
    view.controls.difference_action.setChecked(True)  # the last edit's changes (some −3,500 in Q) are numbers too
    qtbot.wait(1)
    assert cut() == []


def test_the_weights_reset_returns_to_stay_as_they_were_through_every_kind_of_change(qtbot):
    """AppState keeps the lesson's weights by sharing the model's tensors (a Qwen2.5-0.5B-sized model held two more
    copies, 3.7 GB): right only while nothing changes a weight in place. An edit, a training step, a generated token
    and a new sentence with a new word all leave the kept weights as they were, bit for bit."""
    state = AppState.from_lesson(open_lesson("masked-decoder"))
    kept = {name: t.clone() for name, t in state.original_params.items()}
    assert state.edit_cell("dec.0.ffn.W1", (0, 0), 2.5)
    assert state.take_training_step(0.5)
    assert state.append_token(3)
    assert state.set_sentences(state.text + " 狗")
    assert any(state.original_params[n].shape != kept[n].shape for n in kept)  # the new word's rows joined them
    for name, weight in kept.items():
        assert torch.equal(state.original_params[name][tuple(slice(0, n) for n in weight.shape)], weight), name
