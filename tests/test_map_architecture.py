"""The map's architecture (engine/architecture.py) is the stage graph's: one box per place, in the order the stages
run; edges where a stage reads another box's stage; a residual edge around every sublayer and cross-attention's
K, V from the encoder's output; each box's operations placed after what they read; What-if switches marked."""

import pytest

from engine import ModelConfig
from engine.architecture import EDGE_KINDS, architecture
from engine.formats.lesson import open_lesson, shipped_lessons
from engine.graph import Place, build_stages, stack_output

CONFIGS = {
    "encoder": dict(architecture="encoder", n_layers=2),
    "decoder pre-LN rope swiglu": dict(
        architecture="decoder", n_layers=2, norm="pre", positional="rope", activation="swiglu"
    ),
    "encoder-decoder": dict(architecture="encoder-decoder", n_layers=2, positional="learned"),
    "bert-like": dict(architecture="encoder", embed_norm=True, type_vocab=2, activation="gelu"),
    "tiled": dict(architecture="decoder", tiled=[2, 2]),
}
LESSONS = [info.name for info in shipped_lessons()]


def model_traces():
    for name, cfg in CONFIGS.items():
        yield name, ModelConfig.from_dict(cfg)
    for name in LESSONS:
        yield name, open_lesson(name).config


def stages_of(cfg: ModelConfig):
    if cfg.tiled:  # the tiles' stages depend on the sentence's length
        from engine import Model

        return Model.create(cfg).trace("a b c d").stages
    return build_stages(cfg)


def arch_of(cfg: ModelConfig):
    return architecture(cfg, stages_of(cfg))


@pytest.mark.parametrize("name,cfg", list(model_traces()), ids=[n for n, _ in model_traces()])
def test_one_box_per_place_in_stage_order_each_stage_in_exactly_one(name, cfg):
    stages = stages_of(cfg)
    arch = architecture(cfg, stages)
    tokens = {f"{s}.tokens" for s in cfg.stacks}
    boxed = [n for b in arch.boxes for n in b.stages]
    assert [n for n in boxed if n not in tokens] == [st.name for st in stages]
    assert {arch.places[t] for t in tokens} == {Place(s, part="embedding") for s in cfg.stacks}
    places = list(dict.fromkeys(st.place for st in stages))
    assert [b.place for b in arch.boxes] == places  # one box per place, in the order the stages run
    blocks = {(p.stack, p.block) for p in places if p.block is not None}
    assert blocks == {(s, i) for s in cfg.stacks for i in range(cfg.n_layers)}
    for box in arch.boxes:
        assert [n for op in box.operations for n in op.stages] == list(box.stages)
        for op in box.operations:  # each operation one step after the latest one it reads
            assert op.level == 1 + max((box.operations[j].level for j in op.inputs), default=-1)


@pytest.mark.parametrize("name,cfg", list(model_traces()), ids=[n for n, _ in model_traces()])
def test_every_sublayer_has_its_residual_and_cross_attention_reads_the_encoder(name, cfg):
    arch = arch_of(cfg)
    assert {e.kind for e in arch.edges} <= set(EDGE_KINDS)
    adds = [b.place for b in arch.boxes if b.place.part == "add"]
    cross = cfg.architecture == "encoder-decoder"
    assert len(adds) == len(cfg.stacks) * cfg.n_layers * 2 + cross * cfg.n_layers
    for add in adds:
        residual = [e for e in arch.edges if e.target == add and e.kind == "residual"]
        flow = [e for e in arch.edges if e.target == add and e.kind == "flow"]
        assert len(residual) == 1 and not residual[0].off, add
        assert flow[0].source.part in ("self_attn", "cross_attn", "ffn") and flow[0].source.sublayer == add.sublayer
        source = residual[0].source  # the stream before the sublayer: an earlier Add, LayerNorm or the embedding
        assert source.part in (
            ("add", "embedding", "embed_norm") if cfg.norm == "pre" else ("norm", "embedding", "embed_norm")
        ), (add, source)
    memory = [e for e in arch.edges if e.kind == "memory"]
    crosses = [b.place for b in arch.boxes if b.place.part == "cross_attn"]
    assert [e.target for e in memory] == crosses
    if crosses:
        encoder_out = arch.places[stack_output(cfg, "enc")]
        assert {e.source for e in memory} == {encoder_out}


def test_attention_opens_into_its_operations():
    cfg = ModelConfig.from_dict(CONFIGS["decoder pre-LN rope swiglu"])
    arch = arch_of(cfg)
    attn = arch.box(Place("dec", 0, 1, "self_attn"))
    steps = {op.op: op.level for op in attn.operations}
    assert steps["attn.q"] == steps["attn.k"] == steps["attn.v"] == 0
    assert steps["attn.q_rot"] == steps["attn.k_rot"] == 1
    order = [
        "attn.q_rot",
        "attn.scores",
        "attn.scaled",
        "attn.masked",
        "attn.weights",
        "attn.z",
        "attn.concat",
        "attn.out",
    ]
    assert [steps[op] for op in order] == list(range(1, 9))
    assert "causal" in attn.notes and "rope" in attn.notes
    ffn = arch.box(Place("dec", 0, 2, "ffn"))
    assert {op.op: op.level for op in ffn.operations} == {"ffn.up": 0, "ffn.gate": 0, "ffn.act": 1, "ffn.down": 2}
    tiled = arch_of(ModelConfig.from_dict(CONFIGS["tiled"])).box(Place("dec", 0, 1, "self_attn"))
    assert [op.op for op in tiled.operations].count("attn.tiled") == 1  # the tiles are one operation
    cross = arch_of(ModelConfig.from_dict(CONFIGS["encoder-decoder"])).box(Place("dec", 0, 2, "cross_attn"))
    reads = {op.op: {p.stack for p in op.outside} for op in cross.operations if op.outside}
    assert reads == {"attn.q": {"dec"}, "attn.k": {"enc"}, "attn.v": {"enc"}}


@pytest.mark.parametrize(
    "switch,parts",
    [
        ("no_residual", {"add"}),
        ("no_layernorm", {"norm"}),
        ("no_mask", {"self_attn"}),
        ("no_pe", {"embedding"}),
        ("no_scale", {"self_attn", "cross_attn"}),
    ],
)
def test_what_if_switches_are_marked_where_they_act(switch, parts):
    base = dict(architecture="encoder-decoder", n_layers=1, positional="sinusoidal")
    before = architecture(c := ModelConfig.from_dict(base), build_stages(c))
    after = architecture(c := ModelConfig.from_dict({**base, "switches": [switch]}), build_stages(c))
    marked = {b.place for b in after.boxes if switch in b.off}
    assert marked and {p.part for p in marked} == parts
    if switch == "no_mask":
        assert {p.stack for p in marked} == {"dec"}  # only the decoder's self-attention is causal
    assert not any(b.off for b in before.boxes)
    changed_ops = {(b.place, op.op) for b in after.boxes for op in b.operations if op.off == switch}
    assert {p for p, _ in changed_ops} == marked
    if switch == "no_residual":  # the graph lost the skips: they are edges marked off, nothing else changed
        lost = {(e.source, e.target) for e in before.edges if e.kind == "residual"}
        assert {(e.source, e.target) for e in after.edges if e.off} == lost
        assert not [e for e in after.edges if e.kind == "residual" and not e.off]
    else:
        assert after.edges == before.edges
