"""The one place that reads or writes pyqtgraph's private attributes (names starting with _): the plots reach past
its public interface for speed in a few places, and a pyqtgraph release may rename what they reach. PRIVATE lists
each name by the class that has it; tests/test_pyqtgraph_compat.py checks that the installed pyqtgraph still has
every one, and that no other file of gui/ names them (pyproject.toml bounds pyqtgraph below its next minor).

    fixed_tick_levels(axis)            # the ticks setTicks gave it, or None (its ticks are automatic)
    report_label_width(axis, width)    # the widest tick label, as pyqtgraph's own layout reports it
    ExactTextWidth                     # a mixin: an axis exactly as wide as its labels
    readied_in(text, scene)            # whether a text item readies its transform before each paint of the scene
    needs_render(image), rendered(image), changed_in_place(image)   # an ImageItem's render bookkeeping
"""

from __future__ import annotations

import pyqtgraph as pg

PRIVATE: dict[type, tuple[str, ...]] = {
    pg.AxisItem: ("_tickLevels", "_updateMaxTextSize", "_updateWidth"),
    pg.TextItem: ("_lastScene",),
    pg.ImageItem: ("_renderRequired", "_unrenderable", "_imageHasNans", "_imageNanLocations"),
}


def fixed_tick_levels(axis: pg.AxisItem) -> list | None:
    """The levels of ticks setTicks gave the axis ([[(value, text)]], one list per level), or None when pyqtgraph
    chooses them."""
    return axis._tickLevels


def report_label_width(axis: pg.AxisItem, width: int) -> None:
    """Tell the axis the width (height, for a horizontal one) of its widest tick label, as its generateDrawSpecs
    does: pyqtgraph resizes the axis to fit its labels from this."""
    axis._updateMaxTextSize(width)


class ExactTextWidth:
    """A mixin for an AxisItem (listed before it): the axis is exactly as wide as its labels. pyqtgraph keeps up to
    10 px more after they narrow (a panned axis does not jitter then)."""

    def _updateMaxTextSize(self, x: int) -> None:
        if x != self.textWidth:
            self.textWidth = x
            self._updateWidth()


def readied_in(text: pg.TextItem, scene) -> bool:
    """Whether the text item has connected its updateTransform to the scene's sigPrepareForPaint (pyqtgraph does so
    at its first paint in a scene, and disconnects it from the scene before)."""
    return text._lastScene is scene


def needs_render(image: pg.ImageItem) -> bool:
    """Whether the image's values, levels or lookup table changed since it was last rendered."""
    return image._renderRequired


def rendered(image: pg.ImageItem) -> None:
    """Record that the image was rendered by a subclass's own render, as pyqtgraph's render records it."""
    image._renderRequired, image._unrenderable = False, False


def changed_in_place(image: pg.ImageItem) -> None:
    """Record that image.image was given new values of the same shape without setImage, as setImage records it:
    rendered again at the next paint, its NaNs looked for afresh."""
    image._renderRequired, image._imageHasNans, image._imageNanLocations = True, None, None
