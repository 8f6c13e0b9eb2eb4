"""A seeded random walk through the real window (tests/walk.py) on an encoder, a decoder, an encoder-decoder
lesson and a GPT-2 checkpoint: no exception, no crash, and undoing everything returns every parameter, pinned
stage and sentence to the start exactly. tests/random_walk.py runs thousands of actions per lesson; here
50 per lesson (200 in all) keep the test short. Below, the defects the walk found, each on its own."""

import random

import pytest
import torch

from tests import gui_lessons
from tests.walk import Start, Walker, lesson_words

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ACTIONS = 50  # per walk: 200 actions in all


@pytest.mark.parametrize("lesson", ["two-heads", "masked-decoder", "cross-attention"])
def test_a_random_walk_on_a_lesson_raises_nothing_and_undoes_to_the_start(qtbot, start_window, lesson):
    controller = start_window(lesson)
    Walker(controller, random.Random(11), lesson_words(controller.state)).run(ACTIONS)


def test_a_random_walk_on_a_gpt2_checkpoint_raises_nothing_and_undoes_to_the_start(qtbot, start_window, tmp_path):
    test_checkpoints = pytest.importorskip("tests.test_checkpoints")
    controller = start_window("two-heads")
    assert controller.window.model_picker.open_folder(test_checkpoints.make_gpt2_folder(tmp_path))
    words = " ".join(test_checkpoints.SENTENCES).split()
    Walker(controller, random.Random(11), words).run(ACTIONS)


# ---- defects the walk found ---------------------------------------------------------------------------------
def shown(view) -> tuple:
    return view.title.text(), view.formula.text(), [(p.model.slice, p.caption.text()) for p in view.panels()]


def test_a_head_change_after_editing_another_heads_columns_shows_the_new_head(qtbot, start_window):
    """Editing W_Q[0,2] (head 1's columns) changes no cell of head 0's columns: that empty change mark raised
    IndexError half-way through the rebuild, leaving b_Q and q on head 1 under a head-0 formula."""
    controller = start_window("two-heads")
    state, view = controller.state, controller.window.stage_view
    state.go_to("enc.0.attn.q")
    state.set_head(1)
    assert state.edit_cell("enc.0.attn.W_Q", (0, 2), "0.5")
    state.set_head(0)
    windows = {p.model.slice.name: p.model.slice for p in view.panels()}
    assert windows["enc.0.attn.W_Q"].col_start == 0 and windows["enc.0.attn.b_Q"].col_start == 0
    assert windows["enc.0.attn.q"].head == 0 and "head 0" in view.output.caption.text()
    assert torch.equal(view.output.model.shown, state.trace["enc.0.attn.q"][0])
    assert view.output.model.changed is None  # head 0's q did not change
    for stage in ("enc.0.attn.scores", "enc.0.attn.weights", "enc.0.attn.z"):
        state.go_to(stage)
        assert view.output.model.slice.head == 0


def test_a_failing_rebuild_leaves_the_stage_view_as_it_was(qtbot, start_window, monkeypatch):
    """Everything of a stage is computed before anything shown changes: a failure shows the old stage whole."""
    controller = start_window("two-heads")
    state, view = controller.state, controller.window.stage_view
    state.go_to("enc.0.attn.q")
    before = shown(view)

    def broken(window):
        raise RuntimeError("a broken table")

    monkeypatch.setattr(view.output.model, "content", broken)
    with qtbot.captureExceptions() as exceptions:
        state.go_to("enc.0.attn.weights")
    assert [str(e[1]) for e in exceptions] == ["a broken table"]
    assert shown(view) == before


def test_a_refused_target_changes_nothing_and_the_source_words_work_after_reset_weights(qtbot, start_window, tmp_path):
    """A too long target used to leave the source's new words in the vocabulary and W_E (not in the lesson's
    own weights): after Reset weights the same word raised IndexError, and Save refused from then on."""
    controller = start_window("cross-attention")
    state, window = controller.state, controller.window
    start = Start.of(state)
    window.source.setText("I love brandnew")
    window.target.setText(" ".join(["我"] * 300))
    window.source.returnPressed.emit()
    assert state.problem and not start.differences(state) and "brandnew" not in state.model.vocabs["enc"]
    window.reset_action.trigger()
    window.target.setText("我 爱")
    window.source.returnPressed.emit()
    assert not state.problem and state.trace.tokens["enc"] == ["I", "love", "brandnew"]
    controller.prompts.path = str(tmp_path / "saved.stepformer")
    assert controller.save_as() and not controller.prompts.errors
