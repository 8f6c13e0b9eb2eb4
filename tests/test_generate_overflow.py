"""Generation when the output probabilities overflowed: every weight within a cell edit's limit (±1e6) can still
overflow float32 in a model without LayerNorm; sampled Generate raised IndexError there (issue 44)."""

from __future__ import annotations

import math

import pytest
import torch

from engine import EngineError, Model
from engine.generate import choose, next_token_distribution
from gui.state.app_state import AppState
from tests.gui_window import show_window
from tests.test_backward import HUGE, NO_LAYERNORM, zeroed


def overflowed_model() -> Model:
    """Two blocks without LayerNorm, weights and embeddings ±1e6: the logits are NaN."""
    trace = zeroed(NO_LAYERNORM, (*HUGE, "W_E"))
    assert torch.isnan(trace["logits"]).all()
    return Model(NO_LAYERNORM, dict(trace.params), trace.model.vocabs)


@pytest.mark.parametrize("greedy", [True, False])
def test_probabilities_that_are_not_numbers_choose_no_token(greedy):
    probs = next_token_distribution(overflowed_model().trace("a b"))
    with pytest.raises(EngineError, match="probabilities are not numbers .*no token was chosen"):
        choose(probs, greedy, seed=3)
    assert choose(torch.tensor([0.25, 0.75]), greedy, seed=3) in (0, 1)


def test_generate_in_the_window_says_why_it_chose_nothing(qtbot):
    window = show_window(qtbot, AppState(NO_LAYERNORM, "a b", model=overflowed_model()))
    panel, state = window.teaching.generation, window.state
    window.teaching.generation_dock.show()  # its preview: the message, no figure
    assert "not numbers" in panel.status.text() and not panel.plot.isVisible()
    messages = []
    state.message.connect(messages.append)
    for greedy in (False, True):
        (panel.greedy if greedy else panel.sampled).setChecked(True)
        assert not panel.generate()
        assert "no token was chosen" in messages[-1]
    assert state.undo_stack.count() == 0 and state.trace.tokens["dec"] == ["<start>", "a", "b"]
    assert math.isnan(float(state.trace["logits"][0, 0]))
