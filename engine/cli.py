"""Command-line verbs that need only the engine: `trace` and `stages`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from .backward import backward
from .config import ModelConfig
from .errors import EngineError
from .model import Model
from .trace import Trace
from .weights import load_weights, save_weights


def load_model(config_path: str, weights_path: str | None) -> Model:
    config = ModelConfig.from_json_file(config_path)
    return load_weights(config, weights_path) if weights_path else Model.create(config)


def write_npz(trace: Trace, out: str | Path, extra: dict | None = None) -> None:
    """Every stage under its name (then `extra` tensors, e.g. the gradients), plus `meta` (a JSON string);
    loads with allow_pickle=False."""
    arrays = {name: trace.values[name].numpy() for name in trace.stage_names}
    arrays.update({name: t.numpy() for name, t in (extra or {}).items()})
    arrays["meta"] = np.array(json.dumps(trace.meta(), ensure_ascii=False))
    try:
        with open(out, "wb") as f:
            np.savez(f, **arrays)
    except OSError as exc:
        raise EngineError(f"cannot write {out}: {exc.strerror or exc}") from None


def cmd_trace(args: argparse.Namespace) -> None:
    model = load_model(args.config, args.weights)
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


def cmd_lab(args: argparse.Namespace) -> None:
    from .lab import run_experiment
    from .lessonfile import write_atomic

    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise EngineError(f"cannot write {args.out}: its folder does not exist")
    result = run_experiment(args.experiment, args.seeds, args.steps)
    if args.out:
        write_atomic(args.out, (json.dumps(result, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    print(f"{args.experiment} ({result['seconds']:.1f} s, {result['cpu_seconds']:.1f} s of CPU): {result['verdict']}")


def add_lab_verb(sub: argparse._SubParsersAction) -> None:
    from .lab import EXPERIMENTS

    p = sub.add_parser("lab", help="run a training-lab experiment that tests a claim of the tutorials")
    p.add_argument("experiment", choices=list(EXPERIMENTS), help="the experiment")
    p.add_argument("--out", help="write the series and the verdict to this JSON file")
    p.add_argument("--seeds", type=int, help="runs per arm, seeds 0 … N−1 (default 3 for training, else 5)")
    p.add_argument("--steps", type=int, help="training steps per run (post-vs-pre-ln, no-layernorm)")
    p.set_defaults(func=cmd_lab)


def add_verbs(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run a model on a sentence and write every stage to an .npz file")
    p.add_argument("--config", required=True, help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights (default: seeded random)")
    p.add_argument("--save-weights", help="write the weights used to this safetensors file")
    p.add_argument("--text", required=True, help="source sentence (decoder-only: the decoder's input)")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.add_argument("--out", required=True, help="output .npz file")
    p.add_argument("--grads", action="store_true",
                   help="also write dec.labels, loss.per_position, loss and every grad.<stage> / grad.<param>")
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser("stages", help="list the stage names in order with their shapes")
    p.add_argument("--config", required=True, help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights")
    p.add_argument("--text", help="a sentence, to print concrete shapes")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.set_defaults(func=cmd_stages)
    add_lab_verb(sub)
