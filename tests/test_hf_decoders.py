"""Llama, Qwen2, Qwen3 and Mistral checkpoint folders opened by Stepformer give transformers' own numbers.

Each family's tiny random model is made by transformers in the test (a fixed seed, every weight moved away from 0
and 1 so a wrong name, transpose, split or head order cannot hide), saved with save_pretrained beside a byte-level
BPE tokenizer.json trained here on English and Chinese, and opened by engine/formats/hf_decoders.py. Every layer's
input of each sublayer, q, k, v (after QK-norm where the model has it), attention weights, the hidden states and
the logits must equal transformers' eager forward pass to 1e-5 of the tensor's largest value in float32 (1e-10 in
float64); gradients match central differences; token ids match the folder's own tokenizer through AutoTokenizer;
every configuration field Stepformer does not compute is refused in one line.
"""

import contextlib
import json
import os
import sys
import types

import pytest
import torch

os.environ["HF_HUB_OFFLINE"] = "1"  # never the network
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from engine import EngineError  # noqa: E402
from engine.formats.checkpoints import family_name, open_checkpoint  # noqa: E402
from engine.formats.hf_decoders import CONFIG_FIELDS, HARMLESS  # noqa: E402
from engine.formats.hf_tokenizers import readable  # noqa: E402
from engine.training import backward as backward_module  # noqa: E402
from engine.training.backward import backward, loss_values  # noqa: E402
from tests.test_backward import assert_matches, central  # noqa: E402

SENTENCES = ["The cat sat on the mat because it was tired.", "我爱猫，猫爱鱼。", "Qwen 和 Llama 都是 decoder！"]
CORPUS = SENTENCES * 3 + ["the cat ate the fish", "小猫在垫子上睡觉，因为它累了。", "Mistral slides a window"]
# Qwen2's pre-tokenizer (transformers' Qwen2Tokenizer rebuilds this pipeline from tokenizer.json's vocab and merges)
QWEN_SPLIT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
F32, F64 = 1e-5, 1e-10


# ---- making the folders ------------------------------------------------------------------------------------------
def train_tokenizer(style: str, vocab_size: int = 360):
    """A byte-level BPE tokenizer.json: Qwen's (NFC, Qwen's split, no BOS) or Llama 3's (GPT-2's split, a BOS)."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    specials = ["<|endoftext|>"] if style == "qwen" else ["<|begin_of_text|>", "<|end_of_text|>"]
    if style == "qwen":
        tok.normalizer = normalizers.NFC()
        split = pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False)
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        )
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(CORPUS, trainer)
    if style == "llama":
        bos = specials[0]
        tok.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, tok.token_to_id(bos))]
        )
    return tok, specials


def save_tokenizer(folder, tok, specials, tokenizer_class):
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token=specials[-1], bos_token=specials[0] if len(specials) > 1 else None
    )
    fast.save_pretrained(str(folder))
    path = folder / "tokenizer_config.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    settings["tokenizer_class"] = tokenizer_class
    path.write_text(json.dumps(settings), encoding="utf-8")


def randomize(model: torch.nn.Module, seed: int) -> None:
    """Every weight away from 0 and 1: norms' gains 1 ± 0.2, biases ± 0.2, matrices of scale 1/√d_in."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.2 * noise)
            else:
                p.copy_(noise * p.shape[-1] ** -0.5)


SIZES = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=40,
    max_position_embeddings=128,
    rms_norm_eps=1e-5,
)
FAMILIES = {  # name: (config class, model class, tokenizer style, tokenizer class, extra vocab rows, settings)
    "llama": (
        "LlamaConfig",
        "LlamaForCausalLM",
        "llama",
        "PreTrainedTokenizerFast",
        0,
        dict(num_key_value_heads=2, rope_theta=500000.0),
    ),
    "qwen2": (
        "Qwen2Config",
        "Qwen2ForCausalLM",
        "qwen",
        "Qwen2Tokenizer",
        8,
        dict(
            num_key_value_heads=1,
            tie_word_embeddings=True,
            rope_theta=1000000.0,
            use_sliding_window=False,
            sliding_window=4,
            max_window_layers=1,
        ),
    ),
    "qwen3": (
        "Qwen3Config",
        "Qwen3ForCausalLM",
        "qwen",
        "Qwen2Tokenizer",
        0,
        dict(num_key_value_heads=2, head_dim=12, rope_theta=1000000.0),
    ),
    "mistral": (
        "MistralConfig",
        "MistralForCausalLM",
        "llama",
        "PreTrainedTokenizerFast",
        0,
        dict(num_key_value_heads=2, sliding_window=3),
    ),
}


