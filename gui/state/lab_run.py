"""The training lab's run (engine/training/lab.py's experiments), owned by the app state, not by the window: a window
built anew (F5, Esc, the text size) or closed leaves it running, and the new window's lab dock draws it where it was
(its curves, gradient bars, watched attention, status and verdict) from what this object recorded.

A LabRunner thread advances the experiment's generator and sends each step here by a queued signal; this object
records it and tells the views (gui/docks/training_lab.py) through its own signals. It is the only owner of the
thread: `stop()` ends it (after the step under way) and waits for it, and the app state stops it before it goes.
"""

from __future__ import annotations

import atexit
import threading
import weakref

from PySide6.QtCore import QObject, QThread, Signal
from shiboken6 import isValid

from engine.training.lab import EXPERIMENTS, experiment

Key = tuple[str, int]  # (arm, seed); seed −1: an experiment that does not train, one line of one number per seed


class LabRunner(QThread):
    """Advances an experiment's generator; pauses between steps, stops by closing it."""

    progressed = Signal(object)  # engine.training.lab.Progress
    finished_with = Signal(object)  # the result dict, or None when stopped

    def __init__(self, run, parent=None):
        super().__init__(parent)
        self.generator = run
        self.going = threading.Event()
        self.going.set()
        self.stopping = False
        self.waiting = False  # paused between two steps, waiting for Resume or Stop

    def run(self) -> None:
        while True:
            self.waiting = not self.going.is_set()
            self.going.wait()
            self.waiting = False
            if self.stopping:
                self.generator.close()
                self.finished_with.emit(None)
                return
            try:
                progress = next(self.generator)
            except StopIteration as done:
                self.finished_with.emit(done.value)
                return
            self.progressed.emit(progress)

    def pause(self, paused: bool) -> None:
        (self.going.clear if paused else self.going.set)()

    def stop(self) -> None:
        self.stopping = True
        self.going.set()

    def end(self, *_) -> None:
        """Stop and wait: the thread has ended when this returns."""
        self.stop()
        self.wait()


_RUNNERS: weakref.WeakSet[LabRunner] = weakref.WeakSet()  # every runner made, while it lives


@atexit.register
def _end_every_run() -> None:
    """The process ends (however: a script that never closed its window too): every run stops first, before the
    modules its step uses are torn down under it."""
    for runner in list(_RUNNERS):
        if isValid(runner):
            runner.end()


class LabRun(QObject):
    """One run of the lab at a time, and what it drew: every curve's points, the last gradient norms, the model of
    the last step and of the step whose attention is watched, the result; and the teacher's choices in the lab (the
    experiment, the layer and head watched), so a new window's lab shows the same."""

    started = Signal(str)  # the experiment: the views clear their plots
    progressed = Signal(object)  # engine.training.lab.Progress, recorded
    finished = Signal(object)  # the result dict, or None when stopped
    pausedChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.runner: LabRunner | None = None
        self.active = False  # from start() until the run's end is recorded (its thread may have ended before)
        self.chosen = next(iter(EXPERIMENTS))  # the experiment the lab's box shows
        self.watch_layer: int | None = None  # the watched head's layer and head (None: the last layer, head 0)
        self.watch_head = 0
        self.paused = False
        self._clear(None)

    def _clear(self, name: str | None) -> None:
        self.shown = name  # the experiment whose curves are recorded
        self.curves: dict[Key, tuple[list, list]] = {}
        self.points = name is not None and EXPERIMENTS[name].steps is None  # dots per seed, not a line per step
        self.layers: list[str] = []  # the gradient bars' layers: dec.embed, dec.0, …, unembed
        self.grad_norms: list[float] = []
        self.last = None  # the last Progress (the status line)
        self.latest = None  # the last Progress with a model
        self.watched = None  # the Progress whose model's attention is shown
        self.result: dict | None = None
        self.stopped = False

    @property
    def running(self) -> bool:
        return self.active

    @property
    def trains(self) -> bool:
        return self.shown is not None and EXPERIMENTS[self.shown].steps is not None

    def start(self, name: str, seeds: int | None = None, steps: int | None = None) -> None:
        """Run an experiment (its default seeds and steps unless given). Raises EngineError for a bad choice, and
        nothing changes; a run under way goes on (the caller checks `running`)."""
        run = experiment(name, seeds, steps)
        self.chosen = name
        self._clear(name)
        self.paused = False
        self.active = True
        self.runner = LabRunner(run, self)
        self.runner.progressed.connect(self._progressed)
        self.runner.finished_with.connect(self._finished)
        # however this object goes (its owner deleted, the process ending), its thread ends first: a QThread
        # destroyed while running aborts the process
        # (a function, not the runner's bound method: a slot looked up on a runner the garbage collector has begun
        # to clear is "not found")
        self.destroyed.connect(lambda *_, runner=self.runner: runner.end())
        _RUNNERS.add(self.runner)
        self.started.emit(name)
        self.runner.start()

    def pause(self, paused: bool) -> None:
        self.paused = paused
        if self.runner is not None:
            self.runner.pause(paused)
        self.pausedChanged.emit(paused)

    def stop(self) -> None:
        """Stop after the step under way (what was recorded stays): the thread has ended when this returns, and
        the run is recorded as stopped (the steps it had still queued for this object are dropped)."""
        if self.runner is not None:
            self.runner.stop()
            self.runner.wait()
        if self.active:
            self._end(None)

    def _progressed(self, progress) -> None:
        if not self.active or self.sender() is not self.runner:  # a stopped run's last queued step
            return
        trains = progress.grad_norms is not None
        key = (progress.arm, progress.seed if trains else -1)
        xs, ys = self.curves.setdefault(key, ([], []))
        xs.append(progress.step if trains else progress.seed)
        ys.append(progress.value)  # (None: no number at this step)
        self.last = progress
        if trains:
            self.latest = progress
            self.layers = list(progress.grad_norms)
            self.grad_norms = list(progress.grad_norms.values())
        self.progressed.emit(progress)

    def watch(self, progress) -> None:
        """Watch this step's model (the lab re-traces it every few steps)."""
        self.watched = progress

    def _finished(self, result: dict | None) -> None:
        if self.active and self.sender() is self.runner:
            self.runner.wait()
            self._end(result)

    def _end(self, result: dict | None) -> None:
        self.active = self.paused = False
        if result is None:
            self.stopped = True
        else:
            self.result = result
            x = result["x"]
            if x["label"] != "step":  # the whole curves over layers, d_k or positions
                xs = x["values"]
                self.curves = {
                    (s["arm"], s["seed"]): (list(xs or range(len(s["values"]))), list(s["values"]))
                    for s in result["series"]
                }
                self.points = True
        self.finished.emit(result)
