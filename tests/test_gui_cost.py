"""The "Cost of this model" dock: for any model, following the cursor, every bar named, idle while hidden,
opened by a lesson that asks for it, its figure exportable."""

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from engine.formats.lesson import VIEWS, open_lesson
from gui.export.figure import export_figure
from gui.plots import PlotOptions
from gui.plots.cost import ROW_SPACING, draw_cost
from gui.plots.pyqtgraph_compat import fixed_tick_levels
from gui.plots.style import font
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures

STAGE_ID = re.compile(r"\b(enc|dec)\.\d|\b(self_attn|cross_attn|attn|ffn|norm\d|add\d)\.|\boutput\b")  # not words


def shown(qtbot, window):
    """The cost dock, drawn for the current stage."""
    window.teaching.cost_dock.show()
    cost = window.teaching.cost
    qtbot.waitUntil(lambda: cost.highlighted() == window.state.current_stage)
    return cost


def assert_every_bar_named(qtbot, cost) -> None:
    bars = cost.figure.stages.bars
    ticks = fixed_tick_levels(bars.plot.getAxis("left"))[0]
    heights = bars.item.opts["width"]
    assert [i for i, _ in ticks] == list(range(len(heights))) and len(heights) == len(cost.figure.stages.rows)
    assert all(label.strip() for _, label in ticks) and len({label for _, label in ticks}) == len(ticks)
    title = bars.plot.titleLabel.text
    assert [text for text in [title] + [label for _, label in ticks] if STAGE_ID.search(text)] == []
    line = QFontMetrics(font(PlotOptions(), "tick")).height()
    room = len(ticks) * line * ROW_SPACING - 1  # for every label, once laid out (shrunk as a whole if need be)
    qtbot.waitUntil(lambda: bars.plot.vb.height() >= room)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cost_dock_follows_the_cursor_for_any_model(qtbot, start_window, lang):
    window = start_window("two-heads", lang).window
    assert not window.teaching.cost_dock.isVisible()  # a lesson without views opens none
    state = window.state
    cost = shown(qtbot, window)
    assert_every_bar_named(qtbot, cost)
    for model in ("toy", "classroom"):
        assert window.model_picker.choose(model)
        for stage in (state.trace.stage_names[-1], next(n for n in state.stage_names if n.endswith("attn.scores"))):
            state.go_to(stage)
            qtbot.waitUntil(lambda s=stage: cost.highlighted() == s)
            assert_every_bar_named(qtbot, cost)
        if state.stage_names[-1] not in state.trace.stage_names:  # the backward pass: ∂L/∂X shows X's cost
            state.go_to(state.stage_names[-1])
            qtbot.waitUntil(lambda: cost.highlighted() == state.stage_names[-1].removeprefix("grad."))
    assert cost.figure.memory.bars.labels[-1].startswith("= ") and "2.0" in cost.figure.memory.bars.plot.titleLabel.text


def test_a_hidden_cost_dock_does_no_work(qtbot, start_window):
    window = start_window("two-heads").window
    state, cost = window.state, shown(qtbot, window)
    window.teaching.cost_dock.hide()
    before = cost.draws
    for _ in range(5):
        state.step(1)
    state.set_sentences("you and I love AI")
    qtbot.wait(50)
    assert cost.draws == before
    window.teaching.cost_dock.show()
    qtbot.waitUntil(lambda: cost.highlighted() == state.current_stage)
    assert cost.draws == before + 1
    assert list(cost.figure.share.point.xData) == [len(state.trace.tokens["enc"])] == [5]  # the new sentence


def test_a_step_redraws_only_the_per_stage_panel_and_a_new_sentence_every_panel(qtbot, start_window):
    """The share, time, memory and KV panels follow the model and the sentence, not the stage: a step leaves
    them as they are (they cost two thirds of the dock's redraw), and so do a what-if switch that changes no
    operation and another head or row chosen; a new sentence or model redraws them."""
    window = start_window("two-heads").window
    state, cost = window.state, shown(qtbot, window)
    updates = []

    def counted(panel):
        update, name = panel.update, type(panel).__name__
        return lambda *args: (updates.append(name), update(*args))

    for panel in cost.figure.panels:
        panel.update = counted(panel)
    state.step(1)
    qtbot.waitUntil(lambda: cost.highlighted() == state.current_stage)
    assert updates == ["StageMacsPanel"]
    updates.clear()
    draws = cost.draws
    assert state.set_switch("no_scale", True)  # the same operations and shapes: the same costs
    qtbot.waitUntil(lambda: cost.draws > draws)
    assert updates == ["StageMacsPanel"]
    updates.clear()
    state.set_head(1)  # no cost follows the head or the row shown
    state.set_row(1)
    state.step(1)
    qtbot.waitUntil(lambda: cost.highlighted() == state.current_stage)
    assert updates == ["StageMacsPanel"]
    updates.clear()
    state.set_sentences("you and I love AI")
    qtbot.waitUntil(lambda: list(cost.figure.share.point.xData) == [5])
    assert sorted(updates) == sorted(type(p).__name__ for p in cost.figure.panels)


def test_the_cost_lesson_opens_the_dock_and_any_lesson_may(qtbot, start_window):
    controller = start_window("two-heads")
    window = controller.window
    assert tuple(key for key, dock in window.docks.items() if dock.spec.lesson_openable) == VIEWS
    assert controller.open_shipped("cost-of-context")
    assert window.teaching.cost_dock.isVisible()
    qtbot.waitUntil(lambda: window.teaching.cost.highlighted() == "dec.0.self_attn.scores")