def make_folder(folder, family: str, seed: int = 0, **changes):
    """A random 2-layer model of `family` (FAMILIES, with `changes`) and its tokenizer, saved into `folder`."""
    config_class, model_class, style, tokenizer_class, extra_rows, settings = FAMILIES[family]
    tok, specials = train_tokenizer(style)
    save_tokenizer(folder, tok, specials, tokenizer_class)
    torch.manual_seed(seed)
    cfg = getattr(transformers, config_class)(
        vocab_size=tok.get_vocab_size() + extra_rows, **(SIZES | settings | changes)
    )
    model = getattr(transformers, model_class)(cfg).eval()
    randomize(model, seed + 1)
    model.save_pretrained(str(folder), safe_serialization=True)
    return folder


@pytest.fixture(scope="module", params=list(FAMILIES))
def folder(request, tmp_path_factory):
    return make_folder(tmp_path_factory.mktemp(request.param), request.param)


# ---- transformers' numbers --------------------------------------------------------------------------------------
def reference(folder, sentence: str, dtype=torch.float32):
    """transformers' ids, outputs (hidden states, attentions, logits) and each layer's sublayer tensors, caught
    by hooks: norm1 (input_layernorm), q / k / v (after q_norm / k_norm), attn.out, norm2, gate, up, act, down."""
    ids = transformers.AutoTokenizer.from_pretrained(str(folder))(sentence, return_tensors="pt")["input_ids"]
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(folder), attn_implementation="eager", dtype=dtype
    ).eval()
    caught, hooks = {}, []

    def keep(name, inputs=False):
        def hook(module, args, out):
            caught[name] = (args[0] if inputs else out[0] if isinstance(out, tuple) else out)[0].detach()

        return hook

    for i, layer in enumerate(model.model.layers):
        att, mlp = layer.self_attn, layer.mlp
        points = {
            "norm1.out": layer.input_layernorm,
            "self_attn.out": att.o_proj,
            "norm2.out": layer.post_attention_layernorm,
            "ffn.gate": mlp.gate_proj,
            "ffn.up": mlp.up_proj,
            "ffn.down": mlp.down_proj,
            "self_attn.v": att.v_proj,
        }
        points |= {"self_attn.q": att.q_proj, "self_attn.k": att.k_proj}
        if hasattr(att, "q_norm"):  # Qwen3: RMSNorm over each head's q and k
            points |= {"self_attn.q_norm": att.q_norm, "self_attn.k_norm": att.k_norm}
        hooks += [module.register_forward_hook(keep(f"dec.{i}.{name}")) for name, module in points.items()]
        hooks.append(mlp.down_proj.register_forward_hook(keep(f"dec.{i}.ffn.act", inputs=True)))
    with torch.no_grad(), in_float64(model) if dtype == torch.float64 else contextlib.nullcontext():
        out = model(ids, output_hidden_states=True, output_attentions=True)
    for h in hooks:
        h.remove()
    return ids[0], out, caught, model.config


