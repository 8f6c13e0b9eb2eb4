"""Tiled (FlashAttention) attention equals the standard path, tile by tile (engine/tiled.py)."""

import random

import pytest
import torch

from engine.config import ModelConfig
from engine.errors import EngineError
from engine.model import Model
from engine.provenance import sources
from engine.tiled import plan, reference_stats
from tests.test_provenance import dependency_masks, sample_indices, selection_mask

VARIANTS = [
    dict(architecture="encoder"),
    dict(architecture="decoder"),
    dict(architecture="encoder-decoder"),
    dict(architecture="decoder", positional="rope"),
    dict(architecture="encoder-decoder", positional="rope", norm="pre"),
    dict(architecture="decoder", switches=["no_scale"]),
    dict(architecture="decoder", switches=["no_mask"]),
]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice("abcdefgh") for _ in range(n))


def _trace(variant: dict, blocks, seed: int, n: int, m: int):
    cfg = ModelConfig(d_model=8, n_heads=2, d_ff=8, n_layers=2, seed=seed, tiled=blocks, **variant)
    rng = random.Random(seed)
    target = _words(rng, m) if cfg.architecture == "encoder-decoder" else None
    return Model.create(cfg).trace(_words(rng, n), target)


def _attentions(trace) -> list[str]:
    return [name[: -len(".z")] for name in trace.stage_names if trace.stage(name) and trace.stage(name).op == "attn.z"]


def _last_tiles(trace, p: str) -> list[str]:
    """The prefix of the last computed tile of each row block of attention p."""
    last: dict[str, str] = {}
    for name in trace.stage_names:
        st = trace.stage(name)
        if st is not None and st.tile is not None and name.startswith(f"{p}.tiled.") and st.op == "attn.tiled.o":
            last[st.tile.row_block] = name[: -len(".o")]
    return [last[i] for i in sorted(last)]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_tiled_equals_standard_for_random_sizes_and_blocks(variant):
    rng = random.Random(str(variant))
    for trial in range(4):
        n, m = rng.randint(1, 9), rng.randint(1, 7)
        blocks = (rng.randint(1, 5), rng.randint(1, 5)) if trial else (n, n)  # one tile; then do/don't divide
        trace = _trace(variant, blocks, trial, n, m)
        for p in _attentions(trace):
            assert torch.allclose(trace[f"{p}.tiled.z"], trace[f"{p}.z"], atol=1e-6, rtol=0), (p, blocks)
            max_row, denominator = reference_stats(trace[f"{p}.masked"])
            for prefix in _last_tiles(trace, p):
                r0, r1 = trace.stage(f"{prefix}.m").tile.rows
                assert torch.allclose(trace[f"{prefix}.m"], max_row[:, r0:r1], atol=1e-6)
                assert torch.allclose(trace[f"{prefix}.l"], denominator[:, r0:r1], rtol=1e-5)


def test_blocks_that_divide_and_do_not_divide_n():
    for blocks in [(2, 2), (3, 2), (4, 4), (1, 6), (6, 1), (5, 3)]:
        trace = _trace(dict(architecture="decoder"), blocks, 0, 6, 0)
        diff = (trace["dec.0.self_attn.tiled.z"] - trace["dec.0.self_attn.z"]).abs().max()
        assert diff < 1e-6, blocks


def test_causal_tiles_in_the_future_are_skipped_and_others_computed():
    trace = _trace(dict(architecture="decoder"), (2, 2), 0, 5, 0)  # 6 tokens with <start>
    p = "dec.0.self_attn.tiled"
    skipped = [n for n in trace.stage_names if n.startswith(p) and n.endswith(".skipped")]
    assert skipped == [f"{p}.r0c1.skipped", f"{p}.r0c2.skipped", f"{p}.r1c2.skipped"]
    assert torch.equal(trace[f"{p}.r0c1.skipped"], torch.ones(2, 2))
    assert f"{p}.r0c1.scores" not in trace
    diagonal = trace[f"{p}.r1c1.scores"]  # query 2 may not see key 3
    assert torch.isinf(diagonal[:, 0, 1]).all() and torch.isfinite(diagonal[:, 1]).all()
    encoder = _trace(dict(architecture="encoder"), (2, 2), 0, 6, 0)
    assert not [n for n in encoder.stage_names if n.endswith(".skipped")]
    assert [t.skipped for row in plan(3, 3, 1, 1, causal=True) for t in row] == [
        False,
        True,
        True,
        False,
        False,
        True,
        False,
        False,
        False,
    ]


