"""Token-by-token generation: the next token's distribution, the choice, and the loop (with or without a KV cache).

The candidates are the decoder's vocabulary as it stands (a fixed list, or a free vocabulary with the words
seen so far), special tokens included; generation stops early when it chooses <end>.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .budget import check_trace
from .config import ModelConfig
from .errors import EngineError
from .kv_cache import KVCache, matmul_macs, trace_keys_values
from .model import Model
from .tokenizer import END
from .trace import Trace

MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 100.0


@dataclass(frozen=True)
class GenerationStep:
    token: str  # the chosen token
    token_id: int
    probs: torch.Tensor  # [vocab] the distribution it was chosen from (temperature and top-k applied)
    cache_rows: int  # K and V rows per self-attention after this step = decoder tokens read so far
    macs_cached: int  # multiply-adds of this step's matrix products with a KV cache
    macs_full: int  # … recomputing the whole trace instead
    kv: dict[str, tuple[torch.Tensor, torch.Tensor]]  # per self-attention: K (rotated with RoPE), V [h, rows, d_k]


@dataclass(frozen=True)
class Generation:
    tokens: dict[str, list[str]]  # every stack's tokens at the end; the decoder's include the generated ones
    steps: list[GenerationStep]
    stopped: str  # "steps": all steps done; "end": <end> was chosen; "max_len": the sentence is full

    @property
    def generated(self) -> list[str]:
        return [s.token for s in self.steps]


def _check_number(name: str, value, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EngineError(f"{name} must be a number, got {value!r}")
    if not low <= value <= high:
        raise EngineError(f"{name} = {value:g} is out of range; use a value from {low:g} to {high:g}")
    return float(value)


def _check_whole(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise EngineError(f"{name} must be a whole number of at least {low}, got {value!r}")
    return value


def check_temperature(temperature) -> float:
    """A softmax temperature within MIN_TEMPERATURE … MAX_TEMPERATURE (the window's spin box has the same range)."""
    return _check_number("temperature", temperature, MIN_TEMPERATURE, MAX_TEMPERATURE)


def distribution(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None) -> torch.Tensor:
    """softmax(logits / T) over the top_k largest logits, 0 for the others: logits [vocab] → probs [vocab]."""
    s = logits / check_temperature(temperature)
    if top_k is not None and _check_whole("top_k", top_k, 1) < s.shape[-1]:
        kept = torch.topk(s, top_k).indices
        s = torch.full_like(s, float("-inf")).index_copy(0, kept, s[kept])
    return torch.softmax(s, dim=-1)


def next_token_distribution(trace: Trace, temperature: float = 1.0, top_k: int | None = None) -> torch.Tensor:
    """The distribution of the token after the trace's last decoder position: [vocab]."""
    if "logits" not in trace.values:
        raise EngineError("this model has no output head: choose a decoder or encoder-decoder model to generate")
    return distribution(trace["logits"][-1], temperature, top_k)


def choose(probs: torch.Tensor, greedy: bool = True, seed: int = 0) -> int:
    """The chosen token id: the most likely one (greedy), or a draw u ~ U[0, 1) from a generator seeded
    with `seed`, taking the token whose band of the cumulative probabilities contains u. Probabilities that are not
    numbers (a stage overflowed float32, though every weight is within a cell edit's limit) choose nothing."""
    if not torch.isfinite(probs).all():
        raise EngineError(
            "the next token's probabilities are not numbers (a stage overflowed), so no token was chosen: bring the "
            "weights nearer 0 (undo the last edits, or reset the weights)"
        )
    if greedy:
        return int(torch.argmax(probs))
    u = torch.rand((), generator=torch.Generator().manual_seed(_check_whole("seed", seed, 0)), dtype=torch.float64)
    cdf = torch.cumsum(probs.to(torch.float64), dim=0)
    return int(torch.searchsorted(cdf, u * cdf[-1], right=True))  # scaled by the total: never past the end


def generate(model: Model, text: str, target: str | None = None, steps: int = 1, temperature: float = 1.0,
             top_k: int | None = None, greedy: bool = True, seed: int = 0, use_cache: bool = True) -> Generation:
    """Generate up to `steps` tokens after the decoder's input (text for a decoder, target for an
    encoder-decoder whose source is text). Step t samples with seed + t. With use_cache, each step computes
    only the new position (the prompt in one go first); without, it traces the whole sentence again."""
    cfg = model.config
    if not cfg.has_output_head:
        raise EngineError("generation needs a decoder: choose a decoder or encoder-decoder model")
    steps, seed = _check_whole("steps", steps, 1), _check_whole("seed", seed, 0)
    check_temperature(temperature)
    if top_k is not None:
        _check_whole("top_k", top_k, 1)
    if cfg.architecture == "decoder" and target:
        raise EngineError("a target sentence is only used by encoder-decoder models; give a decoder its prompt as text")
    texts = {"enc": text, "dec": target or ""} if "enc" in cfg.stacks else {"dec": text}
    tokens, ids = model.encode_all(texts)
    if len(tokens["dec"]) >= cfg.max_len:
        raise EngineError(f"the sentence already has max_len = {cfg.max_len} tokens; there is no room for one more")
    n_src, vocab = len(tokens.get("enc", [])), model.vocabs["dec"]
    longest = {s: len(t) for s, t in tokens.items()} | {"dec": min(cfg.max_len, len(tokens["dec"]) + steps)}
    check_trace(cfg, longest, {s: len(v) for s, v in model.vocabs.items()})
    cache = KVCache(model, ids.get("enc")) if use_cache else None
    new, done, stopped = ids["dec"], [], "steps"
    while len(done) < steps:
        n = len(tokens["dec"])
        if n >= cfg.max_len:
            stopped = "max_len"
            break
        if cache is None:
            trace = Trace(model, {s: list(t) for s, t in tokens.items()}, dict(ids))
            logits, kv = trace["logits"][-1], trace_keys_values(trace)
        else:
            logits, kv = cache.extend(new)["logits"][-1], cache.keys_values()
        probs = distribution(logits, temperature, top_k)
        token_id = choose(probs, greedy, seed + len(done))
        token = vocab.tokens[token_id]
        start = n - new.shape[0]
        done.append(GenerationStep(
            token, token_id, probs, n,
            macs_cached=matmul_macs(cfg, n_src, start, n - start, len(vocab), encoder=not done),
            macs_full=matmul_macs(cfg, n_src, 0, n, len(vocab), encoder=True),
            kv=kv,
        ))
        tokens["dec"].append(token)
        new = torch.tensor([token_id])
        ids["dec"] = torch.cat([ids["dec"], new])
        if token == END:
            stopped = "end"
            break
    return Generation(tokens, done, stopped)


def macs_by_position(cfg: ModelConfig, n_src: int, n: int, vocab: int) -> list[tuple[int, int]]:
    """Reading decoder positions 0 … n − 1 one token at a time: for each, the multiply-adds of its matrix
    products with a KV cache (only the new row; the encoder once, at the first) and recomputing the whole
    sentence so far instead."""
    return [(matmul_macs(cfg, n_src, p, 1, vocab, encoder=p == 0),
             matmul_macs(cfg, n_src, 0, p + 1, vocab, encoder=True)) for p in range(n)]
