"""The training lab's "Step through this model" (engine.sources.lab_model) opens only a model the app can show."""

import math

import pytest

from engine import EngineError, Model, ModelConfig
from engine.sources import lab_model
from engine.training.lab import Progress

CONFIG = ModelConfig(
    architecture="decoder", d_model=4, n_heads=2, d_ff=8, n_layers=2, norm="pre", switches=("no_layernorm",)
)


def progress_of(model: Model) -> Progress:
    return Progress("no-layernorm", "no LayerNorm", 0, 41, 120, math.nan, model)


def test_a_finite_lab_model_opens_on_a_copy_of_its_weights():
    model = Model.create(CONFIG)
    opened = lab_model(progress_of(model), "a b", 1)
    assert opened.stage == "dec.1.self_attn.weights" and "after step 42" in opened.title["en"]
    assert opened.model.params is not model.params and opened.trace().stage_names


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e7])
def test_a_diverged_lab_model_is_refused(value):
    """A diverged run (no LayerNorm) left weights NaN: the window opened it, and then could not save it."""
    model = Model.create(CONFIG)
    params = dict(model.params)
    params["dec.1.self_attn.W_Q"] = params["dec.1.self_attn.W_Q"].clone().fill_(value)
    with pytest.raises(
        EngineError,
        match=r"the training lab's model \(no-layernorm, no LayerNorm, seed 0\) diverged "
        r"by step 42, so it cannot be stepped through \(.*dec.1.self_attn.W_Q.*\)",
    ):
        lab_model(progress_of(Model(CONFIG, params, model.vocabs)), "a b", 1)