@contextlib.contextmanager
def in_float64(model):
    """transformers keeps three steps in float32 even in a float64 model, for half precision's sake: RMSNorm's
    upcast, RoPE's angles and eager attention's softmax. A 1e-10 reference computes them in float64 too (the same
    formulas, transformers' repeat_kv and masks)."""
    module = sys.modules[type(model.model.layers[0].self_attn).__module__]

    def rms_norm(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))

    def rotary(self, x, position_ids):
        freqs = position_ids[..., None].double() * self.inv_freq64  # [1, n, d_k/2]
        both = torch.cat((freqs, freqs), dim=-1)
        return both.cos(), both.sin()

    def eager(att, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
        key, value = module.repeat_kv(key, att.num_key_value_groups), module.repeat_kv(value, att.num_key_value_groups)
        weights = query @ key.transpose(2, 3) * scaling
        weights = torch.softmax(weights if attention_mask is None else weights + attention_mask, dim=-1)
        return (weights @ value).transpose(1, 2).contiguous(), weights

    cfg = model.config
    d_k = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    for m in model.modules():
        if type(m).__name__.endswith("RMSNorm"):
            m.forward = types.MethodType(rms_norm, m)
        elif type(m).__name__.endswith("RotaryEmbedding"):
            theta = cfg.rope_parameters["rope_theta"]
            m.inv_freq64 = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
            m.forward = types.MethodType(rotary, m)
    original, module.eager_attention_forward = module.eager_attention_forward, eager
    try:
        yield
    finally:
        module.eager_attention_forward = original


def heads(t: torch.Tensor, head_dim: int) -> torch.Tensor:
    """[n, h·d_k] or [n, h, d_k] → the engine's [h, n, d_k]."""
    return t.reshape(t.shape[0], -1, head_dim).transpose(0, 1)


def assert_near(got: torch.Tensor, want: torch.Tensor, tol: float, what: str) -> None:
    """Equal to `tol` of the reference's largest magnitude (relative to the tensor's scale)."""
    assert got.shape == want.shape, f"{what}: shape {list(got.shape)} vs {list(want.shape)}"
    err = (got.to(want.dtype) - want).abs().max().item()
    scale = want.abs().max().item()
    assert err <= tol * max(scale, 1e-30), f"{what}: off by {err:.3g} of {scale:.3g}"


def check_against_transformers(model, folder, sentence: str, tol: float, dtype=torch.float32) -> None:
    ids, out, caught, hf = reference(folder, sentence, dtype)
    trace = model.trace(sentence)
    assert trace["dec.tokens"].tolist() == ids.tolist()
    L, d_k = model.config.n_layers, model.config.d_k
    assert_near(trace["dec.x0"], out.hidden_states[0][0], tol, "dec.x0")
    for i in range(L):
        for name, want in caught.items():
            if name.startswith(f"dec.{i}."):
                want = heads(want, d_k) if name.split(".")[-1] in ("q", "k", "v", "q_norm", "k_norm") else want
                assert_near(trace[name], want, tol, name)
        assert_near(trace[f"dec.{i}.self_attn.weights"], out.attentions[i][0], tol, f"dec.{i}.self_attn.weights")
        if i < L - 1:
            assert_near(trace[f"dec.{i}.add2"], out.hidden_states[i + 1][0], tol, f"dec.{i}.add2")
    assert_near(trace["dec.final_norm.out"], out.hidden_states[L][0], tol, "dec.final_norm.out")
    assert_near(trace["logits"], out.logits[0], tol, "logits")


# ---- the tests ------------------------------------------------------------------------------------------------
def test_every_stage_matches_transformers_in_float32(folder):
    model = open_checkpoint(folder)
    for sentence in SENTENCES:
        check_against_transformers(model, folder, sentence, F32)


def test_the_config_is_read_as_the_family_means_it(folder):
    cfg = open_checkpoint(folder).config
    hf = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    family = hf["model_type"]
    assert (cfg.norm, cfg.norm_type, cfg.activation, cfg.positional, cfg.rope_pairs) == (
        "pre",
        "rmsnorm",
        "swiglu",
        "rope",
        "half",
    )
    assert cfg.kv_heads == hf["num_key_value_heads"] < cfg.n_heads  # grouped-query (Qwen2: multi-query)
    assert cfg.rope_theta == {"llama": 500000.0, "qwen2": 1e6, "qwen3": 1e6, "mistral": 10000.0}[family]
    assert cfg.biases == ("qkv" if family == "qwen2" else "none")
    assert cfg.tied_embeddings == (family == "qwen2") and ("unembed.W_U" in open_checkpoint(folder).params) == (
        family != "qwen2"
    )
    assert cfg.qk_norm == (family == "qwen3") and cfg.d_k == (12 if family == "qwen3" else 8)
    assert cfg.sliding_window == (3 if family == "mistral" else None)  # Qwen2's use_sliding_window is false
    assert family_name(folder) == {"llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3", "mistral": "Mistral"}[family]


def test_the_tokenizer_gives_the_folders_own_ids(folder):
    model = open_checkpoint(folder)
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    own = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    for sentence in [*SENTENCES, "从 2017 年到今天：RMSNorm、RoPE 和 GQA。", "ünïcödé  spaces\tand\nlines 🙂"]:
        tokens, ids = model.encode("dec", sentence)
        assert ids.tolist() == auto(sentence)["input_ids"] == own.encode(sentence).ids, sentence
        assert tokens == [readable(t) for t in own.encode(sentence).tokens]
    assert model.tokenizer.kind == "byte-level BPE"
    assert "".join(model.encode("dec", SENTENCES[1])[0]).removeprefix("<|begin_of_text|>") == SENTENCES[1]  # 我爱猫…
    first = model.trace(SENTENCES[1]).tokens["dec"][0]
    assert (first == "<|begin_of_text|>") == (model.config.rope_theta != 1e6)  # Llama 3's BOS; Qwen has none
    vocab = model.vocabs["dec"]
    assert len(vocab) == model.params["dec.embed.W_E"].shape[0] and len(set(vocab.tokens)) == len(vocab)
    if len(vocab) > own.get_vocab_size():  # Qwen pads its embeddings beyond the tokenizer's last id
        assert vocab.tokens[-1] == f"[id {len(vocab) - 1}]"


def test_byte_level_tokens_read_as_text():
    """Byte-level BPE writes "我" as "æĪĳ": the window shows it as 我; a space stays Ġ, half a character its bytes,
    and a character whose UTF-8 could be mistaken for the stand-ins of single bytes (é = Ã©) too."""
    assert readable("æĪĳ") == "我" and readable("ĠçĮ«") == "Ġ猫" and readable("Ġcat") == "Ġcat"
    assert readable("æĪ") == "æĪ" and readable("Ã©") == "Ã©"
    assert readable("ðŁĻĤ") == "🙂" and readable("<|endoftext|>") == "<|endoftext|>"


def test_float64_matches_to_1e_10():
    """Llama and Qwen3 in float64: the engine computes in its parameters' dtype."""
    import tempfile
    from pathlib import Path

    for family in ("qwen3", "mistral"):
        with tempfile.TemporaryDirectory() as tmp:
            folder = make_folder(Path(tmp), family, seed=3)
            model = open_checkpoint(folder)
            model.params = {name: p.double() for name, p in model.params.items()}
            for sentence in SENTENCES[:2]:
                check_against_transformers(model, folder, sentence, F64, torch.float64)


def test_gradients_match_central_differences(folder, monkeypatch):
    """The backward pass through RMSNorm, QK-norm, grouped-query attention, the window and the tied head, in float64,
    against fourth-order central differences of the loss on a few cells of every kind of parameter. A checkpoint has
    no <end> token, which the loss's last label is (the app refuses its loss for that reason): here the last
    position predicts the first token instead."""
    monkeypatch.setattr(backward_module, "labels", lambda trace: trace.ids["dec"].roll(-1))
    model = open_checkpoint(folder)
    model.params = {name: p.double() for name, p in model.params.items()}
    trace = model.trace("猫 sat on 垫子")
    grads = backward(trace, dtype=torch.float64)
    for name, p in trace.params.items():
        if not name.startswith(("dec.1.", "dec.embed", "dec.final", "unembed")):
            continue

        def at(v, name=name):
            return float(loss_values(trace, params=trace.params | {name: v})["loss"])

        g = grads[f"grad.{name}"]
        largest = tuple(int(i) for i in torch.unravel_index(g.abs().argmax(), g.shape))
        for cell in (largest, (0,) * p.dim()):
            assert_matches(f"grad.{name}", cell, central(at, p, cell), float(g[cell]))


def test_a_sharded_folder_opens_the_same(folder, tmp_path):
    """model.safetensors.index.json and its shards (save_pretrained with a small max_shard_size)."""
    hf = transformers.AutoModelForCausalLM.from_pretrained(str(folder))
    hf.save_pretrained(str(tmp_path), max_shard_size="20KB")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    assert not (tmp_path / "model.safetensors").exists() and len(list(tmp_path.glob("*.safetensors"))) > 2
    a, b = open_checkpoint(tmp_path), open_checkpoint(folder)
    assert a.params.keys() == b.params.keys() and all(torch.equal(a.params[k], b.params[k]) for k in a.params)


def test_a_window_over_every_qwen_layer_is_the_mask_transformers_uses(tmp_path):
    """Qwen2 with use_sliding_window and max_window_layers 0: every layer slides, as in Mistral."""
    folder = make_folder(tmp_path, "qwen2", use_sliding_window=True, sliding_window=3, max_window_layers=0)
    model = open_checkpoint(folder)
    assert model.config.sliding_window == 3
    check_against_transformers(model, folder, SENTENCES[0], F32)


def test_attention_biases_on_q_k_v_and_o(tmp_path):
    """Llama's attention_bias: biases on all four projections ("attn"), none in the feed-forward."""
    folder = make_folder(tmp_path, "llama", attention_bias=True)
    model = open_checkpoint(folder)
    assert model.config.biases == "attn" and "dec.0.self_attn.b_O" in model.params
    check_against_transformers(model, folder, SENTENCES[2], F32)


def test_every_field_of_the_configuration_classes_is_decided():
    """Each field the four configuration classes declare is read, harmless at inference, or refused by a check."""
    import dataclasses

    decided = CONFIG_FIELDS | HARMLESS
    for name in ("LlamaConfig", "Qwen2Config", "Qwen3Config", "MistralConfig"):
        fields = {f.name for f in dataclasses.fields(getattr(transformers, name))}
        assert fields <= decided, f"{name}: {sorted(fields - decided)}"


def edit_config(folder, tmp_path, **changes):
    for f in folder.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    hf = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            hf.pop(key, None)
        else:
            hf[key] = value
    (tmp_path / "config.json").write_text(json.dumps(hf), encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def qwen2_folder(tmp_path_factory):
    return make_folder(tmp_path_factory.mktemp("qwen2_refusals"), "qwen2")


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(rope_parameters={"rope_type": "llama3", "factor": 8.0, "rope_theta": 5e5}), "rope_type 'llama3'"),
        (dict(rope_parameters=None, rope_scaling={"type": "yarn", "factor": 4.0}), "rope_type 'yarn'"),
        (
            dict(rope_parameters={"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": 0.5}),
            "partial_rotary_factor 0.5",
        ),
        (dict(rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [1, 1]}), "mrope_section"),
        (dict(rope_parameters={"full_attention": {"rope_type": "default"}}), "per layer type"),
        (dict(hidden_act="gelu"), "hidden_act 'gelu'"),
        (dict(use_sliding_window=True, sliding_window=3, max_window_layers=1, layer_types=None), "some layers only"),
        (
            dict(use_sliding_window=True, sliding_window=3, layer_types=["sliding_attention", "linear_attention"]),
            "linear_attention",
        ),
        (dict(quantization_config={"quant_method": "gptq"}), "quantized"),
        (dict(auto_map={"AutoModelForCausalLM": "modeling.Model"}), "never runs"),
        (dict(architectures=["Qwen2ForSequenceClassification"]), "not the language-model head"),
        (dict(num_key_value_heads=3), "n_kv_heads = 3 does not divide"),
        (dict(vocab_size=99), "vocab_size is 99"),
        (dict(hidden_size=None), "lacks hidden_size"),
        (dict(tie_word_embeddings=False), "lack lm_head.weight"),
        (dict(tie_word_embeddings="yes"), "must be true or false"),
        (dict(head_dim=6), "has shape"),
    ],
)
def test_unsupported_fields_are_refused_in_one_line(qwen2_folder, tmp_path, changes, message):
    with pytest.raises(EngineError, match=message) as caught:
        open_checkpoint(edit_config(qwen2_folder, tmp_path, **changes))
    assert "\n" not in str(caught.value)


