"""Chinese and English: the catalogue translates every string of gui/, the Chinese window shows no English
word that is not data (tokens, stage and parameter names, formulas), and the language switches live and is
remembered."""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QGraphicsTextItem,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QTabWidget,
    QToolBar,
    QWidget,
)

from engine.formats.lesson import open_lesson, shipped_lessons
from engine.sources import open_source
from gui.lesson.prompts import Prompts
from gui.plots.heatmap import CellNumbers
from gui.plots.view import parked
from gui.state import preferences
from gui.text import i18n
from gui.text.operations import stage_op, text_key
from gui.text.stage_texts import TEXTS_FILE, op_text, op_title
from gui.window.settings_dialog import SettingsDialog
from tests import gui_lessons
from tests.test_figure_reuse import assert_same, describe

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "assets" / "i18n" / "stepformer_zh_CN.ts"
VENV_BIN = Path(sys.executable).parent

# Words that are notation, the same in both languages: formula variables and functions, names of methods,
# models, file formats and keys, each language's own name in the Language menu and "Language" in its title
# (so that it can be found whatever language is shown).
NOTATION = {
    "softmax",
    "Softmax",
    "LayerNorm",
    "ReLU",
    "GELU",
    "SwiGLU",
    "RoPE",
    "BERT",
    "GPT",
    "LLaMA",
    "Transformer",
    "MiniLM",
    "Hugging",
    "Face",
    "Stepformer",
    "Pre",
    "Post",
    "LN",
    "PE",
    "tanh",
    "ids",
    "vocab",
    "tokens",
    "scores",
    "scaled",
    "masked",
    "logits",
    "probs",
    "Concat",
    "Attention",
    "CrossAttention",
    "FFN",
    "Sublayer",
    "inf",
    "train",
    "KV",
    "PNG",
    "SVG",
    "PDF",
    "CSV",
    "LaTeX",
    "bmatrix",
    "PowerPoint",
    "Ctrl",
    "Shift",
    "Space",
    "Home",
    "End",
    "Page",
    "Up",
    "Down",
    "PgUp",
    "PgDown",
    "English",
    "Language",
    "log",
    "diag",
    "Logit",  # the logit lens: Logit 透镜
    # 2017 → today: the people and models that brought each change (gui/text/modernise.py)
    "Vaswani",
    "Zhang",
    "Sennrich",
    "Shazeer",
    "Ainslie",
    "PaLM",
    "RoFormer",
    "Llama",
    "Qwen",
    "Mistral",
    "RMSNorm",
    "SiLU",
    "QK",
}


def data_texts() -> list[str]:
    """Teaching texts in Chinese: stage titles and explanations, lesson titles and descriptions (data that
    names technical terms in English too), longest first."""
    ops = [op for op in json.loads(TEXTS_FILE.read_text(encoding="utf-8")) if not op.startswith("_")]
    texts = [op_title(op, "zh") for op in ops] + [op_text(op, "zh") for op in ops]
    texts += [info.title["zh"] for info in shipped_lessons()] + [info.description["zh"] for info in shipped_lessons()]
    return sorted(texts, key=len, reverse=True)


def data_words() -> set[str]:
    """The words of every shipped lesson's sentences and vocabularies, and the example in the sentence box."""
    words = set(re.findall(r"[A-Za-z]{2,}", "I love AI"))
    for info in shipped_lessons():
        lesson = open_lesson(info.name)
        words |= set(
            re.findall(
                r"[A-Za-z]{2,}",
                " ".join([lesson.text, lesson.target] + [t for v in lesson.vocabularies.values() for t in v]),
            )
        )
    return words


def english_words(text: str, data: set[str]) -> list[str]:
    """The English words of `text` that are neither data nor notation."""
    for known in DATA_TEXTS:
        text = text.replace(known, " ")
    text = re.sub(r"<[^>]+>", " ", text)  # rich text
    text = re.sub(r"&(nbsp|amp|lt|gt);", " ", text).replace("&", "")
    text = re.sub(r"\S*[._\d/\\]\S*", " ", text)  # stage and parameter names, numbers, paths, shapes
    words = re.findall(r"[A-Za-z]{2,}", text)
    return [w for w in words if w not in NOTATION and w not in data]


