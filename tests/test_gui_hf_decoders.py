"""A Qwen2-style checkpoint folder (grouped-query attention, q/k/v biases, tied embeddings; made by `transformers`, a
test-only dependency) opened through the model picker: its title, its Chinese tokens read as Chinese, every stage
to the last, an edit of a K projection (shared by a group of query heads) equal to a fresh trace and undone."""

import pytest

pytest.importorskip("transformers")

from tests import gui_lessons  # noqa: E402
from tests.test_gui_models import edit_and_undo, step_to_the_end  # noqa: E402
from tests.test_hf_decoders import make_folder  # noqa: E402

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures


def test_a_qwen2_folder_opens_steps_and_edits(qtbot, start_window, tmp_path):
    folder = make_folder(tmp_path, "qwen2", num_key_value_heads=2)
    controller = start_window("two-heads")
    window, state = controller.window, controller.state
    assert window.model_picker.open_folder(folder)
    assert window.windowTitle().startswith(f"{folder.name} (Qwen2)") and not controller.modified
    assert (state.config.kv_heads, state.config.n_heads, state.config.tied_embeddings) == (2, 4, True)
    assert state.set_sentences("我爱猫，猫爱鱼。", "")
    assert "".join(state.trace.tokens["dec"]) == "我爱猫，猫爱鱼。"  # byte-level pieces shown as characters
    step_to_the_end(qtbot, window, state)
    assert state.current_stage == "probs"
    state.go_to("dec.0.self_attn.k")  # K of the 2 K/V heads, each read by 2 query heads
    edit_and_undo(window, state, "dec.0.self_attn.W_K", (3, 5))