def test_tile_stage_names_shapes_and_order():
    trace = _trace(dict(architecture="encoder"), (4, 3), 0, 6, 0)
    names = trace.stage_names
    p = "enc.0.attn"
    assert names.index(f"{p}.tiled.r0c0.scores") == names.index(f"{p}.z") + 1
    assert names.index(f"{p}.tiled.z") + 1 == names.index(f"{p}.concat")
    assert trace[f"{p}.tiled.r1c1.scores"].shape == (2, 2, 3)  # the last blocks are the remainders
    assert trace[f"{p}.tiled.r1c1.m"].shape == (2, 2, 1)
    assert trace[f"{p}.tiled.r1c1.l"].shape == (2, 2, 1)
    assert trace[f"{p}.tiled.r1c1.o"].shape == (2, 2, 4)
    assert trace[f"{p}.tiled.z"].shape == trace[f"{p}.z"].shape


def test_normal_models_keep_their_stages():
    cfg = ModelConfig(architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=8)
    plain = Model.create(cfg).trace("a b c", "x y")
    tiled = Model.create(cfg.replace(tiled=[2, 2])).trace("a b c", "x y")
    assert not any(".tiled." in n for n in plain.stage_names)
    assert [n for n in tiled.stage_names if ".tiled." not in n] == plain.stage_names
    assert "tiled" not in cfg.to_dict()
    assert ModelConfig.from_dict(cfg.replace(tiled=[2, 3]).to_dict()).tiled == (2, 3)


def test_edits_recompute_the_tiles():
    trace = _trace(dict(architecture="decoder"), (2, 3), 1, 5, 0)
    changed = trace.set_cell("dec.0.self_attn.W_Q", (0, 0), 2.5)
    assert "dec.0.self_attn.tiled.z" in changed
    assert torch.allclose(trace["dec.0.self_attn.tiled.z"], trace["dec.0.self_attn.z"], atol=1e-6)


@pytest.mark.parametrize("blocks", [[0, 2], [2], [2, "a"], [True, 2], 2])
def test_bad_block_sizes_are_refused(blocks):
    with pytest.raises(EngineError, match="tiled"):
        ModelConfig.from_dict({"tiled": blocks})


def test_tile_provenance_matches_autograd():
    """One step back from every tile stage, as for the normal stages (the row max m is read whole, though
    autograd credits only its largest cell)."""
    trace = _trace(dict(architecture="decoder", positional="rope"), (2, 3), 0, 6, 0)
    rng, gen = random.Random(0), torch.Generator().manual_seed(2)
    tiles = [n for n in trace.stage_names if ".tiled." in n]
    assert {trace.stage(n).op for n in tiles} == {f"attn.tiled.{k}" for k in ("scores", "m", "l", "o", "skipped", "z")}
    for name in tiles:
        st = trace.stage(name)
        for index in sample_indices(tuple(trace[name].shape), rng):
            found = sources(trace, name, index)
            assert set(found) <= set(st.inputs), name
            if st.op == "attn.tiled.m":
                continue
            for inp, needed in dependency_masks(trace, name, index, gen).items():
                selected = selection_mask(needed.shape, found[inp]) if inp in found else torch.zeros_like(needed)
                assert torch.equal(needed, selected), f"{name}{index}: provenance of {inp} differs from autograd"


def test_a_tiled_lesson_saves_and_opens_with_its_tiles(tmp_path):
    from engine.formats.lesson import open_lesson, save_lesson

    lesson = open_lesson("flash-attention")
    assert lesson.config.tiled == (2, 2)
    save_lesson(lesson, tmp_path / "f.stepformer")
    again = open_lesson(tmp_path / "f.stepformer")
    assert again.config == lesson.config and again.trace().stage_names == lesson.trace().stage_names


def test_too_many_tiles_are_refused_with_one_message():
    with pytest.raises(EngineError, match="too many"):
        plan(100, 100, 1, 1, causal=False)
    assert len(plan(64, 64, 1, 1, causal=False)) == 64  # 4096 tiles: still allowed
