"""Every stage carries its place in the architecture (stack, block, sublayer, part), and it agrees with the
stage's documented name — so the GUI, exports and the map never have to parse names."""

import pytest

from engine import ModelConfig
from engine.graph import PARTS, build_stages
from engine.tiled import add_tile_stages

CONFIGS = {
    "encoder": dict(architecture="encoder", n_layers=2),
    "decoder pre-LN": dict(architecture="decoder", n_layers=2, norm="pre"),
    "encoder-decoder": dict(architecture="encoder-decoder", n_layers=2),
    "bert-like": dict(architecture="encoder", embed_norm=True, type_vocab=2, activation="gelu"),
    "swiglu rope": dict(architecture="decoder", activation="swiglu", positional="rope"),
}


def expected_place(name: str):
    """What the README's stage-name table says about a stage's place."""
    parts = name.split(".")
    if parts[0] not in ("enc", "dec"):
        return None, None, None, "output"
    stack = parts[0]
    if parts[1] in ("embed", "pos", "type", "x0"):
        return stack, None, None, "embedding"
    if parts[1] in ("embed_norm", "final_norm"):
        return stack, None, None, parts[1]
    block, sub = int(parts[1]), parts[2]
    if sub.startswith(("add", "norm")):
        return stack, block, int(sub[-1]), sub[:-1]
    sublayers = {"attn": 1, "self_attn": 1, "cross_attn": 2}  # the FFN's number is checked through its add{k}
    part = "self_attn" if sub == "attn" else sub
    return stack, block, sublayers.get(sub), part


@pytest.mark.parametrize("kind", CONFIGS)
def test_every_stage_knows_its_place(kind):
    cfg = ModelConfig.from_dict(CONFIGS[kind])
    stages = build_stages(cfg)
    for st in stages:
        stack, block, sublayer, part = expected_place(st.name)
        assert st.place.part in PARTS, st.name
        assert (st.place.stack, st.place.block, st.place.part) == (stack, block, part), st.name
        if sublayer is not None:
            assert st.place.sublayer == sublayer, st.name
    # within a block, the sublayer number of attention and FFN stages matches their add{k}/norm{k}
    for st in stages:
        if st.place.part in ("self_attn", "cross_attn", "ffn"):
            add = next(
                a
                for a in stages
                if a.place.part == "add"
                and a.place.stack == st.place.stack
                and a.place.block == st.place.block
                and a.place.sublayer == st.place.sublayer
            )
            assert add.name.endswith(f"add{st.place.sublayer}")


def test_tile_stages_sit_in_their_attention():
    cfg = ModelConfig.from_dict(dict(architecture="encoder-decoder", tiled=[2, 2]))
    stages = add_tile_stages(build_stages(cfg), (2, 2), {"enc": 3, "dec": 4})
    tiles = [st for st in stages if ".tiled." in st.name]
    assert tiles
    for st in tiles:
        attention = next(a for a in stages if a.name == st.name.split(".tiled.")[0] + ".z")
        assert st.place == attention.place
