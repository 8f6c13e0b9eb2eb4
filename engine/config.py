"""The model configuration: a small, validated, JSON-serialisable record."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from .budget import check_parameters
from .errors import EngineError
from .formats.reading import check_text, read_json
from .tokenizer import SPECIALS

ARCHITECTURES = ("encoder", "decoder", "encoder-decoder")
NORMS = ("post", "pre")
ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "swiglu")  # gelu_tanh: GPT-2's tanh approximation
POSITIONALS = ("sinusoidal", "learned", "none", "rope")
NORM_TYPES = ("layernorm", "rmsnorm")  # RMSNorm: y = γ ⊙ x / √(mean(x²) + eps), no β and no mean subtracted
ROPE_PAIRS = ("interleaved", "half")  # RoFormer's pairs (2i, 2i+1); Hugging Face's rotate_half (i, i + r/2)
# Which linear layers have a bias: every one; none (Llama, Mistral, Qwen3); only q, k, v (Qwen2); q, k, v, o.
BIASES = ("all", "none", "qkv", "attn")
# "What if" switches: each turns one part of the model off while every stage keeps its name.
SWITCHES = ("no_pe", "no_scale", "no_mask", "no_residual", "no_layernorm")

MAX_D_MODEL = 4096
MAX_LAYERS = 48  # Qwen3-0.6B and Qwen2.5-1.5B have 28 layers, SmolLM2 30–32 (the memory budget limits the rest)
MAX_LEN = 4096
MAX_CONFIG_BYTES = 2**20  # a config with fixed vocabularies of a few thousand words is some 100 kB


@dataclass(frozen=True)
class ModelConfig:
    architecture: str = "encoder"
    d_model: int = 4
    n_heads: int = 2
    d_ff: int = 8
    n_layers: int = 1
    norm: str = "post"
    activation: str = "relu"
    positional: str = "sinusoidal"
    max_len: int = 256
    ln_eps: float = 1e-5
    seed: int = 0
    decimals: int | None = None  # round initial weights to this many decimals (hand-sized lessons)
    enc_vocab: tuple[str, ...] | None = None  # None: a free vocabulary that grows with new words
    dec_vocab: tuple[str, ...] | None = None
    switches: tuple[str, ...] = ()  # a subset of SWITCHES, kept in SWITCHES order
    type_vocab: int = 0  # rows of token-type (segment) embeddings added to x0, as in BERT; 0: none
    embed_norm: bool = False  # a LayerNorm after the embeddings (BERT): blocks read S.embed_norm.out
    tiled: tuple[int, int] | None = None  # (BLOCK_Q, BLOCK_K): also step attention in tiles (engine/tiled.py)
    # Today's decoders (Llama, Qwen, Mistral); each default is the 2017 block's behaviour.
    norm_type: str = "layernorm"  # NORM_TYPES
    n_kv_heads: int | None = None  # heads of K and V (grouped-query attention); None: n_heads
    head_dim: int | None = None  # d_k of every head; None: d_model // n_heads
    qk_norm: bool = False  # RMSNorm over each head's q and k after the projection, before RoPE (Qwen3)
    rope_theta: float = 10000.0  # RoPE's base: pair i turns by p / rope_theta^(2i/r)
    rope_pairs: str = "interleaved"  # ROPE_PAIRS
    rotary_dim: int | None = None  # RoPE turns only the first rotary_dim dimensions of each head; None: all
    biases: str = "all"  # BIASES
    tied_embeddings: bool = False  # the output head reads dec.embed.W_E transposed (no unembed.W_U)
    sliding_window: int | None = None  # a query sees only the last sliding_window keys up to itself (Mistral)

    def __post_init__(self):
        if isinstance(self.switches, list):  # JSON gives a list
            object.__setattr__(self, "switches", tuple(self.switches))
        if isinstance(self.tiled, list):
            object.__setattr__(self, "tiled", tuple(self.tiled))
        validate(self)
        object.__setattr__(self, "switches", tuple(s for s in SWITCHES if s in self.switches))  # one order

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads if self.head_dim is None else self.head_dim

    @property
    def kv_heads(self) -> int:
        """The heads of K and V: n_kv_heads, or n_heads (every query head its own K and V)."""
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    def kv_head_of(self, head: int) -> int:
        """The K/V head query head `head` reads: query heads are shared out in equal consecutive groups."""
        return head // (self.n_heads // self.kv_heads)

    @property
    def rotated(self) -> int:
        """How many dimensions of each head RoPE turns (rotary_dim, or all d_k)."""
        return self.d_k if self.rotary_dim is None else self.rotary_dim

    def has_bias(self, layer: str) -> bool:
        """Whether linear layer `layer` ("q", "k", "v", "o", "ffn", "head") has a bias under `biases`."""
        return {"all": True, "none": False, "qkv": layer in ("q", "k", "v"), "attn": layer in ("q", "k", "v", "o")}[
            self.biases
        ]

    @property
    def stacks(self) -> tuple[str, ...]:
        """The stacks this model has, in the order they run."""
        return {"encoder": ("enc",), "decoder": ("dec",), "encoder-decoder": ("enc", "dec")}[self.architecture]

    @property
    def has_output_head(self) -> bool:
        return "dec" in self.stacks

    def vocab_for(self, stack: str) -> tuple[str, ...] | None:
        return self.enc_vocab if stack == "enc" else self.dec_vocab

    def replace(self, **changes) -> ModelConfig:
        data = self.to_dict()
        data.update(changes)
        return ModelConfig.from_dict(data)

    def with_architecture(self, architecture: str) -> ModelConfig:
        """These settings for another architecture, dropping what it has no use for (a vocabulary of a stack
        it lacks; no_mask, a tied output head and a sliding window without a decoder)."""
        has_enc, has_dec = architecture != "decoder", architecture != "encoder"
        return self.replace(
            architecture=architecture,
            enc_vocab=self.enc_vocab if has_enc else None,
            dec_vocab=self.dec_vocab if has_dec else None,
            switches=[s for s in self.switches if has_dec or s != "no_mask"],
            tied_embeddings=self.tied_embeddings and has_dec,  # an encoder has no output head to tie
            sliding_window=self.sliding_window if has_dec else None,  # nor a causal mask to narrow
        )

    def to_dict(self) -> dict:
        data = asdict(self)
        for key in ("enc_vocab", "dec_vocab"):
            if data[key] is not None:
                data[key] = list(data[key])
        data["switches"] = list(data["switches"])
        if data["tiled"] is None:  # only lessons that step tiled attention carry the field
            del data["tiled"]
        else:
            data["tiled"] = list(data["tiled"])
        for name, default in MODERN_DEFAULTS.items():  # a 2017-style model's file stays as it was
            if data[name] == default:
                del data[name]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @classmethod
    def from_dict(cls, data) -> ModelConfig:
        if not isinstance(data, dict):
            raise EngineError('config: expected a JSON object of settings, e.g. {"d_model": 4}')
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise EngineError(f"config: unknown field {unknown[0]!r}; valid fields are {', '.join(sorted(known))}")
        values = dict(data)
        for key in ("enc_vocab", "dec_vocab"):
            vocab = values.get(key)
            if vocab is not None:
                if not isinstance(vocab, (list, tuple)) or not all(isinstance(t, str) for t in vocab):
                    raise EngineError(f"config: {key} must be a list of token strings, or null for a free vocabulary")
                values[key] = tuple(vocab)
        return cls(**values)

    @classmethod
    def from_json_file(cls, path: str | Path) -> ModelConfig:
        return cls.from_dict(read_json(path, "config", MAX_CONFIG_BYTES))


# The fields of today's decoders, with the defaults that keep the 2017 block: to_dict leaves them out when default.
MODERN_FIELDS = ("norm_type", "n_kv_heads", "head_dim", "qk_norm", "rope_theta", "rope_pairs", "rotary_dim")
MODERN_FIELDS += ("biases", "tied_embeddings", "sliding_window")
MODERN_DEFAULTS = {f.name: f.default for f in fields(ModelConfig) if f.name in MODERN_FIELDS}


def _check_int(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineError(f"config: {name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise EngineError(f"config: {name} = {value} is out of range; use a value from {low} to {high}")


def _check_choice(name: str, value, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise EngineError(f"config: {name} = {value!r} is not an option; choose one of {', '.join(choices)}")


def _check_switches(switches) -> None:
    if not isinstance(switches, tuple) or not all(isinstance(s, str) for s in switches):
        raise EngineError(f'config: switches must be a list of names from {", ".join(SWITCHES)}, e.g. ["no_pe"]')
    for s in switches:
        if s not in SWITCHES:
            raise EngineError(f"config: switch {s!r} is not an option; choose from {', '.join(SWITCHES)}")
    if len(set(switches)) != len(switches):
        raise EngineError("config: switches lists a switch twice; list each switch once")


def _check_tiled(tiled) -> None:
    if not isinstance(tiled, tuple) or len(tiled) != 2:
        raise EngineError(f"config: tiled must be two block sizes [BLOCK_Q, BLOCK_K], e.g. [2, 2], got {tiled!r}")
    for name, value in zip(("BLOCK_Q", "BLOCK_K"), tiled):
        _check_int(f"tiled {name}", value, 1, MAX_LEN)


def validate(cfg: ModelConfig) -> None:
    """Refuse an inconsistent config with a message that names the field and the fix."""
    _check_choice("architecture", cfg.architecture, ARCHITECTURES)
    _check_choice("norm", cfg.norm, NORMS)
    _check_choice("activation", cfg.activation, ACTIVATIONS)
    _check_choice("positional", cfg.positional, POSITIONALS)
    _check_int("d_model", cfg.d_model, 1, MAX_D_MODEL)
    _check_int("n_heads", cfg.n_heads, 1, MAX_D_MODEL)
    _check_int("d_ff", cfg.d_ff, 1, 4 * MAX_D_MODEL)
    _check_int("n_layers", cfg.n_layers, 1, MAX_LAYERS)
    _check_int("max_len", cfg.max_len, 1, MAX_LEN)
    _check_int("seed", cfg.seed, 0, 2**31 - 1)
    if cfg.decimals is not None:
        _check_int("decimals", cfg.decimals, 0, 8)
    if cfg.head_dim is None and cfg.d_model % cfg.n_heads:
        divisors = [h for h in range(1, cfg.d_model + 1) if cfg.d_model % h == 0]
        raise EngineError(
            f"config: d_model = {cfg.d_model} is not divisible by n_heads = {cfg.n_heads}; "
            f"choose n_heads from {', '.join(map(str, divisors[:12]))}"
        )
    if cfg.positional == "sinusoidal" and cfg.d_model % 2:
        raise EngineError(
            f"config: sinusoidal positions pair sin and cos, so d_model = {cfg.d_model} must be even; "
            "use an even d_model or positional = learned"
        )
    _check_modern(cfg)
    _check_switches(cfg.switches)
    _check_used_by_architecture(cfg)
    _check_int("type_vocab", cfg.type_vocab, 0, 16)
    if cfg.tiled is not None:
        _check_tiled(cfg.tiled)
    if not isinstance(cfg.embed_norm, bool):
        raise EngineError(f"config: embed_norm must be true or false, got {cfg.embed_norm!r}")
    if isinstance(cfg.ln_eps, bool) or not isinstance(cfg.ln_eps, (int, float)) or not 0 < cfg.ln_eps < 1:
        raise EngineError(f"config: ln_eps = {cfg.ln_eps!r} must be a small positive number such as 1e-5")
    for key in ("enc_vocab", "dec_vocab"):
        vocab = getattr(cfg, key)
        if vocab is not None:
            if len(set(vocab)) != len(vocab):
                raise EngineError(f"config: {key} lists a token twice; list each token once")
            if any(not t or any(c.isspace() for c in t) for t in vocab):
                raise EngineError(f"config: {key} has an empty token or one with spaces; tokens are single words")
            check_text(" ".join(vocab), f"config: {key}")
    check_parameters(cfg, {s: len(cfg.vocab_for(s) or ()) + len(SPECIALS) for s in cfg.stacks})


def _check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise EngineError(f"config: {name} must be true or false, got {value!r}")


def _check_modern(cfg: ModelConfig) -> None:
    """The fields of today's decoders: RMSNorm, grouped-query attention, head_dim, QK-norm, RoPE's layout, biases,
    tied embeddings and the sliding window."""
    _check_choice("norm_type", cfg.norm_type, NORM_TYPES)
    _check_choice("rope_pairs", cfg.rope_pairs, ROPE_PAIRS)
    _check_choice("biases", cfg.biases, BIASES)
    _check_bool("qk_norm", cfg.qk_norm)
    _check_bool("tied_embeddings", cfg.tied_embeddings)
    if cfg.head_dim is not None:
        _check_int("head_dim", cfg.head_dim, 1, MAX_D_MODEL)
    if cfg.n_kv_heads is not None:
        _check_int("n_kv_heads", cfg.n_kv_heads, 1, cfg.n_heads)
        if cfg.n_heads % cfg.n_kv_heads:
            shares = [k for k in range(1, cfg.n_heads + 1) if cfg.n_heads % k == 0]
            raise EngineError(
                f"config: n_kv_heads = {cfg.n_kv_heads} does not divide n_heads = {cfg.n_heads}; each K/V head "
                f"serves an equal group of query heads, so choose n_kv_heads from {', '.join(map(str, shares))}"
            )
    theta = cfg.rope_theta
    if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not 1 < theta < 1e12:
        raise EngineError(f"config: rope_theta = {theta!r} must be a number above 1 such as 10000")
    if cfg.rotary_dim is not None:
        _check_int("rotary_dim", cfg.rotary_dim, 2, cfg.d_k)
    if cfg.positional == "rope" and cfg.rotated % 2:
        raise EngineError(
            f"config: RoPE rotates pairs of each head's dimensions, so the {cfg.rotated} dimensions it turns "
            "(d_k, or rotary_dim) must be even; change d_model, n_heads, head_dim or rotary_dim"
        )
    if cfg.sliding_window is not None:
        _check_int("sliding_window", cfg.sliding_window, 1, MAX_LEN)
    if cfg.tied_embeddings and not cfg.has_output_head:
        raise EngineError(
            "config: tied_embeddings ties the output head to the decoder's embeddings, but an encoder "
            "has no output head; remove it or choose a decoder"
        )
    if cfg.sliding_window is not None and cfg.tiled is not None:
        raise EngineError(
            "config: tiled attention steps the causal mask but not a sliding window; remove tiled or sliding_window"
        )
    if cfg.sliding_window is not None and "dec" not in cfg.stacks:
        raise EngineError(
            "config: sliding_window narrows the decoder's causal mask, but an encoder has no mask; "
            "remove it or choose a decoder"
        )


def _check_used_by_architecture(cfg: ModelConfig) -> None:
    """A field this architecture has no use for would be ignored silently: refuse it instead."""
    if cfg.architecture == "encoder" and cfg.dec_vocab is not None:
        raise EngineError(
            "config: dec_vocab is the decoder's vocabulary, but an encoder has no decoder; remove it "
            "or choose architecture decoder or encoder-decoder"
        )
    if cfg.architecture == "decoder" and cfg.enc_vocab is not None:
        raise EngineError(
            "config: enc_vocab is the encoder's vocabulary, but a decoder-only model has no encoder; "
            "remove it or give the vocabulary as dec_vocab"
        )
    if "no_mask" in cfg.switches and "dec" not in cfg.stacks:
        raise EngineError(
            "config: the switch no_mask turns off the decoder's causal mask, but an encoder has no "
            "mask; remove it from switches"
        )
