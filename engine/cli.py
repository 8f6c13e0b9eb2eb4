"""Command-line verbs that need only the engine: `trace`, `stages` and `cost`."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import numpy as np

from . import cost
from .config import ModelConfig
from .formats.files import check_target, write_atomic
from .formats.weights import load_weights, save_weights
from .model import Model
from .trace import Trace
from .training.backward import backward


def load_model(config_path: str, weights_path: str | None, tiled: tuple[int, int] | None = None) -> Model:
    config = ModelConfig.from_json_file(config_path)
    if tiled is not None:  # also step every attention in tiles of BLOCK_Q × BLOCK_K (engine/tiled.py)
        config = config.replace(tiled=list(tiled))
    return load_weights(config, weights_path) if weights_path else Model.create(config)


def block_sizes(text: str) -> tuple[int, int]:
    """"2,3" → (2, 3): the --tiled option's BLOCK_Q,BLOCK_K."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise argparse.ArgumentTypeError(
            f"--tiled takes BLOCK_Q,BLOCK_K, two whole numbers ≥ 1 such as 2,2; got {text!r}")
    return int(parts[0]), int(parts[1])


def write_npz(trace: Trace, out: str | Path, extra: dict | None = None) -> None:
    """Every stage under its name (then `extra` tensors, e.g. the gradients), plus `meta` (a JSON string);
    loads with allow_pickle=False."""
    arrays = {name: trace.values[name].numpy() for name in trace.stage_names}
    arrays.update({name: t.numpy() for name, t in (extra or {}).items()})
    arrays["meta"] = np.array(json.dumps(trace.meta(), ensure_ascii=False))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(out, buffer.getvalue())


def cmd_trace(args: argparse.Namespace) -> None:
    model = load_model(args.config, args.weights, args.tiled)
    if args.save_weights:
        check_target(Path(args.save_weights))  # refused before anything is written
    trace = model.trace(args.text, args.target)
    grads = backward(trace) if args.grads else {}
    write_npz(trace, args.out, grads)
    if args.save_weights:
        save_weights(model, args.save_weights)
    print(f"wrote {len(trace.stage_names)} stages to {args.out}" + (f", loss {float(grads['loss']):.4f} and "
          f"{sum(k.startswith('grad.') for k in grads)} gradients" if grads else ""))


def _shape(t) -> list[int]:
    return [int(d) for d in t.shape]


def _symbolic_shapes(model: Model, text: str | None, target: str | None) -> dict[str, str]:
    """Stage shapes: concrete for a given sentence, else with n (source) and m (target) as symbols."""
    if text is not None:
        trace = model.trace(text, target)
        return {n: str(_shape(trace.values[n])) for n in trace.stage_names}
    two = model.config.architecture == "encoder-decoder"

    def shapes(n: int, m: int) -> dict[str, list[int]]:
        trace = model.trace(" ".join(["x"] * n), " ".join(["y"] * (m - 1)) if two else None)
        return {name: _shape(trace.values[name]) for name in trace.stage_names}

    base, longer_src, longer_tgt = shapes(3, 2), shapes(5, 2), shapes(3, 4)
    vocab = len(model.vocabs["dec"]) if "dec" in model.vocabs else None
    out = {}
    for name, dims in base.items():
        symbols = [
            "n" if a != b else "m" if a != c else "vocab" if a == vocab and name in ("logits", "probs") else str(a)
            for a, b, c in zip(dims, longer_src[name], longer_tgt[name])
        ]
        out[name] = "[" + ", ".join(symbols) + "]"
    return out


def cmd_stages(args: argparse.Namespace) -> None:
    model = load_model(args.config, args.weights)
    shapes = _symbolic_shapes(model, args.text, args.target)
    width = max(map(len, shapes))
    for name, shape in shapes.items():
        print(f"{name:<{width}}  {shape}")


