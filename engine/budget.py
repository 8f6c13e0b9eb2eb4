"""What a model and a sentence will cost, estimated from the config and the sentence lengths before anything is
built: memory (the parameters plus the whole trace, every intermediate stage kept) and work (multiply-adds of
one trace). What does not fit is refused with the figure, so a valid-looking config or lesson file can never
ask for gigabytes: every way in (settings, configs, lesson files, checkpoints, the command line, a new
sentence in the window) passes through `check_parameters` and `check_trace`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .errors import EngineError
from .params import block_sublayers, param_shapes
from .tokenizer import SPECIALS

if TYPE_CHECKING:  # engine/config.py calls check_parameters while validating
    from .config import ModelConfig

# Fits every shipped lesson and model, all-MiniLM-L6-v2 at its 512 tokens, the picker's large random model
# (d_model 384, 6 layers, 12 heads) on 256 tokens, a 300-token sentence on a classroom model, and a Qwen2.5-0.5B
# checkpoint (1.84 GiB of weights) on up to about 100 tokens, where MAX_TRACE_MACS stops it (at 2 GiB it stopped at
# 37 tokens), on a laptop. A 1.5B model (5.75 GiB of weights, 28 layers) needs about 6.5 GiB and is refused.
MAX_MODEL_BYTES = 3 * 2**30
MAX_TRACE_MACS = 50 * 10**9  # about 3 s of one CPU core (17 GMAC/s measured): longer would freeze the window
# An output stage has a column per token: BERT's 30,522, GPT-2's 50,257, Llama 3's 128,256, Qwen2 / Qwen2.5 / Qwen3's
# 151,936 (152,064 from Qwen2.5-7B on) fit. Its logits and probabilities on 32 tokens take 37 MiB.
MAX_VOCAB = 152_064
FLOAT_BYTES = 4  # every tensor is float32


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GiB"


def parameter_count(cfg: ModelConfig, vocab_sizes: dict[str, int]) -> int:
    return sum(math.prod(shape) for shape in param_shapes(cfg, vocab_sizes).values())


def _norm_floats(cfg: ModelConfig, n: int) -> int:
    return 2 * n + 2 * n * cfg.d_model  # mean, var [n, 1] (RMSNorm: ms); hat, out [n, d]


def _attention_floats(cfg: ModelConfig, n_q: int, n_k: int) -> int:
    d, h = cfg.d_model, cfg.n_heads
    q_width, kv_width = h * cfg.d_k, cfg.kv_heads * cfg.d_k  # grouped-query attention: K and V narrower
    extra = (cfg.positional == "rope") + cfg.qk_norm  # q_rot, k_rot; q_norm, k_norm
    q_side = n_q * ((3 + extra) * q_width + d)  # q (q_norm, q_rot), z, concat; out
    shared = 2 * q_width if cfg.kv_heads < h else 0  # k_shared, v_shared
    k_side = n_k * ((2 + extra) * kv_width + shared)  # k (k_norm, k_rot), v
    return q_side + k_side + 4 * h * n_q * n_k  # scores, scaled, masked, weights


def _stack_floats(cfg: ModelConfig, stack: str, lengths: dict[str, int]) -> int:
    n, d, f = lengths[stack], cfg.d_model, cfg.d_ff
    floats = n + 4 * n * d + (_norm_floats(cfg, n) if cfg.embed_norm else 0)  # tokens, embed, pos, x0, type
    for sub in block_sublayers(cfg, stack):
        n_k = lengths["enc"] if sub == "cross_attn" else n
        floats += cfg.n_layers * (_attention_floats(cfg, n, n_k) + n * d + _norm_floats(cfg, n))
    ffn = (4 if cfg.activation == "swiglu" else 2) * n * f + 2 * n * d + _norm_floats(cfg, n)
    floats += cfg.n_layers * ffn
    return floats + (_norm_floats(cfg, n) if cfg.norm == "pre" else 0)


def trace_floats(cfg: ModelConfig, lengths: dict[str, int], vocab_sizes: dict[str, int]) -> int:
    """An upper estimate of the floats a whole trace keeps, for `lengths[stack]` tokens in each stack."""
    floats = sum(_stack_floats(cfg, s, lengths) for s in cfg.stacks)
    if cfg.has_output_head:
        floats += 2 * lengths["dec"] * vocab_sizes["dec"]  # logits, probs
    return floats


def trace_macs(cfg: ModelConfig, lengths: dict[str, int], vocab_sizes: dict[str, int]) -> int:
    """Multiply-adds of one whole trace: projections, attention products, feed-forward and the output head."""
    d, f = cfg.d_model, cfg.d_ff
    macs = 0
    for s in cfg.stacks:
        n = lengths[s]
        for sub in block_sublayers(cfg, s):
            n_k = lengths["enc"] if sub == "cross_attn" else n
            q_width, kv_width = cfg.n_heads * cfg.d_k, cfg.kv_heads * cfg.d_k
            # W_Q, W_O; W_K, W_V; q·kᵀ, w·v
            macs += cfg.n_layers * (2 * n * d * q_width + 2 * n_k * d * kv_width + 2 * n * n_k * q_width)
        macs += cfg.n_layers * (3 if cfg.activation == "swiglu" else 2) * n * d * f
    if cfg.has_output_head:
        macs += lengths["dec"] * d * vocab_sizes["dec"]
    return macs


def _shape_text(cfg: ModelConfig) -> str:
    return f"d_model {cfg.d_model}, d_ff {cfg.d_ff}, {cfg.n_heads} heads, {cfg.n_layers} layers"


def check_vocab_size(size: int, what: str) -> None:
    if size > MAX_VOCAB:
        raise EngineError(
            f"{what} has {size} tokens; Stepformer shows at most {MAX_VOCAB} (each output stage has a column "
            "per token), so it is refused"
        )


def check_parameters(cfg: ModelConfig, vocab_sizes: dict[str, int]) -> None:
    """Refuse a model whose parameters alone do not fit, before any of them is allocated."""
    for stack, size in vocab_sizes.items():
        check_vocab_size(size, f"the {stack} vocabulary")
    count = parameter_count(cfg, vocab_sizes)
    need = count * FLOAT_BYTES
    if need > MAX_MODEL_BYTES:
        raise EngineError(
            f"this model would need {_gib(need)} of memory (limit {_gib(MAX_MODEL_BYTES)}): {count:,} parameters "
            f"({_shape_text(cfg)}); choose a smaller d_model or d_ff, or fewer layers"
        )


def check_trace(cfg: ModelConfig, lengths: dict[str, int], vocab_sizes: dict[str, int]) -> None:
    """Refuse a model and sentence whose trace (with the parameters) would not fit in memory or time."""
    check_parameters(cfg, vocab_sizes)
    words = ", ".join(f"{lengths[s]} {s} tokens" for s in cfg.stacks)
    need = (parameter_count(cfg, vocab_sizes) + trace_floats(cfg, lengths, vocab_sizes)) * FLOAT_BYTES
    if need > MAX_MODEL_BYTES:
        longest = max(lengths[s] for s in cfg.stacks)
        raise EngineError(
            f"this model and sentence would need {_gib(need)} of memory (limit {_gib(MAX_MODEL_BYTES)}): "
            f"{words}, {_shape_text(cfg)}; every attention stage alone keeps heads × tokens × tokens = "
            f"{cfg.n_heads} × {longest} × {longest} numbers; use a shorter sentence or a smaller model"
        )
    macs = trace_macs(cfg, lengths, vocab_sizes)
    if macs > MAX_TRACE_MACS:
        raise EngineError(
            f"this model and sentence would take {macs / 1e9:.1f} billion multiply-adds per trace "
            f"(limit {MAX_TRACE_MACS / 1e9:.0f} billion, a few seconds): {words}, {_shape_text(cfg)}; "
            "use a shorter sentence or a smaller model"
        )


def check_for_sentences(cfg: ModelConfig, tokens: dict[str, list[str]]) -> None:
    """New settings for a lesson, checked on its current sentences before the model is built: a stack the old
    model lacked reads the longest sentence; a vocabulary is the config's (or the specials) plus every word."""
    longest = max(map(len, tokens.values()))
    lengths = {s: len(tokens.get(s, ())) or longest for s in cfg.stacks}
    check_trace(cfg, lengths, {s: len(cfg.vocab_for(s) or ()) + len(SPECIALS) + lengths[s] for s in cfg.stacks})


