"""Headless command-line verbs that draw: `export` (one stage's figure or matrix) and `deck` (the whole lesson).

    python main.py export [model options] --stage NAME [--head J] --format png|svg|pdf|tex|csv --out FILE
                          [--width PX] [--lang en|zh]
    python main.py export [model options] --map [--stage NAME] --format png|svg|pdf --out FILE
    python main.py export [model options] --overview [--sort METRIC] --format png|svg|pdf --out FILE
    python main.py deck   [model options] --format pdf|pptx --out FILE [--lang en|zh] [--only PREFIX,…]
                          [--no-map-inset]

The model options are every verb's (engine/command_line.py): --lesson, --config [--weights], --model, --text,
--target. Qt starts on the offscreen platform, with the translations of --lang installed before anything is drawn.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from engine import EngineError
from engine.command_line import Verb, add_model_options, find_stage, opened_from_args
from engine.formats.lesson import shown_on
from engine.generate import check_temperature
from engine.head_patterns import METRICS

DEFAULT_DECIMALS = 2  # of the numbers drawn, where neither --decimals nor the lesson names them


def open_trace(args: argparse.Namespace):
    """(trace, language, show): the model the options chose on its sentences; the language of --lang, else the
    lesson's, else English; the head, row and decimals the lesson opens on (engine.formats.lesson.SHOW_KEYS, {}
    without a lesson)."""
    opened = opened_from_args(args)
    lesson = opened.lesson
    lang = args.lang or (lesson.lang if lesson is not None else "en")
    return opened.trace(), lang, (lesson.show if lesson is not None else {})


def plot_options(args: argparse.Namespace, trace, lang: str, show: dict | None = None):
    """The figure's options: --head, --row and --decimals where given, else what the lesson shows (`show`: its
    point, as the window opens on it), else head 0, row 0 and 2 decimals."""
    from gui.export.matrix import check_decimals
    from gui.plots import PlotOptions

    head, row, decimals = shown_on(show or {}, trace)
    head = head if args.head is None else args.head
    row = row if args.row is None else args.row
    decimals = (DEFAULT_DECIMALS if decimals is None else decimals) if args.decimals is None else args.decimals
    n_heads = trace.config.n_heads
    if not 0 <= head < n_heads:
        raise EngineError(f"--head {head} is out of range: this model has {n_heads} heads (0 to {n_heads - 1})")
    n_rows = max(len(tokens) for tokens in trace.tokens.values())
    if not 0 <= row < n_rows:
        raise EngineError(f"--row {row} is out of range: the sentence has {n_rows} tokens (0 to {n_rows - 1})")
    try:
        temperature = check_temperature(args.temperature)
    except EngineError as exc:
        raise EngineError(f"--{exc}") from None
    return PlotOptions(
        head=head,
        row=row,
        temperature=temperature,
        lang=lang,
        colormap=args.colormap,
        slide=True,
        decimals=check_decimals(decimals),
    )


def start_qt(lang: str) -> None:
    """A QApplication on the offscreen platform (no display needed), speaking `lang`: the formulas and the other
    texts drawn through Qt's translators (gui/text/i18n.py) come out in it."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gui.export.render import ensure_app
    from gui.text.i18n import set_language

    set_language(ensure_app(), lang)


def cmd_export(args: argparse.Namespace) -> None:
    from gui.export.figure import FORMATS, export_figure
    from gui.export.matrix import MATRIX_FORMATS, export_matrix

    trace, lang, show = open_trace(args)
    opts = plot_options(args, trace, lang, show)
    if args.map and args.overview:
        raise EngineError("export draws one figure: --map or --overview, not both")
    if args.sort is not None and not args.overview:
        raise EngineError("--sort orders the heads of the overview: give --overview with it")
    if args.map:
        return export_map(args, trace, opts)
    if args.overview:
        return export_overview(args, trace, opts)
    if args.stage is None:
        raise EngineError("export needs --stage NAME (see `python main.py stages`), or --map for the model's map")
    stage = find_stage(trace.stage_names, args.stage)
    fmt = (args.format or Path(args.out).suffix.lstrip(".")).lower()
    if fmt in MATRIX_FORMATS:
        path = export_matrix(trace, stage, args.out, opts.decimals, opts.head, fmt)
    elif fmt in FORMATS:
        start_qt(lang)
        path = export_figure(trace, stage, opts, args.out, fmt, args.width)
    else:
        raise EngineError(f"unknown format {fmt or '(none)'!r}: use one of {', '.join(FORMATS + MATRIX_FORMATS)}")
    print(f"wrote {path}")


def export_map(args: argparse.Namespace, trace, opts) -> None:
    """The map of the model as a figure: "you are here" at --stage (and the inside of its box), else the whole."""
    from gui.export.figure import export_figure, format_of
    from gui.plots.map import draw_map

    stage = None if args.stage is None else find_stage(trace.stage_names, args.stage)
    fmt = format_of(args.out, args.format)
    start_qt(opts.lang)
    print(f"wrote {export_figure(trace, stage, opts, args.out, fmt, args.width, draw=draw_map)}")


