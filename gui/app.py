"""Start the window: `python main.py [--lesson NAME|FILE | --model toy|lm|minilm|FOLDER] [--lang en|zh] [--present]
[--stage NAME] [--config C.json [--weights W]] [--text T]`."""

from __future__ import annotations

import argparse
import sys

DEFAULT_LESSON = "two-heads"


def default_lesson():
    """The lesson the window opens on: "I love AI" with d_model 4, two heads and one layer, with
    hand-set weights a class can follow by eye."""
    from engine.formats.lesson import open_lesson

    return open_lesson(DEFAULT_LESSON)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="stepformer", description="Open the stepping window.")
    parser.add_argument("--lesson", help=f"a shipped lesson's name (e.g. {DEFAULT_LESSON}) or a .stepformer file")
    parser.add_argument("--model", help="open a model: toy (translator), lm (language model), minilm, classroom or "
                        "large (random weights), or a checkpoint folder")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="language of the window and texts (default: the last one chosen, else the system's)")
    parser.add_argument("--present", action="store_true", help="start in full screen (presentation mode)")
    parser.add_argument("--stage", help="open on this stage, e.g. enc.0.attn.scores (or a unique ending: attn.scores)")
    parser.add_argument("--config", help="model config JSON file (default: the built-in lesson)")
    parser.add_argument("--weights", help="safetensors weights for --config")
    parser.add_argument("--text", help="the (source) sentence")
    parser.add_argument("--target", help="the target sentence (encoder-decoder models)")
    args = parser.parse_args(argv)
    if args.weights and not args.config:
        parser.error("--weights needs --config")
    if args.lesson and args.config:
        parser.error("--lesson and --config exclude each other")
    if args.model and (args.lesson or args.config):
        parser.error("--model excludes --lesson and --config")
    return args


def install_language(app, lang: str) -> None:
    """The window's strings in `lang` (assets/i18n/stepformer_zh_CN.qm and Qt's own); see gui/i18n.py."""
    from gui.text.i18n import set_language

    set_language(app, lang)


def build_state(args: argparse.Namespace):
    """The app state for the command line: a lesson (--lesson, else the default one) or a config file (and
    weights); --text and --target replace the sentences."""
    from engine import Model, ModelConfig
    from engine.formats.lesson import open_lesson
    from engine.formats.weights import load_weights
    from gui.state.app_state import AppState

    if args.model:
        from gui.state.model_sources import by_name

        opened = by_name(args.model)
        state = AppState(opened.model.config, opened.text, opened.target, model=opened.model)
        state.load_model(opened.model, opened.text, opened.target, opened.stage, opened.title, opened.description)
        return _replace_sentences(state, args)
    if not args.config:
        lesson = open_lesson(args.lesson) if args.lesson else default_lesson()
        state = AppState(lesson.config, lesson.text, lesson.target, model=lesson.build_model())
        state.load_lesson(lesson)
        return _replace_sentences(state, args)
    config = ModelConfig.from_json_file(args.config)
    model = load_weights(config, args.weights) if args.weights else Model.create(config)
    if args.target is not None:
        target = args.target
    else:
        target = "我 爱 AI" if config.architecture == "encoder-decoder" else ""
    return AppState(config, args.text if args.text is not None else "I love AI", target, model=model)


def _replace_sentences(state, args: argparse.Namespace):
    """--text and --target in place of the lesson's or model's own sentences."""
    if args.text is not None or args.target is not None:
        text = args.text if args.text is not None else state.text
        target = args.target if args.target is not None else state.target
        if not state.set_sentences(text, target):
            from engine import EngineError

            raise EngineError(state.problem)
    return state


def find_stage(names: list[str], wanted: str) -> str:
    """A stage by full name, or by a unique ending ("attn.scores" → "enc.0.attn.scores", the first one)."""
    if wanted in names:
        return wanted
    matches = [n for n in names if n.endswith("." + wanted)]
    if not matches:
        from engine import EngineError

        raise EngineError(f"no stage named {wanted!r}; stages are: {', '.join(names)}")
    return matches[0]


def run_app(argv: list[str]) -> int:
    """The window: a light one at once (PySide6 only), the lesson's as soon as torch and its trace are ready."""
    from PySide6.QtWidgets import QApplication

    from gui.text.i18n import saved_language
    from gui.window.loading import LoadingWindow, ModuleLoader

    args = parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("Stepformer")
    app.setApplicationName("Stepformer")
    lang = args.lang or saved_language()
    install_language(app, lang)
    loading = LoadingWindow(full_screen=args.present)
    loading.show()
    loader = ModuleLoader(parent=loading)
    loader.progress.connect(loading.show_step)
    controllers = []  # the controller lives while the app runs
    loader.done.connect(lambda error: controllers.append(open_or_exit(app, args, lang, loading, error)))
    loading.painted.connect(loader.start)
    return app.exec()


def open_or_exit(app, args: argparse.Namespace, lang: str, loading, error: str):
    """open_lesson_window, or — whatever goes wrong there — the reason on stderr and exit code 1, never a loading
    window left waiting for ever."""
    try:
        return open_lesson_window(app, args, lang, loading, error)
    except Exception:  # noqa: BLE001 (a defect: say it and end, rather than hang behind the loading window)
        import traceback

        traceback.print_exc()
        print("stepformer: the window could not be opened (the lines above say why)", file=sys.stderr)
        loading.close()
        app.exit(1)
        return None


def open_lesson_window(app, args: argparse.Namespace, lang: str, loading, error: str):
    """In the Qt thread once torch and the engine are loaded: build the lesson and its window in the loading
    window's place, then replay the stepping keys pressed meanwhile. On failure: one line, exit code 2."""
    from gui.window.loading import OPENING, dropped_keys_message, replay_keys, report

    loading.show_step(OPENING)
    loading.repaint()
    keys = loading.stop_collecting()
    state, problem = (None, f"cannot load PyTorch or the engine ({error})") if error else prepare_state(args)
    if problem:
        print(f"stepformer: {problem}", file=sys.stderr)
        loading.close()
        app.exit(2)
        return None
    from gui.lesson_controller import launch

    chosen = any(v is not None for v in (args.lesson, args.model, args.config, args.stage, args.text))
    controller = launch(state, lang, args.lesson, full_screen=args.present, start_page=not chosen)
    loading.close()
    loading.deleteLater()
    dropped = replay_keys(controller.window, keys)
    if dropped:
        controller.window.statusBar().showMessage(dropped_keys_message(dropped), 8000)
    report("lesson-shown")
    return controller


def prepare_state(args: argparse.Namespace):
    """torch's and pyqtgraph's settings, then the app state: (state, None), or (None, why it cannot open)."""
    import pyqtgraph as pg
    import torch

    from engine import EngineError

    torch.set_num_threads(1)  # small matrices: one thread answers an edit fastest, never competes with the UI
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    try:
        state = build_state(args)
        if args.stage:
            state.go_to(find_stage(state.stage_names, args.stage))
    except (EngineError, OSError) as exc:
        return None, str(exc)
    return state, None
