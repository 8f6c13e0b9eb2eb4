"""An operation is one record (issue 45): a new operation defined entirely here — attention scores divided by a
temperature T after the 1/√d_k scale — by one engine record (engine.graph.register), one display record (and the
display entry of its backward rule) and its texts, shows end to end: traced, its provenance agrees with autograd,
its gradient with finite differences, its cost is counted, its box on the map, its page in the window and in an
exported deck.

This file follows docs/architecture.md's "How to add an operation" and touches no other file."""

import pytest
import torch

from engine import EngineError, Model, ModelConfig, ops
from engine.architecture import architecture
from engine.cost import report, stage_costs
from engine.graph import OpRecord, block_outputs, register, stack_output, unregister
from engine.provenance import elementwise, sources
from engine.training.backward import backward, backward_stages, loss_values
from gui.plots.captions import CAPTIONS
from gui.text import stage_texts
from gui.text.formula_lines import GAP
from gui.text.operations import BACKWARD, OPERATIONS, SIGNED, Operation

T = 2.0
OP = "attn.tempered"
CFG = ModelConfig(architecture="decoder", d_model=4, n_heads=2, d_ff=6, n_layers=1)
STAGE = "dec.0.self_attn.tempered"

ENGINE_RECORD = OpRecord(
    OP,
    elementwise,  # provenance: each output cell comes from the same cell of its input
    backward="temperature",
    per_head=True,
    follows="attn.scaled",
    stage="tempered",
    function=lambda cfg: lambda scaled: scaled / T,
)
DISPLAY_RECORD = Operation(
    OP,
    "tempered",
    SIGNED,
    "matrix",
    lambda f: f"{f.lhs} = scaled / T,  T = {T:g}{GAP}{f.out} → {f.out}{f.head_note}",
    per_head=True,
    heads="tiles",
    cross_note="grid",
)
BACKWARD_RECORD = Operation(
    "grad.temperature", "", SIGNED, "matrix", lambda f: "tempered = scaled/T  ⇒  ∂L/∂scaled = g/T", inputs=BACKWARD
)
TEXTS = {
    OP: {
        "title": {"en": "Divide by a temperature T", "zh": "除以温度 T"},
        "caption": {"en": "Tempered scores scaled / T", "zh": "除以温度后的分数 scaled / T"},
        "text": {
            "en": "Every scaled score is divided by a temperature T. Above 1 it flattens the softmax that follows, "
            "below 1 it sharpens it.",
            "zh": "每个缩放后的分数再除以温度 T。T 大于 1 时后面的 softmax 更平坦，小于 1 时更尖锐。",
        },
    },
    "grad.temperature": {
        "title": {"en": "Backward: divide by T", "zh": "反向：除以 T"},
        "text": {
            "en": "The gradient of the scaled scores is the gradient of the tempered ones divided by T.",
            "zh": "缩放后分数的梯度等于除以温度后分数的梯度再除以 T。",
        },
    },
}


@pytest.fixture
def tempered(monkeypatch):
    """The operation registered for one test: its engine record, its display records, its texts."""
    register(ENGINE_RECORD)
    monkeypatch.setitem(OPERATIONS, OP, DISPLAY_RECORD)
    monkeypatch.setitem(OPERATIONS, BACKWARD_RECORD.op, BACKWARD_RECORD)
    for key, entry in TEXTS.items():
        monkeypatch.setitem(stage_texts._texts(), key, entry)
    monkeypatch.setitem(CAPTIONS, f"op.{OP}", ("÷ T", "÷ T"))
    yield
    unregister(OP)


def _trace():
    trace = Model.create(CFG).trace("I love AI")
    gen = torch.Generator().manual_seed(1)
    for name, p in list(trace.params.items()):  # generic values: no accidental zeros in biases
        trace.params[name] = p + 0.3 * torch.randn(p.shape, generator=gen)
    trace.recompute_all()
    return trace


def test_it_is_traced_after_the_stage_it_follows_and_read_instead_of_it(tempered):
    trace = _trace()
    names = trace.stage_names
    assert names[names.index("dec.0.self_attn.scaled") + 1] == STAGE
    assert trace.stage("dec.0.self_attn.masked").inputs == (STAGE,)
    assert torch.allclose(trace[STAGE], trace["dec.0.self_attn.scaled"] / T)
    weights = ops.softmax(ops.mask(trace["dec.0.self_attn.scaled"] / T, causal=True))
    assert torch.allclose(trace["dec.0.self_attn.weights"], weights)


def test_without_its_record_the_model_is_as_before(tempered):
    with_it = _trace()
    unregister(OP)
    try:
        without = _trace()
    finally:
        register(ENGINE_RECORD)
    assert STAGE not in without.stage_names
    assert not torch.allclose(with_it["probs"], without["probs"])  # the temperature changes what it predicts


