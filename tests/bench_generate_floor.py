"""What a generated token costs at the least with pyqtgraph, beside what it costs in the app.

    python tests/bench_generate_floor.py [--tokens 40]

`tests/bench_scale.py` times Generate next token on the masked-decoder lesson with the Generate and KV cache docks
open (window 1600×1000). At each token everything on that screen changes shape: a row more in the stage view's two
tables (logits and p) and its heatmap, new bars under it, new bars in the Generate dock, a row more in the KV
cache's two heatmaps and a pair of bars more under them.

Here the same screen is built from plain pieces, nothing of Stepformer's: two QTableViews on a bare table model, and
six pyqtgraph PlotItems (three ImageItems, one with a ColorBarItem, three BarGraphItems) with their tick labels and
titles, in a 1600×1000 window. A "token" sets every piece to the next length (3 … 12 rows), as the app does, and is
timed until the event loop is idle, as `bench_scale` times the app. No numbers in the cells of a heatmap, no
captions, no map, no stage list, no engine, no autosave: it is a floor, not a rival. Then the app's own Generate is
timed in the same run (`bench_scale.generation`).

The last line is `generate median ms: app=<a> plain=<p> ratio=<a/p>`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
import torch  # noqa: E402
from PySide6.QtCore import QAbstractTableModel, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMainWindow, QTableView, QVBoxLayout, QWidget  # noqa: E402

from gui.idle_collection import collect_between_events  # noqa: E402
from tests.bench_actions import settle, timed  # noqa: E402
from tests.bench_scale import generation  # noqa: E402

VOCAB = 7  # the masked-decoder lesson's vocabulary: columns of logits and p
D_K = 4  # columns of its cached K and V
TOP = 10  # bars in the Generate dock (gui/plots/kv_cache.TOP_CANDIDATES)


class Numbers(QAbstractTableModel):
    """A bare table of numbers as text."""

    def __init__(self):
        super().__init__()
        self.values = np.zeros((0, VOCAB))

    def rowCount(self, parent=None) -> int:
        return self.values.shape[0]

    def columnCount(self, parent=None) -> int:
        return self.values.shape[1]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{self.values[index.row(), index.column()]:.3f}"
        return None

    def set(self, values: np.ndarray) -> None:
        self.beginResetModel()
        self.values = values
        self.endResetModel()


class PlainScreen(QMainWindow):
    """The generate screen's tables and figures, plain."""

    def __init__(self):
        super().__init__()
        central = QWidget(self)
        self.setCentralWidget(central)
        row = QHBoxLayout(central)
        column = QVBoxLayout()
        row.addLayout(column)
        self.tables = []
        for _ in range(2):
            view, model = QTableView(), Numbers()
            view.setModel(model)
            column.addWidget(view)
            self.tables.append((view, model))
        stage, docks = pg.GraphicsLayoutWidget(), pg.GraphicsLayoutWidget()
        row.addWidget(stage)
        row.addWidget(docks)
        self.heatmaps = [self._heatmap(stage, 0, 0, VOCAB), self._heatmap(docks, 1, 0, D_K)]
        self.heatmaps.append(self._heatmap(docks, 1, 1, D_K))
        colour_bar = pg.ColorBarItem(values=(0, 1))
        colour_bar.setImageItem(self.heatmaps[0][1], insert_in=self.heatmaps[0][0])
        self.bars = [self._bars(stage, 1, 0, 1), self._bars(docks, 0, 0, 2), self._bars(docks, 2, 0, 2)]

    @staticmethod
    def _heatmap(layout: pg.GraphicsLayoutWidget, row: int, col: int, cols: int):
        plot = layout.addPlot(row=row, col=col)
        image = pg.ImageItem()
        plot.addItem(image)
        return plot, image, cols

    @staticmethod
    def _bars(layout: pg.GraphicsLayoutWidget, row: int, col: int, span: int):
        plot = layout.addPlot(row=row, col=col, colspan=span)
        bars = pg.BarGraphItem(x=[0], height=[1], width=0.8)
        plot.addItem(bars)
        return plot, bars

    def show_tokens(self, n: int, rng: np.random.Generator) -> None:
        """Every piece at a sentence of n tokens."""
        tokens = [f"token {i}" for i in range(n)]
        for view, model in self.tables:
            model.set(rng.random((n, VOCAB)))
            view.resizeColumnsToContents()
        for plot, image, cols in self.heatmaps:
            image.setImage(rng.random((cols, n)))
            plot.setRange(xRange=(0, cols), yRange=(0, n), padding=0)
            plot.getAxis("left").setTicks([[(i + 0.5, t) for i, t in enumerate(tokens)]])
            plot.getAxis("bottom").setTicks([[(i + 0.5, str(i)) for i in range(cols)]])
            plot.setTitle(f"{n} rows")
        for (plot, bars), count in zip(self.bars, (TOP, TOP, 2 * n)):
            bars.setOpts(x=np.arange(count), height=rng.random(count))
            plot.setRange(xRange=(-0.5, count - 0.5), yRange=(0, 1))
            plot.getAxis("bottom").setTicks([[(i, f"t{i}") for i in range(count)]])
            plot.setTitle(f"{count} bars")


def plain_tokens(app: QApplication, tokens: int) -> list[float]:
    screen = PlainScreen()
    screen.resize(1600, 1000)
    screen.show()
    settle(app)
    rng = np.random.default_rng(0)
    times = [timed(app, lambda k=k: screen.show_tokens(3 + k % 10, rng)) for k in range(tokens)]
    screen.close()
    settle(app)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=40, help="tokens timed on the plain screen")
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the app runs
    app = QApplication.instance() or QApplication([])
    collect_between_events()  # as the app does (gui/app.py), for both screens
    pg.setConfigOptions(background="w", foreground="k", antialias=True)
    plain = statistics.median(plain_tokens(app, max(10, args.tokens)))
    app_ms = statistics.median(generation(app))
    print(f"generate median ms: app={app_ms:.1f} plain={plain:.1f} ratio={app_ms / plain:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
