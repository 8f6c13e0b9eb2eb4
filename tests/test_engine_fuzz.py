"""Hypothesis-generated configs and texts never crash the engine: they trace or raise EngineError."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import EngineError, Model, ModelConfig

config_dicts = st.fixed_dictionaries(
    {},
    optional={
        "architecture": st.sampled_from(["encoder", "decoder", "encoder-decoder", "rnn", ""]),
        "d_model": st.one_of(st.integers(-4, 24), st.floats(allow_nan=True), st.text(max_size=3), st.none()),
        "n_heads": st.integers(-2, 9),
        "d_ff": st.integers(-2, 20),
        "n_layers": st.integers(-1, 4),
        "norm": st.sampled_from(["post", "pre", "middle"]),
        "activation": st.sampled_from(["relu", "gelu", "tanh"]),
        "positional": st.sampled_from(["sinusoidal", "learned", "none", "alibi"]),
        "max_len": st.integers(-1, 40),
        "ln_eps": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(1e-5)),
        "seed": st.integers(-3, 2**33),
        "decimals": st.one_of(st.none(), st.integers(-1, 10)),
        "enc_vocab": st.one_of(st.none(), st.lists(st.text(max_size=4), max_size=5)),
        "dec_vocab": st.one_of(st.none(), st.lists(st.text(max_size=4), max_size=5)),
        "colour": st.just("red"),
    },
)

texts = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.sampled_from(["I", "love", "AI", "我", "爱", "模型", "<start>", "<end>", ",", "。", " ", "猫吃鱼"]),
        max_size=50,
    ).map("".join),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config_dicts, texts, texts)
def test_engine_traces_or_refuses_clearly(data, text, target):
    try:
        cfg = ModelConfig.from_dict(data)
        model = Model.create(cfg)
        trace = model.trace(text, target if cfg.architecture == "encoder-decoder" else None)
    except EngineError as exc:
        assert str(exc)
        return
    assert trace.stage_names[0].endswith(".tokens")
    for name in trace.stage_names:
        assert trace.values[name].shape[0] >= 1
