"""Command-line verbs for training: `train`, `translate`, `evaluate` and `lab` (main.py lists every verb)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from ..command_line import Verb, add_model_options, opened_from_args, path_text, stop_interrupted
from ..errors import EngineError
from ..formats.files import check_target, write_atomic
from . import trained
from .evaluate import greedy_decode
from .train import MAX_EPOCHS


def cmd_train(args: argparse.Namespace) -> None:
    if args.reset:
        reset_model(args)
        return
    recipe = trained.recipe(args.model)
    settings = recipe.settings if args.epochs is None else replace(recipe.settings, epochs=args.epochs)
    out = Path(args.out) if args.out is not None else trained.user_folder(args.model)
    try:
        metrics = trained.build(args.model, out, Path(args.corpus) if args.corpus else None, settings, args.seed)
    except KeyboardInterrupt:
        stop_interrupted(f"train {args.model} stopped (Ctrl+C): nothing was written, {out} is as it was")
    if args.out is None:
        print(
            f"wrote {', '.join(trained.FILES)} to {out}: --model {args.model} opens this copy now "
            f"(train {args.model} --reset goes back to the shipped one)"
        )
    else:
        print(f"wrote {', '.join(trained.FILES)} to {out}")
    print_metrics(args.model, metrics)


def reset_model(args: argparse.Namespace) -> None:
    """`train NAME --reset`: remove the user's trained copy; --model NAME opens the shipped model again."""
    given = [f"--{k}" for k in ("out", "corpus", "epochs", "seed") if getattr(args, k) is not None]
    if given:
        raise EngineError(f"--reset trains nothing, so it takes no {', '.join(given)}")
    mine = trained.user_folder(args.model)
    if trained.reset(args.model):
        print(f"removed your trained {args.model} from {mine}: --model {args.model} opens the shipped one again")
    else:
        print(f"you have no trained {args.model} (none in {mine}): --model {args.model} opens the shipped one")


def cmd_translate(args: argparse.Namespace) -> None:
    model = opened_from_args(args, default_model="toy").model
    if model.config.architecture != "encoder-decoder":
        raise EngineError(
            f"this {model.config.architecture} model is not a translator (it has no encoder and "
            "decoder); try --model toy"
        )
    print(" ".join(greedy_decode(model, args.text)))


def print_metrics(name: str, m: dict) -> None:
    if trained.recipe(name).translator:
        print(
            f"{name}: held-out exact match {100 * m['exact_match']:.1f} % of {m['sentences']} sentences; "
            f"cross-attention on the aligned English word for {100 * m['alignment_rate']:.1f} % "
            f"of {m['aligned_words']} Chinese words"
        )
    else:
        print(
            f"{name}: held-out perplexity {m['perplexity']:.2f} on {m['sentences']} sentences "
            f"(unigram baseline {m['unigram_perplexity']:.2f})"
        )


def cmd_evaluate(args: argparse.Namespace) -> None:
    for name in [args.model] if args.model else list(trained.RECIPES):
        model = trained.load(name)
        train_items, test_items = trained.read_corpus(name, trained.folder(name) / "corpus.tsv")
        print_metrics(name, trained.measure(model, name, train_items, test_items))


def cmd_lab(args: argparse.Namespace) -> None:
    from .lab import run_experiment

    if args.out:
        check_target(Path(args.out))  # refused before the experiment runs
    try:
        result = run_experiment(args.experiment, args.seeds, args.steps)
    except KeyboardInterrupt:
        stop_interrupted(
            f"lab {args.experiment} stopped (Ctrl+C)" + (f": {args.out} was not written" if args.out else "")
        )
    if args.out:
        write_atomic(args.out, (json.dumps(result, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    verdict = result["verdict_zh" if args.lang == "zh" else "verdict"]
    print(f"{args.experiment} ({result['seconds']:.1f} s, {result['cpu_seconds']:.1f} s of CPU): {verdict}")


def train_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", choices=list(trained.RECIPES), help="toy: English→Chinese translator; lm: language model")
    p.add_argument(
        "--out",
        type=path_text,
        help="output folder (default: your own copy in Stepformer's data "
        f"folder, {trained.user_models_dir() / 'MODEL'}, which --model MODEL then opens instead of the "
        "shipped model; the shipped model is never written)",
    )
    p.add_argument(
        "--reset",
        action="store_true",
        help="train nothing: remove your own trained copy, so that --model MODEL opens the shipped model again",
    )
    p.add_argument(
        "--corpus", type=path_text, help="train on this corpus.tsv instead of writing one from the templates"
    )
    defaults = ", ".join(f"{name} {r.settings.epochs}" for name, r in trained.RECIPES.items())
    p.add_argument(
        "--epochs",
        type=int,
        help=f"passes over the training sentences, 1 to {MAX_EPOCHS:,} "
        f"(default: the recipe's: {defaults}); Ctrl+C stops a run and writes nothing",
    )
    p.add_argument("--seed", type=int, help="seed of the initial weights and the batch order (default: 0)")


def translate_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p, sentences=False)  # default: --model toy
    p.add_argument("text", help='an English sentence, e.g. "I love AI"')


def evaluate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", choices=list(trained.RECIPES), help="one model (default: all)")


def lab_options(p: argparse.ArgumentParser) -> None:
    from .lab import EXPERIMENTS

    p.add_argument("experiment", choices=list(EXPERIMENTS), help="the experiment")
    p.add_argument("--out", type=path_text, help="write the series, the evidence and the verdict to this JSON file")
    defaults = ", ".join(f"{name} {spec.seeds}" for name, spec in EXPERIMENTS.items())
    p.add_argument("--seeds", type=int, help=f"runs per arm, seeds 0 … N−1 (default: {defaults})")
    p.add_argument(
        "--steps", type=int, help="training steps per learning rate (post-vs-pre-ln, no-layernorm; default 120)"
    )
    p.add_argument(
        "--lang",
        choices=["en", "zh"],
        default="en",
        help="the language of the verdict printed (the JSON file holds both: verdict, verdict_zh)",
    )


TRAIN = Verb(
    "train", "train a shipped model (toy translator or lm) with the engine's own stages", train_options, cmd_train
)
TRANSLATE = Verb(
    "translate",
    "translate English to Chinese with a trained translator (greedy; default --model toy)",
    translate_options,
    cmd_translate,
)
EVALUATE = Verb(
    "evaluate",
    "held-out accuracy, alignment and perplexity of the trained models (your own copy where `train` wrote one)",
    evaluate_options,
    cmd_evaluate,
)
LAB = Verb("lab", "run a training-lab experiment that tests a claim of the tutorials", lab_options, cmd_lab)
