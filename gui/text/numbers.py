"""How Stepformer writes a number: in the window's tables, in a plot's cells and in an exported matrix. One
function, so a NaN, an infinity or a minus sign reads the same everywhere; the three places differ only where
their room or their readers do (the `style`)."""

from __future__ import annotations

import math


def format_number(value: float, decimals: int = 2, integer: bool = False, style: str = "table") -> str:
    """`value` with `decimals` places and a true minus sign (−), never on a value that rounds to zero; NaN, −∞
    and +∞ by name; `integer` (token ids) as a whole number. The style says what else applies:

    - "table": a matrix in the window; 4 significant digits from 1000 on, where places would only widen the column;
    - "plot": a cell of a small plot; a whole number from 100 on, and ∞ without a sign;
    - "file": LaTeX or CSV; plain ASCII (-, inf, nan), always `decimals` places, never −0.
    """
    value = float(value)
    file = style == "file"
    if math.isnan(value):
        return "nan" if file else "NaN"
    if math.isinf(value):
        if file:
            return "-inf" if value < 0 else "inf"
        return "−∞" if value < 0 else ("∞" if style == "plot" else "+∞")
    if file:
        return f"{round(value, decimals) + 0.0:.{decimals}f}"  # + 0.0 turns −0.0 into 0.0
    if integer:
        text = str(int(value))
    elif style == "plot" and abs(value) >= 100:
        text = f"{value:.0f}"
    elif style == "table" and abs(value) >= 1000:
        text = f"{value:.4g}"
    else:
        text = f"{value:.{decimals}f}"
    if text.startswith("-") and float(text) == 0:  # −0.001 rounds to zero: "0.00", never "−0.00"
        text = text[1:]
    return text.replace("-", "−")


LOSS_DECIMALS = 4  # places of the loss before and after a training step …
MAX_LOSS_DECIMALS = 12  # … or more, up to these, until the two differ


def loss_texts(before: float, after: float) -> tuple[str, str]:
    """The loss before and after a step, with LOSS_DECIMALS places or as many more as it takes for a change to
    show (a toy model's loss of 0.0001 moves in the sixth place: "0.0001 → 0.0001" hid that it moved); a loss that
    did not move keeps LOSS_DECIMALS."""
    for places in range(LOSS_DECIMALS, MAX_LOSS_DECIMALS + 1):
        texts = f"{before:.{places}f}", f"{after:.{places}f}"
        if texts[0] != texts[1]:
            return texts
    return f"{before:.{LOSS_DECIMALS}f}", f"{after:.{LOSS_DECIMALS}f}"  # it did not move
