"""Figure and lesson export for slides: PNG/SVG/PDF figures, LaTeX/CSV matrices, PDF/PPTX decks."""

from .deck import DECK_FORMATS, export_deck
from .figure import FORMATS, copy_figure, export_figure
from .matrix import MATRIX_FORMATS, export_matrix, to_csv, to_latex

__all__ = ["DECK_FORMATS", "FORMATS", "MATRIX_FORMATS", "copy_figure", "export_deck", "export_figure",
           "export_matrix", "to_csv", "to_latex"]
