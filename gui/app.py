"""Start the window: `python main.py [--lang en|zh] [--stage NAME] [--config C.json [--weights W]] [--text T]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import EngineError, Model, ModelConfig

I18N_DIR = Path(__file__).resolve().parent.parent / "assets" / "i18n"


def default_lesson() -> tuple[ModelConfig, str, str]:
    """The lesson the window opens on: small enough that a class can follow every number by eye."""
    return ModelConfig(architecture="encoder", d_model=4, n_heads=2, d_ff=8, n_layers=1, decimals=1), "I love AI", ""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stepformer", description="Open the stepping window.")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the window and texts")
    parser.add_argument("--stage", help="open on this stage, e.g. enc.0.attn.scores (or a unique ending: attn.scores)")
    parser.add_argument("--config", help="model config JSON file (default: the built-in lesson)")
    parser.add_argument("--weights", help="safetensors weights for --config")
    parser.add_argument("--text", help="the (source) sentence")
    parser.add_argument("--target", help="the target sentence (encoder-decoder models)")
    args = parser.parse_args(argv)
    if args.weights and not args.config:
        parser.error("--weights needs --config")
    return args


def install_language(app, lang: str) -> None:
    """Load assets/i18n/stepformer_<lang>.qm (and Qt's own strings) when present; English needs nothing."""
    from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator

    if lang == "en":
        return
    QLocale.setDefault(QLocale(lang))
    for name, folder in ((f"stepformer_{lang}", str(I18N_DIR)),
                         (f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.TranslationsPath))):
        translator = QTranslator(app)
        if translator.load(name, folder):
            app.installTranslator(translator)


def build_state(args: argparse.Namespace):
    """The app state for the command line: a config file (and weights) or the default lesson."""
    from engine.weights import load_weights

    from .state import AppState

    config, text, target = default_lesson()
    model = None
    if args.config:
        config = ModelConfig.from_json_file(args.config)
        model = load_weights(config, args.weights) if args.weights else Model.create(config)
    if args.target is not None:
        target = args.target
    elif config.architecture == "encoder-decoder":
        target = "我 爱 AI"
    return AppState(config, args.text if args.text is not None else text, target, model=model)


def find_stage(names: list[str], wanted: str) -> str:
    """A stage by full name, or by a unique ending ("attn.scores" → "enc.0.attn.scores", the first one)."""
    if wanted in names:
        return wanted
    matches = [n for n in names if n.endswith("." + wanted)]
    if not matches:
        raise EngineError(f"no stage named {wanted!r}; stages are: {', '.join(names)}")
    return matches[0]


def run_app(argv: list[str]) -> int:
    import pyqtgraph as pg
    import torch
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    args = parse_args(argv)
    torch.set_num_threads(1)  # small matrices: one thread answers an edit fastest, and never competes with the UI
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("Stepformer")
    app.setApplicationName("Stepformer")
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    install_language(app, args.lang)
    try:
        state = build_state(args)
        if args.stage:
            state.go_to(find_stage(state.stage_names, args.stage))
    except (EngineError, OSError) as exc:
        print(f"stepformer: {exc}", file=sys.stderr)
        return 2
    window = MainWindow(state, args.lang)
    window.setGeometry(app.primaryScreen().availableGeometry())  # fill the screen even without a window manager
    window.showMaximized()
    return app.exec()