def test_feed_forward_biases_are_refused(tmp_path):
    """Llama's mlp_bias: the engine's "attn" and "none" have no feed-forward biases, so the folder is refused."""
    with pytest.raises(EngineError, match="mlp_bias") as caught:
        open_checkpoint(make_folder(tmp_path, "llama", mlp_bias=True))
    assert "\n" not in str(caught.value)


def test_harmless_fields_change_nothing(qwen2_folder, tmp_path):
    """Dropout, the cache, special ids, a dtype and pretraining_tp leave every number as it was."""
    changed = edit_config(
        qwen2_folder,
        tmp_path,
        attention_dropout=0.3,
        use_cache=False,
        bos_token_id=5,
        pretraining_tp=4,
        torch_dtype="bfloat16",
        initializer_range=0.5,
    )
    a, b = open_checkpoint(changed).trace(SENTENCES[0]), open_checkpoint(qwen2_folder).trace(SENTENCES[0])
    assert torch.equal(a["logits"], b["logits"])


def shard_outside(folder):
    """An index that names a shard outside the folder, and no model.safetensors."""
    (folder / "model.safetensors").unlink()
    index = {"weight_map": {"model.embed_tokens.weight": "../elsewhere.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index), encoding="utf-8")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "tokenizer.json").unlink(), "no tokenizer.json"),
        (lambda d: (d / "tokenizer.json").write_text("{", encoding="utf-8"), "cannot be read"),
        (lambda d: (d / "model.safetensors").rename(d / "pytorch_model.bin"), "never opens"),
        (lambda d: (d / "model.safetensors").write_bytes(b"not weights"), "not a readable safetensors"),
        (lambda d: shard_outside(d), "only .safetensors files beside it"),
    ],
)
def test_broken_folders_are_refused_in_one_line(qwen2_folder, tmp_path, damage, message):
    folder = edit_config(qwen2_folder, tmp_path)
    damage(folder)
    with pytest.raises(EngineError, match=message) as caught:
        open_checkpoint(folder)
    assert "\n" not in str(caught.value)


