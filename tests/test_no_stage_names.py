"""Code asks where a stage is (graph.attention, graph.find, Trace.attention_of, Trace.ids, built on Stage.op and
Stage.place) instead of building or splitting stage names."""

import ast
from pathlib import Path

from engine import Model, ModelConfig
from engine.graph import attention, find
from engine.training.backward import LABELS, LOSS_STAGES

ROOT = Path(__file__).resolve().parents[1]


def encoder_decoder_trace(**changes):
    cfg = ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=12, n_layers=2, **changes)
    return Model.create(cfg).trace("the cat sat", "猫 坐")


def test_an_attention_is_found_by_its_place():
    trace = encoder_decoder_trace()
    assert attention(trace.stages, stack="dec", block=1, part="self_attn").weights.name == "dec.1.self_attn.weights"
    found = attention(trace.stages, stack="dec", block=0, part="cross_attn")
    assert [found.scores.name, found.masked.name, found.z.name] == [
        "dec.0.cross_attn.scores",
        "dec.0.cross_attn.masked",
        "dec.0.cross_attn.z",
    ]
    assert attention(trace.stages, stack="enc", block=5) is None
    assert find(trace.stages, "ffn.up", stack="enc", block=1).name == "enc.1.ffn.up"


def test_a_stage_knows_its_attention_tiles_included():
    trace = encoder_decoder_trace(tiled=(2, 2))
    tile = next(st.name for st in trace.stages if st.tile is not None and st.place.part == "cross_attn")
    assert trace.attention_of(tile).scores.name == "dec.0.cross_attn.scores"
    assert trace.attention_of("dec.0.cross_attn.weights").z.name == "dec.0.cross_attn.z"
    assert trace.attention_of("dec.0.ffn.up") is None and trace.attention_of("dec.tokens") is None


def test_ids_and_token_stages_follow_the_stacks():
    trace = encoder_decoder_trace()
    assert trace.token_stages == {"enc.tokens": "enc", "dec.tokens": "dec"}
    assert trace.ids["enc"].tolist() == trace["enc.tokens"].tolist()
    assert trace.stage_names[0] == "enc.tokens" and "dec.tokens" in trace.stage_names


# ---- the rule, checked over the source ----------------------------------------------------------------------------


def stage_names() -> set[str]:
    """Every stage name of a range of models (tiles, RoPE, SwiGLU, BERT's embedding norm, pre-LN), token inputs,
    the loss stages and the labels included; less the names that are also op kinds ("loss.per_position"), which a
    display record is keyed by."""
    configs = [
        dict(architecture="encoder-decoder", embed_norm=True, tiled=(2, 2)),
        dict(architecture="decoder", norm="pre", activation="swiglu", positional="rope", tiled=(2, 2)),
        dict(architecture="encoder", positional="learned", max_len=16),
    ]
    names, ops = {LABELS} | {st.name for st in LOSS_STAGES}, {st.op for st in LOSS_STAGES}
    for changes in configs:
        cfg = ModelConfig(d_model=8, n_heads=2, d_ff=12, n_layers=2, **changes)
        target = "猫 坐" if cfg.architecture == "encoder-decoder" else None
        trace = Model.create(cfg).trace("the cat sat", target)
        names |= set(trace.stage_names)
        ops |= {st.op for st in trace.stages}
    return names - ops


def stage_name_pieces() -> tuple[set[str], set[str]]:
    """(the dotted names themselves, every ".tail" a stage name ends with: ".tokens", ".self_attn.weights", …)."""
    dotted = {name for name in stage_names() if "." in name}
    tails = {"." + ".".join(name.split(".")[k:]) for name in dotted for k in range(1, name.count(".") + 1)}
    return dotted, tails


STACK_PREFIXES = ("enc.", "dec.")
CUTTERS = ("split", "rsplit", "partition", "rpartition")
ENDS = ("startswith", "endswith")

# Rules a module may break, and why. A file not named here breaks none.
ALLOWED = {
    "engine/graph.py": ({"assembles", "spells", "cuts"}, "the graph builder: it defines stage names"),
    "engine/tiled.py": ({"assembles"}, "names the tile stages it adds after each attention"),
    "engine/training/backward.py": ({"spells"}, "names the loss's labels input (dec.labels)"),
    "engine/params.py": ({"cuts"}, "parameter names (…W_E, …gamma), not stage names"),
    "engine/formats/checkpoints.py": ({"assembles"}, "parameter names of a block (enc.{i}.attn.W_Q)"),
    "engine/formats/hf_decoders.py": ({"assembles"}, "parameter names of a block (dec.{i}.ffn.W_gate)"),
    "engine/training/train.py": ({"cuts"}, "a parameter's layer (param_group), not a stage"),
    "gui/text/formulas.py": ({"cuts"}, "a parameter's own name (W_Q, b1)"),
    "gui/views/tensor_slice.py": ({"cuts", "ends"}, "a parameter's own name; an op kind's ending (.scores)"),
    "gui/views/head_colors.py": ({"cuts"}, "a parameter's own name"),
    "gui/docks/training_lab.py": ({"cuts"}, "parameter groups (dec.0, dec.embed), not stages"),
}


