"""Command-line verbs that need only the engine: `trace`, `stages`, `cost`, `heads` and `lens` (main.py lists every
verb)."""

from __future__ import annotations

import argparse
import io
import json
import unicodedata
from dataclasses import replace
from pathlib import Path

import numpy as np

from . import cost
from .command_line import Verb, add_model_options, opened_from_args, path_text
from .formats.files import check_target, write_atomic
from .formats.weights import save_weights
from .head_patterns import head_patterns
from .lens import DEFAULT_TOP, logit_lens
from .model import Model
from .trace import Trace
from .training.backward import backward


def block_sizes(text: str) -> tuple[int, int]:
    """ "2,3" → (2, 3): the --tiled option's BLOCK_Q,BLOCK_K."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise argparse.ArgumentTypeError(
            f"--tiled takes BLOCK_Q,BLOCK_K, two whole numbers ≥ 1 such as 2,2; got {text!r}"
        )
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
    opened = opened_from_args(args)
    if args.tiled is not None:  # also step every attention in tiles of BLOCK_Q × BLOCK_K (engine/tiled.py)
        model = opened.model.with_config(opened.model.config.replace(tiled=list(args.tiled)))
        opened = replace(opened, model=model, lesson=None)
    if args.save_weights:
        check_target(Path(args.save_weights))  # refused before anything is written
    trace = opened.trace()
    grads = backward(trace) if args.grads else {}
    write_npz(trace, args.out, grads)
    if args.save_weights:
        save_weights(opened.model, args.save_weights)
    print(
        f"wrote {len(trace.stage_names)} stages to {args.out}"
        + (
            f", loss {float(grads['loss']):.4f} and {sum(k.startswith('grad.') for k in grads)} gradients"
            if grads
            else ""
        )
    )


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
    opened = opened_from_args(args)
    chosen = args.text is not None or args.target is not None
    shapes = _symbolic_shapes(opened.model, opened.text if chosen else None, opened.target or None)
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
    print(
        f"\nKV cache: {kv['per_token_bytes']:,} bytes per token"
        + (f" ({kv['formula']})" if "formula" in kv else f" ({kv['note']})")
    )
    if kv.get("kv_heads", 0) < kv.get("n_heads", 0):
        print(
            f"  {kv['kv_heads']} K/V heads for {kv['n_heads']} query heads: "
            f"{kv['with_n_heads_per_token_bytes']:,} bytes per token with one K/V head per query head, "
            f"{kv['saving']:.0%} saved"
        )
    if "measured" in rep:
        print(f"\nattention time, {rep['measured']['label']}:")
        for row in rep["measured"]["attention"]:
            print(f"  n = {row['n']:>5}: {row['seconds'] * 1e3:8.2f} ms for {row['formula_macs']:,} multiply-adds")


def cmd_cost(args: argparse.Namespace) -> None:
    rep = cost.report(opened_from_args(args).trace(), measure=args.measure)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False, indent=1))
    else:
        print_cost(rep)


HEAD_KEYS = ("stage", "layer", "head", "kind", "entropy", "self", "previous", "first", "last", "pattern")


def heads_json(trace: Trace) -> dict:
    """{"heads": [{"stage", "layer", "head", "kind", "entropy", "self", "previous", "first", "last", "pattern"}, …]}"""
    return {"heads": [{key: getattr(h, key) for key in HEAD_KEYS} for h in head_patterns(trace)]}


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def print_heads(heads: list[dict]) -> None:
    """One line per head: where it is, its numbers and its pattern (engine/head_patterns.py defines them)."""
    width = max(len("stage"), *(len(h["stage"]) for h in heads))
    numbers = ("entropy", "self", "previous", "first", "last")
    print(f"{'stage':<{width}}  head  kind   " + "  ".join(f"{k:>8}" for k in numbers) + "  pattern")
    for h in heads:
        values = "  ".join(f"{_number(h[k]):>8}" for k in numbers)
        print(f"{h['stage']:<{width}}  {h['head']:>4}  {h['kind']:<5}  {values}  {h['pattern'] or '—'}")


def cmd_heads(args: argparse.Namespace) -> None:
    heads = heads_json(opened_from_args(args).trace())
    if args.json:
        print(json.dumps(heads, ensure_ascii=False, indent=1))
    else:
        print_heads(heads["heads"])


def _columns(text: str) -> int:
    """How many terminal columns text takes (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _columns(text))


def print_lens(lens: dict) -> None:
    """Layers × positions: each position's most probable next token and its probability."""
    cells = [[f"{row[0][0]} {row[0][1]:.2f}" for row in layer["top"]] for layer in lens["layers"]]
    width = max(len("after"), *(len(layer["after"]) for layer in lens["layers"]))
    columns = [max(_columns(token), *(_columns(cell[i]) for cell in cells)) for i, token in enumerate(lens["tokens"])]
    print(_pad("after", width) + "  " + "  ".join(_pad(t, w) for t, w in zip(lens["tokens"], columns)).rstrip())
    for layer, row in zip(lens["layers"], cells):
        print(_pad(layer["after"], width) + "  " + "  ".join(_pad(c, w) for c, w in zip(row, columns)).rstrip())


def cmd_lens(args: argparse.Namespace) -> None:
    lens = logit_lens(opened_from_args(args).trace(), top=args.top).to_json()
    if args.json:
        print(json.dumps(lens, ensure_ascii=False, indent=1))
    else:
        print_lens(lens)


def trace_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument("--out", required=True, type=path_text, help="output .npz file")
    p.add_argument("--save-weights", type=path_text, help="write the weights used to this safetensors file")
    p.add_argument(
        "--tiled",
        type=block_sizes,
        metavar="BLOCK_Q,BLOCK_K",
        help="also write every attention computed in tiles, the FlashAttention way (e.g. 2,2)",
    )
    p.add_argument(
        "--grads",
        action="store_true",
        help="also write dec.labels, loss.per_position, loss and every grad.<stage> / grad.<param>",
    )


def stages_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)  # without --text or --target the shapes say n (source) and m (target)


def cost_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--measure", action="store_true", help="also time the engine's attention at a few n here")


def heads_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def top_count(text: str) -> int:
    """The --top option: a whole number ≥ 1."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"--top takes a whole number ≥ 1 such as 5; got {text!r}")
    return int(text)


def lens_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument(
        "--top", type=top_count, default=DEFAULT_TOP, help=f"next tokens per position (default {DEFAULT_TOP})"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


TRACE = Verb("trace", "run a model on a sentence and write every stage to an .npz file", trace_options, cmd_trace)
STAGES = Verb(
    "stages",
    "list the stage names in order with their shapes (n, m: the sentences' lengths, unless --text is given)",
    stages_options,
    cmd_stages,
)
COST = Verb(
    "cost", "multiply-adds and bytes of every stage, attention's share, memory, KV cache", cost_options, cmd_cost
)
HEADS = Verb(
    "heads",
    "what every attention head does on the sentence: entropy, attention to itself, the previous, first and last "
    "token, and the pattern",
    heads_options,
    cmd_heads,
)
LENS = Verb(
    "lens",
    "the logit lens: the decoder's stream after each block decoded into its most probable next tokens",
    lens_options,
    cmd_lens,
)