def test_a_config_as_qwen2_5_ships_it_opens_as_transformers_reads_it(qwen2_folder, tmp_path):
    """Qwen2.5's config.json as written by transformers 4: rope_theta and torch_dtype at the top, no rope_parameters
    nor layer_types, a sliding_window of 32768 that use_sliding_window false switches off."""
    folder = edit_config(
        qwen2_folder,
        tmp_path,
        rope_parameters=None,
        layer_types=None,
        rope_theta=250000.0,
        torch_dtype="bfloat16",
        sliding_window=32768,
        max_window_layers=21,
        use_sliding_window=False,
    )
    model = open_checkpoint(folder)
    assert (model.config.rope_theta, model.config.sliding_window) == (250000.0, None)
    check_against_transformers(model, folder, SENTENCES[1], F32)


def test_bfloat16_weights_are_read_into_float32(tmp_path):
    """Checkpoints ship in bfloat16: each weight is widened exactly, as transformers does with dtype=float32."""
    folder = make_folder(tmp_path, "qwen3", seed=5)
    hf = transformers.AutoModelForCausalLM.from_pretrained(str(folder))
    hf.to(torch.bfloat16).save_pretrained(str(folder))
    model = open_checkpoint(folder)
    assert all(p.dtype == torch.float32 for p in model.params.values())
    check_against_transformers(model, folder, SENTENCES[0], F32)


