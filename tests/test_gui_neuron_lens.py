"""The neuron view and the logit lens docks (issue 47): their numbers are the engine's (engine/neuron.py,
engine/lens.py), a W_Q edit, the head, the row and a clicked key move the neuron view at once, the lens follows an
edit and refuses an encoder in one line, both speak Chinese, and in presentation mode at 1280×720 and 1920×1080 no
text of theirs is cut (each text's font metrics against the room it is drawn in)."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import QApplication

from engine.graph import find
from engine.lens import logit_lens
from engine.neuron import attention_at, hidden_keys, neuron
from gui.state import display
from gui.views.steady_label import line_heights
from tests import gui_lessons
from tests.gui_window import SMALL, open_window

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def open_docks(qtbot, window, *keys):
    for key in keys:
        dock = window.docks[key]
        if not dock.widget.isVisible():
            dock.toggle.trigger()
    qtbot.waitUntil(lambda: all(window.docks[key].widget.isVisible() for key in keys))
    drawn(qtbot, window, *keys)
    return [window.docks[key].view for key in keys]


def drawn(qtbot, window, *keys) -> None:
    """Wait until the docks are placed and their views have drawn what is pending."""
    placement = window.teaching.placement
    qtbot.waitUntil(lambda: not placement.timer.isActive())
    qtbot.waitUntil(lambda: not any(window.docks[key].view.timer.isActive() for key in keys))
    QApplication.processEvents()


def engine_cell(state, view):
    trace = state.trace
    att = attention_at(trace, state.forward_stage())
    return neuron(trace, att, view.cell.head, view.cell.query, view.cell.key)


def assert_neuron_shows_the_engine(state, view) -> None:
    cell, expected = view.cell, engine_cell(state, view)
    assert cell.score == expected.score and cell.weight == expected.weight and cell.scaled == expected.scaled
    assert cell.products.tolist() == expected.products.tolist()
    rows = view.bars.rows
    fmt = state.display.format_value
    order = list(range(len(rows.names)))
    assert rows.texts == [(fmt(cell.q[d]), fmt(cell.k[d]), fmt(cell.products[d])) for d in order]
    assert rows.products == cell.products.tolist()
    assert fmt(expected.score) in view.summary.text() and fmt(expected.weight) in view.summary.text()
    att = expected.attention
    assert view.keys.hidden == hidden_keys(state.trace, att, cell.head, cell.query) and view.keys.current == cell.key


def test_the_neuron_view_shows_the_engines_numbers_and_follows_an_edit_the_head_the_row_and_a_click(qtbot):
    window = open_window(qtbot, SMALL.replace(architecture="decoder", n_layers=2), "the cat sat on the mat")
    state = window.state
    (view,) = open_docks(qtbot, window, "neuron")
    state.go_to("dec.1.self_attn.scores")
    drawn(qtbot, window, "neuron")
    assert view.cell.attention.scores.name == "dec.1.self_attn.scores"
    assert_neuron_shows_the_engine(state, view)

    state.set_head(1)
    state.set_row(4)
    drawn(qtbot, window, "neuron")
    assert (view.cell.head, view.cell.query) == (1, 4)
    assert view.keys.hidden == [False] * 5 + [True] * 2  # <start> the cat sat on | the mat: after the query
    assert_neuron_shows_the_engine(state, view)

    chips = view.keys
    target = 2 if view.cell.key != 2 else 1
    qtbot.mouseClick(chips, Qt.LeftButton, pos=chips.chip_rects(chips.width())[target].center())
    assert view.cell.key == target and chips.current == target
    assert_neuron_shows_the_engine(state, view)

    before = view.cell.score
    W_Q = find(state.trace.stages, "attn.q", stack="dec", block=1).inputs[1]
    assert state.edit_cell(W_Q, (0, 2), 3.5)  # a column of head 1 (d_k = 2)
    drawn(qtbot, window, "neuron")
    assert view.cell.score != before
    assert_neuron_shows_the_engine(state, view)

    view.sort.setChecked(True)
    drawn(qtbot, window, "neuron")
    assert view.bars.rows.names == [str(d) for d in view.cell.ranked]
    assert view.bars.rows.products == sorted(view.cell.products.tolist(), reverse=True)


def assert_lens_table_is_the_engines(state, view) -> None:
    lens = logit_lens(state.trace)
    table, fmt = view.table, state.display.format_value
    assert (table.rowCount(), table.columnCount()) == (len(lens.layers), len(lens.tokens))
    assert [table.horizontalHeaderItem(c).text() for c in range(len(lens.tokens))] == lens.tokens
    for r, layer in enumerate(lens.layers):
        for c, top in enumerate(layer.top):
            item = table.item(r, c)
            assert item.text() == f"{top[0][0]}\n{fmt(top[0][1])}"
            assert all(f"{token}  {fmt(p)}" in item.toolTip() for token, p in top)
    probs = state.trace["probs"]  # the last row is the model's own prediction
    vocab = lens.vocab
    assert [table.item(len(lens.layers) - 1, c).text().split("\n")[0] for c in range(len(lens.tokens))] == [
        vocab[int(i)] for i in probs.argmax(dim=-1)
    ]
    last_title = table.verticalHeaderItem(len(lens.layers) - 1)
    assert last_title.font().bold() and view.last_row_note.isVisible()


def test_the_lens_table_is_the_engines_follows_an_edit_and_a_click_shows_the_top_tokens(qtbot):
    window = open_window(qtbot, SMALL.replace(architecture="decoder", n_layers=2), "the cat sat on the mat")
    state = window.state
    (view,) = open_docks(qtbot, window, "lens")
    assert_lens_table_is_the_engines(state, view)
    assert [view.table.verticalHeaderItem(r).text() for r in range(3)] == [
        "after the embeddings",
        "after block 0",
        "after block 1 = the output",
    ]
    before = view.table.item(1, 2).toolTip()
    assert state.edit_cell("dec.1.ffn.W2", (0, 0), 9.0) and state.edit_cell("unembed.W_U", (1, 3), 7.0)
    drawn(qtbot, window, "lens")
    assert_lens_table_is_the_engines(state, view)
    assert view.table.item(2, 2).toolTip() != before or view.table.item(1, 2).toolTip() != before

    assert state.set_sentences("the mat sat")  # another sentence: its tokens are the columns
    drawn(qtbot, window, "lens")
    assert view.lens.tokens == state.trace.tokens["dec"] and view.table.columnCount() == 4
    assert_lens_table_is_the_engines(state, view)

    rect = view.table.visualItemRect(view.table.item(1, 3))
    qtbot.mouseClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
    assert state.row == 3 and view.lens.layers[1].top[3][0][0] in view.details.text()


def test_the_lens_says_in_one_line_why_an_encoder_has_nothing_to_show(qtbot):
    window = open_window(qtbot, SMALL)
    (view,) = open_docks(qtbot, window, "lens")
    assert view.refusal.isVisible() and not view.table.isVisible() and view.lens is None
    assert "encoder" in view.refusal.text()
    fm = QFontMetrics(view.refusal.font())
    assert fm.boundingRect(0, 0, view.refusal.width(), 10_000, Qt.TextWordWrap, view.refusal.text()).height() <= (
        view.refusal.height()
    )


def neuron_cut(view) -> list[str]:
    """The neuron view's texts drawn in less room than their font needs."""
    cut = []
    fm = QFontMetrics(view.bars.font())
    for rect, text in view.bars.cells():
        if fm.horizontalAdvance(text) > rect.width() or fm.height() > rect.height():
            cut.append(f"neuron bars: {text!r} in {rect.width():.0f}×{rect.height():.0f}")
    if view.bars.width() < view.bars.minimumSizeHint().width():
        cut.append("neuron bars squeezed")
    chips = view.keys
    for rect, token in zip(chips.chip_rects(chips.width()), chips.tokens):
        if rect.right() >= chips.width() or QFontMetrics(chips.font()).horizontalAdvance(token) > rect.width():
            cut.append(f"key chip {token!r}")
    return cut


