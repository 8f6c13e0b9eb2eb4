"""Start the window: `python main.py [--lesson NAME|FILE | --config C.json [--weights W] | --model NAME|FOLDER]
[--text T] [--target T] [--lang en|zh] [--present] [--stage NAME]` (the model options are every verb's)."""

from __future__ import annotations

import argparse
import sys


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The window's options: the model options every verb takes (engine/command_line.py), and the window's own."""
    from engine.command_line import OneLineParser, add_model_options, check_model_options

    parser = OneLineParser(prog="stepformer", description="Open the stepping window.")
    add_model_options(parser)
    parser.add_argument(
        "--lang",
        choices=("en", "zh"),
        help="language of the window and texts (default: the last one chosen, else the system's)",
    )
    parser.add_argument(
        "--present",
        action="store_true",
        help="start in presentation mode (full screen, type for the back row; F5 or Esc leaves it)",
    )
    parser.add_argument("--stage", help="open on this stage, e.g. enc.0.attn.scores (or a unique ending: attn.scores)")
    args = parser.parse_args(argv)
    check_model_options(parser, args)
    return args


def install_language(app, lang: str) -> None:
    """The window's strings in `lang` (assets/i18n/stepformer_zh_CN.qm and Qt's own); see gui/text/i18n.py."""
    from gui.text.i18n import set_language

    set_language(app, lang)


def build_state(args: argparse.Namespace):
    """The app state of what the model options chose (engine/sources.py; none: the default lesson), on --text and
    --target when given. A lesson opens on its own sentences first: its title, docks and stage stay."""
    from engine import EngineError
    from engine.sources import open_source
    from gui.state.app_state import AppState

    opened = open_source(args.lesson, args.config, args.weights, args.model)
    wanted = opened.with_sentences(args.text, args.target)
    if opened.lesson is None:  # traced once, on the sentences wanted
        return AppState.from_model(
            wanted.model, wanted.text, wanted.target, wanted.stage, wanted.title, wanted.description
        )
    state = AppState.from_lesson(opened.lesson)
    if (wanted.text, wanted.target) != (opened.text, opened.target) and not state.set_sentences(
        wanted.text, wanted.target
    ):
        raise EngineError(state.problem)
    return state


def run_app(argv: list[str]) -> int:
    """The window: a light one at once (PySide6 only), the lesson's as soon as torch and its trace are ready."""
    import gc

    # Importing torch, pyqtgraph and the app makes a few million objects, and the collections they set off took a
    # fifth of the start (0.25 of 1.35 s): none runs until collect_between_events freezes them all.
    gc.disable()
    from PySide6.QtWidgets import QApplication

    from gui.state.preferences import saved_language
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
    status = app.exec()
    delete_windows(app)
    return status


def delete_windows(app) -> None:
    """Delete the windows while the application is alive. An event loop ended with the window still open (quit()
    from elsewhere, the session ending) left its Qt objects to Python's exit, which deleted them in no order, some
    after the application: a segmentation fault as the process ended (the-cat-sat in presentation mode at
    1920×1080, each stage shown, then quit()). A window deleted takes its views, and with them the figures they
    keep off screen (FigureCache), while Qt can still delete them in order."""
    import shiboken6
    from PySide6.QtWidgets import QMainWindow

    for window in [w for w in app.topLevelWidgets() if isinstance(w, QMainWindow)]:
        shiboken6.delete(window)


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
    if not error:
        from gui.idle_collection import collect_between_events

        collect_between_events()  # torch, pyqtgraph and the engine are imported: their objects are frozen
    keys = loading.stop_collecting()
    state, problem = (None, f"cannot load PyTorch or the engine ({error})") if error else prepare_state(args)
    if problem:
        print(f"stepformer: {problem}", file=sys.stderr)
        loading.close()
        app.exit(2)
        return None
    from engine.sources import lesson_to_open
    from gui.launch import launch

    chosen = any(v is not None for v in (args.lesson, args.model, args.config, args.stage, args.text))
    lesson = lesson_to_open(args.lesson, args.config, args.model)  # the default lesson when none was chosen
    controller = launch(state, lang, lesson, present=args.present, start_page=not chosen)
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
    from engine.command_line import find_stage

    torch.set_num_threads(1)  # small matrices: one thread answers an edit fastest, never competes with the UI
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    try:
        state = build_state(args)
        if args.stage:
            state.go_to(find_stage(state.stage_names, args.stage))
    except (EngineError, OSError) as exc:
        return None, str(exc)
    return state, None
