"""The flash-attention and cost-of-context lessons in the window: every stage steps and draws, titles are human,
the tile stages follow the attention they explain, and the cost view draws its parts."""

import pytest
from PySide6.QtCore import Qt

from gui.plots import cost as cost_plots
from gui.plots.tiles import HeldPanel, TileMapPanel, TilePanel
from gui.text.operations import text_key
from gui.text.stage_texts import op_title
from tests import gui_lessons

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def step_to_the_end(qtbot, window, lang: str) -> dict[str, list]:
    """Page Down from the first stage to the last, each figure drawn; the panels drawn for each stage."""
    state, view = window.state, window.stage_view
    window.stage_list.tree.setFocus()
    qtbot.keyClick(window.stage_list.tree, Qt.Key_Home)
    drawn = {}
    for i in range(len(state.stage_names)):
        if i:
            qtbot.keyClick(window.stage_list.tree, Qt.Key_PageDown)
        name = state.current_stage
        assert state.cursor == i
        qtbot.waitUntil(lambda n=name: view.figure is not None and view.figure.stage == n)
        title = view.title.text()
        assert title == op_title(text_key(state.trace, name), lang) and title != name and "." not in title.split(" ")[0]
        assert window.stage_list.leaves[i].text() != name
        drawn[name] = [type(p) for p in view.figure.panels]
    return drawn


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flash_attention_lesson_steps_through_every_tile(qtbot, start_window, lang):
    window = start_window("flash-attention", lang).window
    names = window.state.stage_names
    p = "dec.0.self_attn"
    tiles = [n for n in names if n.startswith(f"{p}.tiled.")]
    assert names[names.index(f"{p}.z") + 1 : names.index(f"{p}.z") + 1 + len(tiles)] == tiles
    drawn = step_to_the_end(qtbot, window, lang)
    assert drawn[f"{p}.tiled.r0c0.scores"] == [TilePanel, TileMapPanel]
    assert drawn[f"{p}.tiled.r0c1.skipped"] == [TilePanel, TileMapPanel]
    assert drawn[f"{p}.tiled.z"][1] is HeldPanel
    # each tile's steps sit in a group named by the tile, so the steps of six tiles do not read alike cut at the
    # list's edge ("Running row max m · tile …" six times)
    leaves = {leaf.data(Qt.UserRole + 1): leaf for leaf in window.stage_list.leaves}
    o21, o22 = leaves[f"{p}.tiled.r2c1.o"], leaves[f"{p}.tiled.r2c2.o"]
    assert o21.parent().text().endswith("2, 1") and o22.parent().text().endswith("2, 2")
    assert o21.text() == o22.text() and "2, 1" not in o21.text()
    assert o21.parent().parent() is o22.parent().parent()  # both tiles in the attention's group
    state = window.state
    state.go_to(f"{p}.tiled.z")
    assert "max |Z − A·V| = " in window.stage_view.formula.text()
    state.go_to(f"{p}.tiled.r0c1.skipped")
    assert "skipped" in window.stage_view.formula.text() or lang == "zh"


@pytest.mark.parametrize("lang", ["zh"])
def test_cost_of_context_lesson_opens_the_cost_dock_which_follows_every_stage(qtbot, start_window, lang):
    """The stage figures stay the usual ones; the cost is the dock's, shown when the lesson opens."""
    window = start_window("cost-of-context", lang).window
    cost = window.teaching.cost
    assert window.teaching.cost_dock.isVisible()
    qtbot.waitUntil(lambda: cost.highlighted() == "dec.0.self_attn.scores")
    drawn = step_to_the_end(qtbot, window, lang)
    assert not any(panel.__module__ == cost_plots.__name__ for panels in drawn.values() for panel in panels)
    qtbot.waitUntil(lambda: cost.highlighted() == "dec.embed")  # at ∂L/∂E, the last stage: the embedding's cost


def test_a_new_sentence_gets_its_own_tiles(qtbot, start_window):
    window = start_window("flash-attention", "en").window
    window.source.setText("the cat sat on the mat today")
    window.source.returnPressed.emit()
    state = window.state
    qtbot.waitUntil(lambda: len(state.trace.tokens["dec"]) == 8)
    names = state.stage_names
    assert "dec.0.self_attn.tiled.r3c3.o" in names and "dec.0.self_attn.tiled.r0c3.skipped" in names
    assert len(window.stage_list.leaves) == len(names)
    z, tiled_z = state.trace["dec.0.self_attn.z"], state.trace["dec.0.self_attn.tiled.z"]
    assert (z - tiled_z).abs().max() < 1e-6


def test_a_tiles_tables_name_its_tokens():
    """A tile's S, m, ℓ and o were tables of rows "0, 1" (and S's columns "0, 1"): which query block, which keys,
    nothing said; the rows are the block's tokens, S's columns its keys, as the tile map beside them names them."""
    from engine.formats.lesson import open_lesson
    from gui.views.tensor_slice import axis_labels, slice_for

    trace = open_lesson("flash-attention").trace()
    words = trace.tokens["dec"]
    for name in trace.stage_names:
        stage = trace.stage(name)
        if stage is None or stage.tile is None or stage.tile.skipped:
            continue
        (r0, r1), (c0, c1) = stage.tile.rows, stage.tile.cols
        rows, cols = axis_labels(trace, slice_for(trace, name, name, 0))
        assert rows == words[r0:r1], name
        if name.endswith(".scores"):
            assert cols == words[c0:c1], name
