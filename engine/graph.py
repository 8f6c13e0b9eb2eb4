"""The stage graph: every operation of the model as a named node with named inputs, and one record per operation.

Inputs are names of parameters (see params.py) or of earlier stages, so the
trace can recompute exactly the stages downstream of an edit.

RECORDS holds everything the engine knows about an operation kind besides the function and inputs the builder
gives its stages: its provenance rule, its backward (local) rule, its cost, where the map draws it, whether a KV
cache keeps its input and which What-if switch changes it. The other modules ask `stage.record`; the display
side keeps its own record per kind (gui/text/operations.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import torch

from . import cost, ops, provenance
from .config import ModelConfig
from .params import block_sublayers

if TYPE_CHECKING:
    from .tiled import Tile
    from .trace import Trace


@dataclass(frozen=True)
class Place:
    """Where a stage sits in the architecture, so nothing has to parse stage names to find out."""

    stack: str | None = None  # "enc" or "dec"; None for the output head and the loss
    block: int | None = None  # the layer, from 0; None outside the blocks
    sublayer: int | None = None  # k of the block's k-th sublayer and its add{k} / norm{k}; None outside blocks
    part: str = "output"  # PARTS: which box of the architecture diagram the stage belongs to


# The parts of the diagram: embeddings, the three sublayers, the residual sum and LayerNorm around each,
# BERT's LayerNorm after the embeddings, pre-LN's final LayerNorm, and the output head (logits, probs, loss).
PARTS = ("embedding", "embed_norm", "self_attn", "cross_attn", "ffn", "add", "norm", "final_norm", "output")


@dataclass(frozen=True)
class Stage:
    name: str  # e.g. "enc.0.attn.scores"
    op: str  # the operation, e.g. "attn.scores"; explanations and plots key on it
    inputs: tuple[str, ...]  # parameter or stage names, passed to fn in this order
    fn: Callable[..., torch.Tensor]
    rows: str | None = None  # stack whose tokens label the rows (None: not token rows)
    cols: str | None = None  # stack whose tokens label the columns (None: features)
    tile: Tile | None = None  # the block of a tiled-attention stage (engine/tiled.py); None for every other stage
    place: Place = Place()  # stack, block, sublayer and part (the output head unless the builder says otherwise)

    @property
    def record(self) -> OpRecord:
        return record(self.op)


@dataclass(frozen=True)
class OpRecord:
    """What the engine knows about one operation kind, besides the function and inputs of each of its stages."""

    op: str  # the kind, as Stage.op ("attn.scores")
    sources: Callable[..., dict] | None  # its provenance rule (engine/provenance.py); None: not a computed stage
    backward: str = ""  # the local rule of its backward step (engine/training/backward.py; a GUI shows its formula)
    macs: Callable[[Trace, Stage], int] | None = None  # multiply-adds of its matrix products (engine/cost.py)
    quadratic: bool = False  # part of attention's n × n work (cost's attention share)
    per_head: bool = False  # one [h, …] tensor per head: the map draws it inside "each head"
    map_group: str | None = None  # consecutive stages of one group are one operation on the map (the tiles)
    switch: str | None = None  # the What-if switch that changes it (the map marks it off while that switch is on)
    keeps_function: bool = False  # its switch on, its function (not ops.identity) returns its input unchanged
    positional: bool = False  # its function takes `start`, the position of its first row (a KV cache's new rows)
    cache: str | None = None  # "keys" or "values": a KV cache keeps its second input (and adds rows to it)
    distribution: bool = False  # each row is a probability distribution (a softmax)
    shares_heads: bool = False  # its input's K/V heads shared out to the query heads: a KV cache keeps its input
    # An operation added with register(): the builder puts one of its stages right after every stage of kind
    # `follows`, named `stage` in the same place, computed by function(config) from that stage's output; the
    # stages that read the followed stage read the new one instead. `when` says which configs have it.
    follows: str | None = None
    stage: str = ""  # its stage's last name part ("tempered": enc.0.attn.tempered after enc.0.attn.scaled)
    function: Callable[[ModelConfig], Callable[..., torch.Tensor]] | None = None
    when: Callable[[ModelConfig], bool] | None = None  # None: every model has it


_ATTENTION = dict(per_head=True)
_RECORDS = (
    # the embeddings ("tokens": each stack's token ids, an input of the trace that the map draws as a stage)
    OpRecord("tokens", None),
    OpRecord("embed", provenance.embed_row, "embedding_rows"),
    OpRecord("pos", provenance.positions, "positional", switch="no_pe", positional=True),
    OpRecord("type", provenance.token_type, "embedding_rows"),
    OpRecord("x0", provenance.elementwise, "sum"),
    # attention
    OpRecord("attn.q", provenance.projection, "linear", cost.linear_macs, **_ATTENTION),
    OpRecord("attn.k", provenance.projection, "linear", cost.linear_macs, **_ATTENTION),
    OpRecord("attn.v", provenance.projection, "linear", cost.linear_macs, **_ATTENTION),
    OpRecord("attn.q_norm", provenance.head_rms_norm, "head_rmsnorm", **_ATTENTION),
    OpRecord("attn.k_norm", provenance.head_rms_norm, "head_rmsnorm", **_ATTENTION),
    OpRecord(
        "attn.q_rot",
        provenance.rotated_pair,
        "rotation",
        switch="no_pe",
        keeps_function=True,
        positional=True,
        **_ATTENTION,
    ),
    OpRecord(
        "attn.k_rot",
        provenance.rotated_pair,
        "rotation",
        switch="no_pe",
        keeps_function=True,
        positional=True,
        **_ATTENTION,
    ),
    OpRecord("attn.k_shared", provenance.shared_head, "share_heads", shares_heads=True, **_ATTENTION),
    OpRecord("attn.v_shared", provenance.shared_head, "share_heads", shares_heads=True, **_ATTENTION),
    OpRecord(
        "attn.scores",
        provenance.dot_product,
        "matmul",
        cost.dot_product_macs,
        quadratic=True,
        cache="keys",
        **_ATTENTION,
    ),
    OpRecord("attn.scaled", provenance.elementwise, "scale", switch="no_scale", **_ATTENTION),
    OpRecord("attn.masked", provenance.masked, "mask", switch="no_mask", positional=True, **_ATTENTION),
    OpRecord("attn.weights", provenance.whole_row, "softmax_jacobian", distribution=True, **_ATTENTION),
    OpRecord(
        "attn.z",
        provenance.weighted_sum,
        "matmul",
        cost.weighted_sum_macs,
        quadratic=True,
        cache="values",
        **_ATTENTION,
    ),
    OpRecord("attn.concat", provenance.concat, "reshape"),
    OpRecord("attn.out", provenance.linear, "linear", cost.linear_macs),
    # Add & Norm
    OpRecord("add", provenance.elementwise, "residual", switch="no_residual"),
    OpRecord("norm.mean", provenance.row_of_x, "layernorm_mean"),
    OpRecord("norm.var", provenance.variance, "layernorm_var"),
    OpRecord("norm.hat", provenance.normalised, "layernorm"),
    OpRecord("norm.out", provenance.affine, "affine", switch="no_layernorm"),
    OpRecord("norm.ms", provenance.row_of_x, "rms_mean_square"),
    OpRecord("norm.rms_hat", provenance.rms_normalised, "rmsnorm"),
    OpRecord("norm.rms_out", provenance.affine, "gain", switch="no_layernorm"),
    # the feed-forward network
    OpRecord("ffn.up", provenance.linear, "linear", cost.linear_macs),
    OpRecord("ffn.gate", provenance.linear, "linear", cost.linear_macs),
    OpRecord("ffn.act", provenance.elementwise, "activation"),
    OpRecord("ffn.down", provenance.linear, "linear", cost.linear_macs),
    # the output head, and the loss the backward pass adds after it (engine/training/backward.py)
    OpRecord("logits", provenance.output_head, "linear", cost.linear_macs),
    OpRecord("probs", provenance.whole_row, "softmax_jacobian", distribution=True),
    OpRecord("loss.per_position", None, "cross_entropy"),
    OpRecord("loss", None, "mean"),
)
RECORDS: dict[str, OpRecord] = {entry.op: entry for entry in _RECORDS}  # and the tiles' (engine/tiled.py)


def add_records(*entries: OpRecord) -> None:
    """The records of operations whose stages a builder of their own makes (engine/tiled.py: the tiles)."""
    for entry in entries:
        if entry.op in RECORDS:
            raise ValueError(f"operation {entry.op!r} already has a record")
        RECORDS[entry.op] = entry


def register(entry: OpRecord) -> None:
    """Add an operation kind to the engine: its record (with `follows`, `stage` and `function`) is all it takes.
    Models built from now on have its stages; unregister(op) takes it out again."""
    if entry.op in RECORDS:
        raise ValueError(f"operation {entry.op!r} already has a record")
    if entry.follows not in RECORDS or not entry.stage or entry.function is None:
        raise ValueError(f"operation {entry.op!r}: name the kind it follows, its stage's name and its function")
    RECORDS[entry.op] = entry


def unregister(op: str) -> None:
    """Take an operation added by register() out again (models built from now on lack its stages)."""
    if record(op).follows is None:
        raise ValueError(f"operation {op!r} is one of the model's own; only registered ones can be taken out")
    del RECORDS[op]


def _followers(op: str, cfg: ModelConfig) -> list[OpRecord]:
    """The registered operations that follow every stage of kind `op` in a model of config `cfg`."""
    return [r for r in RECORDS.values() if r.follows == op and (r.when is None or r.when(cfg))]


def _follower_name(name: str, entry: OpRecord) -> str:
    """The stage of registered operation `entry` after stage `name`: "enc.0.attn.tempered" after "enc.0.attn.scaled"."""
    return f"{name.rsplit('.', 1)[0]}.{entry.stage}"


def read_as(cfg: ModelConfig, name: str, op: str) -> str:
    """What later stages read for stage `name` of kind `op`: itself, or the last registered operation after it."""
    followers = _followers(op, cfg)
    return _follower_name(name, followers[-1]) if followers else name


def record(op: str) -> OpRecord:
    """The engine record of an operation kind."""
    if op not in RECORDS:
        raise KeyError(f"no engine record for operation {op!r} (engine/graph.py, RECORDS)")
    return RECORDS[op]


def tokens_of(stack: str) -> str:
    """The name of a stack's token ids, an input of the trace that reads as a stage: "dec.tokens"."""
    return f"{stack}.tokens"