def test_a_weight_that_is_not_finite_is_named(qwen2_folder, tmp_path):
    from safetensors.torch import load_file, save_file

    folder = edit_config(qwen2_folder, tmp_path)
    tensors = load_file(str(folder / "model.safetensors"))
    tensors["model.layers.1.mlp.down_proj.weight"][3, 5] = float("nan")
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(EngineError, match="model.layers.1.mlp.down_proj.weight contains NaN or infinity"):
        open_checkpoint(folder)


def test_refused_fields_are_refused_before_any_weight_is_read(qwen2_folder, tmp_path, monkeypatch):
    folder = edit_config(qwen2_folder, tmp_path, hidden_act="relu")
    monkeypatch.setattr("engine.formats.hf_decoders.safe_open", lambda *a, **k: pytest.fail("the weights were read"))
    with pytest.raises(EngineError, match="hidden_act 'relu'"):
        open_checkpoint(folder)


def test_the_budget_takes_qwen_and_llama_3_vocabularies():
    """Qwen2/Qwen2.5/Qwen3's 151,936 tokens (152,064 from Qwen2.5-7B on) and Llama 3's 128,256 fit the output
    stages' limit (it was 65,536); one more is refused."""
    from engine.budget import check_vocab_size

    for size in (128_256, 151_936, 152_064):
        check_vocab_size(size, "the vocabulary")
    with pytest.raises(EngineError, match="has 152065 tokens"):
        check_vocab_size(152_065, "the vocabulary")