DATA_TEXTS = data_texts()
DATA_WORDS = data_words()


def widget_strings(root: QWidget) -> list[str]:
    """Every string a widget tree shows: titles, labels, buttons, tooltips, placeholders, items, menus."""
    texts = [root.windowTitle()]
    for w in [root, *root.findChildren(QWidget)]:
        texts += [w.toolTip(), w.statusTip(), w.whatsThis()]
        if isinstance(w, QLabel):
            texts.append(w.text())
        elif isinstance(w, QAbstractButton):
            texts.append(w.text())
        elif isinstance(w, QGroupBox):
            texts.append(w.title())
        elif isinstance(w, QLineEdit):
            texts.append(w.placeholderText())
        elif isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QAbstractSpinBox):
            texts += [getattr(w, f)() for f in ("prefix", "suffix", "specialValueText") if hasattr(w, f)]
        elif isinstance(w, QTabWidget):
            texts += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QMenu):
            texts.append(w.title())
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            texts += item_strings(w.model())
        elif isinstance(w, pg.GraphicsView):
            for item in w.scene().items():
                if not item.isVisible() or parked(item):  # (a figure parked, to be shown again, is not seen)
                    continue
                if isinstance(item, QGraphicsTextItem):
                    texts.append(item.toPlainText())
                elif isinstance(item, CellNumbers):
                    texts += item.texts()
        for action in w.actions():
            texts += [action.text(), action.toolTip(), action.statusTip()]
            if action.menu() is not None:
                texts += widget_strings(action.menu())
    for action in root.findChildren(QAction):
        texts += [action.text(), action.toolTip(), action.statusTip()]
    return [t for t in texts if t]


def item_strings(model, parent: QModelIndex | None = None) -> list[str]:
    """Items (and their children) with their tooltips, and the header labels, of an item model."""
    parent = parent or QModelIndex()
    cols = 1 if isinstance(model, QAbstractListModel) else min(model.columnCount(parent), 50)
    rows = min(model.rowCount(parent), 200)
    texts = []
    if not parent.isValid():
        texts += [str(model.headerData(c, Qt.Horizontal) or "") for c in range(cols)]
        texts += [str(model.headerData(r, Qt.Vertical) or "") for r in range(rows)]
    for r in range(rows):
        for c in range(cols):
            index = model.index(r, c, parent)
            texts += [str(model.data(index, role) or "") for role in (Qt.DisplayRole, Qt.ToolTipRole)]
            if model.rowCount(index) > 0:
                texts += item_strings(model, index)
    return texts


def untranslated(texts: list[str], data: set[str]) -> dict[str, list[str]]:
    return {t: words for t in set(texts) if (words := english_words(t, data))}


def lesson_data(state) -> set[str]:
    """Data, whatever the language: stage and parameter names, and the words of every lesson."""
    names = [*state.stage_names, *state.trace.params]
    return DATA_WORDS | set(names) | {name.rsplit(".", 1)[-1] for name in names} | {"id"}  # row labels: gamma, id


def test_the_catalogue_translates_every_string_of_the_window(tmp_path):
    """The committed .ts has a translation for every string pyside6-lupdate finds in gui/ now, and the .qm
    the app loads holds exactly those translations."""
    fresh = tmp_path / TS.name
    shutil.copy(TS, fresh)
    sources = sorted(str(p) for p in (ROOT / "gui").rglob("*.py"))
    subprocess.run(
        [str(VENV_BIN / "pyside6-lupdate"), *sources, "-locations", "none", "-no-obsolete", "-ts", str(fresh)],
        check=True,
        capture_output=True,
    )
    catalogue = i18n.catalogue("zh")
    assert catalogue is not None
    missing, stale = [], []
    for context in ET.parse(fresh).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source, translation = message.findtext("source"), message.find("translation")
            if translation.get("type") == "unfinished" or not (translation.text or "").strip():
                missing.append(f"{name}: {source!r}")
            elif catalogue.translate(name, source) != translation.text:
                stale.append(f"{name}: {source!r}")
    assert not missing, "untranslated (run `make i18n`, translate in .venv/bin/pyside6-linguist):\n" + "\n".join(
        missing
    )
    assert not stale, "the .qm is older than the .ts (run `make i18n`):\n" + "\n".join(stale)


