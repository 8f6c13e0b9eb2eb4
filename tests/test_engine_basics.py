"""Config validation, tokenizer rules, vocabularies, weights files, and the no-Qt rule."""

import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import save_file

from engine import EngineError, Model, ModelConfig, tokenize
from engine.formats.weights import load_weights, save_weights


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"d_model": 6, "n_heads": 4}, ["d_model", "n_heads", "1, 2, 3, 6"]),
        ({"d_ff": -1}, ["d_ff", "1 to"]),
        ({"architecture": "rnn"}, ["architecture", "encoder-decoder"]),
        ({"activation": "tanh"}, ["activation", "relu"]),
        ({"colour": "red"}, ["colour", "valid fields"]),
        ({"d_model": 5, "n_heads": 1}, ["sinusoidal", "even"]),
        ({"n_layers": 1.5}, ["n_layers", "whole number"]),
        ({"enc_vocab": ["a", "a"]}, ["enc_vocab", "twice"]),
    ],
)
def test_invalid_config_names_field_and_fix(changes, words):
    with pytest.raises(EngineError) as err:
        ModelConfig.from_dict(changes)
    for word in words:
        assert word in str(err.value)


def test_config_round_trips_through_json():
    cfg = ModelConfig(architecture="encoder-decoder", d_model=8, enc_vocab=("a", "b"), decimals=2)
    assert ModelConfig.from_dict(json.loads(cfg.to_json())) == cfg


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("我 爱 大 模型", ["我", "爱", "大", "模型"]),
        ("猫 吃了 鱼", ["猫", "吃了", "鱼"]),
        ("我爱大模型", ["我", "爱", "大", "模", "型"]),
        ("I love AI.", ["I", "love", "AI", "."]),
        ("Hello, world!", ["Hello", ",", "world", "!"]),
        ("<start> 我 爱 <end>", ["<start>", "我", "爱", "<end>"]),
        ("<start>我爱AI。", ["<start>", "我", "爱", "AI", "。"]),
        ("  ", []),
    ],
)
def test_tokenizer_rules(text, tokens):
    assert tokenize(text) == tokens


def test_free_vocab_grows_with_seeded_rows_that_do_not_depend_on_order():
    a, b = Model.create(ModelConfig(seed=3)), Model.create(ModelConfig(seed=3))
    ta, tb = a.trace("cat dog"), b.trace("dog fish cat")
    assert torch.equal(ta["enc.embed"][0], tb["enc.embed"][2])  # "cat" gets the same row either way
    assert a.params["enc.embed.W_E"].shape[0] == len(a.vocabs["enc"])


def test_fixed_vocab_maps_unknown_words_to_unk():
    model = Model.create(ModelConfig(enc_vocab=("I", "love")))
    trace = model.trace("I love AI")
    unk = model.vocabs["enc"].id_of("<unk>")
    assert trace["enc.tokens"].tolist()[2] == unk
    assert len(model.vocabs["enc"]) == 5  # <unk> <start> <end> I love


def test_decoder_vocab_growth_grows_the_output_head():
    model = Model.create(ModelConfig(architecture="decoder"))
    trace = model.trace("new words here")
    assert trace["logits"].shape == (4, len(model.vocabs["dec"]))


@pytest.mark.parametrize("text", ["", "   ", " ".join(["w"] * 500)])
def test_empty_or_too_long_sentence_is_refused(text):
    with pytest.raises(EngineError, match="sentence"):
        Model.create(ModelConfig()).trace(text)


def test_a_refused_target_adds_none_of_the_sources_new_words():
    """The target is checked before the source's new words grow the vocabulary and W_E."""
    model = Model.create(ModelConfig(architecture="encoder-decoder", max_len=16))
    model.trace("I love AI", "我 爱 AI")
    vocabs, params = {s: list(v.tokens) for s, v in model.vocabs.items()}, dict(model.params)
    with pytest.raises(EngineError, match="at most 16"):
        model.trace("brand new words", " ".join(["w"] * 20))
    assert {s: list(v.tokens) for s, v in model.vocabs.items()} == vocabs
    assert model.params.keys() == params.keys() and all(model.params[n] is params[n] for n in params)


def test_weights_round_trip(tmp_path):
    cfg = ModelConfig(architecture="encoder-decoder", d_model=8, n_layers=2, norm="pre", positional="learned")
    model = Model.create(cfg)
    first = model.trace("I love AI", "我 爱 你")
    save_weights(model, tmp_path / "w.safetensors")
    loaded = load_weights(cfg, tmp_path / "w.safetensors")
    again = loaded.trace("I love AI", "我 爱 你")
    for name in first.stage_names:
        assert torch.equal(first[name], again[name])


def test_weights_loading_names_exactly_what_is_wrong(tmp_path):
    cfg = ModelConfig(d_model=4)
    model = Model.create(cfg)
    model.trace("a b")
    path = tmp_path / "w.safetensors"
    save_weights(model, path)
    tensors = dict(model.params)
    meta = {"stepformer.enc_vocab": json.dumps(model.vocabs["enc"].tokens)}

    del tensors["enc.0.attn.W_Q"]
    save_file(tensors, str(path), metadata=meta)
    with pytest.raises(EngineError, match="lacks enc.0.attn.W_Q"):
        load_weights(cfg, path)

    tensors["enc.0.attn.W_Q"] = torch.zeros(4, 3)
    save_file(tensors, str(path), metadata=meta)
    with pytest.raises(EngineError, match=r"enc.0.attn.W_Q has shape \[4, 3\]; expected \[4, 4\]"):
        load_weights(cfg, path)

    tensors["enc.0.attn.W_Q"] = torch.zeros(4, 4, dtype=torch.int32)
    save_file(tensors, str(path), metadata=meta)
    with pytest.raises(EngineError, match="dtype"):
        load_weights(cfg, path)

    path.write_bytes(b"\x80\x04not a safetensors file")
    with pytest.raises(EngineError, match="not a readable safetensors"):
        load_weights(cfg, path)


def test_engine_imports_no_qt():
    code = (
        "import importlib, pkgutil, sys, engine\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'): importlib.import_module(m.name)\n"
        "print([m for m in sys.modules if 'Qt' in m or 'pyqtgraph' in m])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
