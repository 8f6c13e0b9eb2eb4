"""A matrix as LaTeX (bmatrix) or CSV with a chosen number of decimals."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from engine import EngineError
from engine.formats.files import write_atomic
from gui.plots import PlotOptions
from gui.plots.matrix import stage_matrix
from gui.text.numbers import format_number

MATRIX_FORMATS = ("tex", "csv")


def matrix_of(trace, name: str, head: int = 0) -> tuple[np.ndarray, list[str], list[str]]:
    """(values [r, c], row labels, column labels) of a stage or parameter; per-head stages give one head."""
    if name in trace.stage_names:
        return stage_matrix(trace, name, PlotOptions(head=head))
    if name not in trace:
        raise EngineError(f"no stage or parameter named {name!r}")
    m = np.atleast_2d(trace[name].detach().double().numpy())  # a parameter (or its gradient); a bias [d] is one row
    return m, [str(i) for i in range(m.shape[0])], [str(j) for j in range(m.shape[1])]


def to_latex(matrix: np.ndarray, decimals: int = 2) -> str:
    """\\begin{bmatrix} a & b \\\\ c & d \\end{bmatrix}; −∞ as -\\infty."""

    def cell(v: float) -> str:
        return format_number(v, decimals, style="file").replace("inf", "\\infty")

    rows = [" & ".join(cell(v) for v in row) for row in np.atleast_2d(matrix)]
    return "\\begin{bmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{bmatrix}\n"


def to_csv(matrix: np.ndarray, decimals: int = 2, rows: list[str] | None = None, cols: list[str] | None = None) -> str:
    """A header of column labels, then one line per row starting with its label."""
    matrix = np.atleast_2d(matrix)
    rows = rows or [str(i) for i in range(matrix.shape[0])]
    cols = cols or [str(j) for j in range(matrix.shape[1])]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *cols])
    for label, row in zip(rows, matrix):
        writer.writerow([label, *(format_number(v, decimals, style="file") for v in row)])
    return out.getvalue()


def check_decimals(decimals: int) -> int:
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 8:
        raise EngineError(f"decimals must be a whole number from 0 to 8, got {decimals!r}")
    return decimals


def export_matrix(trace, name: str, path: str | Path, decimals: int = 2, head: int = 0, fmt: str | None = None) -> Path:
    """Write a stage's or parameter's matrix as .tex (bmatrix) or .csv."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in MATRIX_FORMATS:
        raise EngineError(f"cannot export a matrix as {fmt!r}; use one of {', '.join(MATRIX_FORMATS)}")
    decimals = check_decimals(decimals)
    m, rows, cols = matrix_of(trace, name, head)
    text = to_latex(m, decimals) if fmt == "tex" else to_csv(m, decimals, rows, cols)
    write_atomic(path, text.encode("utf-8"))
    return path