def print_cost(rep: dict) -> None:
    """The cost report as readable tables."""
    stages = rep["stages"]
    width = max(map(len, stages))
    print(f"{'stage':<{width}}  {'multiply-adds':>14}  {'bytes':>10}")
    for name, c in stages.items():
        print(f"{name:<{width}}  {c['macs']:>14,}  {c['bytes']:>10,}")
    print(f"{'total':<{width}}  {rep['totals']['macs']:>14,}  {rep['totals']['bytes']:>10,}")
    share = rep["attention_share"]
    print(f"\nattention's share (Q·Kᵀ and weights·V) of all multiply-adds: {share['counted']:.1%} counted here")
    print("by the formulas, every sentence n tokens long:")
    for row in share["curve"]:
        print(f"  n = {row['n']:>5}: {row['share']:6.1%} of {row['total_macs']:,}")
    mem = rep["memory"]
    print("\nmemory (float32):")
    for key in ("weights", "gradients", "adam_moments", "activations", "kv_cache", "inference", "training"):
        print(f"  {key.replace('_', ' '):<13} {cost.format_bytes(mem[key]):>10}")
    print(f"  Adam's moments / weights = {mem['adam_moments'] / mem['weights']:.1f}")
    kv = rep["kv_cache"]
    print(f"\nKV cache: {kv['per_token_bytes']:,} bytes per token" + (f" ({kv['formula']})" if "formula" in kv
                                                                       else f" ({kv['note']})"))
    if "measured" in rep:
        print(f"\nattention time, {rep['measured']['label']}:")
        for row in rep["measured"]["attention"]:
            print(f"  n = {row['n']:>5}: {row['seconds'] * 1e3:8.2f} ms for {row['formula_macs']:,} multiply-adds")


def cmd_cost(args: argparse.Namespace) -> None:
    model = load_model(args.config, args.weights)
    rep = cost.report(model.trace(args.text, args.target), measure=args.measure)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False, indent=1))
    else:
        print_cost(rep)
def cmd_lab(args: argparse.Namespace) -> None:
    from .training.lab import run_experiment

    if args.out:
        check_target(Path(args.out))  # refused before the experiment runs
    result = run_experiment(args.experiment, args.seeds, args.steps)
    if args.out:
        write_atomic(args.out, (json.dumps(result, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    verdict = result["verdict_zh" if args.lang == "zh" else "verdict"]
    print(f"{args.experiment} ({result['seconds']:.1f} s, {result['cpu_seconds']:.1f} s of CPU): {verdict}")


def add_lab_verb(sub: argparse._SubParsersAction) -> None:
    from .training.lab import EXPERIMENTS

    p = sub.add_parser("lab", help="run a training-lab experiment that tests a claim of the tutorials")
    p.add_argument("experiment", choices=list(EXPERIMENTS), help="the experiment")
    p.add_argument("--out", help="write the series and the verdict to this JSON file")
    p.add_argument("--seeds", type=int, help="runs per arm, seeds 0 … N−1 (default 3 for training, else 5)")
    p.add_argument("--steps", type=int, help="training steps per run (post-vs-pre-ln, no-layernorm)")
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="the language of the verdict printed "
                   "(the JSON file holds both: verdict, verdict_zh)")
    p.set_defaults(func=cmd_lab)


def add_verbs(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run a model on a sentence and write every stage to an .npz file")
    p.add_argument("--config", required=True, help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights (default: seeded random)")
    p.add_argument("--save-weights", help="write the weights used to this safetensors file")
    p.add_argument("--text", required=True, help="source sentence (decoder-only: the decoder's input)")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.add_argument("--out", required=True, help="output .npz file")
    p.add_argument("--tiled", type=block_sizes, metavar="BLOCK_Q,BLOCK_K",
                   help="also write every attention computed in tiles, the FlashAttention way (e.g. 2,2)")
    p.add_argument("--grads", action="store_true",
                   help="also write dec.labels, loss.per_position, loss and every grad.<stage> / grad.<param>")
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser("stages", help="list the stage names in order with their shapes")
    p.add_argument("--config", required=True, help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights")
    p.add_argument("--text", help="a sentence, to print concrete shapes")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.set_defaults(func=cmd_stages)

    p = sub.add_parser("cost", help="multiply-adds and bytes of every stage, attention's share, memory, KV cache")
    p.add_argument("--config", required=True, help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights")
    p.add_argument("--text", required=True, help="source sentence (decoder-only: the decoder's input)")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--measure", action="store_true", help="also time the engine's attention at a few n here")
    p.set_defaults(func=cmd_cost)
    add_lab_verb(sub)