def test_its_provenance_agrees_with_autograd(tempered):
    trace = _trace()
    scaled = trace["dec.0.self_attn.scaled"].clone().requires_grad_(True)
    out = trace.stage(STAGE).fn(scaled)
    for index in [(0, 1, 0), (1, 2, 1), (1, 0, 0)]:
        (grad,) = torch.autograd.grad(out[index], scaled, retain_graph=True)
        assert sources(trace, STAGE, index) == {"dec.0.self_attn.scaled": index}
        assert [tuple(i) for i in grad.nonzero().tolist()] == [index]


def test_its_gradient_agrees_with_finite_differences(tempered):
    trace = _trace()
    grads = backward(trace, dtype=torch.float64)
    step = next(s for s in backward_stages(trace) if s.of == STAGE)
    assert step.rule == "temperature"
    eps = 1e-6
    value = trace[STAGE].to(torch.float64)
    for index in [(0, 1, 0), (1, 2, 1), (0, 2, 2)]:
        moved = {}
        for sign in (1, -1):
            nudged = value.clone()
            nudged[index] += sign * eps
            moved[sign] = float(loss_values(trace, dtype=torch.float64, overrides={STAGE: nudged})["loss"])
        assert abs((moved[1] - moved[-1]) / (2 * eps) - float(grads[f"grad.{STAGE}"][index])) < 1e-6
    scaled = grads["grad.dec.0.self_attn.scaled"]
    assert torch.allclose(scaled, grads[f"grad.{STAGE}"] / T)


def test_its_cost_is_counted(tempered):
    trace = _trace()
    costs = stage_costs(trace)
    assert costs[STAGE] == {"macs": 0, "bytes": trace[STAGE].numel() * 4}
    per_head = report(trace)["per_head"]
    assert per_head[STAGE]["bytes"] == trace[STAGE].numel() * 4 // CFG.n_heads


def test_its_box_on_the_map(tempered):
    trace = _trace()
    arch = architecture(trace.config, trace.stages)
    box = arch.box(trace.stage(STAGE).place)
    by_op = {op.op: op for op in box.operations}
    assert by_op[OP].per_head and by_op[OP].stages == (STAGE,)
    assert by_op[OP].level == by_op["attn.scaled"].level + 1
    assert by_op["attn.masked"].level == by_op[OP].level + 1


def test_its_page_in_the_window(tempered, qtbot):
    from tests.gui_window import open_window, settle

    window = open_window(qtbot, CFG, "I love AI")
    window.state.go_to(STAGE)
    settle(qtbot)
    view = window.stage_view
    assert view.title.text() == "Divide by a temperature T"
    assert view.formula.text().startswith("tempered = scaled / T,  T = 2")
    assert "flattens the softmax" in view.explanation.text()
    window.state.go_to(f"grad.{STAGE}")
    settle(qtbot)
    assert "tempered = scaled/T  ⇒  ∂L/∂scaled = g/T" in view.formula.text()  # after "∂L/∂tempered [4×4]"


def test_its_page_in_an_exported_deck(tempered, qapp, tmp_path):
    from gui.export import export_deck
    from gui.export.deck import slide_for
    from gui.plots.style import PlotOptions

    trace = _trace()
    slide = slide_for(trace, STAGE, PlotOptions(slide=True, lang="zh"))
    assert slide.title.startswith("除以温度 T") and "更平坦" in slide.notes
    assert slide.formula.startswith("tempered = scaled / T") and slide.matrices[-1].name == STAGE
    path = tmp_path / "deck.pdf"
    assert export_deck(trace, PlotOptions(slide=True), path, stages=[STAGE]) >= 1
    assert path.read_bytes().startswith(b"%PDF")


def test_tiled_attention_refuses_to_leave_it_out(tempered):
    with pytest.raises(EngineError, match="cannot show an operation added between them"):
        Model.create(CFG.replace(tiled=(2, 2))).trace("I love AI")


def halve(x):
    return x / 2


def test_an_operation_after_a_block_output_is_the_stream_the_next_block_reads():
    halved = OpRecord(
        "norm.halved", elementwise, "temperature", follows="norm.out", stage="halved", function=lambda cfg: halve
    )
    cfg = CFG.replace(n_layers=2)
    register(halved)
    try:
        trace = Model.create(cfg).trace("I love AI")
        assert block_outputs(cfg, "dec")[1] == "dec.0.norm2.halved"
        assert stack_output(cfg, "dec") == "dec.1.norm2.halved" == trace.stage("logits").inputs[0]
    finally:
        unregister(halved.op)
    assert trace.stage("dec.1.self_attn.q").inputs[0] == "dec.0.norm2.halved"
    assert torch.allclose(trace["dec.1.norm2.halved"], trace["dec.1.norm2.out"] / 2)
    assert block_outputs(cfg, "dec")[1] == "dec.0.norm2.out"  # taken out again
