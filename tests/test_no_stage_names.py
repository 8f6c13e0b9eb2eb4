"""Code asks the trace where a stage is (Trace.find / Trace.beside / Trace.ids, built on Stage.op and Stage.place)
instead of building or splitting stage names."""

from engine import Model, ModelConfig


def encoder_decoder_trace(**changes):
    cfg = ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=12, n_layers=2, **changes)
    return Model.create(cfg).trace("the cat sat", "猫 坐")


def test_find_answers_by_op_and_place():
    trace = encoder_decoder_trace()
    assert trace.find("attn.weights", stack="dec", block=1, part="self_attn").name == "dec.1.self_attn.weights"
    assert trace.find("attn.weights", stack="dec", block=0, part="cross_attn").name == "dec.0.cross_attn.weights"
    assert trace.find("attn.weights", stack="enc", block=5) is None
    assert trace.find("no.such.op") is None


def test_beside_is_the_same_place():
    trace = encoder_decoder_trace()
    assert trace.beside("dec.0.cross_attn.weights", "attn.scores").name == "dec.0.cross_attn.scores"
    assert trace.beside("dec.0.cross_attn.weights", "ffn.up") is None
    assert trace.beside("dec.tokens", "attn.scores") is None


def test_ids_and_token_stages_follow_the_stacks():
    trace = encoder_decoder_trace()
    assert trace.token_stages == {"enc.tokens": "enc", "dec.tokens": "dec"}
    assert trace.ids["enc"].tolist() == trace["enc.tokens"].tolist()
    assert trace.stage_names[0] == "enc.tokens" and "dec.tokens" in trace.stage_names