def test_the_chinese_window_shows_no_untranslated_string(qtbot, start_window, monkeypatch):
    shown_boxes: list[str] = []

    def record(*args, **kwargs):
        shown_boxes.extend(a for a in args if isinstance(a, str))
        return QMessageBox.Discard

    for name in ("information", "about", "warning", "question"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(record))
    controller = start_window("cross-attention", lang="zh")
    problems: dict[str, list[str]] = {}
    for lesson in ("cross-attention", "two-heads"):  # decoder and cross-attention stages; several heads
        controller.open_shipped(lesson)
        window, state = controller.window, controller.state
        data = lesson_data(state)
        seen = set()
        for i, name in enumerate(state.stage_names):
            kind = (name.split(".")[0], stage_op(state.trace, name))  # each kind of stage once
            if kind in seen:
                continue
            seen.add(kind)
            state.set_cursor(i)
            window.stage_view.draw_plots()
            problems |= untranslated(widget_strings(window), data)
            assert window.stage_view.explanation.text() == op_text(text_key(state.trace, state.current_stage), "zh")
        w1 = next(name for name in state.trace.params if name.endswith("ffn.W1"))
        state.edit_cell(w1, (0, 0), 0.5)
        problems |= untranslated(widget_strings(window), data)  # undo texts, status message
        window.stepper.play_action.trigger()  # "Pause"
        problems |= untranslated(widget_strings(window), data)
        window.stepper.stop()
    for dialog in (
        SettingsDialog(controller.state, window),
        controller.show_start_page(),
        window.model_picker.show_dialog(),
    ):
        problems |= untranslated(widget_strings(dialog), data)
        dialog.reject()
    for action in window.menus["help"].actions():
        action.trigger()
    real = Prompts()  # the real questions, with their message boxes recorded
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown_boxes.extend([box.windowTitle(), box.text()]))
    real.restore(window, controller.state.to_lesson("zh"))
    real.unsaved(window, "class.stepformer")
    problems |= untranslated(shown_boxes, data)
    assert not problems, "untranslated in Chinese mode:\n" + "\n".join(
        f"{t!r}: {w}" for t, w in sorted(problems.items())
    )


def test_the_language_switches_live_and_is_remembered(qtbot, start_window):
    controller = start_window("two-heads", lang="en")
    state = controller.state
    state.go_to("enc.0.attn.q")
    state.edit_cell("enc.0.attn.W_Q", (0, 0), 2.0)
    english = controller.window
    assert english.menus["file"].title() == "&File" and english.stepper.counter.text().startswith("stage")
    language = english.menus["language"]
    chinese_action = next(a for a in language.actions() if a.data() == "zh")
    chinese_action.trigger()

    window = controller.window
    assert window is english and window.isVisible()  # the same window, in Chinese
    assert window.menus["file"].title() == "文件(&F)" and window.stepper.counter.text().startswith("阶段")
    assert window.windowTitle().startswith(shipped_lessons()[1].title["zh"])
    assert window.stage_view.explanation.text() == op_text("attn.q", "zh")
    assert state.undo_stack.canUndo() and state.current_stage == "enc.0.attn.q"  # the lesson stays as it was
    window.undo_action.trigger()
    assert float(state.trace["enc.0.attn.W_Q"][0, 0]) != 2.0
    state.set_sentences("I love AI AI")
    state.message.emit("still fine")
    assert preferences.read("ui/language", "") == "zh" and preferences.saved_language() == "zh"
    next(a for a in window.menus["language"].actions() if a.data() == "en").trigger()
    assert controller.window.menus["file"].title() == "&File" and preferences.saved_language() == "en"


