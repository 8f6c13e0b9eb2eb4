"""Texts that follow a language switch in place (what Designer's retranslateUi does): a widget sets each fixed
text through `LiveTexts.set` with the function that makes it (its `tr()` call), and `retranslate()` sets them all
again once the new language's translators are installed, so the window is not built anew for a language."""

from __future__ import annotations

from collections.abc import Callable


class LiveTexts:
    def __init__(self) -> None:
        self._texts: list[tuple[Callable[[str], object], Callable[[], str]]] = []

    def set(self, setter: Callable[[str], object], text: Callable[[], str]) -> None:
        """`setter(text())` now and at every language switch (e.g. `label.setText`, `lambda: self.tr("Seed:")`)."""
        setter(text())
        self._texts.append((setter, text))

    def retranslate(self) -> None:
        for setter, text in self._texts:
            setter(text())
