"""Model settings: invalid combinations are explained inline and change nothing; valid ones rebuild."""

from PySide6.QtWidgets import QDialogButtonBox

from gui.window.settings_dialog import SettingsDialog
from tests.gui_window import open_window


def buttons(dialog):
    return dialog.buttons.button(QDialogButtonBox.Ok), dialog.buttons.button(QDialogButtonBox.Apply)


def test_invalid_combinations_are_explained_and_change_nothing(qtbot):
    window = open_window(qtbot)
    state = window.state
    config, trace = state.config, state.trace
    dialog = SettingsDialog(state, window)
    qtbot.addWidget(dialog)
    dialog.d_model.setValue(6)
    dialog.n_heads.setValue(4)
    ok, apply = buttons(dialog)
    assert "divisible" in dialog.error.text() and not dialog.error.isHidden()
    assert not ok.isEnabled() and not apply.isEnabled()
    assert not dialog.apply()
    assert state.config is config and state.trace is trace
    dialog.n_heads.setValue(1)
    dialog.d_model.setValue(5)  # sinusoidal positions need an even width
    assert "even" in dialog.error.text() and not apply.isEnabled()
    dialog.positional.setCurrentIndex(dialog.positional.findData("rope"))
    dialog.d_model.setValue(6)
    dialog.n_heads.setValue(2)  # RoPE turns pairs: d_k = 3 is odd
    assert dialog.error.text() and not apply.isEnabled()
    dialog.n_heads.setValue(3)
    assert dialog.error.isHidden() and apply.isEnabled()


def test_applying_rebuilds_the_lesson(qtbot):
    window = open_window(qtbot)
    state = window.state
    dialog = SettingsDialog(state, window)
    qtbot.addWidget(dialog)
    dialog.architecture.setCurrentIndex(dialog.architecture.findData("decoder"))
    dialog.n_layers.setValue(2)
    dialog.norm.setCurrentIndex(dialog.norm.findData("pre"))
    dialog.activation.setCurrentIndex(dialog.activation.findData("gelu"))
    dialog.seed.setValue(7)
    assert dialog.apply()
    cfg = state.config
    assert (cfg.architecture, cfg.n_layers, cfg.norm, cfg.activation, cfg.seed) == ("decoder", 2, "pre", "gelu", 7)
    assert cfg.decimals == 1  # untouched settings are kept
    assert "dec.1.self_attn.scores" in state.stage_names and "probs" in state.stage_names
    assert len(window.stage_list.leaves) == len(state.stage_names)
    assert window.stepper.counter.text().endswith(f"/ {len(state.stage_names)}")
    assert window.target.isHidden()
    dialog.architecture.setCurrentIndex(dialog.architecture.findData("encoder-decoder"))
    assert dialog.apply()
    assert not window.target.isHidden()
    assert state.trace.tokens["dec"][0] == "<start>"