def find(stages: list[Stage], op: str, **place) -> Stage | None:
    """The first stage of kind op whose Place has the given fields (stack=, block=, sublayer=, part=); None if
    there is none. Ask this instead of building a stage name."""
    return next((st for st in stages if st.op == op and all(getattr(st.place, k) == v for k, v in place.items())), None)


@dataclass(frozen=True)
class Attention:
    """The stages of one attention by their role, so no other module names their kinds or builds their names."""

    scores: Stage
    scaled: Stage
    masked: Stage
    weights: Stage
    z: Stage


def attention(stages: list[Stage], **place) -> Attention | None:
    """The first attention whose Place has the given fields, e.g. attention(stages, stack="dec", block=0,
    part="self_attn"), or all of a stage's place (the attention a tile stage explains); None if there is none."""
    weights = find(stages, "attn.weights", **place)
    if weights is None:
        return None
    at = {st.op: st for st in stages if st.place == weights.place}
    return Attention(at["attn.scores"], at["attn.scaled"], at["attn.masked"], weights, at["attn.z"])


def part_of(name: str) -> str:
    """The name of the box a stage's name starts with: "dec.0.self_attn" for "dec.0.self_attn.z"."""
    return name.rsplit(".", 1)[0]


def _added_positions(cfg: ModelConfig) -> str:
    """The positional encoding added to the embeddings: none for RoPE (it rotates q and k) or with no_pe."""
    return "none" if cfg.positional == "rope" or "no_pe" in cfg.switches else cfg.positional