def lens_cut(view) -> list[str]:
    """The lens table's row titles and cells drawn in less room than their font needs (two lines a cell)."""
    cut, table = [], view.table
    if table.verticalScrollBar().maximum() > 0:  # (a model of one block: room for every row)
        cut.append("the lens table scrolls: its last row, the model's output, is out of sight")
    header_fm = QFontMetrics(table.verticalHeader().font())
    for r in range(table.rowCount()):
        title = table.verticalHeaderItem(r)
        title_fm = QFontMetrics(title.font()) if title.font().bold() else header_fm
        if title_fm.horizontalAdvance(title.text()) + 6 > table.verticalHeader().width():
            cut.append(f"lens row title {title.text()!r}")
        for c in range(table.columnCount()):
            item = table.item(r, c)
            lines = item.text().split("\n")
            item_fm = QFontMetrics(item.font())
            if max(item_fm.horizontalAdvance(line) for line in lines) + 6 > table.columnWidth(c):
                cut.append(f"lens cell {lines}")
            if 2 * line_heights(item.font())[1] > table.rowHeight(r):
                cut.append(f"lens row {r} too low for two lines")
    return cut


def test_both_docks_speak_both_languages_and_are_whole_in_presentation_mode(qtbot, start_window):
    controller = start_window("masked-decoder", lang="en")
    window = controller.window
    shown = {}  # language → the neuron view's summary and the lens's introduction
    for lang in ("en", "zh"):
        controller.set_language(lang)
        (neuron_view,) = open_docks(qtbot, window, "neuron")  # (the slide keeps one companion: one at a time)
        (lens_view,) = open_docks(qtbot, window, "lens")
        shown[lang] = neuron_view.summary.text(), lens_view.intro.text()
        assert neuron_view.cell is not None and all(shown[lang])
    assert all(en != zh for en, zh in zip(shown["en"], shown["zh"]))
    assert "缩放前的分数" in shown["zh"][0] and "预测" in shown["zh"][1]
    assert window.docks["lens"].widget.windowTitle() == "Logit 透镜"
    assert window.docks["neuron"].widget.windowTitle() == "神经元视图"
    settings = controller.state.display
    for size in ((1280, 720), (1920, 1080)):
        for lang in ("en", "zh"):
            controller.set_language(lang)
            settings.set(presenting=True, room_scale=display.room_scale_for(*size))
            window = controller.window
            qtbot.waitUntil(window.isVisible)
            window.setWindowState(Qt.WindowNoState)
            window.resize(*size)
            qtbot.waitUntil(lambda w=window, s=size: w.size().toTuple() == s)
            for key, cut in (("neuron", neuron_cut), ("lens", lens_cut)):  # one companion at a time
                (view,) = open_docks(qtbot, window, key)
                assert cut(view) == [], (size, lang)
                widget = view.bars if key == "neuron" else view.table
                if size == (1920, 1080):
                    assert QFontInfo(widget.font()).pixelSize() >= display.BACK_ROW_PX
