"""The "2017 → today" dock (gui/docks/modernise.py) on its lesson: it opens with the lesson, Next and Back move the
model one change at a time through the app state, the stage view marks the numbers a change moved, undo gives back
the 2017 block bit for bit, Reset weights works at any step, and it speaks English and Chinese."""

import torch

from engine.modernise import STEPS, config_at, step_of
from gui.state.app_state import AppState
from gui.text.modernise import on_map, step_name, why
from tests.gui_lessons import own_folders, start_window  # noqa: F401 (fixtures)


def view_of(controller):
    return controller.window.docks["modernise"].view


def maps_drawn(view) -> list:
    """The configs of the maps the dock shows: before and after the change."""
    return [next(reversed(cache.figures))[0] if cache.figures else None for cache in view.maps.figures]


def test_the_lesson_opens_the_dock_on_the_2017_block(start_window):  # noqa: F811
    controller = start_window("2017-to-today")
    dock, view = controller.window.docks["modernise"].widget, view_of(controller)
    assert dock.isVisible()
    assert view.step() == 0 and view.steps.currentRow() == 0
    assert not view.back.isEnabled() and view.next.isEnabled()
    assert [view.steps.item(k).text().split(" ")[0] for k in range(1, STEPS + 1)] == [
        "1.",
        "2.",
        "3.",
        "4.",
        "5.",
        "6.",
    ]
    assert "GPT-2, 2019" in view.steps.item(1).text() and "Qwen3" in view.steps.item(6).text()
    assert "64 bytes per generated token" in view.kv.text() and "448 bytes for the 7 tokens" in view.kv.text()


def test_next_and_back_step_through_the_changes_and_undo_gives_back_the_2017_block(qtbot, start_window):  # noqa: F811
    controller = start_window("2017-to-today")
    state, view = controller.state, view_of(controller)
    params = {k: v.clone() for k, v in state.trace.params.items()}
    probs = state.trace["probs"].clone()
    assert state.current_stage == "dec.0.norm1.out"
    for step in range(1, STEPS + 1):
        view.next.click()
        assert step_of(state.config) == step and view.step() == step
        assert view.why.text() == why(step, "en")
        assert f"✓ {step}." in view.steps.item(step).text()
        if step == 1:  # pre-LN: the norm now reads the block's input, so its numbers moved, and are marked
            assert state.current_stage == "dec.0.norm1.out" and state.changed("dec.0.norm1.out").any()
        if step in (1, 6):  # the dock's own map before and after the change (the map dock may give way)
            qtbot.waitUntil(lambda: maps_drawn(view) == [config_at(state.config, step - 1), state.config])  # noqa: B023
            assert view.maps.labels[1].isVisible() and view.maps.labels[1].text() == "After"
        if step == 3:  # SwiGLU: the window stands on the activation, whose numbers the gate moved
            assert state.current_stage == "dec.0.ffn.act" and state.changed("dec.0.ffn.act").any()
        if step == 5:
            assert "Multi-head → grouped-query: 64 → 32 bytes per token" in view.kv.text()
    assert not view.next.isEnabled()
    view.back.click()
    assert step_of(state.config) == STEPS - 1
    assert state.undo_stack.count() == STEPS + 1  # six changes and the step back
    while state.undo_stack.canUndo():
        state.undo_stack.undo()
    assert step_of(state.config) == 0 and view.step() == 0
    assert state.trace.params.keys() == params.keys()
    assert all(torch.equal(state.trace.params[k], params[k]) for k in params)
    assert torch.equal(state.trace["probs"], probs)
    while state.undo_stack.canRedo():
        state.undo_stack.redo()
    assert step_of(state.config) == STEPS - 1


def test_a_click_on_a_change_goes_there_and_reset_weights_works_at_any_step(start_window):  # noqa: F811
    controller = start_window("2017-to-today")
    state, view = controller.state, view_of(controller)
    view.steps.itemClicked.emit(view.steps.item(5))
    assert step_of(state.config) == 5 and state.config.kv_heads == 2
    state.edit_cell("dec.0.self_attn.W_K", (0, 0), 1.5)
    state.reset_weights()  # the lesson's own weights, carried to this step (K and V for two K/V heads)
    assert state.trace.params["dec.0.self_attn.W_K"].shape == (8, 4)
    assert state.trace.params["dec.0.self_attn.W_K"][0, 0] != 1.5


