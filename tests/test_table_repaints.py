"""A stage's tables are painted once when it is shown: Qt lays a table's rows and columns out on a timer after its model
is reset, and left to that timer the layout came after the first paint and every table was painted a second time (at
each step, each generated token)."""

from tests.gui_window import Regions, open_window, settle


def test_a_step_paints_each_table_of_the_new_stage_once(qtbot):
    window = open_window(qtbot)
    state, view = window.state, window.stage_view
    state.go_to("enc.0.attn.q")
    settle(qtbot, passes=10, wait_ms=20)
    qtbot.waitUntil(lambda: not window.teaching.placement.timer.isActive())  # the docks placed for the window
    for stage in ("enc.0.attn.k", "enc.0.attn.v", "enc.0.attn.scores"):
        tables = [panel.table for panel in view.panels()]
        paints = [Regions() for _ in tables]
        for table, counter in zip(tables, paints):
            table.viewport().installEventFilter(counter)
        state.go_to(stage)
        settle(qtbot, passes=10, wait_ms=20)
        shown = [table.viewport().isVisible() for table in tables]
        counts = [len(counter.painted) for counter, visible in zip(paints, shown) if visible]
        assert counts and all(count == 1 for count in counts), (stage, counts)
        for table, counter in zip(tables, paints):
            table.viewport().removeEventFilter(counter)
