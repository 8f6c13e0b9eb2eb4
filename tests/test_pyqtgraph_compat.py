"""pyqtgraph's private attributes are used in gui/plots/pyqtgraph_compat.py only, and the installed pyqtgraph still has
each of them: an upgrade that renames one fails here, not in the classroom."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from gui.plots import pyqtgraph_compat as compat

GUI = Path(__file__).resolve().parent.parent / "gui"
COMPAT = GUI / "plots" / "pyqtgraph_compat.py"
LISTED = {name for names in compat.PRIVATE.values() for name in names}


def private_names(path: Path) -> set[str]:
    """The private names (not dunder) a file reads or writes as attributes or defines as methods."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def instance_of(cls: type):
    return cls("left") if cls is pg.AxisItem else cls()


@pytest.mark.parametrize("cls", list(compat.PRIVATE), ids=lambda cls: cls.__name__)
def test_the_installed_pyqtgraph_has_every_private_attribute_the_compat_module_uses(qapp, cls):
    item = instance_of(cls)
    missing = [name for name in compat.PRIVATE[cls] if not hasattr(item, name)]
    assert not missing, f"pyqtgraph {pg.__version__} has no {cls.__name__}.{missing}: update pyqtgraph_compat.py"


def test_the_compat_module_lists_every_private_name_it_uses():
    assert private_names(COMPAT) <= LISTED, private_names(COMPAT) - LISTED


def test_no_other_gui_file_uses_pyqtgraphs_private_attributes():
    users = {
        str(path.relative_to(GUI)): sorted(private_names(path) & LISTED)
        for path in GUI.rglob("*.py")
        if path != COMPAT and private_names(path) & LISTED
    }
    assert not users, f"pyqtgraph's private attributes used outside gui/plots/pyqtgraph_compat.py: {users}"


def test_fixed_tick_levels_are_the_ticks_set_or_none(qapp):
    axis = pg.AxisItem("bottom")
    assert compat.fixed_tick_levels(axis) is None
    axis.setTicks([[(0, "a"), (1, "b")]])
    assert compat.fixed_tick_levels(axis) == [[(0, "a"), (1, "b")]]


def test_an_exact_axis_narrows_with_its_labels_where_pyqtgraphs_keeps_spare_room(qapp):
    class ExactAxis(compat.ExactTextWidth, pg.AxisItem):
        pass

    plain, exact = pg.AxisItem("left"), ExactAxis("left")
    for axis in (plain, exact):
        compat.report_label_width(axis, 40)
        compat.report_label_width(axis, 35)
    assert plain.textWidth == 40  # pyqtgraph keeps up to 10 px more
    assert exact.textWidth == 35
    assert exact.minimumWidth() < plain.minimumWidth()


def test_a_text_item_is_readied_in_the_scene_it_was_painted_in(qapp):
    scene, text = pg.GraphicsScene(), pg.TextItem("x")
    scene.addItem(text)
    assert not compat.readied_in(text, scene)
    picture = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(picture)
    scene.render(painter)
    painter.end()
    assert compat.readied_in(text, scene)
    scene.removeItem(text)  # (a bare scene deleted with its text item still in it crashes)


def test_an_image_changed_in_place_is_rendered_again(qapp):
    image = pg.ImageItem(np.zeros((2, 2)), levels=(0, 1))
    image.render()
    assert not compat.needs_render(image)
    compat.changed_in_place(image)
    assert compat.needs_render(image)
    compat.rendered(image)
    assert not compat.needs_render(image)
