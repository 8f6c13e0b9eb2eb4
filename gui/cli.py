"""Headless command-line verbs that draw: `export` (one stage's figure or matrix) and `deck` (the whole lesson).

    python main.py export [--lesson L | --config C.json [--weights W]] [--text "…"] [--target "…"]
                          --stage NAME [--head J] --format png|svg|pdf|tex|csv --out FILE [--width PX] [--lang en|zh]
    python main.py deck   [same model options] --format pdf|pptx --out FILE [--lang en|zh]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from engine import EngineError, Model, ModelConfig
from engine.generate import check_temperature

DEFAULT_TEXT = "I love AI"
DEFAULT_CONFIG = ModelConfig(d_model=4, n_heads=2, decimals=1)  # the first lesson's hand-sized encoder


def load_trace(args: argparse.Namespace):
    """(trace, language) from --lesson, or --config [--weights], or the default lesson; --text overrides."""
    if args.weights and not args.config:
        raise EngineError("--weights needs --config (a lesson carries its own weights)")
    if args.lesson:
        from engine.formats.lesson import open_lesson

        lesson = open_lesson(args.lesson)
        lang = args.lang or lesson.lang
        if args.text is None and args.target is None:
            return lesson.trace(), lang  # the lesson exactly, edited stages included
        target = args.target if args.target is not None else (lesson.target if args.text is None else "")
        text = args.text if args.text is not None else lesson.text
        return lesson.build_model().trace(text, target or None), lang
    if args.config:
        from engine.cli import load_model

        model = load_model(args.config, args.weights)
    else:
        model = Model.create(DEFAULT_CONFIG)
    return model.trace(DEFAULT_TEXT if args.text is None else args.text, args.target or None), args.lang or "en"


def plot_options(args: argparse.Namespace, trace, lang: str):
    from gui.plots import PlotOptions

    n_heads = trace.config.n_heads
    if not 0 <= args.head < n_heads:
        raise EngineError(f"--head {args.head} is out of range: this model has {n_heads} heads (0 to {n_heads - 1})")
    n_rows = max(len(tokens) for tokens in trace.tokens.values())
    if not 0 <= args.row < n_rows:
        raise EngineError(f"--row {args.row} is out of range: the sentence has {n_rows} tokens (0 to {n_rows - 1})")
    try:
        temperature = check_temperature(args.temperature)
    except EngineError as exc:
        raise EngineError(f"--{exc}") from None
    return PlotOptions(head=args.head, row=args.row, temperature=temperature, lang=lang,
                       colormap=args.colormap, slide=True)


def start_qt() -> None:
    """A QApplication on the offscreen platform: no display needed."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gui.export.render import ensure_app

    ensure_app()


def cmd_export(args: argparse.Namespace) -> None:
    from gui.export.figure import FORMATS, check_stage, export_figure
    from gui.export.matrix import MATRIX_FORMATS, export_matrix

    trace, lang = load_trace(args)
    check_stage(trace, args.stage)
    opts = plot_options(args, trace, lang)
    fmt = (args.format or Path(args.out).suffix.lstrip(".")).lower()
    if fmt in MATRIX_FORMATS:
        path = export_matrix(trace, args.stage, args.out, args.decimals, args.head, fmt)
    elif fmt in FORMATS:
        start_qt()
        path = export_figure(trace, args.stage, opts, args.out, fmt, args.width)
    else:
        raise EngineError(f"unknown format {fmt or '(none)'!r}: use one of {', '.join(FORMATS + MATRIX_FORMATS)}")
    print(f"wrote {path}")


def cmd_deck(args: argparse.Namespace) -> None:
    from gui.export.deck import export_deck

    trace, lang = load_trace(args)
    opts = plot_options(args, trace, lang)
    start_qt()
    count = export_deck(trace, opts, args.out, args.format)
    print(f"wrote {args.out}: {count} slides, one per stage")


def _model_arguments(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group()
    source.add_argument("--lesson", help="a shipped lesson's name or a .stepformer file")
    source.add_argument("--config", help="model config JSON file")
    p.add_argument("--weights", help="safetensors weights for --config (default: seeded)")
    p.add_argument("--text", help=f"source sentence (default: the lesson's, or {DEFAULT_TEXT!r})")
    p.add_argument("--target", help="target sentence for an encoder-decoder model")
    p.add_argument("--head", type=int, default=0, help="attention head shown by per-head stages (default 0)")
    p.add_argument("--row", type=int, default=0, help="token row the row plots use (default 0)")
    p.add_argument("--temperature", type=float, default=1.0, help="softmax temperature of the output bars")
    p.add_argument("--lang", choices=("en", "zh"), help="language of titles and captions (default: lesson's, en)")
    p.add_argument("--colormap", choices=("default", "cb-safe"), default="default",
                   help="cb-safe: colour-blind-safe colour maps")
    p.add_argument("--out", required=True, help="output file")


def add_verbs(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export one stage's figure (png/svg/pdf) or matrix (tex/csv), no display needed")
    _model_arguments(p)
    p.add_argument("--stage", required=True, help="stage name (see `python main.py stages`)")
    p.add_argument("--format", help="png, svg, pdf (figure) or tex, csv (matrix); default: from --out's extension")
    p.add_argument("--width", type=int, default=1920, help="PNG width in pixels (default 1920)")
    p.add_argument("--decimals", type=int, default=2, help="decimals for tex/csv (default 2)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("deck", help="export the whole lesson as slides, one per stage (pdf or pptx)")
    _model_arguments(p)
    p.add_argument("--format", help="pdf or pptx (default: from --out's extension)")
    p.set_defaults(func=cmd_deck)
