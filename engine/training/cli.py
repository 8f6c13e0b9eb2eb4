"""Command-line verbs for the trained models: `train`, `translate` and `evaluate`."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from ..errors import EngineError
from . import trained
from .evaluate import greedy_decode

TRANSLATOR_HELP = "toy, or a folder with config.json and weights.safetensors"


def cmd_train(args: argparse.Namespace) -> None:
    recipe = trained.recipe(args.model)
    settings = recipe.settings if args.epochs is None else replace(recipe.settings, epochs=args.epochs)
    out = Path(args.out) if args.out else trained.folder(args.model)
    metrics = trained.build(args.model, out, Path(args.corpus) if args.corpus else None, settings, args.seed)
    print(f"wrote {', '.join(trained.FILES)} to {out}")
    print_metrics(args.model, metrics)


def cmd_translate(args: argparse.Namespace) -> None:
    model = trained.load(args.model)
    if model.config.architecture != "encoder-decoder":
        raise EngineError(f"{args.model} is not a translator (it has no encoder); try --model toy")
    print(" ".join(greedy_decode(model, args.text)))


def print_metrics(name: str, m: dict) -> None:
    if trained.recipe(name).translator:
        print(f"{name}: held-out exact match {100 * m['exact_match']:.1f} % of {m['sentences']} sentences; "
              f"cross-attention on the aligned English word for {100 * m['alignment_rate']:.1f} % "
              f"of {m['aligned_words']} Chinese words")
    else:
        print(f"{name}: held-out perplexity {m['perplexity']:.2f} on {m['sentences']} sentences "
              f"(unigram baseline {m['unigram_perplexity']:.2f})")


def cmd_evaluate(args: argparse.Namespace) -> None:
    for name in [args.model] if args.model else list(trained.RECIPES):
        model = trained.load(name)
        train_items, test_items = trained.read_corpus(name, trained.folder(name) / "corpus.tsv")
        print_metrics(name, trained.measure(model, name, train_items, test_items))


def add_verbs(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a shipped model (toy translator or lm) with the engine's own stages")
    p.add_argument("model", choices=list(trained.RECIPES), help="toy: English→Chinese translator; lm: language model")
    p.add_argument("--out", help="output folder (default: assets/models/MODEL)")
    p.add_argument("--corpus", help="train on this corpus.tsv instead of writing one from the templates")
    p.add_argument("--epochs", type=int, help="passes over the training sentences (default: the recipe's)")
    p.add_argument("--seed", type=int, help="seed of the initial weights and the batch order (default: 0)")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("translate", help="translate English to Chinese with the toy translator (greedy)")
    p.add_argument("--model", default="toy", help=TRANSLATOR_HELP)
    p.add_argument("text", help='an English sentence, e.g. "I love AI"')
    p.set_defaults(func=cmd_translate)

    p = sub.add_parser("evaluate", help="held-out accuracy, alignment and perplexity of the shipped models")
    p.add_argument("--model", choices=list(trained.RECIPES), help="one model (default: all)")
    p.set_defaults(func=cmd_evaluate)
