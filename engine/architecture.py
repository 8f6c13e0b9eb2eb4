"""The architecture diagram of the loaded model, derived from its stage graph (never a fixed picture).

One box per place of the graph (engine.graph.Place: stack, block, sublayer, part), in the order the stages run:
the embeddings, each block's sublayers with their residual Add and their LayerNorm (before the sublayer in a
pre-LN model, after the Add in a post-LN one), pre-LN's final LayerNorm, the output head. The edges are the
graph's own: a stage of one box reading a stage of another. Each box also holds its operations (its own small
diagram: Q, K, V → Q·Kᵀ → … → W_O), placed by what they read.

    arch = architecture(trace.config, trace.stages)
    arch.boxes[0].first      # "enc.embed": where a click on the box lands
    arch.edges               # Edge(source, target, kind): flow, residual, memory (cross-attention's K, V)

What-if switches show: a removed residual (no_residual) is an edge marked off where the graph lost it, and the
boxes and operations a switch changes name it in `off`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ModelConfig
from .graph import Place, Stage, tokens_of

SUBLAYERS = ("self_attn", "cross_attn", "ffn")
NORMS = ("norm", "final_norm", "embed_norm")
EDGE_KINDS = ("flow", "residual", "memory")


@dataclass(frozen=True)
class Operation:
    stages: tuple[str, ...]  # one stage, or all the tiles of a tiled attention
    op: str  # the stage's op, or its record's map_group (the tiles of a tiled attention are one operation)
    level: int  # its step in the box's own diagram: one after the latest operation of the box it reads
    inputs: tuple[int, ...]  # the operations of the same box it reads (indices into Box.operations)
    outside: tuple[Place, ...]  # the other boxes it reads (the box's input; for cross-attention, the encoder)
    per_head: bool
    off: str | None = None  # the What-if switch that makes it pass its input through, when that switch is on


@dataclass(frozen=True)
class Box:
    place: Place
    stages: tuple[str, ...]  # in the order they run
    operations: tuple[Operation, ...]
    notes: tuple[str, ...] = ()  # what sets this box apart: "causal", "rope", the activation, the positions' kind
    off: tuple[str, ...] = ()  # the What-if switches (on) that change it

    @property
    def first(self) -> str:
        return self.stages[0]


@dataclass(frozen=True)
class Edge:
    source: Place
    target: Place
    kind: str  # EDGE_KINDS: the next box, the skip to a sublayer's Add, the encoder's output into cross-attention
    off: bool = False  # removed by a What-if switch (no_residual): drawn as a removed arrow


@dataclass(frozen=True)
class Architecture:
    config: ModelConfig
    boxes: tuple[Box, ...]
    edges: tuple[Edge, ...]
    places: dict[str, Place]  # every stage's box, the token inputs (S.tokens) in their stack's embedding

    def box(self, place: Place) -> Box:
        return next(b for b in self.boxes if b.place == place)

    def stack_boxes(self, stack: str | None) -> list[Box]:
        return [b for b in self.boxes if b.place.stack == stack]

    def blocks(self, stack: str) -> list[int]:
        return sorted({b.place.block for b in self.stack_boxes(stack) if b.place.block is not None})


def architecture(config: ModelConfig, stages: list[Stage]) -> Architecture:
    """The boxes and edges of the model whose stages (in trace order) are given; a step of the backward pass
    belongs to its forward stage's box and is left out here. Each stack's token input (S.tokens, an input of
    the trace rather than a stage) opens its embedding box."""
    groups: dict[Place, list[Stage]] = {}
    for st in with_tokens(config, stages):
        groups.setdefault(st.place, []).append(st)
    owner = {st.name: place for place, sts in groups.items() for st in sts}
    boxes = tuple(_box(config, place, sts, owner) for place, sts in groups.items())
    return Architecture(config, boxes, _edges(config, groups, owner), owner)


def with_tokens(config: ModelConfig, stages: list[Stage]) -> list[Stage]:
    """The stages with each stack's token ids before its first stage (as the trace lists them)."""
    out: list[Stage] = []
    for st in stages:
        stack = st.place.stack
        if stack in config.stacks and not any(s.place.stack == stack for s in out):
            out.append(Stage(tokens_of(stack), "tokens", (), None, rows=stack, place=Place(stack, part="embedding")))
        out.append(st)
    return out


