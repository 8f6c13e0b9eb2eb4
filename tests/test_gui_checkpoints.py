"""A GPT-2 checkpoint folder (built with `transformers`, a test-only dependency) opened through the model
picker: its byte-level BPE tokens, every stage to the last, an edit equal to a fresh trace and undone."""

import pytest

pytest.importorskip("transformers")

from tests import gui_lessons  # noqa: E402
from tests.test_checkpoints import gpt2_folder  # noqa: E402, F401 (a fixture)
from tests.test_gui_models import edit_and_undo, step_to_the_end  # noqa: E402

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def test_a_gpt2_folder_opens_steps_and_edits(qtbot, start_window, gpt2_folder):  # noqa: F811
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert window.model_picker.open_folder(gpt2_folder)
    assert window.windowTitle().startswith(f"{gpt2_folder.name} (GPT-2)") and not controller.modified
    assert state.config.norm == "pre" and state.model.tokenizer.kind == "byte-level BPE"
    assert state.trace.tokens["dec"][:3] == ["The", "Ġcat", "Ġsat"]  # the tokenizer's own pieces
    step_to_the_end(qtbot, window, state)
    assert state.current_stage == "probs"
    state.go_to("dec.1.self_attn.q")
    edit_and_undo(window, state, "dec.1.self_attn.W_Q", (4, 1))