def export_overview(args: argparse.Namespace, trace, opts) -> None:
    """Every attention head of the model as one grid of thumbnails (gui/plots/overview.py), its badges coloured by
    --sort's metric and each row's heads sorted by it (else coloured by the first metric, in head order)."""
    from functools import partial

    from gui.export.figure import export_figure, format_of
    from gui.plots.overview import draw_overview

    metric = args.sort or METRICS[0]
    fmt = format_of(args.out, args.format)
    start_qt(opts.lang)
    draw = partial(draw_overview, metric=metric, sort=args.sort is not None)
    print(f"wrote {export_figure(trace, None, opts, args.out, fmt, args.width, draw=draw)}")


def cmd_deck(args: argparse.Namespace) -> None:
    from gui.export import export_deck

    trace, lang, show = open_trace(args)
    opts = plot_options(args, trace, lang, show)
    stages = chosen_stages(trace.stage_names, args.only)
    start_qt(lang)
    if args.only is None and tells_2017_to_today(args):
        from gui.export.story import export_story

        count = export_story(trace, opts, args.out, args.format)
        print(f"wrote {args.out}: {count} slides, the 2017 block's map and one per change")
        return
    count = export_deck(trace, opts, args.out, args.format, stages=stages, inset=args.map_inset)
    print(f"wrote {args.out}: {count} slides, the map, every head at a glance and one per stage")


def tells_2017_to_today(args: argparse.Namespace) -> bool:
    """Whether --lesson opens the "2017 → today" view: its deck tells that story (gui/export/story.py) instead of
    giving a slide to every stage."""
    lesson = opened_from_args(args).lesson if args.lesson is not None else None
    return lesson is not None and "modernise" in lesson.views


def chosen_stages(names: list[str], only: str | None) -> list[str] | None:
    """The stages --only names: those whose names start with one of its comma-separated prefixes (None: all)."""
    if only is None:
        return None
    prefixes = [p.strip() for p in only.split(",") if p.strip()]
    chosen = [n for n in names if any(n.startswith(p) for p in prefixes)]
    if not chosen:
        raise EngineError(f"--only {only!r} names no stage; stages are: {', '.join(names)}")
    return chosen


def _drawing_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument("--head", type=int, help="attention head shown by per-head stages (default: the lesson's, else 0)")
    p.add_argument("--row", type=int, help="token row the row plots use (default: the lesson's, else 0)")
    p.add_argument("--temperature", type=float, default=1.0, help="softmax temperature of the output bars")
    p.add_argument("--lang", choices=("en", "zh"), help="language of titles and captions (default: lesson's, en)")
    p.add_argument(
        "--colormap", choices=("default", "cb-safe"), default="default", help="cb-safe: colour-blind-safe colour maps"
    )
    p.add_argument("--out", required=True, help="output file")
    p.add_argument(
        "--decimals",
        type=int,
        help="decimals of the numbers in figures, tables and tex/csv (default: the lesson's, else 2)",
    )


def export_options(p: argparse.ArgumentParser) -> None:
    _drawing_options(p)
    p.add_argument(
        "--stage",
        help="stage name (see `python main.py stages`), or its ending: "
        "attn.weights is the first stage whose name ends so; with --map: where 'you are here' is",
    )
    p.add_argument("--map", action="store_true", help="export the map of the model (png, svg or pdf)")
    p.add_argument(
        "--overview",
        action="store_true",
        help="export every attention head of the model as one grid of thumbnails (png, svg or pdf)",
    )
    p.add_argument(
        "--sort",
        choices=METRICS,
        help="with --overview: colour the heads' badges by this metric and sort each row's heads by it",
    )
    p.add_argument("--format", help="png, svg, pdf (figure) or tex, csv (matrix); default: from --out's extension")
    p.add_argument("--width", type=int, default=1920, help="PNG width in pixels (default 1920)")


def deck_options(p: argparse.ArgumentParser) -> None:
    _drawing_options(p)
    p.add_argument("--format", help="pdf or pptx (default: from --out's extension)")
    p.add_argument(
        "--only",
        metavar="PREFIX[,PREFIX…]",
        help="only the stages whose names start with one of these, "
        "e.g. enc.2.attn or dec.0.self_attn.weights,probs (default: every stage)",
    )
    p.add_argument(
        "--no-map-inset",
        dest="map_inset",
        action="store_false",
        help="leave out the small 'you are here' map on each stage's slide",
    )


EXPORT = Verb(
    "export",
    "export one stage's figure (png/svg/pdf) or matrix (tex/csv), no display needed",
    export_options,
    cmd_export,
)
DECK = Verb(
    "deck",
    "export the whole lesson as slides: the map, every head at a glance, then one per stage (pdf or pptx)",
    deck_options,
    cmd_deck,
)