# ---- boxes ---------------------------------------------------------------------------------------------
def _notes(cfg: ModelConfig, place: Place) -> tuple[str, ...]:
    """What sets a box apart: the embedding's positions, a causal mask, RoPE, today's attention (grouped-query
    "gqa", "qk_norm", a "sliding_window"), the activation, RMSNorm."""
    if place.part == "embedding":
        return (cfg.positional,) + (("type",) if cfg.type_vocab else ())
    if place.part in ("self_attn", "cross_attn"):
        self_attn = place.part == "self_attn"
        notes = (("causal",) if self_attn and place.stack == "dec" else ()) + (
            ("rope",) if self_attn and cfg.positional == "rope" else ()
        )
        notes += ("gqa",) if cfg.kv_heads < cfg.n_heads else ()
        notes += ("qk_norm",) if cfg.qk_norm else ()
        return notes + (("sliding_window",) if "causal" in notes and cfg.sliding_window is not None else ())
    if place.part == "ffn":
        return (cfg.activation,)
    if place.part in NORMS and cfg.norm_type == "rmsnorm":
        return ("rmsnorm",)
    return ()


def _switches(cfg: ModelConfig, place: Place) -> tuple[str, ...]:
    """The switches that change this box, in SWITCHES order (only those that are on)."""
    touched = {
        "no_pe": place.part == "embedding"
        and cfg.positional in ("sinusoidal", "learned")
        or place.part == "self_attn"
        and cfg.positional == "rope",
        "no_scale": place.part in ("self_attn", "cross_attn"),
        "no_mask": place.part == "self_attn" and place.stack == "dec",
        "no_residual": place.part == "add",
        "no_layernorm": place.part in NORMS,
    }
    return tuple(s for s in cfg.switches if touched.get(s))


def _box(cfg: ModelConfig, place: Place, stages: list[Stage], owner: dict[str, Place]) -> Box:
    off = _switches(cfg, place)
    return Box(place, tuple(st.name for st in stages), _operations(stages, owner, off), _notes(cfg, place), off)


def _operations(stages: list[Stage], owner: dict[str, Place], off: tuple[str, ...]) -> tuple[Operation, ...]:
    """The box's operations, each one step after the latest one it reads (so Q, K and V share the first step)."""
    members: list[list[Stage]] = []
    for st in stages:
        group = st.record.map_group
        if group is not None and members and members[-1][0].record.map_group == group:
            members[-1].append(st)
        else:
            members.append([st])
    index = {st.name: i for i, group in enumerate(members) for st in group}
    levels: list[int] = []
    operations = []
    for i, group in enumerate(members):
        reads = [name for st in group for name in st.inputs if name in owner]
        inputs = tuple(sorted({index[n] for n in reads if n in index and index[n] != i}))
        levels.append(1 + max((levels[j] for j in inputs), default=-1))
        record = group[0].record
        switch = record.switch
        operations.append(
            Operation(
                tuple(st.name for st in group),
                record.map_group or record.op,
                levels[i],
                inputs,
                outside=tuple(dict.fromkeys(owner[n] for n in reads if n not in index)),
                per_head=record.per_head,
                off=switch if switch in off else None,
            )
        )
    return tuple(operations)


# ---- edges ---------------------------------------------------------------------------------------------
def _same_sublayer(a: Place, b: Place) -> bool:
    return (a.stack, a.block, a.sublayer) == (b.stack, b.block, b.sublayer)


def _kind(source: Place, target: Place) -> str:
    if source.stack and target.stack and source.stack != target.stack:
        return "memory"  # the encoder's output read by the decoder's cross-attention (its K and V)
    if target.part == "add" and not (_same_sublayer(source, target) and source.part in SUBLAYERS):
        return "residual"  # the Add reads the stream from before its sublayer: the skip connection
    return "flow"


def _edges(cfg: ModelConfig, groups: dict[Place, list[Stage]], owner: dict[str, Place]) -> tuple[Edge, ...]:
    edges: dict[tuple[Place, Place], str] = {}
    for place, stages in groups.items():
        for st in stages:
            for name in st.inputs:
                source = owner.get(name)
                if source is not None and source != place:
                    edges.setdefault((source, place), _kind(source, place))
    result = [Edge(s, t, kind) for (s, t), kind in edges.items()]
    if "no_residual" in cfg.switches:  # the Adds lost their skip: show where it was, removed
        for place in groups:
            if place.part == "add":
                result.append(Edge(residual_source(groups, owner, place), place, "residual", off=True))
    return tuple(result)


def residual_source(groups: dict[Place, list[Stage]], owner: dict[str, Place], add: Place) -> Place:
    """The box whose output enters the Add's sublayer (through its LayerNorm, pre-LN): the stream the residual
    connection carries around the sublayer to the Add."""
    group = [p for p in groups if _same_sublayer(p, add)]
    for st in groups[group[0]]:
        for name in st.inputs:
            source = owner.get(name)
            if source is not None and source not in group and source.stack == add.stack:
                return source
    raise ValueError(f"no input found for the sublayer of {add}")
