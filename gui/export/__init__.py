"""Figure and lesson export for slides: PNG/SVG/PDF figures, LaTeX/CSV matrices, PDF/PPTX decks.

export_deck picks the deck's writer here (deck.py for a PDF, pptx.py for a PPTX, which reads deck.py's slides).
"""

from dataclasses import replace
from pathlib import Path

from engine import EngineError
from engine.budget import PICTURE_BYTES, check_export
from engine.formats.files import check_target

from .deck import OPENING_PAGES, Progress, slides, write_pdf_deck
from .figure import FORMATS, copy_figure, export_figure
from .matrix import MATRIX_FORMATS, export_matrix, to_csv, to_latex

DECK_FORMATS = ("pdf", "pptx")

__all__ = [
    "DECK_FORMATS",
    "FORMATS",
    "MATRIX_FORMATS",
    "copy_figure",
    "export_deck",
    "export_figure",
    "export_matrix",
    "to_csv",
    "to_latex",
]


def export_deck(
    trace,
    opts,
    path: str | Path,
    fmt: str | None = None,
    progress: Progress | None = None,
    stages: list[str] | None = None,
    inset: bool = True,
) -> int:
    """Write the lesson as a .pdf or .pptx deck: the map, the overview of every head, then one page/slide per stage
    (of `stages`, default all), each with a small "you are here" map when `inset`; returns the count. The figures are
    drawn one at a time; a deck that would not fit the memory budget (engine/budget.py) is refused before any is
    drawn."""
    path = Path(path)
    check_target(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in DECK_FORMATS:
        raise EngineError(
            f"cannot export slides as {fmt or 'a file without extension'!r}; use one of {', '.join(DECK_FORMATS)}"
        )
    shown = [name for name in trace.stage_names if stages is None or name in stages]
    pages = len(shown) + OPENING_PAGES  # the map and the overview first
    # a PPTX holds every slide's pictures until it is zipped; a PDF's pages go to disk as they are drawn
    check_export(trace, f"these {pages} slides", pages * PICTURE_BYTES if fmt == "pptx" else 0)
    opts = replace(opts, slide=True, title=False)  # each slide's title is the slide's own
    deck = slides(trace, opts, shown)
    if fmt == "pdf":
        return write_pdf_deck(trace, opts, deck, path, progress, inset)
    from .pptx import write_pptx_deck  # python-pptx loads only when a PPTX is asked for

    return write_pptx_deck(trace, opts, deck, path, progress, inset)