# ---- exports -------------------------------------------------------------------------------------------------
# An export (a figure, or a deck drawn one figure at a time) holds at its peak: the program (Python, torch, Qt and
# its fonts), the trace it draws, the figure being drawn (with what the allocator keeps of the ones before it) and,
# for a PPTX, every slide's pictures until the file is zipped (a PDF goes to disk page by page). Measured with
# `python tests/bench_export.py --memory`: the picker's large model (143 slides) peaks at 525 / 643 / 943 / 1,120 MiB
# on 11 / 64 / 128 / 256 tokens as a PDF, 608 / 693 / 909 / 1,114 MiB as a PPTX; about 400 MiB before any figure.
RUNTIME_BYTES = 400 * 2**20
FIGURE_BYTES = 640 * 2**20
PICTURE_BYTES = 2**20  # a PPTX slide's PNG figure and "you are here" map
MAX_EXPORT_BYTES = 2 * 2**30  # an export's peak on a laptop (the window may hold a larger model: MAX_MODEL_BYTES)


def trace_bytes(trace) -> int:
    """The bytes a built trace holds: the stages it computed and its parameters."""
    tensors = [*trace.values.values(), *trace.params.values()]
    return sum(t.nelement() * t.element_size() for t in tensors)


def export_bytes(trace, held: int = 0) -> int:
    """The peak memory of an export of `trace` that holds `held` bytes of its own (pictures, an image)."""
    return RUNTIME_BYTES + trace_bytes(trace) + FIGURE_BYTES + held


def check_export(trace, what: str, held: int = 0) -> None:
    """Refuse, before anything is drawn, an export whose peak memory would exceed the budget."""
    need = export_bytes(trace, held)
    if need > MAX_EXPORT_BYTES:
        raise EngineError(
            f"{what} would need {_gib(need)} of memory (limit {_gib(MAX_EXPORT_BYTES)}): the lesson's numbers "
            f"{_gib(trace_bytes(trace))}, drawing {_gib(RUNTIME_BYTES + FIGURE_BYTES)}"
            + (f", the file's images {held / 2**20:,.0f} MiB" if held else "")
            + "; use a shorter sentence or a smaller model"
        )