def _is_docstring(node: ast.AST, parents: dict) -> bool:
    return isinstance(parents.get(node), ast.Expr)


def stage_name_breaches(path: Path, dotted: set[str], tails: set[str]) -> list[tuple[str, int, str]]:
    """(rule, line, source) of each place in one file that assembles, spells or cuts a stage name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        rule = None
        if isinstance(node, ast.JoinedStr):
            pieces = node.values
            after_placeholder = [
                b.value
                for a, b in zip(pieces, pieces[1:])
                if isinstance(a, ast.FormattedValue) and isinstance(b, ast.Constant)
            ]
            starts = pieces[:1] and isinstance(pieces[0], ast.Constant) and pieces[0].value in STACK_PREFIXES
            if starts or any(piece in tails for piece in after_placeholder):
                rule = "assembles"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and parents.get(node) is not None:
            if (
                node.value in dotted
                and not _is_docstring(node, parents)
                and not isinstance(parents[node], ast.JoinedStr)
            ):
                rule = "spells"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            arg = node.args[0]
            text = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            if node.func.attr in CUTTERS and text is not None and "." in text:
                rule = "cuts"
            elif node.func.attr in ENDS and (
                isinstance(arg, ast.JoinedStr)
                or (text is not None and (text in tails or text.startswith(STACK_PREFIXES)))
            ):
                rule = "ends"
        if rule:
            found.append((rule, node.lineno, ast.get_source_segment(path.read_text(encoding="utf-8"), node)))
    return sorted(found, key=lambda hit: hit[1])


def test_product_code_asks_the_stage_instead_of_building_or_cutting_its_name():
    """Code under engine/ and gui/ neither assembles, spells nor cuts a stage name; it asks the stages
    (graph.attention, graph.find, Trace.attention_of, Trace.ids, Trace.token_stages), the stage (Stage.op,
    Stage.place, Stage.record) or the graph builder's two helpers (graph.tokens_of, graph.part_of).

    Precisely, with a stage name being any name a trace, its loss or its labels use (collected from models with
    tiles, RoPE, SwiGLU, pre-LN, BERT's embedding norm; less the names that are also op kinds):

    - assembles: an f-string that starts with "enc." / "dec." before a placeholder (f"dec.{i}…"), or whose text
      right after a placeholder is, whole, the dotted tail of a stage name (f"{p}.scores", f"{s}.tokens");
    - spells: a string literal, not a docstring, that is a dotted stage name ("dec.tokens");
    - cuts: .split / .rsplit / .partition / .rpartition on a separator containing "." (name.rsplit(".", 1));
    - ends: .startswith / .endswith with an f-string, a stage name's dotted tail (".tokens") or "enc." / "dec.".

    Names with no dot (logits, probs, loss) are ordinary words and not checked. Only the modules in ALLOWED
    may break the rules named there: the graph builder (engine/graph.py) defines the names; tiled.py and
    backward.py name the tile and loss stages they add; the rest cut parameter names, which are another contract.
    """
    dotted, tails = stage_name_pieces()
    breaches = []
    for path in sorted([*ROOT.glob("engine/**/*.py"), *ROOT.glob("gui/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        allowed = ALLOWED.get(rel, (set(), ""))[0]
        breaches += [
            f"{rel}:{line} {rule}: {src}"
            for rule, line, src in stage_name_breaches(path, dotted, tails)
            if rule not in allowed
        ]
    assert not breaches, "stage names built or cut by hand:\n" + "\n".join(breaches)


def test_the_rule_catches_what_it_names(tmp_path):
    """Each rule fires on its example, and not on parameter or file names."""
    dotted, tails = stage_name_pieces()
    source = tmp_path / "sample.py"
    source.write_text(
        'a = trace[f"dec.{layer}.self_attn.weights"]\n'
        'b = f"{p}.scores"\n'
        'c = "dec.tokens"\n'
        'd = name.rsplit(".", 1)[0]\n'
        'e = name.endswith(".tokens")\n'
        'f = f"{s}.embed.W_E", f"{name}.tex", path.endswith(".png"), "logits"\n',
        encoding="utf-8",
    )
    rules = [(rule, line) for rule, line, _ in stage_name_breaches(source, dotted, tails)]
    assert rules == [("assembles", 1), ("assembles", 2), ("spells", 3), ("cuts", 4), ("ends", 5)]
