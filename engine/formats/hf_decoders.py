"""Open a local Hugging Face checkpoint folder of today's decoder families: Llama, Qwen2, Qwen3 and Mistral.

They share one block, which the engine computes with the fields of today's decoders (engine/config.py): RMSNorm
before each sublayer and at the end, RoPE in Hugging Face's rotate-half layout, grouped-query attention
(num_key_value_heads), SwiGLU (act = silu(x·W_gate) ⊙ x·W1), no biases (Qwen2: on q, k and v; attention_bias:
on q, k, v and o), QK-norm (Qwen3) and, where configured, a sliding window (Mistral, Qwen2/Qwen3's
use_sliding_window). Weights are renamed to the engine's names and turned into the row-vector layout x·W.

Every field of the four configuration classes of transformers 5.24 is read (CONFIG_FIELDS), harmless at inference
(HARMLESS) or refused in one line when set to what Stepformer does not compute: never ignored. Keys a class does
not declare are ignored by transformers' own forward pass too, so they change nothing here; the few that change
the weights or the code (quantization, remote code, another head) are refused.

The tokenizer is the folder's tokenizer.json through the `tokenizers` library, exactly as written (its BOS, if
its post-processor adds one; no chat template: a sentence is plain text). Nothing here touches the network, and
nothing is unpickled: only safetensors weights are read, one tensor at a time, from model.safetensors or from the
shards that model.safetensors.index.json names.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from tokenizers import Tokenizer

from ..budget import MAX_MODEL_BYTES, check_parameters
from ..config import MAX_LEN, ModelConfig
from ..errors import EngineError
from ..model import Model
from ..params import Params, param_shapes
from ..tokenizer import Vocab
from .hf_tokenizers import HFTokenizer
from .reading import read_json, regular_file

FAMILIES = {"llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3", "mistral": "Mistral"}
INDEX = "model.safetensors.index.json"
PICKLES = ("pytorch_model.bin", "pytorch_model.bin.index.json", "model.pt", "model.ckpt")

# The fields of LlamaConfig, Qwen2Config, Qwen3Config and MistralConfig (transformers 5.24) that become the
# engine's config, each read below: sizes, RMSNorm's eps, RoPE, the window, biases and the tied output head.
CONFIG_FIELDS = frozenset(
    {
        "vocab_size",
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "hidden_act",
        "max_position_embeddings",
        "rms_norm_eps",
        "tie_word_embeddings",
        "rope_parameters",
        "rope_scaling",
        "rope_theta",
        "partial_rotary_factor",
        "attention_bias",
        "mlp_bias",
        "use_sliding_window",
        "sliding_window",
        "max_window_layers",
        "layer_types",
    }
)
# Fields that do not change one number of a forward pass in float32: training (initializer_range, dropout, which
# is off at inference), generation and its cache (use_cache, the special token ids: the tokenizer decides which
# tokens a sentence has), the stored dtype (every weight is read into float32), pretraining_tp (transformers 5
# does not read it; transformers 4 split each product into slices with the same sum), and PretrainedConfig's
# bookkeeping.
HARMLESS = frozenset(
    {
        "initializer_range",
        "attention_dropout",
        "use_cache",
        "pad_token_id",
        "bos_token_id",
        "eos_token_id",
        "pretraining_tp",
        "torch_dtype",
        "dtype",
        "transformers_version",
        "architectures",
        "model_type",
        "_name_or_path",
        "output_hidden_states",
        "output_attentions",
        "return_dict",
        "chunk_size_feed_forward",
        "id2label",
        "label2id",
        "problem_type",
        "tokenizer_class",
        "attn_implementation",
        "is_encoder_decoder",
    }
)
# Keys outside the classes that would change what the folder's weights mean: refused with the reason.
REFUSED_KEYS = {
    "quantization_config": "quantized weights (Stepformer reads plain floating-point weights)",
    "auto_map": "its own Python modelling code, which Stepformer never runs",
}


def family_of(hf: dict) -> str | None:
    """The display name of a model_type this module opens (Llama, Qwen2, Qwen3, Mistral), else None."""
    kind = hf.get("model_type")
    return FAMILIES.get(kind) if isinstance(kind, str) else None


# ---- config.json → ModelConfig ---------------------------------------------------------------------------------
def _refuse(family: str, what: str) -> EngineError:
    return EngineError(
        f"checkpoint: config.json sets {what}; Stepformer does not compute that for {family}, so the folder is refused"
    )


def _whole(hf: dict, name: str, default=None, low: int = 1) -> int | None:
    value = hf.get(name, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise EngineError(f"checkpoint: config.json's {name} must be a whole number of at least {low}, got {value!r}")
    return value


def _flag(hf: dict, name: str, default: bool) -> bool:
    value = hf.get(name, default)
    if not isinstance(value, bool):
        raise EngineError(f"checkpoint: config.json's {name} must be true or false, got {value!r}")
    return value


def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EngineError(f"checkpoint: config.json's {name} must be a number, got {value!r}")
    return float(value)


def _refuse_keys(hf: dict, family: str) -> None:
    for key, what in REFUSED_KEYS.items():
        if hf.get(key):
            raise _refuse(family, f"{key} ({what})")
    if _flag(hf, "is_encoder_decoder", False):
        raise _refuse(family, "is_encoder_decoder (an encoder-decoder model)")
    heads = hf.get("architectures") or []
    wanted = {f"{hf['model_type'].capitalize()}ForCausalLM", f"{hf['model_type'].capitalize()}Model"}
    other = [h for h in heads if h not in wanted]
    if other:
        raise _refuse(
            family,
            f"architectures {other[0]} (its head is not the language-model head; Stepformer opens "
            f"{' or '.join(sorted(wanted))})",
        )


def _rope_theta(hf: dict, family: str) -> float:
    """RoPE's base from rope_parameters / rope_scaling (transformers 5) or rope_theta (older files); any rope type
    but the original ("default") and a partial rotary factor are refused: Stepformer turns every pair at p/θ^(2i/r)."""
    given = hf.get("rope_scaling") or hf.get("rope_parameters") or {}
    if not isinstance(given, dict):
        raise EngineError(f"checkpoint: config.json's rope_parameters must be an object, got {given!r}")
    if any(isinstance(v, dict) for v in given.values()):
        raise _refuse(family, "rope_parameters per layer type (one RoPE for every layer is supported)")
    kind = given.get("rope_type", given.get("type", "default"))
    if kind != "default":
        raise _refuse(
            family, f"rope_type {kind!r} (RoPE scaling; only the original RoPE, rope_type default, is supported)"
        )
    for source in (given, hf):
        factor = source.get("partial_rotary_factor", 1.0)
        if factor is not None and _number(factor, "partial_rotary_factor") != 1.0:
            raise _refuse(family, f"partial_rotary_factor {factor} (transformers' {family} turns every dimension)")
    extra = sorted(set(given) - {"rope_type", "type", "rope_theta", "partial_rotary_factor"})
    if extra:
        raise _refuse(family, f"rope_parameters' {extra[0]} (only rope_theta is supported)")
    theta = given.get("rope_theta", hf.get("rope_theta", 10_000.0))
    return _number(theta, "rope_theta")


def _layer_windows(hf: dict, family: str, n_layers: int) -> list[int | None]:
    """Each layer's sliding window (None: full causal attention), as transformers sets it for this family."""
    window = _whole(hf, "sliding_window")
    if family == "Mistral":  # every layer, whenever sliding_window is set
        return [window] * n_layers
    if family == "Llama" or not _flag(hf, "use_sliding_window", False) or window is None:
        return [None] * n_layers
    first = _whole(hf, "max_window_layers", 28, low=0)  # Qwen: layers from max_window_layers on slide
    kinds = hf.get("layer_types") or ["sliding_attention" if i >= first else "full_attention" for i in range(n_layers)]
    if not isinstance(kinds, list) or len(kinds) != n_layers:
        raise EngineError(
            f"checkpoint: config.json's layer_types must list one kind per layer ({n_layers}), got {kinds!r}"
        )
    for kind in kinds:
        if kind not in ("full_attention", "sliding_attention"):
            raise _refuse(family, f"layer_types {kind!r} (only full_attention and sliding_attention exist here)")
    return [window if kind == "sliding_attention" else None for kind in kinds]


