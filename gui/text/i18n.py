"""Chinese and English: Qt translators for the window's strings (assets/i18n/stepformer_zh_CN.qm, made by
`make i18n` from the .ts that Qt Linguist edits) and Qt's own (qtbase: standard buttons, file dialogs).

Teaching texts (stage explanations, lesson titles and descriptions) are data with "en" and "zh" versions;
the views pick them by the language of the display settings (gui/state/display.py).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLibraryInfo, QLocale, QTranslator

from engine.assets import ASSETS_DIR

I18N_DIR = ASSETS_DIR / "i18n"
LANGUAGES = {"en": "English", "zh": "中文"}  # each in its own language: findable whatever is shown now
QT_LOCALES = {"en": "en_US", "zh": "zh_CN"}

# pyqtgraph's own right-click entry on every plot; listed so that lupdate files it for translation.
PYQTGRAPH_STRINGS = (QT_TRANSLATE_NOOP("GraphicsScene", "Export..."),)

_installed: list[QTranslator] = []


class Translator(QTranslator):
    """pyside6-lupdate files the strings of module-level `tr()` helpers under the empty context, whatever
    context the helper asks for at run time; a lookup that misses its own context looks there too."""

    def translate(self, context, source_text, disambiguation=None, n=-1):
        found = super().translate(context, source_text, disambiguation, n)
        found = found or super().translate("", source_text, disambiguation, n)
        # None (a null QString) tells Qt "not here", so an untranslated string falls back to English;
        # an empty string would be shown as a blank.
        return found or None


def system_language() -> str:
    return "zh" if QLocale.system().language() == QLocale.Chinese else "en"


def catalogue(lang: str) -> Translator | None:
    """Stepformer's own translations for `lang` (None for English, the source language)."""
    if lang == "en":
        return None
    translator = Translator()
    return translator if translator.load(f"stepformer_{QT_LOCALES[lang]}", str(I18N_DIR)) else None


def set_language(app: QCoreApplication, lang: str) -> None:
    """Install the translators for `lang` (removing the previous ones). Widgets built afterwards speak it;
    the window's retranslate() changes what is already shown, in place."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    QLocale.setDefault(QLocale(QT_LOCALES[lang]))
    ours = catalogue(lang)
    if ours is not None:
        _installed.append(ours)
    qt = QTranslator()
    if lang != "en" and qt.load(f"qtbase_{QT_LOCALES[lang]}", QLibraryInfo.path(QLibraryInfo.TranslationsPath)):
        _installed.append(qt)
    for translator in _installed:
        app.installTranslator(translator)
