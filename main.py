"""Stepformer: step through a Transformer one operation at a time.

`python main.py` opens the window; `python main.py VERB …` runs a command-line verb.
"""

from __future__ import annotations

import argparse
import sys


def verbs() -> tuple:
    """Every command-line verb, in the order --help lists them. Each takes the same model options where it runs
    a model (engine/command_line.py). Only export and deck draw: they import Qt when they run, the others never."""
    from engine import cli as engine_verbs
    from engine.training import cli as training_verbs
    from gui import cli as drawing_verbs

    return (
        engine_verbs.TRACE,  # every stage of a model on a sentence, to an .npz file
        engine_verbs.STAGES,  # the stage names and shapes
        engine_verbs.COST,  # multiply-adds, bytes, memory, KV cache
        engine_verbs.HEADS,  # what every attention head does: entropy, self, previous, first, last, pattern
        engine_verbs.LENS,  # the logit lens: each block's stream decoded into next tokens
        drawing_verbs.EXPORT,  # one stage's figure or matrix
        drawing_verbs.DECK,  # the whole lesson as slides
        training_verbs.TRANSLATE,  # English → Chinese with a trained translator
        training_verbs.TRAIN,  # train the shipped toy translator or language model
        training_verbs.EVALUATE,  # their held-out accuracy and perplexity
        training_verbs.LAB,  # a training-lab experiment
    )


def build_parser() -> argparse.ArgumentParser:
    from engine.command_line import OneLineParser

    parser = OneLineParser(prog="stepformer", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb")
    for verb in verbs():
        p = sub.add_parser(verb.name, help=verb.help, description=verb.help)
        verb.add_options(p)
        p.set_defaults(run=verb.run, verb_parser=p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):  # options only: the window
        from gui.app import run_app

        return run_app(argv)
    from engine.command_line import INTERRUPTED, check_model_options

    parser = build_parser()
    args = parser.parse_args(argv)
    check_model_options(args.verb_parser, args)
    from engine.errors import EngineError

    try:
        args.run(args)
    except KeyboardInterrupt:  # every file is written whole or not at all (engine/formats/files.py)
        print(f"stepformer: {argv[0]} stopped (Ctrl+C): no file was left half-written", file=sys.stderr)
        return INTERRUPTED
    except EngineError as exc:
        print(f"stepformer: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"stepformer: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except UnicodeEncodeError as exc:  # printing Chinese to an ASCII terminal or pipe
        print(f"stepformer: cannot print {exc.object[exc.start:exc.end]!r}: the output's encoding is {exc.encoding}; "
              "set PYTHONIOENCODING=utf-8 or use a UTF-8 locale (e.g. LANG=C.UTF-8)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