def _positions(cfg: ModelConfig, ids: torch.Tensor, *maybe_W_pos: torch.Tensor, start: int = 0) -> torch.Tensor:
    n = ids.shape[0]
    kind = _added_positions(cfg)
    if kind == "sinusoidal":
        return ops.sinusoidal_positions(start + n, cfg.d_model)[start:]
    if kind == "learned":
        return maybe_W_pos[0][start : start + n].clone()
    return torch.zeros(n, cfg.d_model)


def _rotate(cfg: ModelConfig, x: torch.Tensor, start: int = 0) -> torch.Tensor:
    """RoPE on q or k [h, n, d_k]; with no_pe the rotation is off and the stage equals its input."""
    if "no_pe" in cfg.switches:
        return x
    return ops.rope(x, start, cfg.rope_theta, cfg.rope_pairs, cfg.rotary_dim)


def _token_types(W_T: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Rows of W_T for each token's segment: one sentence, so every token is of type 0 → [n, d]."""
    return ops.embed(W_T, torch.zeros_like(ids))


def _sum(*parts: torch.Tensor) -> torch.Tensor:
    return sum(parts[1:], parts[0])


def _project_heads(n_heads: int, x, W, b=None):
    return ops.split_heads(ops.linear(x, W, b), n_heads)  # [n, d] → [h, n, d_k]


class _Builder:
    def __init__(self, cfg: ModelConfig):
        self.cfg = cfg
        self.stages: list[Stage] = []
        self.place = Place()  # where the stages added next sit
        self.read_instead: dict[str, str] = {}  # a stage followed by registered operations → the last of them

    def add(self, name, op, inputs, fn, rows=None, cols=None) -> str:
        """Add a stage (and the registered operations that follow its kind); the name of the stage to read next."""
        inputs = tuple(self.read_instead.get(i, i) for i in inputs)
        self.stages.append(Stage(name, op, inputs, fn, rows, cols, place=self.place))
        last = name
        for entry in _followers(op, self.cfg):
            follower = _follower_name(name, entry)
            self.stages.append(
                Stage(follower, entry.op, (last,), entry.function(self.cfg), rows, cols, place=self.place)
            )
            last = self.read_instead[name] = follower
        return last

    def linear_inputs(self, x: str, W: str, b: str, layer: str) -> tuple[str, ...]:
        """A linear layer's inputs: x, W and its bias b where the config's `biases` give layer `layer` one."""
        return (x, W, b) if self.cfg.has_bias(layer) else (x, W)

    def at(self, stack: str | None, part: str, block: int | None = None, sublayer: int | None = None) -> None:
        self.place = Place(stack, block, sublayer, part)

    def embedding(self, s: str) -> str:
        cfg = self.cfg
        self.at(s, "embedding")
        self.add(f"{s}.embed", "embed", (f"{s}.embed.W_E", tokens_of(s)), ops.embed, rows=s)
        pos_inputs = (tokens_of(s),) + ((f"{s}.pos.W_pos",) if _added_positions(cfg) == "learned" else ())
        self.add(f"{s}.pos", "pos", pos_inputs, partial(_positions, cfg), rows=s)
        if cfg.type_vocab:  # BERT: + token-type embeddings
            self.add(f"{s}.type", "type", (f"{s}.type.W_T", tokens_of(s)), _token_types, rows=s)
            x0 = self.add(f"{s}.x0", "x0", (f"{s}.embed", f"{s}.pos", f"{s}.type"), _sum, rows=s)
        else:
            x0 = self.add(f"{s}.x0", "x0", (f"{s}.embed", f"{s}.pos"), ops.add, rows=s)
        if not cfg.embed_norm:
            return x0
        self.at(s, "embed_norm")
        return self.layer_norm(f"{s}.embed_norm", x0, s)  # BERT: LayerNorm after the embeddings

    def attention(self, p: str, x_q: str, x_kv: str, q_stack: str, kv_stack: str, causal: bool) -> str:
        """Multi-head attention named p (e.g. "dec.0.cross_attn"); returns the output stage."""
        cfg, h = self.cfg, self.cfg.n_heads
        lin = self.linear_inputs
        q = self.add(
            f"{p}.q", "attn.q", lin(x_q, f"{p}.W_Q", f"{p}.b_Q", "q"), partial(_project_heads, h), rows=q_stack
        )
        kv = partial(_project_heads, cfg.kv_heads)
        k = self.add(f"{p}.k", "attn.k", lin(x_kv, f"{p}.W_K", f"{p}.b_K", "k"), kv, rows=kv_stack)
        v = self.add(f"{p}.v", "attn.v", lin(x_kv, f"{p}.W_V", f"{p}.b_V", "v"), kv, rows=kv_stack)
        if cfg.qk_norm:  # Qwen3: RMSNorm over each head's q and k
            head_norm = partial(ops.rms_norm, eps=cfg.ln_eps)
            q = self.add(f"{p}.q_norm", "attn.q_norm", (q, f"{p}.q_norm.gamma"), head_norm, rows=q_stack)
            k = self.add(f"{p}.k_norm", "attn.k_norm", (k, f"{p}.k_norm.gamma"), head_norm, rows=kv_stack)
        if cfg.positional == "rope" and q_stack == kv_stack:  # RoPE in self-attention only
            q = self.add(f"{p}.q_rot", "attn.q_rot", (q,), partial(_rotate, cfg), rows=q_stack)
            k = self.add(f"{p}.k_rot", "attn.k_rot", (k,), partial(_rotate, cfg), rows=kv_stack)
        if cfg.kv_heads < h:  # grouped-query attention: each K/V head shared by a group of query heads
            share = partial(ops.repeat_heads, n_heads=h)
            k = self.add(f"{p}.k_shared", "attn.k_shared", (k,), share, rows=kv_stack)
            v = self.add(f"{p}.v_shared", "attn.v_shared", (v,), share, rows=kv_stack)
        grid = dict(rows=q_stack, cols=kv_stack)
        self.add(f"{p}.scores", "attn.scores", (q, k), ops.scores, **grid)
        scale = ops.identity if "no_scale" in cfg.switches else partial(ops.scale, d_k=cfg.d_k)
        self.add(f"{p}.scaled", "attn.scaled", (f"{p}.scores",), scale, **grid)
        causal = causal and "no_mask" not in cfg.switches
        hide = partial(ops.mask, causal=causal, window=cfg.sliding_window)
        self.add(f"{p}.masked", "attn.masked", (f"{p}.scaled",), hide, **grid)
        self.add(f"{p}.weights", "attn.weights", (f"{p}.masked",), ops.softmax, **grid)
        self.add(f"{p}.z", "attn.z", (f"{p}.weights", v), ops.weighted_sum, rows=q_stack)
        self.add(f"{p}.concat", "attn.concat", (f"{p}.z",), ops.concat_heads, rows=q_stack)
        out = lin(f"{p}.concat", f"{p}.W_O", f"{p}.b_O", "o")
        return self.add(f"{p}.out", "attn.out", out, ops.linear, rows=q_stack)

    def layer_norm(self, p: str, x: str, s: str) -> str:
        """LayerNorm (mean, variance, x_norm, γ ⊙ x_norm + β) or RMSNorm (mean square, x_norm, γ ⊙ x_norm)."""
        eps, off = self.cfg.ln_eps, "no_layernorm" in self.cfg.switches
        if self.cfg.norm_type == "rmsnorm":
            self.add(f"{p}.ms", "norm.ms", (x,), ops.mean_square, rows=s)
            self.add(f"{p}.hat", "norm.rms_hat", (x, f"{p}.ms"), partial(ops.rms_normalise, eps=eps), rows=s)
            if off:  # the statistics are still shown; the output is the input
                return self.add(f"{p}.out", "norm.rms_out", (x,), ops.identity, rows=s)
            return self.add(f"{p}.out", "norm.rms_out", (f"{p}.hat", f"{p}.gamma"), ops.gain, rows=s)
        self.add(f"{p}.mean", "norm.mean", (x,), ops.mean, rows=s)
        self.add(f"{p}.var", "norm.var", (x, f"{p}.mean"), ops.variance, rows=s)
        self.add(f"{p}.hat", "norm.hat", (x, f"{p}.mean", f"{p}.var"), partial(ops.normalise, eps=eps), rows=s)
        if off:  # the statistics are still shown; the output is the input
            return self.add(f"{p}.out", "norm.out", (x,), ops.identity, rows=s)
        return self.add(f"{p}.out", "norm.out", (f"{p}.hat", f"{p}.gamma", f"{p}.beta"), ops.affine, rows=s)

    def ffn(self, p: str, x: str, s: str) -> str:
        lin = self.linear_inputs
        self.add(f"{p}.up", "ffn.up", lin(x, f"{p}.W1", f"{p}.b1", "ffn"), ops.linear, rows=s)
        if self.cfg.activation == "swiglu":  # act = silu(gate) ⊙ up
            self.add(f"{p}.gate", "ffn.gate", lin(x, f"{p}.W_gate", f"{p}.b_gate", "ffn"), ops.linear, rows=s)
            self.add(f"{p}.act", "ffn.act", (f"{p}.gate", f"{p}.up"), ops.swiglu, rows=s)
        else:
            act = partial(ops.activation, name=self.cfg.activation)
            self.add(f"{p}.act", "ffn.act", (f"{p}.up",), act, rows=s)
        return self.add(f"{p}.down", "ffn.down", lin(f"{p}.act", f"{p}.W2", f"{p}.b2", "ffn"), ops.linear, rows=s)

    def block(self, s: str, i: int, x: str, memory: str | None) -> str:
        """One block: each sublayer wrapped in a residual Add and a LayerNorm (post- or pre-)."""
        b = f"{s}.{i}"
        sublayers = block_sublayers(self.cfg, s) + ["ffn"]
        for k, sub in enumerate(sublayers, start=1):
            norm = f"{b}.norm{k}"
            self.at(s, "norm", i, k)
            h = self.layer_norm(norm, x, s) if self.cfg.norm == "pre" else x
            self.at(s, "self_attn" if sub == "attn" else sub, i, k)  # an encoder block's "attn" is self-attention
            if sub == "ffn":
                out = self.ffn(f"{b}.ffn", h, s)
            elif sub == "cross_attn":
                out = self.attention(f"{b}.{sub}", h, memory, s, "enc", causal=False)
            else:
                out = self.attention(f"{b}.{sub}", h, h, s, s, causal=(s == "dec"))
            self.at(s, "add", i, k)
            if "no_residual" in self.cfg.switches:  # add = the sublayer's output alone
                added = self.add(f"{b}.add{k}", "add", (out,), ops.identity, rows=s)
            else:
                added = self.add(f"{b}.add{k}", "add", (x, out), ops.add, rows=s)
            self.at(s, "norm", i, k)
            x = added if self.cfg.norm == "pre" else self.layer_norm(norm, added, s)
        return x

    def stack(self, s: str, memory: str | None) -> str:
        x = self.embedding(s)
        for i in range(self.cfg.n_layers):
            x = self.block(s, i, x, memory)
        if self.cfg.norm == "pre":
            self.at(s, "final_norm")
            x = self.layer_norm(f"{s}.final_norm", x, s)
        return x


def build_stages(cfg: ModelConfig) -> list[Stage]:
    """All computed stages of the model, in the order they run (tokens are inputs, not stages)."""
    b = _Builder(cfg)
    memory = b.stack("enc", None) if "enc" in cfg.stacks else None
    if "dec" in cfg.stacks:
        x = b.stack("dec", memory)
        b.at(None, "output")
        if cfg.tied_embeddings:  # the output head reads the embedding table, transposed
            inputs, head = b.linear_inputs(x, "dec.embed.W_E", "unembed.b_U", "head"), ops.tied_linear
        else:
            inputs, head = b.linear_inputs(x, "unembed.W_U", "unembed.b_U", "head"), ops.linear
        b.add("logits", "logits", inputs, head, rows="dec", cols="vocab")
        b.add("probs", "probs", ("logits",), ops.softmax, rows="dec", cols="vocab")
    return b.stages


def block_outputs(cfg: ModelConfig, stack: str) -> list[str]:
    """The residual stream of a stack: the input of block 0, then the output of every block."""
    k = len(block_sublayers(cfg, stack)) + 1
    last, last_op = (f"add{k}", "add") if cfg.norm == "pre" else (f"norm{k}.out", _norm_out(cfg))
    embed_out = read_as(cfg, f"{stack}.embed_norm.out", _norm_out(cfg))
    first = embed_out if cfg.embed_norm else read_as(cfg, f"{stack}.x0", "x0")
    return [first] + [read_as(cfg, f"{stack}.{i}.{last}", last_op) for i in range(cfg.n_layers)]


def stack_output(cfg: ModelConfig, stack: str) -> str:
    """The name of the stage that is a stack's final output."""
    if cfg.norm == "pre":
        return read_as(cfg, f"{stack}.final_norm.out", _norm_out(cfg))
    k = len(block_sublayers(cfg, stack)) + 1
    return read_as(cfg, f"{stack}.{cfg.n_layers - 1}.norm{k}.out", _norm_out(cfg))


def _norm_out(cfg: ModelConfig) -> str:
    """The kind of a norm's output stage: LayerNorm's γ ⊙ x_norm + β or RMSNorm's γ ⊙ x_norm."""
    return "norm.rms_out" if cfg.norm_type == "rmsnorm" else "norm.out"