def test_a_language_switch_leaves_the_settings_file_to_the_worker(qtbot, start_window, monkeypatch, tmp_path):
    """Writing the ini file takes milliseconds: the switch asks the preferences' worker thread to write it, and the
    language is there for whoever reads it next, at once (and in the file written, in the folder of when it was
    asked)."""
    import threading

    controller = start_window("two-heads", lang="en")
    store, writers = preferences._store, []
    monkeypatch.setattr(preferences, "_store", lambda *a: (writers.append(threading.current_thread()), store(*a)))
    controller.set_language("zh")
    own = os.environ[preferences.SETTINGS_DIR_ENV]
    monkeypatch.setenv(preferences.SETTINGS_DIR_ENV, str(tmp_path / "elsewhere"))  # a later read elsewhere
    preferences.written()
    assert writers and threading.main_thread() not in writers
    assert preferences.read("ui/language", "") == ""  # (nothing was written to the other folder)
    monkeypatch.setenv(preferences.SETTINGS_DIR_ENV, own)
    assert preferences.read("ui/language", "") == "zh"
    for lang in ("en", "zh", "en"):  # in the order asked
        preferences.write("ui/language", lang)
    assert preferences.read("ui/language", "") == "en"
    preferences.written()
    assert preferences.settings().value("ui/language") == "en"
    # a read does not wait for the file: the value asked for comes from memory until the worker has written it
    stuck = threading.Event()
    monkeypatch.setattr(preferences, "_store", lambda *a: (stuck.wait(5), store(*a)))
    preferences.write("ui/language", "zh")
    assert preferences.read("ui/language", "") == "zh" and not stuck.is_set()
    stuck.set()
    preferences.written()
    assert preferences.settings().value("ui/language") == "zh" and preferences.read("ui/language", "") == "zh"


def test_a_language_switch_moves_nothing_below_the_bars(qtbot, start_window):
    """A line with Chinese characters is laid out in their font's taller metrics: the menu bar and the toolbar grew
    by a pixel at a switch to Chinese and shrank back at the switch to English, and every dock and the stage view
    below them were resized (each figure fitted, laid out and painted anew) at every switch."""
    controller = start_window("cross-attention", lang="en")
    window = controller.window
    qtbot.waitUntil(lambda: not window.teaching.placement.timer.isActive())  # (placed: a composed slide keeps one)
    for dock in window.teaching.docks():
        dock.show()
    window.show()
    qtbot.waitExposed(window)

    def places() -> list:
        QApplication.processEvents()
        bars = [window.menuBar(), *window.findChildren(QToolBar)]
        docks = [d for d in window.findChildren(QDockWidget) if d.isVisible() and not d.isFloating()]
        return [w.geometry().getRect() for w in [*bars, window.centralWidget(), *docks]]

    english = places()
    controller.set_language("zh")
    chinese = places()
    controller.set_language("en")
    assert chinese == english and places() == english


def test_the_undo_history_speaks_the_new_language(qtbot, start_window):
    controller = start_window("two-heads", lang="en")
    state = controller.state
    state.edit_cell("enc.0.attn.W_Q", (0, 0), 2.0)
    state.set_switch("no_scale", True)
    assert state.undo_stack.undoText() == "What if: No scaling (÷√d_k) — on"
    controller.set_language("zh")
    assert state.undo_stack.undoText() == "假如：去掉缩放（÷√d_k） — 打开"
    edit = state.undo_stack.text(0)
    assert "Encoder" not in edit and "编码器" in edit, edit  # where the cell sits, named in Chinese
    controller.window.undo_action.trigger()
    assert state.undo_stack.redoText() == "假如：去掉缩放（÷√d_k） — 打开"


def window_texts(controller) -> set[str]:
    """The words the window shows once its views have drawn: every string of widget_strings with a letter in it
    (numbers are no language's; a dock tabbed behind another keeps the numbers it drew while it was in front)."""
    window = controller.window
    QApplication.sendPostedEvents()
    teaching = window.teaching
    lazy = (window.docks["neuron"].view, window.docks["lens"].view, window.docks["overview"].view)  # (drawn in sight)
    for view in (window.map_dock.widget(), teaching.heads, teaching.kv_cache, teaching.whatif, *lazy):
        view.timer.stop()
        view.draw()
    window.teaching.cost.draw()
    window.teaching.generation.show_choice()  # (drawn when on screen: one more dock may leave it unsaid until then)
    window.training_step_dock.widget().show_step(window.training_step_dock.widget().step)
    window.stage_view.draw_plots()
    return {text for text in widget_strings(window) if re.search(r"[^\W\d_]", text)}


