"""Python's cyclic garbage collector runs between Qt events, never inside one.

Left automatic, a collection starts whenever allocations cross a threshold: also inside a call from Qt into
Python (a paint, a layout pass, a size hint), where it could free pyqtgraph items Qt is still drawing or laying
out. pyqtgraph's GarbageCollector turns the automatic collection off and collects from a timer in the GUI thread
instead, generation by generation, when the usual thresholds are crossed. (Whenever it runs, the collector must
never meet a cycle holding Qt items that are still alive: the figure cache deletes the figures it lets go itself,
gui/plots/view.py.)

The objects made by importing torch, pyqtgraph and the app are frozen out of the collector's view first (not
collected: the imports leave next to no garbage, and a whole-heap scan then took 0.1 s of the start): a full
collection then scans what the lessons made, in milliseconds instead of the ~0.5 s a whole-heap scan takes in
the middle of an action.
"""

from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

INTERVAL_S = 0.25  # how often the timer looks at the allocation counts (a look costs nothing)

_collector: GarbageCollector | None = None


def collect_between_events() -> None:
    """From now on (once per process, in the GUI thread with its QApplication made) collect only between events."""
    global _collector
    if _collector is not None:
        return
    gc.freeze()
    _collector = GarbageCollector(interval=INTERVAL_S)
