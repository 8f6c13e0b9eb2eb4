"""CLI: `trace --tiled` writes the tile stages; `cost` prints multiply-adds and bytes per stage."""

import argparse
import json

import numpy as np
import pytest

from engine import cost
from engine.cli import block_sizes
from engine.config import ModelConfig
from engine.model import Model
from tests.test_cli import run, write_config


def test_trace_tiled_writes_tile_stages_equal_to_z(tmp_path):
    config = write_config(tmp_path, architecture="encoder-decoder", d_model=8, n_heads=2, d_ff=8)
    out = tmp_path / "t.npz"
    result = run(
        "trace", "--config", config, "--text", "a b c d e", "--target", "x y z", "--tiled", "2,3", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    data = np.load(out, allow_pickle=False)
    stages = json.loads(str(data["meta"]))["stages"]
    for p in ("enc.0.attn", "dec.0.self_attn", "dec.0.cross_attn"):
        tiles = [n for n in stages if n.startswith(f"{p}.tiled.")]
        assert tiles[0] == f"{p}.tiled.r0c0.scores" and tiles[-1] == f"{p}.tiled.z"
        assert np.abs(data[f"{p}.tiled.z"] - data[f"{p}.z"]).max() < 1e-6
    assert "dec.0.self_attn.tiled.r0c1.skipped" in stages
    plain = run("trace", "--config", config, "--text", "a b", "--target", "x", "--out", str(tmp_path / "p.npz"))
    assert plain.returncode == 0 and not any(".tiled." in n for n in np.load(tmp_path / "p.npz").files)


@pytest.mark.parametrize("bad", ["2", "0,2", "a,b", "2,2,2", "-1,2"])
def test_bad_block_sizes_are_refused(bad):
    with pytest.raises(argparse.ArgumentTypeError, match="BLOCK_Q,BLOCK_K"):
        block_sizes(bad)
    assert block_sizes("3,2") == (3, 2)


def test_trace_refuses_bad_block_sizes_in_one_line(tmp_path):
    config = write_config(tmp_path, d_model=8, n_heads=2)
    result = run("trace", "--config", config, "--text", "a b", "--tiled", "0,2", "--out", str(tmp_path / "t.npz"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "BLOCK_Q,BLOCK_K" in result.stderr
    assert not (tmp_path / "t.npz").exists()


def test_cost_json_counts_every_stage(tmp_path):
    settings = dict(architecture="decoder", d_model=8, n_heads=2, d_ff=16)
    config = write_config(tmp_path, **settings)
    result = run("cost", "--config", config, "--text", "a b c d", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    trace = Model.create(ModelConfig(**settings)).trace("a b c d")
    assert report["stages"] == cost.stage_costs(trace)
    assert list(report["stages"]) == trace.stage_names
    assert all(isinstance(c["macs"], int) and isinstance(c["bytes"], int) for c in report["stages"].values())
    assert report["stages"]["dec.0.self_attn.scores"]["macs"] == 2 * 5 * 5 * 4  # h · n · n · d_k
    assert {"totals", "memory", "kv_cache", "attention_share", "per_head", "per_layer"} <= set(report)
    table = run("cost", "--config", config, "--text", "a b c d")
    assert "dec.0.self_attn.scores" in table.stdout and "KV cache" in table.stdout and "n =  8192" in table.stdout