@pytest.mark.parametrize("lesson", ["two-heads", "cross-attention"])
def test_a_language_switch_changes_the_window_in_place_to_what_a_new_window_shows(qtbot, start_window, lesson):
    """The window switches language in place (no new window: a tenth of the time), and then shows exactly the
    strings a window built in that language shows: every dock open, the training lab and the training step, a
    generated token, an edit and a what-if switch on the undo stack, in both directions."""
    controller = start_window(lesson, lang="en")
    window, state = controller.window, controller.state
    window.resize(2560, 1440)  # room for every dock beside the stage view (a narrower slide keeps one, rebuilt too)
    qtbot.waitUntil(lambda: not window.teaching.placement.timer.isActive())
    for dock in window.docks.values():
        dock.widget.show()
    window.teaching.generation.generate()
    state.set_switch("no_scale", True)
    window.training_step.take_step()
    for lang in ("zh", "en"):
        controller.set_language(lang)
        assert controller.window is window
        qtbot.waitUntil(lambda: QApplication.overrideCursor() is None)  # (busy while the views draw)
        switched = window_texts(controller)
        controller.rebuild_window()  # what a window built in this language shows
        window = controller.window
        built = window_texts(controller)
        assert switched == built, f"{lang}: only after the switch {sorted(switched - built)[:20]}, " + (
            f"only in a new window {sorted(built - switched)[:20]}"
        )


def test_a_switch_back_swaps_in_the_figure_drawn_in_that_language_as_one_drawn_anew(qtbot, start_window, monkeypatch):
    """English, Chinese, an edit, English again: the stage's English figure comes back from the cache (no figure
    built), refreshed with the edit, as the view shows it drawn anew."""
    controller = start_window("two-heads", lang="en")
    view, state = controller.window.stage_view, controller.state
    state.go_to("enc.0.attn.weights")
    view.draw_plots()
    controller.set_language("zh")
    view.draw_plots()
    state.edit_cell("enc.0.attn.W_Q", (0, 0), 0.75)
    built = []
    monkeypatch.setattr("gui.views.stage_view.draw_stage", lambda *a: built.append(a[2]))
    controller.set_language("en")
    view.draw_plots()
    assert built == [] and view.figure.stage == "enc.0.attn.weights"  # swapped in, not built
    monkeypatch.undo()
    view.plot.grab()  # painted: the auto ranges follow the size they are painted at
    swapped = describe(view.plot.ci)
    view.plot.show_layout(view.blank)  # the same stage drawn anew, in the same place
    view.figures.discard()
    view.shown_for = (None, None)
    view.rebuild()
    view.draw_plots()
    view.plot.grab()
    assert_same(swapped, describe(view.plot.ci), "enc.0.attn.weights")


def test_the_default_language_follows_the_system(own_folders):
    script = "from gui.state.preferences import saved_language; print(saved_language())"
    for lang, expected in (("zh_CN.UTF-8", "zh"), ("en_US.UTF-8", "en"), ("de_DE.UTF-8", "en")):
        env = {**os.environ, "LANG": lang, "LC_ALL": lang, "LANGUAGE": ""}
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
        assert out.stdout.strip() == expected, (lang, out.stderr)
    preferences.write("ui/language", "zh")  # a choice made in the menu wins
    assert preferences.saved_language() == "zh"


def test_a_language_switch_shows_the_busy_cursor_until_the_views_have_drawn(qtbot, start_window):
    """The first switch to a language draws every figure shown in it anew (0.3–0.6 s with every dock open): the
    busy cursor shows from the switch until the views have drawn, then the cursor is the teacher's again."""
    controller = start_window("two-heads", lang="en")
    window = controller.window
    window.state.go_to("enc.0.attn.weights")
    window.teaching.heads_action.trigger()
    qtbot.waitUntil(lambda: window.teaching.heads.figure is not None)
    assert QApplication.overrideCursor() is None
    drawn = []
    window.teaching.heads.timer.timeout.connect(lambda: drawn.append(QApplication.overrideCursor() is not None))
    controller.set_language("zh")
    assert QApplication.overrideCursor().shape() == Qt.CursorShape.WaitCursor
    qtbot.waitUntil(lambda: QApplication.overrideCursor() is None)
    assert drawn == [True]  # the heads drew (in Chinese) under the busy cursor
    assert "头" in window.teaching.heads_dock.windowTitle()


