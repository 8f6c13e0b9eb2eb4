"""The logit lens (engine/lens.py): its last layer is the model's own probs, a middle layer equals a direct
computation (the final LayerNorm and the unembedding by torch, and transformers' own GPT-2 hidden states through
its ln_f and lm_head), and an encoder is refused in one line."""

import pytest
import torch
import torch.nn.functional as F

from engine import EngineError, Model, ModelConfig
from engine.lens import logit_lens
from engine.sources import open_source


def gpt2_like_trace():
    cfg = ModelConfig(
        architecture="decoder",
        norm="pre",
        activation="gelu_tanh",
        positional="learned",
        d_model=16,
        n_heads=4,
        d_ff=32,
        n_layers=3,
        max_len=32,
        seed=5,
    )
    return Model.create(cfg).trace("the cat sat on the mat")


def test_the_last_layer_is_the_models_own_prediction():
    for trace in (gpt2_like_trace(), open_source("masked-decoder", None, None, None).trace()):
        lens = logit_lens(trace, top=3)
        torch.testing.assert_close(lens.probs(-1), trace["probs"], atol=1e-6, rtol=0)
        assert len(lens.layers) == trace.config.n_layers + 1
        assert lens.tokens == trace.tokens["dec"]
        best = trace["probs"].max(-1)
        assert [row[0] for row in lens.layers[-1].top] == [
            (lens.vocab[int(i)], pytest.approx(float(p))) for p, i in zip(best.values, best.indices)
        ]
        assert all(len(row) == 3 for layer in lens.layers for row in layer.top)


def test_a_pre_ln_middle_layer_goes_through_the_final_norm():
    trace = gpt2_like_trace()
    lens = logit_lens(trace)
    stream = trace["dec.1.add2"]  # after block 1 of a pre-LN model: the residual sum
    P = trace.params
    normed = F.layer_norm(stream, (16,), P["dec.final_norm.gamma"], P["dec.final_norm.beta"], eps=1e-5)
    expected = torch.softmax(normed @ P["unembed.W_U"] + P["unembed.b_U"], dim=-1)
    torch.testing.assert_close(lens.probs(2), expected, atol=1e-6, rtol=0)
    assert [layer.after for layer in lens.layers] == ["dec.x0", "dec.0.add2", "dec.1.add2", "dec.2.add2"]
    assert [layer.block for layer in lens.layers] == [None, 0, 1, 2]


def test_rmsnorm_and_tied_embeddings():
    """A modern decoder: the final RMSNorm (no mean, no β) and logits through the embeddings transposed."""
    cfg = ModelConfig(
        architecture="decoder",
        norm="pre",
        norm_type="rmsnorm",
        activation="swiglu",
        positional="rope",
        d_model=16,
        n_heads=4,
        n_kv_heads=2,
        d_ff=24,
        n_layers=2,
        tied_embeddings=True,
        biases="none",
        seed=7,
    )
    trace = Model.create(cfg).trace("the cat sat on the mat")
    lens = logit_lens(trace)
    torch.testing.assert_close(lens.probs(-1), trace["probs"], atol=1e-6, rtol=0)
    stream, P = trace["dec.0.add2"], trace.params
    normed = stream / torch.sqrt((stream**2).mean(-1, keepdim=True) + cfg.ln_eps) * P["dec.final_norm.gamma"]
    expected = torch.softmax(normed @ P["dec.embed.W_E"].T, dim=-1)
    torch.testing.assert_close(lens.probs(1), expected, atol=1e-6, rtol=0)


def test_a_post_ln_stream_is_already_normed():
    trace = open_source("cross-attention", None, None, None).trace()
    lens = logit_lens(trace)
    P = trace.params
    expected = torch.softmax(trace["dec.x0"] @ P["unembed.W_U"] + P["unembed.b_U"], dim=-1)
    torch.testing.assert_close(lens.probs(0), expected, atol=1e-6, rtol=0)


def test_gpt2_against_transformers(tmp_path):
    transformers = pytest.importorskip("transformers")
    from engine.formats.checkpoints import open_checkpoint
    from tests.test_checkpoints import SENTENCES, make_gpt2_folder

    folder = make_gpt2_folder(tmp_path)
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    hf = transformers.GPT2LMHeadModel.from_pretrained(str(folder), attn_implementation="eager").eval()
    with torch.no_grad():
        out = hf(**tok(SENTENCES[1], return_tensors="pt"), output_hidden_states=True)
        middle = torch.softmax(hf.lm_head(hf.transformer.ln_f(out.hidden_states[1]))[0], dim=-1)  # after block 0
    lens = logit_lens(open_checkpoint(folder).trace(SENTENCES[1]))
    torch.testing.assert_close(lens.probs(1), middle, atol=1e-5, rtol=0)
    torch.testing.assert_close(lens.probs(-1), torch.softmax(out.logits[0], dim=-1), atol=1e-5, rtol=0)


def test_an_edited_output_head_stands_in_the_last_layer_only():
    """A logits cell pinned to an edited value: the last layer is still probs; the others are decoded anew; a lens
    made before the edit keeps its numbers."""
    trace = gpt2_like_trace()
    before = logit_lens(trace)
    middle = before.probs(1).clone()
    trace.set_cell("logits", (2, 3), 9.0)
    after = logit_lens(trace)
    torch.testing.assert_close(after.probs(-1), trace["probs"], atol=1e-6, rtol=0)
    assert after.probs(-1)[2].argmax() == 3 and before.probs(-1)[2].argmax() != 3
    torch.testing.assert_close(after.probs(1), middle, atol=0, rtol=0)
    trace.set_cell("unembed.W_U", (0, 0), 5.0)
    torch.testing.assert_close(before.probs(1), middle, atol=0, rtol=0)
    assert not torch.equal(logit_lens(trace).probs(1), middle)


def test_an_encoder_is_refused_in_one_line():
    with pytest.raises(EngineError, match="needs a model with an output head") as refused:
        logit_lens(open_source("two-heads", None, None, None).trace())
    assert "\n" not in str(refused.value)
    with pytest.raises(EngineError, match="top must be"):
        logit_lens(gpt2_like_trace(), top=0)
