"""Each "what if" switch: one click on its action, the change it should make (weights kept), its effect shown
at once, and undo back to the exact trace."""

import pytest
import torch

from engine import Model, ModelConfig, stack_output
from gui.export.deck import slide_for
from gui.plots import PlotOptions
from gui.plots.figure import figure_title
from gui.plots.whatif import FuturePanel, ReorderPanel, SaturationPanel, SpreadPanel
from gui.window.main_window import MainWindow
from tests.gui_window import open_lesson_window, open_window


def window_for(qtbot, lesson: str | None = None, config: ModelConfig | None = None, text: str = "") -> MainWindow:
    return open_lesson_window(qtbot, lesson) if lesson is not None else open_window(qtbot, config, text)


def snapshot(state) -> dict[str, torch.Tensor]:
    return dict(state.trace.values)


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def check_no_pe(trace, before) -> type:
    assert not trace["enc.pos"].any() and torch.equal(trace["enc.x0"], trace["enc.embed"])
    return ReorderPanel


def check_no_scale(trace, before) -> type:
    assert torch.equal(trace["enc.0.attn.scaled"], trace["enc.0.attn.scores"])
    assert not torch.equal(before["enc.0.attn.scaled"], before["enc.0.attn.scores"])
    return SaturationPanel


def check_no_mask(trace, before) -> type:
    p = "dec.0.self_attn"
    assert torch.isneginf(before[f"{p}.masked"]).any() and not torch.isneginf(trace[f"{p}.masked"]).any()
    assert torch.equal(trace[f"{p}.masked"], trace[f"{p}.scaled"])
    assert trace[f"{p}.weights"][0, 0, 1:].sum() > 0.1  # <start> now looks at the future
    return FuturePanel


def check_no_residual(trace, before) -> type:
    assert torch.equal(trace["enc.0.add1"], trace["enc.0.attn.out"])
    return SpreadPanel


def check_no_layernorm(trace, before) -> type:
    assert torch.equal(trace["enc.0.norm1.out"], trace["enc.0.add1"])
    assert torch.equal(trace["enc.0.norm1.mean"], before["enc.0.norm1.mean"])  # statistics still shown
    return SpreadPanel


CASES = [
    ("no_pe", "positional-encoding", check_no_pe),
    ("no_scale", "why-scale", check_no_scale),
    ("no_mask", "masked-decoder", check_no_mask),
    ("no_residual", "two-heads", check_no_residual),
    ("no_layernorm", "layernorm", check_no_layernorm),
]


@pytest.mark.parametrize("switch, lesson, check", CASES, ids=[c[0] for c in CASES])
def test_each_switch_is_one_click_shows_its_effect_and_undoes_exactly(qtbot, switch, lesson, check):
    window = window_for(qtbot, lesson)
    state, views = window.state, window.teaching
    before, params, stage = snapshot(state), dict(state.trace.params), state.current_stage
    action = views.switches.actions[switch]
    assert action.isEnabled() and not action.isChecked()
    action.trigger()
    assert state.config.switches == (switch,) and action.isChecked()
    assert state.trace.params == params and state.current_stage == stage  # same weights, same place
    panel_type = check(state.trace, before)
    assert views.whatif_dock.isVisible() and views.whatif.switch() == switch
    qtbot.waitUntil(lambda: views.whatif.figure is not None and views.whatif.figure.stage == switch)
    assert isinstance(views.whatif.figure.panels[0], panel_type)
    window.undo_action.trigger()
    assert state.config.switches == () and not action.isChecked()
    assert same(snapshot(state), before)
    window.redo_action.trigger()
    assert state.config.switches == (switch,) and action.isChecked()
    check(state.trace, before)