# The symbols the formulas and explanations share with the Chinese lessons (../seeds write them so in Chinese):
# functions (softmax, LN, FFN, Attention(x) in x + Attention(x)), the names the lessons give the attention's
# matrices (scores = Q·Kᵀ, logits), and the subscripts of letters (X_dec, m_old, W_pos, Q_rot).
SYMBOLS = {
    *("softmax", "Softmax", "LayerNorm", "LN", "ReLU", "GELU", "SiLU", "SwiGLU", "sigmoid", "tanh", "RoPE"),
    *("FFN", "Attention", "CrossAttention", "FlashAttention", "Transformer", "PE", "KV", "Adam"),
    *("sin", "cos", "max", "rowmax", "log", "exp", "diag"),
    *("scores", "scaled", "masked", "logits", "logit", "Logits", "Logit"),
    *("dec", "enc", "old", "pos", "rot"),
    *("Llama", "Qwen", "Mistral", "GPT", "BERT"),  # the models' own names
}


def english_in_chinese(text: str, tokens: set[str]) -> list[str]:
    """The English words of a Chinese `text`, inside identifiers too (x_norm, d_model, add1), that are neither
    SYMBOLS nor the sentence's own tokens."""
    text = re.sub(r"<[^>]+>", " ", text)  # rich text, and <start>
    text = re.sub(r"_[a-z]{1,2}\b", " ", text)  # indices: a_ij, v_j, d_k, d_ff
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in SYMBOLS and w not in tokens]


def test_the_symbol_rule_finds_words_and_ids_and_lets_symbols_and_tokens_through():
    assert english_in_chinese("x + Attention(LN(x)) · W_Q · d_k · 分数 = Q·Kᵀ · 我 爱 AI · <start>", {"AI"}) == []
    assert english_in_chinese("add1 = x + Sublayer(x) · x_norm · H_act · d_model · token", set()) == [
        *("add", "Sublayer", "norm", "act", "model", "token")
    ]


def stage_texts_zh(trace, name: str) -> dict[str, str]:
    """What the window and the exports write about a stage in Chinese: title, where it is, formula, explanation,
    the caption of its matrix and the letters of its tables."""
    from gui.export.deck import slide_for
    from gui.plots import PlotOptions
    from gui.text.operations import matrix_caption

    slide = slide_for(trace, name, PlotOptions(lang="zh"))
    return {
        "title": slide.title,
        "place": slide.subtitle,
        "formula": slide.formula,
        "explanation": slide.notes,
        "caption": matrix_caption(stage_op(trace, name), "zh") or "",
        "letters": " ".join(m.symbol for m in slide.matrices),
    }


def test_chinese_stages_use_chinese_words_and_the_lessons_symbols_never_stage_ids(own_folders):  # noqa: F811
    """Every shipped lesson's stages in Chinese (the issue found add1 = x + Attention(x), Concat, ids =
    vocab[tokens], x_norm, H_act, d_model, Sublayer and token there)."""
    i18n.set_language(QApplication.instance(), "zh")
    found = {}
    for info in shipped_lessons():
        trace = open_source(lesson=info.name).trace()
        tokens = {t for words in trace.tokens.values() for t in words}
        for name in trace.stage_names:
            for what, text in stage_texts_zh(trace, name).items():
                if words := english_in_chinese(text, tokens):
                    found.setdefault(f"{what}: {text}", (info.name, name, words))
    assert not found, "\n".join(f"{k}  ← {v}" for k, v in sorted(found.items()))


def test_chinese_figures_name_the_model_and_the_token_ids_in_chinese(own_folders):  # noqa: F811
    """The line under every figure's title (said "d_model 4 · post-LN" in Chinese) and the column of a stack's
    token ids (headed "id"), for every shipped lesson."""
    from gui.plots import PlotOptions
    from gui.plots.figure import model_line
    from gui.plots.matrix import stage_matrix

    found = {}
    for info in shipped_lessons():
        trace = open_source(lesson=info.name).trace()
        tokens = {t for words in trace.tokens.values() for t in words}
        line = model_line(trace.config, "zh")
        for name in trace.token_stages:
            _, _, columns = stage_matrix(trace, name, PlotOptions(lang="zh"))
            line += " " + " ".join(columns)
        if words := english_in_chinese(line, tokens):
            found[info.name] = (line, words)
    assert not found, found
