"""What every command-line verb shares, and the window's command line too: the parser that reports a bad option
in one line, a Verb (its name, its help, its options and what it runs), and the options that choose the model
and its sentences. Nothing heavy is imported here, so the window reads its options before torch loads.

Options that choose the model (one of them; none: the lesson two-heads):
    --lesson NAME|FILE        a shipped lesson or a .stepformer file
    --config C.json           a model config, with --weights W.safetensors (default: seeded random weights)
    --model NAME|FOLDER       toy, lm, minilm, classroom, large, or a checkpoint folder (BERT, GPT-2,
                              Llama, Qwen2, Qwen3, Mistral, trained)
and its sentences (default: the model's own):
    --text "…"  --target "…"  (a translator translates a new --text itself when --target is not given)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from .errors import EngineError

INTERRUPTED = 130  # the exit status of a verb stopped by Ctrl+C, as shells report it (128 + SIGINT)
MODEL_HELP = (
    "toy (English→Chinese translator), lm (Chinese language model), minilm (all-MiniLM-L6-v2), "
    "classroom or large (random weights), or a checkpoint folder (BERT, GPT-2, Llama, Qwen2, Qwen3, Mistral, "
    "or one `train` wrote)"
)


class OneLineParser(argparse.ArgumentParser):
    """Report a bad argument as one clear line on stderr, not a usage dump."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def path_text(text: str) -> str:
    """A file or folder option's value: refused in one line when it is empty (an empty path names no file)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder; give one, e.g. out.safetensors")
    return text


def stop_interrupted(what: str) -> NoReturn:
    """End a verb that Ctrl+C stopped: one line on stderr (no traceback) and exit status 130."""
    print(f"stepformer: {what}", file=sys.stderr)
    raise SystemExit(INTERRUPTED)


@dataclass(frozen=True)
class Verb:
    """One command-line verb: `python main.py NAME …` adds its options with add_options and runs run(args)."""

    name: str
    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], None]


def add_model_options(p: argparse.ArgumentParser, sentences: bool = True) -> None:
    """--lesson, --config (--weights) or --model, and (with `sentences`) --text and --target."""
    source = p.add_mutually_exclusive_group()
    source.add_argument("--lesson", help="a shipped lesson's name (e.g. two-heads, the default) or a .stepformer file")
    source.add_argument("--config", help="model config JSON file")
    source.add_argument("--model", help=MODEL_HELP)
    p.add_argument("--weights", help="safetensors weights for --config (default: seeded random)")
    if sentences:
        p.add_argument("--text", help="the (source) sentence (default: the model's own)")
        p.add_argument(
            "--target",
            help="the target sentence of an encoder-decoder model (default: the model's "
            "own; a translator translates a new --text itself)",
        )


def check_model_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The combinations the options' group cannot refuse by itself: one line and exit code 2."""
    if getattr(args, "weights", None) and not args.config:
        parser.error("--weights needs --config (a lesson or a named model carries its own weights)")


def opened_from_args(args: argparse.Namespace, default_model: str | None = None):
    """The engine.sources.Opened the model options chose, with --text and --target in place of its sentences;
    `default_model` (a --model name) when no option chose one, else the default lesson."""
    from engine.sources import open_source

    chosen = args.lesson is not None or args.config is not None or args.model is not None
    opened = open_source(args.lesson, args.config, args.weights, args.model if chosen else default_model)
    return opened.with_sentences(getattr(args, "text", None), getattr(args, "target", None))


def find_stage(names: list[str], wanted: str) -> str:
    """A stage by full name, or by a unique ending ("attn.weights" → "enc.0.attn.weights", the first one)."""
    if wanted in names:
        return wanted
    matches = [n for n in names if n.endswith("." + wanted)]
    if not matches:
        raise EngineError(f"no stage named {wanted!r}; stages are: {', '.join(names)}")
    return matches[0]