def _sliding_window(hf: dict, family: str, n_layers: int) -> int | None:
    windows = set(_layer_windows(hf, family, n_layers))
    if len(windows) > 1:
        raise _refuse(
            family,
            "a sliding window on some layers only (max_window_layers / layer_types); Stepformer "
            "gives every layer the same mask",
        )
    return windows.pop()


def _biases(hf: dict, family: str) -> str:
    if family == "Llama" and _flag(hf, "mlp_bias", False):
        raise _refuse(family, "mlp_bias (biases in the feed-forward layers)")
    if family == "Qwen2":  # q, k and v always have a bias, o never
        return "qkv"
    if family == "Mistral":  # transformers' Mistral has no biases, whatever the file says
        return "none"
    return "attn" if _flag(hf, "attention_bias", False) else "none"


def decoder_config(hf: dict) -> ModelConfig:
    """The engine config of a Llama, Qwen2, Qwen3 or Mistral config.json (see the module docstring)."""
    family = FAMILIES[hf["model_type"]]
    _refuse_keys(hf, family)
    act = hf.get("hidden_act", "silu")
    if act != "silu":
        raise _refuse(family, f"hidden_act {act!r} (the gated feed-forward is SwiGLU, silu)")
    d, n_heads, n_layers = hf["hidden_size"], hf["num_attention_heads"], hf["num_hidden_layers"]
    head_dim = _whole(hf, "head_dim", 128 if family == "Qwen3" else None)  # Qwen3Config's default is 128
    n_kv_heads = _whole(hf, "num_key_value_heads")  # None: one K and V per query head
    return ModelConfig(
        architecture="decoder",
        d_model=d,
        n_heads=n_heads,
        d_ff=hf["intermediate_size"],
        n_layers=n_layers,
        norm="pre",
        activation="swiglu",
        positional="rope",
        max_len=min(_whole(hf, "max_position_embeddings", 2048), MAX_LEN),  # longer sentences are refused anyway
        ln_eps=_number(hf.get("rms_norm_eps", 1e-6), "rms_norm_eps"),
        norm_type="rmsnorm",
        n_kv_heads=None if n_kv_heads == n_heads else n_kv_heads,
        head_dim=None if head_dim in (None, d // n_heads) and d % n_heads == 0 else head_dim,
        qk_norm=family == "Qwen3",
        rope_theta=_rope_theta(hf, family),
        rope_pairs="half",
        biases=_biases(hf, family),
        tied_embeddings=_flag(hf, "tie_word_embeddings", False),
        sliding_window=_sliding_window(hf, family, n_layers),
    )


# ---- the weights ---------------------------------------------------------------------------------------------
class Weights:
    """The folder's safetensors weights (model.safetensors, or the shards its index names), read one tensor at a
    time into float32: a file is mapped only while one tensor is read from it, so neither a second copy of the
    model nor the mapped file stays in memory."""

    def __init__(self, folder: Path):
        self.files = _weight_files(folder)  # tensor name → file

    def names(self) -> set[str]:
        return set(self.files)

    def _open(self, name: str):
        if name not in self.files:
            raise EngineError(f"checkpoint: the weights lack {name}")
        try:
            return safe_open(str(self.files[name]), framework="pt")
        except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
            raise EngineError(
                f"checkpoint: {self.files[name].name} is not a readable safetensors file ({exc})"
            ) from None

    def shape(self, name: str) -> tuple[int, ...]:
        """A tensor's shape from the file's header, without reading it."""
        with self._open(name) as f:
            return tuple(f.get_slice(name).get_shape())

    def get(self, name: str, shape: tuple[int, ...], transpose: bool = False) -> torch.Tensor:
        """A weight of `shape` (checked before it is read) as float32, transposed [out, in] → [in, out] on the way
        (one copy); NaN or infinity is refused."""
        with self._open(name) as f:
            got = tuple(f.get_slice(name).get_shape())
            if got != shape:
                raise EngineError(f"checkpoint: {name} has shape {list(got)}; config.json implies {list(shape)}")
            try:
                raw = f.get_tensor(name)
            except (SafetensorError, ValueError, RuntimeError, TypeError) as exc:
                raise EngineError(f"checkpoint: {name} cannot be read ({exc})") from None
        if raw.dtype == torch.float32 and not transpose:
            out = raw
        else:
            out = torch.empty(shape[::-1] if transpose else shape, dtype=torch.float32)
            out.copy_(raw.T if transpose else raw)
        if not torch.isfinite(out.sum()) and not torch.isfinite(out).all():  # a sum can overflow: then look closer
            raise EngineError(f"checkpoint: {name} contains NaN or infinity")
        return out

    def linear(self, name: str, n_in: int, n_out: int) -> torch.Tensor:
        """An nn.Linear weight [out, in] in the engine's row-vector layout [in, out]."""
        return self.get(name, (n_out, n_in), transpose=True)


def _weight_files(folder: Path) -> dict[str, Path]:
    """Tensor name → safetensors file, from model.safetensors or from model.safetensors.index.json and its shards;
    pickled weights and more bytes than the memory budget are refused before anything is read."""
    single, index = folder / "model.safetensors", folder / INDEX
    if single.is_file():
        paths = [single]
        names = None
    elif index.is_file():
        names, paths = _read_index(folder, index)
    elif any((folder / n).is_file() for n in PICKLES):
        raise EngineError(
            f"checkpoint: {folder} has only PyTorch pickle weights, which Stepformer never opens (a "
            "pickle can run code); convert them to model.safetensors first"
        )
    else:
        raise EngineError(f"checkpoint: {folder} has no model.safetensors (nor {INDEX})")
    size = sum(p.stat().st_size for p in paths)
    if size > MAX_MODEL_BYTES:
        raise EngineError(
            f"checkpoint: the weights have {size} bytes; Stepformer opens models of at most {MAX_MODEL_BYTES} bytes"
        )
    if names is not None:
        return names
    try:
        with safe_open(str(single), framework="pt") as f:
            return {name: single for name in f.keys()}
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise EngineError(f"checkpoint: model.safetensors is not a readable safetensors file ({exc})") from None


def _read_index(folder: Path, index: Path) -> tuple[dict[str, Path], list[Path]]:
    """The weight map of a sharded checkpoint: every shard a .safetensors file beside the index."""
    data = read_json(index, "checkpoint")
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise EngineError(f"checkpoint: {INDEX} has no weight_map of tensor names to shard files")
    shards: dict[str, Path] = {}
    for shard in set(weight_map.values()):
        if not isinstance(shard, str) or Path(shard).name != shard or not shard.endswith(".safetensors"):
            raise EngineError(f"checkpoint: {INDEX} names {shard!r}; only .safetensors files beside it are read")
        if not (folder / shard).is_file():
            raise EngineError(f"checkpoint: {INDEX} names {shard}, which is not in {folder}")
        shards[shard] = folder / shard
    return {str(name): shards[shard] for name, shard in weight_map.items()}, list(shards.values())


def decoder_params(cfg: ModelConfig, weights: Weights, n_vocab: int) -> Params:
    """The engine's parameters from a *ForCausalLM (model.…, lm_head) or *Model (no prefix) checkpoint."""
    base = "model." if "model.embed_tokens.weight" in weights.names() else ""
    d, f, q_width, kv_width = cfg.d_model, cfg.d_ff, cfg.n_heads * cfg.d_k, cfg.kv_heads * cfg.d_k
    widths = {"Q": q_width, "K": kv_width, "V": kv_width}
    P = {"dec.embed.W_E": weights.get(f"{base}embed_tokens.weight", (n_vocab, d))}
    for i in range(cfg.n_layers):
        h, a = f"{base}layers.{i}", f"dec.{i}.self_attn"
        for m, width in widths.items():
            P[f"{a}.W_{m}"] = weights.linear(f"{h}.self_attn.{m.lower()}_proj.weight", d, width)
            if cfg.has_bias(m.lower()):
                P[f"{a}.b_{m}"] = weights.get(f"{h}.self_attn.{m.lower()}_proj.bias", (width,))
        if cfg.qk_norm:
            P[f"{a}.q_norm.gamma"] = weights.get(f"{h}.self_attn.q_norm.weight", (cfg.d_k,))
            P[f"{a}.k_norm.gamma"] = weights.get(f"{h}.self_attn.k_norm.weight", (cfg.d_k,))
        P[f"{a}.W_O"] = weights.linear(f"{h}.self_attn.o_proj.weight", q_width, d)
        if cfg.has_bias("o"):
            P[f"{a}.b_O"] = weights.get(f"{h}.self_attn.o_proj.bias", (d,))
        P[f"dec.{i}.norm1.gamma"] = weights.get(f"{h}.input_layernorm.weight", (d,))
        P[f"dec.{i}.norm2.gamma"] = weights.get(f"{h}.post_attention_layernorm.weight", (d,))
        P[f"dec.{i}.ffn.W1"] = weights.linear(f"{h}.mlp.up_proj.weight", d, f)
        P[f"dec.{i}.ffn.W_gate"] = weights.linear(f"{h}.mlp.gate_proj.weight", d, f)
        P[f"dec.{i}.ffn.W2"] = weights.linear(f"{h}.mlp.down_proj.weight", f, d)
    P["dec.final_norm.gamma"] = weights.get(f"{base}norm.weight", (d,))
    if not cfg.tied_embeddings:
        if "lm_head.weight" not in weights.names():
            raise EngineError(
                "checkpoint: the weights lack lm_head.weight and config.json's tie_word_embeddings is "
                "false, so the model has no output head"
            )
        P["unembed.W_U"] = weights.linear("lm_head.weight", d, n_vocab)
    return P


def embedding_rows(weights: Weights) -> int:
    """The rows of the token embeddings as stored (the vocabulary the model has), read from the header alone."""
    for name in ("model.embed_tokens.weight", "embed_tokens.weight"):
        if name in weights.files:
            shape = weights.shape(name)
            if len(shape) != 2:
                raise EngineError(f"checkpoint: {name} has shape {list(shape)}; expected [vocab_size, hidden_size]")
            return int(shape[0])
    raise EngineError("checkpoint: the weights lack model.embed_tokens.weight")


# ---- the tokenizer -------------------------------------------------------------------------------------------
def _kind(tokenizer: Tokenizer) -> str:
    """What kind of tokenizer it is, for people to read."""
    model = type(tokenizer.model).__name__
    if model == "BPE" and type(tokenizer.decoder).__name__ == "ByteLevel":
        return "byte-level BPE"
    if model == "BPE" and getattr(tokenizer.model, "byte_fallback", False):
        return "BPE with byte fallback"
    return model


def decoder_tokenizer(folder: Path) -> HFTokenizer:
    """The folder's tokenizer.json as written (its normaliser, pre-tokeniser, BPE merges and post-processor)."""
    path = folder / "tokenizer.json"
    if not path.exists():
        raise EngineError(f"checkpoint: {folder} has no tokenizer.json, which these models need")
    try:
        tokenizer = Tokenizer.from_file(str(regular_file(path, "checkpoint")))
    except EngineError:
        raise
    except Exception as exc:  # the library raises plain Exceptions for damaged files
        raise EngineError(f"checkpoint: {path} cannot be read ({exc})") from None
    return HFTokenizer(tokenizer, _kind(tokenizer))


# ---- opening -------------------------------------------------------------------------------------------------
def open_decoder(folder: Path, hf: dict) -> Model:
    """The Llama / Qwen2 / Qwen3 / Mistral checkpoint in `folder` (its config.json already read as `hf`) as a Model
    with its own tokenizer; the memory budget is checked from the config and the file headers before any weight
    is read."""
    try:
        cfg = decoder_config(hf)
    except KeyError as exc:
        raise EngineError(f"checkpoint: config.json lacks {exc.args[0]}") from None
    except TypeError as exc:
        raise EngineError(f"checkpoint: config.json has a value of the wrong kind ({exc})") from None
    weights = Weights(folder)
    n_vocab = embedding_rows(weights)
    if hf.get("vocab_size", n_vocab) != n_vocab:
        raise EngineError(
            f"checkpoint: config.json's vocab_size is {hf['vocab_size']!r}, but the token embeddings "
            f"have {n_vocab} rows"
        )
    check_parameters(cfg, {"dec": n_vocab})
    tokenizer = decoder_tokenizer(folder)
    vocabs = {"dec": Vocab(tokenizer.tokens_by_id(n_vocab), free=False, specials=())}
    params = decoder_params(cfg, weights, n_vocab)
    shapes = param_shapes(cfg, {"dec": n_vocab})
    missing = sorted(set(shapes) - set(params))
    if missing:  # a field of the engine this module does not fill yet: never a model with a hole in it
        raise EngineError(f"checkpoint: Stepformer cannot fill {missing[0]} from a {FAMILIES[hf['model_type']]} folder")
    return Model(cfg, {name: params[name] for name in shapes}, vocabs, tokenizer)