def test_the_cost_figure_exports(qtbot, start_window, tmp_path):
    window = start_window("cost-of-context", "zh").window
    path = export_figure(
        window.state.trace, "dec.0.self_attn.k", PlotOptions(lang="zh"), tmp_path / "cost.png", draw=draw_cost
    )
    assert path.stat().st_size > 10_000


class Paints(QObject):
    """Counts a widget's paint events."""

    count = 0

    def eventFilter(self, watched, event) -> bool:
        self.count += event.type() == QEvent.Type.Paint
        return False


def floated(qtbot, controller):
    """The cost dock shown, in a window of its own at a fixed size (the stage view's layout cannot resize it), and a
    counter of its figure's paints."""
    window = controller.window
    cost = shown(qtbot, window)
    dock = window.teaching.cost_dock
    dock.setFloating(True)
    dock.move(window.frameGeometry().topRight() + QPoint(10, 0))  # off the stage view (over it, it is docked again)
    dock.resize(450, 600)
    qtbot.waitUntil(lambda: dock.size().toTuple() == (450, 600))
    window.state.go_to("dec.x0")
    qtbot.waitUntil(lambda: cost.highlighted() == window.state.current_stage)
    qtbot.wait(100)
    paints = Paints()
    cost.plot.viewport().installEventFilter(paints)
    return cost, paints


def settled(qtbot) -> None:
    for _ in range(20):  # what would come after it
        QApplication.processEvents()
        qtbot.wait(5)


def test_a_step_paints_the_cost_dock_once(qtbot, start_window):
    """Each step redraws the dock's per-stage chart; pyqtgraph moved its view boxes inside the first paint, and the
    items they moved asked for a second paint straight after it (the dock was painted twice at each step)."""
    controller = start_window("masked-decoder")
    cost, paints = floated(qtbot, controller)
    state = controller.state
    for stage in ("dec.0.self_attn.q", "probs", "dec.0.ffn.up"):  # each in another layer: the chart relaid out
        paints.count = 0
        state.go_to(stage)
        qtbot.waitUntil(lambda s=stage: cost.highlighted() == s and paints.count >= 1)
        settled(qtbot)
        assert paints.count == 1, (stage, paints.count)


def test_a_language_switch_paints_the_cost_dock_once(qtbot, start_window):
    """Qt hands a language switch to every widget and repaints each: the dock's figure was painted once more in the
    old language before its view drew it in the new one (4–5 ms of a switch)."""
    controller = start_window("masked-decoder")
    cost, paints = floated(qtbot, controller)
    counts = []
    for lang in ("zh", "en", "zh", "en"):  # the first two draw each language's figure (and the dock's new title)
        paints.count, draws = 0, cost.draws
        controller.set_language(lang)
        qtbot.waitUntil(lambda draws=draws: cost.draws > draws and paints.count >= 1)
        settled(qtbot)
        counts.append(paints.count)
    assert counts[2:] == [1, 1], counts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_stepping_through_the_model_moves_no_plot_of_the_cost_figure(qtbot, start_window, lang):
    """The per-stage chart keeps room for any stage's rows, labels and caption: at a step or a jump the bars, labels
    and caption change and no plot of the figure moves or resizes (the figure laid out anew cost 10–15 ms of a step
    with every dock open), and every label still fits beside its bar."""
    controller = start_window("masked-decoder")
    controller.set_language(lang)
    cost, _ = floated(qtbot, controller)
    state, figure = controller.state, cost.figure
    plots = [figure.stages.bars.plot, figure.share.plot, figure.time.plot, figure.memory.bars.plot, figure.kv.plot]
    places = None
    forward = [name for name in state.stage_names if state.forward_stage(name) == name]
    for stage in forward[::-1] + forward[:3]:  # from the last, so that no stage's room is met for the first time late
        state.go_to(stage)
        qtbot.waitUntil(lambda s=stage: cost.highlighted() == s)
        QApplication.processEvents()
        bars = figure.stages.bars
        axis = bars.plot.getAxis("left")
        cost.plot.grab()  # painted: pyqtgraph measures the labels it draws
        labels = [label for _, label in fixed_tick_levels(axis)[0]]
        assert len(labels) == len(figure.stages.rows) and max(bars.plot.vb.viewRange()[1]) >= len(labels) - 0.5
        assert axis.textWidth + axis.style["tickTextOffset"][0] <= axis.width(), (stage, labels)
        now = [(p.sceneBoundingRect().getRect(), p.vb.sceneBoundingRect().getRect()) for p in plots]
        assert places is None or now == places, stage
        places = now


def test_an_exported_cost_figure_keeps_no_room_for_other_stages(qapp):
    """A slide shows one stage: its per-stage chart is as tall as its own rows (on screen it keeps room for any)."""
    lesson = open_lesson("masked-decoder")
    trace = lesson.build_model().trace(lesson.text, lesson.target or None)
    rows = {}
    for slide in (True, False):
        figure = draw_cost(pg.GraphicsLayout(), trace, "dec.embed", PlotOptions(slide=slide))
        rows[slide] = (len(figure.stages.rows), round(max(figure.stages.bars.plot.vb.viewRange()[1]) + 0.4))
    assert rows[True][1] == rows[True][0] < rows[False][1]