def test_the_dock_speaks_chinese(start_window):  # noqa: F811
    controller = start_window("2017-to-today", lang="zh")
    view = view_of(controller)
    view.next.click()
    assert view.why.text() == why(1, "zh") and "残差" in view.why.text()
    assert view.next.text() == "下一个改变 ▶" and view.back.text() == "◀ 上一步"
    assert "每生成一个词元 64 字节" in view.kv.text()
    assert "GPT-2，2019" in view.steps.item(1).text()
    assert controller.window.docks["modernise"].widget.windowTitle() == "2017 → 今天"


def test_a_model_off_the_path_is_said_so_and_a_step_rebuilds_it(qapp):
    from engine import ModelConfig

    cfg = ModelConfig(architecture="decoder", d_model=8, n_heads=2, d_ff=8, activation="gelu")
    state = AppState(cfg, "the cat")
    from gui.docks.modernise import ModerniseView

    view = ModerniseView(state)
    assert view.step() is None and view.steps.currentRow() == -1
    assert "mixes old and new" in view.heading.text()
    assert state.set_modern_step(3) and step_of(state.config) == 3 and state.config.activation == "swiglu"
    state.undo_stack.undo()
    assert state.config.activation == "gelu"
    view.deleteLater()


def test_every_step_is_told_in_both_languages():
    from tests.test_gui_i18n import english_words

    for step in range(STEPS + 1):
        en = [step_name(step, "en"), why(step, "en"), on_map(step, "en")]
        zh = [step_name(step, "zh"), why(step, "zh"), on_map(step, "zh")]
        assert all(en) and all(zh) and en != zh
        assert not [english_words(text, set()) for text in zh if english_words(text, set())], step


def test_the_deck_tells_the_story_a_page_per_change(qapp, tmp_path, capsys):
    """`python main.py deck --lesson 2017-to-today`: the 2017 block's map, then each change with the map before and
    after it and its explanation (the speaker's notes of a PPTX), in the language asked for."""
    from pptx import Presentation

    import main

    pdf, pptx = tmp_path / "story.pdf", tmp_path / "story.pptx"
    assert main.main(["deck", "--lesson", "2017-to-today", "--out", str(pdf)]) in (0, None)
    assert "7 slides, the 2017 block's map and one per change" in capsys.readouterr().out
    data = pdf.read_bytes()
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") == 7
    assert main.main(["deck", "--lesson", "2017-to-today", "--lang", "zh", "--out", str(pptx)]) in (0, None)
    slides = Presentation(str(pptx)).slides
    assert len(slides) == 7
    notes = [slide.notes_slide.notes_text_frame.text for slide in list(slides)[1:]]
    assert [why(step, "zh") in note for step, note in enumerate(notes, start=1)] == [True] * STEPS
    assert "KV 缓存：每生成一个词元 64 → 32 字节" in notes[4] and "64 → 32" not in notes[3]


def test_a_deleted_view_is_no_longer_told(qtbot):
    """A window rebuilt for presentation mode deleted the view, and the next lesson change still reached its slot
    (RuntimeError: Internal C++ object already deleted)."""
    from shiboken6 import delete

    from engine.formats.lesson import open_lesson
    from gui.docks.modernise import ModerniseView

    state = AppState.from_lesson(open_lesson("2017-to-today"))
    delete(ModerniseView(state))
    state.display.set(lang="zh")
    assert state.set_modern_step(1) and step_of(state.config) == 1


def test_a_step_is_autosaved_as_a_snapshot_not_a_retrace_of_the_same_weights(qapp):
    """A "retrace" journal record replays the same weights under another config: a step changes the weights'
    shapes, so a restore from such a record failed; no record describes a step, so the autosave writes a snapshot."""
    from engine.formats.journal import replay
    from engine.formats.lesson import open_lesson
    from gui.state.change_records import undo_moves

    lesson = open_lesson("2017-to-today")
    state = AppState.from_lesson(lesson)
    assert state.set_modern_step(3)
    assert undo_moves(state.undo_stack, 0, 1) is None and undo_moves(state.undo_stack, 1, 0) is None
    state.edit_cell("dec.0.ffn.W_gate", (0, 0), 0.5)  # a weight of the new model: its record replays on a snapshot
    records = undo_moves(state.undo_stack, 1, 2)
    restored = replay(state.to_lesson(), records).trace()
    assert restored.config == state.config and torch.equal(restored["probs"], state.trace["probs"])