def test_without_positions_the_reordered_sentence_gives_the_same_rows(qtbot):
    window = window_for(qtbot, "positional-encoding")
    views, state = window.teaching, window.state
    views.show_effect("no_pe")
    qtbot.waitUntil(lambda: views.whatif.figure is not None and views.whatif.figure.stage == "no_pe")
    with_pe = views.whatif.figure.panels[0].reordering
    assert with_pe.tokens == ["狗", "咬", "人"] and with_pe.reordered_tokens == ["人", "咬", "狗"]
    assert with_pe.max_difference > 1e-3
    views.switches.actions["no_pe"].trigger()
    qtbot.waitUntil(lambda: views.whatif.figure.panels[0].reordering.max_difference < 1e-5)
    r = views.whatif.figure.panels[0].reordering
    name = stack_output(state.config, "enc")
    torch.testing.assert_close(r.output, state.trace[name])
    torch.testing.assert_close(r.reordered_output, state.trace[name][torch.tensor([2, 1, 0])], atol=1e-6, rtol=0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reordering_note_says_why_the_outputs_changed(qtbot, lang):
    """With positions the note names the positional encoding; in a decoder without positions (masked-decoder) the
    mask, not a bag of words; without either, that the rows are only reordered."""
    window = window_for(qtbot, "positional-encoding")
    window.state.display.set(lang=lang)
    views = window.teaching
    views.show_effect("no_pe")
    qtbot.waitUntil(lambda: views.whatif.figure is not None and views.whatif.figure.stage == "no_pe")
    words = {
        "en": ("positional encoding tells", "mask lets", "just reordered"),
        "zh": ("位置编码告诉", "掩码也只让", "只是换了行"),
    }
    positions, mask, same_rows = words[lang]
    assert positions in views.whatif.note.text() and mask not in views.whatif.note.text()
    views.switches.actions["no_pe"].trigger()
    qtbot.waitUntil(lambda: same_rows in views.whatif.note.text())
    decoder = window_for(qtbot, "masked-decoder")
    decoder.state.display.set(lang=lang)
    assert decoder.state.config.positional == "none"
    decoder.teaching.show_effect("no_pe")
    whatif = decoder.teaching.whatif
    qtbot.waitUntil(lambda: whatif.figure is not None and whatif.figure.stage == "no_pe")
    assert whatif.figure.panels[0].reordering.max_difference > 1e-3
    assert mask in whatif.note.text() and positions not in whatif.note.text()
    assert "e-0" not in whatif.note.text() and "0.19" in whatif.note.text()  # the difference in digits, not 1.9e-01
    for text in (whatif.note.text(), whatif.explanation.text()):  # no space after a Chinese full stop
        assert ("。 " not in text) and (". " in text) == (lang == "en")


def test_the_switch_shown_is_chosen_by_its_full_name_from_one_list(qtbot):
    """One list of the five switches, named as the toolbar names them (five tabs were cut off beside the stage
    view at 1280×720): choosing one shows its figure; a switch turned on from the toolbar is chosen there."""
    window = window_for(qtbot, "masked-decoder")
    views = window.teaching
    views.show_effect("no_scale")
    choice = views.whatif.choice
    assert [choice.itemText(i) for i in range(choice.count())] == [a.text() for a in views.switches.actions.values()]
    assert choice.currentText() == views.switches.actions["no_scale"].text()
    choice.setCurrentIndex(choice.findData("no_mask"))
    qtbot.waitUntil(lambda: views.whatif.figure is not None and views.whatif.figure.stage == "no_mask")
    assert views.whatif.pages.currentWidget() is views.whatif.plots["no_mask"]
    views.switches.actions["no_residual"].trigger()
    assert views.whatif.switch() == "no_residual" and choice.currentData() == "no_residual"
    window.state.display.set(lang="zh")  # as the language switch does (gui/docks/teaching_docks.py)
    views.retranslate()
    assert choice.currentText() == views.switches.actions["no_residual"].text() == "去掉残差连接"


def test_edits_after_a_switch_undo_in_order_to_the_exact_trace(qtbot):
    window = window_for(
        qtbot, config=ModelConfig(architecture="decoder", d_model=4, n_heads=2, decimals=1), text="我 爱 大 模型"
    )
    state, views = window.state, window.teaching
    before = snapshot(state)
    views.switches.actions["no_mask"].trigger()
    views.switches.actions["no_scale"].trigger()
    assert state.config.switches == ("no_scale", "no_mask")
    assert state.edit_cell("dec.0.self_attn.W_Q", (0, 0), 2.0)
    views.generation.generate_action.trigger()
    for _ in range(4):
        window.undo_action.trigger()
    assert state.config.switches == () and same(snapshot(state), before)
    assert not any(a.isChecked() for a in views.switches.actions.values())


def test_a_model_without_a_decoder_has_no_mask_switch(qtbot):
    window = window_for(qtbot, config=ModelConfig(d_model=4, n_heads=2, decimals=1), text="I love AI")
    assert not window.teaching.switches.actions["no_mask"].isEnabled()
    assert not window.state.set_switch("no_such_switch", True) and window.state.undo_stack.count() == 0


def test_exports_name_the_switches_that_are_on():
    trace = Model.create(ModelConfig(d_model=4, n_heads=2, switches=("no_scale", "no_residual"))).trace("I love AI")
    for lang, words in (
        ("en", "what if: No scaling (÷√d_k), No residual connections"),
        ("zh", "假如：去掉缩放（÷√d_k）、去掉残差连接"),
    ):
        opts = PlotOptions(slide=True, lang=lang)
        assert words in figure_title(trace, "enc.0.attn.weights", opts)
        assert words in slide_for(trace, "enc.0.attn.weights", opts).subtitle
    plain = Model.create(ModelConfig(d_model=4, n_heads=2)).trace("I love AI")
    assert "what if" not in slide_for(plain, "enc.0.attn.weights", PlotOptions()).subtitle
